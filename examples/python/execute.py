"""Execute a notebook top to bottom (CI runs the example this way); fails on any error."""

import os
import sys

import nbformat
from nbclient import NotebookClient

path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}}).execute()
cells = sum(1 for c in nb.cells if c.cell_type == "code")
print(f"{path}: {cells} code cells executed")

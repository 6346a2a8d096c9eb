"""fabricsim: a fast packet-level simulator of supercomputer interconnects, from Python.

A thin layer over the Rust library (the native module ``fabricsim._native``): scenarios as
dicts, TOML files or presets; runs that release the GIL; results as pandas DataFrames; sweeps
on any :class:`concurrent.futures.Executor`. See docs/python.md in the repository.

>>> import fabricsim
>>> s = fabricsim.Scenario({"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}})
>>> r = fabricsim.run(s)
>>> r.summary["nodes"]
16
"""

from ._errors import FabricsimError, FileError, InternalError, ScenarioError, SimulationError
from ._map import MapResult, map
from ._run import RunResult, Simulation, default_toml, info, preset_toml, presets, run, validate
from ._scenario import Scenario
from ._sweep import collective, sweep

__version__ = "0.1.0"

__all__ = [
    "Scenario",
    "run",
    "RunResult",
    "Simulation",
    "sweep",
    "collective",
    "map",
    "MapResult",
    "info",
    "validate",
    "presets",
    "preset_toml",
    "default_toml",
    "FabricsimError",
    "ScenarioError",
    "SimulationError",
    "FileError",
    "InternalError",
]

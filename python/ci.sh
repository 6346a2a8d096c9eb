#!/usr/bin/env bash
# CI for the Python package (called by .ci/run after the Rust checks): builds it from source
# with pip in a fresh virtualenv, as a new user would (`pip install ./python`), then runs its
# pytest suite, mypy on the package and its stubs, and the example notebook. Installs only
# from PyPI (and python3-venv from Debian when `python3 -m venv` cannot make a virtualenv).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m venv "$tmp/probe" >/dev/null 2>&1; then
  echo "python3 -m venv fails; installing python3-venv" >&2
  apt-get update -qq && apt-get install -y -qq python3-venv
fi
python3 -m venv "$tmp/venv"
export PATH="$tmp/venv/bin:$PATH"
python -m pip install -q --upgrade pip
cargo fmt --manifest-path python/Cargo.toml -- --check
# The wheel is built from scratch (its own target folder in the temporary directory).
start=$(date +%s)
CARGO_TARGET_DIR="$tmp/target" python -m pip install -q ./python
echo "python: wheel built and installed in $(( $(date +%s) - start )) s"
python -m pip install -q pytest mypy pandas-stubs nbclient nbformat ipykernel matplotlib
# The CLI the results are compared with: the one the steps before built.
export FABRICSIM_CLI="${CARGO_TARGET_DIR:-$root/target}/release/fabricsim"
# From the temporary folder, so that `import fabricsim` is the installed package, not the source.
cd "$tmp"
pytest -q -p no:cacheprovider "$root/python/tests"
mypy --strict --cache-dir "$tmp/mypy" "$root/python/fabricsim"
python -m mypy.stubtest --ignore-disjoint-bases fabricsim._native
MPLBACKEND=Agg python "$root/examples/python/execute.py" "$root/examples/python/fabricsim-tour.ipynb"

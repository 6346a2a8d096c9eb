"""Scenarios: the TOML file's keys as a dict, a file, or a preset with overrides."""

from __future__ import annotations

import copy
import json
import math
import os
import warnings
from typing import Any, Dict, Mapping, Optional, Union

from . import _native
from ._errors import ScenarioError

PathLike = Union[str, "os.PathLike[str]"]


class Scenario:
    """A scenario: the keys of a scenario file, section by section, as a dict.

    ``Scenario({"topology": {"shape": [4, 4]}, "workload": {"type": "tornado", "load": 0.2}})``
    takes the same keys as the TOML file (``fabricsim default`` lists them); every key is
    optional. Bad keys, types or units raise :class:`ScenarioError` naming the key and value.
    A scenario is immutable: :meth:`set` returns a new one.
    """

    def __init__(self, data: Optional[Mapping[str, Any]] = None, *, base_dir: Optional[PathLike] = None) -> None:
        if data is not None and not isinstance(data, Mapping):
            raise ScenarioError("scenario", f"must be a dict of sections, not {type(data).__name__}", data)
        self._data: Dict[str, Any] = _plain(dict(data or {}), "")
        self._base_dir = os.fspath(base_dir) if base_dir is not None else None
        self._toml = self._call(_native.json_to_toml, json.dumps(self._data))
        # Parse and resolve now, so that a bad key fails here rather than at run time.
        self._resolved = self._call(_native.resolve, self._toml, self._base_dir)
        # Old spellings still work, with a warning naming the new one (the CLI's `note:`).
        for note in self._call(_native.notes, self._toml, self._base_dir):
            warnings.warn(note, DeprecationWarning, stacklevel=2)

    @classmethod
    def from_toml(cls, path: PathLike) -> "Scenario":
        """Read a scenario file; relative paths in it (a program, a rank map) are read from its
        folder."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = json.loads(_with_key(lambda: _native.toml_to_json(text), {}))
        return cls(data, base_dir=os.path.dirname(os.path.abspath(os.fspath(path))))

    @classmethod
    def from_toml_str(cls, text: str) -> "Scenario":
        """A scenario from TOML text (relative paths from the current directory)."""
        return cls(json.loads(_with_key(lambda: _native.toml_to_json(text), {})))

    @classmethod
    def preset(cls, name: str, **sections: Any) -> "Scenario":
        """A built-in machine (see :func:`fabricsim.presets`) with keys overridden section by
        section: ``Scenario.preset("tofud", workload={"type": "uniform_random", "load": 0.3})``.
        As in a file, choosing another ``workload.type`` drops the preset's workload."""
        data: Dict[str, Any] = {"machine": {"preset": name}}
        for section, keys in sections.items():
            if section == "name":
                data["name"] = keys
            elif not isinstance(keys, Mapping):
                raise ScenarioError(section, f"must be a dict of the section's keys, not {type(keys).__name__}", keys)
            elif section == "machine":
                data["machine"] = {**data["machine"], **keys}
            else:
                data[section] = dict(keys)
        return cls(data)

    def set(self, key: str, value: Any) -> "Scenario":
        """A copy with one key set by its dotted path: ``s.set("sim.duration", "5us")``."""
        parts = key.split(".")
        if not all(parts):
            raise ScenarioError(key, "is not a key path like section.key", value)
        data = copy.deepcopy(self._data)
        table = data
        for i, part in enumerate(parts[:-1]):
            nxt = table.setdefault(part, {})
            if not isinstance(nxt, dict):
                raise ScenarioError(".".join(parts[: i + 1]), "is not a section", nxt)
            table = nxt
        table[parts[-1]] = value
        return Scenario(data, base_dir=self._base_dir)

    def to_dict(self) -> Dict[str, Any]:
        """The keys as given (a copy)."""
        return copy.deepcopy(self._data)

    def to_toml(self) -> str:
        """The keys as given, as TOML text (a scenario file)."""
        return str(self._toml)

    def resolved(self) -> Dict[str, Any]:
        """The scenario as it resolves, every key filled in from its preset and defaults (as
        ``fabricsim show`` prints it)."""
        return dict(json.loads(_native.toml_to_json(self._resolved)))

    def resolved_toml(self) -> str:
        """:meth:`resolved` as TOML text."""
        return str(self._resolved)

    def check(self) -> None:
        """Check everything a run checks before simulating (topology, routing, workload,
        files it names); raises :class:`ScenarioError`."""
        self._call(_native.check, self._toml, self._base_dir)

    @property
    def base_dir(self) -> Optional[str]:
        """The folder relative paths are read from (``None``: the current directory)."""
        return self._base_dir

    def _call(self, fn: Any, *args: Any) -> Any:
        return _with_key(lambda: fn(*args), self._data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and (self._data, self._base_dir) == (other._data, other._base_dir)

    def __hash__(self) -> int:
        return hash(self._toml)

    def __repr__(self) -> str:
        return f"Scenario({self._data!r})"


ScenarioLike = Union[Scenario, Mapping[str, Any], str, "os.PathLike[str]", None]


def as_scenario(s: ScenarioLike) -> Scenario:
    """A :class:`Scenario` from a scenario, a dict of sections, a file path or ``None`` (the
    default scenario)."""
    if isinstance(s, Scenario):
        return s
    if s is None or isinstance(s, Mapping):
        return Scenario(s)
    if isinstance(s, (str, os.PathLike)):
        return Scenario.from_toml(s)
    raise ScenarioError("scenario", f"must be a Scenario, a dict or a file path, not {type(s).__name__}", s)


def _with_key(fn: Any, data: Mapping[str, Any]) -> Any:
    """``fn()``, with a :class:`ScenarioError`'s value looked up in ``data`` by its key."""
    try:
        return fn()
    except ScenarioError as e:
        if e.value is None:
            e.value = lookup(data, e.key)
        raise


def lookup(data: Any, key: str) -> Any:
    """The value at dotted path ``key`` (``workload.src``, ``topology.shape[1]``), or None."""
    cur = data
    for part in key.replace("[", ".[").split("."):
        if part.startswith("[") and part.endswith("]") and part[1:-1].isdigit():
            i = int(part[1:-1])
            cur = cur[i] if isinstance(cur, list) and i < len(cur) else None
        else:
            cur = cur.get(part) if isinstance(cur, Mapping) else None
        if cur is None:
            return None
    return cur


def _plain(v: Any, path: str) -> Any:
    """``v`` as plain JSON-able values (tuples as lists, numpy scalars as numbers, paths as
    strings); anything else is a :class:`ScenarioError` naming ``path``."""
    if isinstance(v, Mapping):
        out = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise ScenarioError(path or "scenario", f"keys are strings, not {k!r}", k)
            out[k] = _plain(x, f"{path}.{k}" if path else k)
        return out
    if isinstance(v, (list, tuple)):
        return [_plain(x, f"{path}[{i}]") for i, x in enumerate(v)]
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if v is None:
        raise ScenarioError(path, "None is not a value: leave the key out for its default", v)
    if isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ScenarioError(path, f"{v} is not a finite number", v)
        return v
    item = getattr(v, "item", None)  # numpy scalars
    if callable(item):
        return _plain(item(), path)
    raise ScenarioError(path, f"a number, string, boolean, list or dict is expected, not {type(v).__name__}", v)

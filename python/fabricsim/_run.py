"""Runs: one scenario at a time (:func:`run`), step by step (:class:`Simulation`), and the
CLI's other single-shot commands (:func:`info`, :func:`validate`, :func:`presets`)."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

import pandas as pd

from . import _frames, _native
from ._progress import Progress, run_callback
from ._scenario import Scenario, ScenarioLike, _with_key, as_scenario


class RunResult:
    """The result of one run.

    ``report`` is the full report, the same as ``fabricsim run --json`` writes; ``summary`` is
    that report without its per-port and histogram lists, which are the DataFrames ``ports``
    and ``latency``; ``series`` is the per-port time series (when the run was asked for one);
    ``per_rank`` when each rank finished (collective and program workloads); ``text`` the
    summary the CLI prints.
    """

    def __init__(self, report: Dict[str, Any], text: str, series: Optional[List[Dict[str, Any]]] = None, per_rank: Optional[List[float]] = None) -> None:
        self.report = report
        self.text = text
        self._series = series
        self._per_rank = per_rank or []
        self._axes = _frames.axes_of(json.loads(_native.toml_to_json(report["provenance"]["scenario"])))

    @property
    def summary(self) -> Dict[str, Any]:
        """The report's scalar figures and small tables (all but ``ports`` and
        ``latency_histogram_ns``)."""
        return {k: v for k, v in self.report.items() if k not in ("ports", "latency_histogram_ns")}

    @property
    def ports(self) -> pd.DataFrame:
        """Per-port counters over the measurement window (see docs/python.md for columns)."""
        return _frames.ports(self.report["ports"], self._axes)

    @property
    def latency(self) -> pd.DataFrame:
        """The message latency histogram: ``lower_ns``, ``upper_ns``, ``count``."""
        return _frames.latency(self.report["latency_histogram_ns"])

    @property
    def series(self) -> Optional[pd.DataFrame]:
        """Each port's utilisation and packets per interval (``run(..., series="200ns")``), or
        None when the run was not asked for it."""
        if self._series is None:
            return None
        return _frames.frame(self._series, _frames.SERIES_COLUMNS)

    @property
    def per_rank(self) -> pd.DataFrame:
        """When each rank finished (``rank``, ``done_ns``); empty unless the workload is a
        collective or a program."""
        return _frames.frame([{"rank": r, "done_ns": t} for r, t in enumerate(self._per_rank)], _frames.PER_RANK_COLUMNS)

    def __repr__(self) -> str:
        return f"RunResult({self.report.get('workload_type')!r} on {self.report.get('nodes')} nodes)"


def run(scenario: ScenarioLike = None, *, series: Optional[str] = None, progress: Progress = None) -> RunResult:
    """Run a scenario once (the GIL is released while it simulates).

    ``scenario``: a :class:`Scenario`, a dict of sections, a file path, or None for the default.
    ``series``: an interval (``"200ns"``) to sample every port's utilisation over the whole
    run. ``progress``: a function called now and then with ``(simulated_ns, end_ns)``
    (``end_ns`` None for a run that goes on until its work is done), or a tqdm bar.
    """
    s = as_scenario(scenario)
    args = (s.to_toml(), s.base_dir, series, run_callback(progress))
    report, text, rows, per_rank = _with_key(lambda: _native.run(*args), {**s.to_dict(), "series": series})
    return RunResult(json.loads(report), text, json.loads(rows)["rows"] if rows else None, json.loads(per_rank) if per_rank else None)


class Simulation:
    """A run taken step by step: ``sim = Simulation(s); sim.run_until("5us"); sim.ports()``.

    Each step releases the GIL. :meth:`finish` runs to the end and gives the same
    :class:`RunResult` as :func:`run`. Collective and program workloads run whole only.
    """

    def __init__(self, scenario: ScenarioLike = None) -> None:
        self.scenario = as_scenario(scenario)
        self._sim = self.scenario._call(_native.Simulation, self.scenario.to_toml(), self.scenario.base_dir)

    @property
    def now_ns(self) -> float:
        """The simulated time the run stands at, ns."""
        return float(self._sim.now_ns())

    @property
    def ended(self) -> bool:
        """Whether the run has ended (work done, or its time limits reached)."""
        return bool(self._sim.ended())

    def run_until(self, t: "str | float") -> bool:
        """Handle every event up to and including ``t`` (``"5us"``, or a number of ns);
        returns whether the run ended."""
        text = t if isinstance(t, str) else f"{float(t)}ns"
        return bool(_with_key(lambda: self._sim.run_until(text), {"t": t}))

    def step(self) -> bool:
        """Handle the next instant's events; returns whether the run ended."""
        return bool(self._sim.step())

    def ports(self) -> pd.DataFrame:
        """Per-port counters so far in the measurement window (zero during the warm-up), with
        the columns of :attr:`RunResult.ports`."""
        axes = _frames.axes_of(self.scenario.resolved())
        return _frames.ports(json.loads(self._sim.ports()), axes)

    def finish(self, progress: Progress = None) -> RunResult:
        """Run to the end and report."""
        report, text = self._sim.finish(run_callback(progress))
        return RunResult(json.loads(report), text)


def info(scenario: ScenarioLike = None) -> Dict[str, Any]:
    """The topology analysis ``fabricsim info --json`` prints (nodes, links, diameter,
    bisection, memory estimate, ...)."""
    s = as_scenario(scenario)
    return dict(json.loads(s._call(_native.info, s.to_toml(), s.base_dir)))


def validate(only: Optional[str] = None, set: Optional[List[str]] = None, dir: Optional[str] = None) -> pd.DataFrame:
    """Reproduce the papers' figures: one row per figure (``fabricsim validate``); ``only`` a
    system or file stem, ``set`` overrides (``["sim.tie_order=shuffle"]``) applied to every
    row, ``dir`` a folder of validation files instead of the built-in ones. A failed row is a
    row with ``status == "FAIL"``, not an exception."""
    rows = json.loads(_native.validate(only, list(set or []), dir))
    return _frames.frame(rows, _frames.VALIDATE_COLUMNS)


def presets() -> Dict[str, str]:
    """The built-in machines: name -> one-line description."""
    return dict(_native.presets())


def preset_toml(name: str) -> str:
    """A preset's TOML, with the source of every value (``fabricsim presets NAME``)."""
    text = _native.preset_text(name)
    if text is None:
        from ._errors import ScenarioError

        raise ScenarioError("machine.preset", f"'{name}' is not one of {', '.join(presets())}", name)
    return str(text)


def default_toml() -> str:
    """The default scenario with every key (``fabricsim default``)."""
    return str(_native.default_toml())


__all__ = ["RunResult", "run", "Simulation", "info", "validate", "presets", "preset_toml", "default_toml", "Scenario"]

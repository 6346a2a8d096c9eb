"""Sweeps and collective comparisons: many independent runs, handed to any
:class:`concurrent.futures.Executor`. Each task is a module-level function of plain strings
and numbers (so it pickles to other processes, or to Dask or Ray workers); the library folds
the results into points, so the numbers do not depend on the executor."""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import json
import os
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _frames, _native
from ._errors import ScenarioError
from ._progress import Progress, count_callback
from ._scenario import ScenarioLike, _with_key, as_scenario

Size = Union[str, int]

# Tasks (run in the executor's workers).


def _load_task(toml: str, base_dir: Optional[str], load: float, seed: int) -> str:
    return str(_native.sweep_run(toml, load, seed, base_dir))


def _size_task(toml: str, base_dir: Optional[str], size: str) -> str:
    return str(_native.size_point(toml, size, base_dir))


def _collective_task(toml: str, base_dir: Optional[str], workload: str, ports: bool) -> Tuple[str, str]:
    point, per_rank = _native.collective_point(toml, workload, ports, base_dir)
    return str(point), str(per_rank)


@contextlib.contextmanager
def _executor(executor: Optional[cf.Executor], jobs: Optional[int]) -> Iterator[cf.Executor]:
    """``executor``, or a pool of ``jobs`` processes (default: one per core) shut down after."""
    if executor is not None:
        yield executor
        return
    with cf.ProcessPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
        yield pool


def _gather(executor: cf.Executor, tasks: List[Tuple[Callable[..., Any], Tuple[Any, ...]]], progress: Progress) -> List[Any]:
    """Run ``tasks`` on ``executor``; results in the tasks' order."""
    futures = [executor.submit(fn, *args) for fn, args in tasks]
    tick = count_callback(progress, len(futures))
    try:
        for done, _ in enumerate(cf.as_completed(futures), 1):
            if tick is not None:
                tick(done)
        return [f.result() for f in futures]
    finally:
        for f in futures:
            f.cancel()


def sweep(
    scenario: ScenarioLike = None,
    *,
    loads: Optional[Sequence[Union[float, str]]] = None,
    sizes: Optional[Sequence[Size]] = None,
    seeds: int = 1,
    executor: Optional[cf.Executor] = None,
    jobs: Optional[int] = None,
    progress: Progress = None,
) -> pd.DataFrame:
    """A latency-load curve (``loads``) or a benchmark over message sizes (``sizes``), as
    ``fabricsim sweep``: one row per point.

    ``loads``: offered loads, numbers or ``"from:to:step"`` ranges. Each load runs ``seeds``
    times (seeds ``sim.seed``, ``sim.seed + 1``, ...); its row holds the means and the 95%
    confidence half-widths (``*_ci95``). ``df.attrs`` holds ``saturation_load`` (the lowest
    saturated load, or None) and ``saturation_throughput`` (the peak accepted fraction).
    ``sizes``: message sizes (``"64KiB"`` or bytes) for a benchmark workload.

    Every run is a task for ``executor`` (any :class:`concurrent.futures.Executor`; by
    default a pool of ``jobs`` processes); the frame is the same whichever runs them.
    ``progress``: ``f(done, total)`` after each run, or a tqdm bar.
    """
    s = as_scenario(scenario)
    if (loads is None) == (sizes is None):
        raise ScenarioError("loads", "give either loads or sizes", loads)
    toml, base = s.to_toml(), s.base_dir
    if sizes is not None:
        if seeds != 1:
            raise ScenarioError("seeds", f"{seeds}: a size sweep runs each size once (benchmarks are deterministic)", seeds)
        if not sizes:
            raise ScenarioError("sizes", "is empty", sizes)
        s.check()
        with _executor(executor, jobs) as ex:
            size_tasks = [(_size_task, (toml, base, str(b))) for b in sizes]
            out = _with_key(lambda: _gather(ex, size_tasks, progress), {**s.to_dict(), "sizes": sizes})
        return _frames.frame([json.loads(p) for p in out], _frames.SIZE_COLUMNS)
    assert loads is not None
    if seeds < 1:
        raise ScenarioError("seeds", f"{seeds}: a point needs at least one run", seeds)
    values = _with_key(lambda: _native.parse_loads([str(x) for x in loads]), {"loads": loads})
    if not values:
        raise ScenarioError("loads", "is empty", loads)
    s.check()
    first = int(s.resolved().get("sim", {}).get("seed", 1))
    tasks = [(_load_task, (toml, base, load, (first + i) % 2**64)) for load in values for i in range(seeds)]
    with _executor(executor, jobs) as ex:
        runs = s._call(_gather, ex, tasks, progress)
    points = [_native.sweep_point(load, runs[k * seeds : (k + 1) * seeds]) for k, load in enumerate(values)]
    report = json.loads(_native.sweep_report(points))
    df = _frames.frame(report["points"], _frames.SWEEP_COLUMNS)
    df.attrs["saturation_load"] = report["saturation_load"]
    df.attrs["saturation_throughput"] = report["saturation_throughput"]
    return df


def collective(
    scenario: ScenarioLike = None,
    op: Optional[str] = None,
    *,
    algorithms: Union[str, Sequence[str]] = "all",
    sizes: Sequence[Size] = ("8B",),
    program: Optional[str] = None,
    ranks_per_node: int = 1,
    rank_map: Optional[str] = None,
    grid: Optional[Sequence[int]] = None,
    virtual_torus: bool = False,
    background: bool = False,
    executor: Optional[cf.Executor] = None,
    jobs: Optional[int] = None,
    progress: Progress = None,
) -> pd.DataFrame:
    """Time collective ``op`` by several ``algorithms`` (``"all"``: every one that applies)
    over buffer ``sizes`` on the scenario's network, or a ``program`` file, as ``fabricsim
    collective``: one row per (size, algorithm), sizes outermost.

    Each point is the scenario with a ``collective`` (or ``program``) workload in place of its
    own (its packet size kept); the placement arguments are that workload's keys, and errors
    name them (``workload.ranks_per_node``). ``background``: run beside the scenario's own
    open-loop workload. Paths are read from the current directory. Points are tasks for
    ``executor`` as in :func:`sweep`; ``df.attrs["per_rank"]`` lists each point's rank done
    times.
    """
    s = as_scenario(scenario)
    toml, base = s.to_toml(), s.base_dir
    place: Dict[str, Any] = {"ranks_per_node": ranks_per_node, "virtual_torus": virtual_torus}
    if rank_map is not None:
        place["rank_map"] = os.fspath(rank_map)
    if grid is not None:
        place["grid"] = list(grid)
    if background:
        place["background"] = s.resolved()["workload"]
    if program is not None:
        points = [{"type": "program", "file": os.fspath(program), **place}]
    elif op is None:
        raise ScenarioError("op", "give a collective (e.g. 'allreduce') or a program", op)
    else:
        names = [algorithms] if isinstance(algorithms, str) else list(algorithms)
        probe = _native.json_to_toml(json.dumps({"workload": {"type": "collective", "op": op, "size": sizes[0], **place}}))
        chosen = s._call(_native.collective_algorithms, toml, probe, names, [str(b) for b in sizes], base)
        points = [{"type": "collective", "op": op, "algorithm": a, "size": sizes[i], **place} for i, a in chosen]
    tasks = [(_collective_task, (toml, base, _native.json_to_toml(json.dumps({"workload": w})), False)) for w in points]
    with _executor(executor, jobs) as ex:
        out = s._call(_gather, ex, tasks, progress)
    df = _frames.frame([json.loads(p) for p, _ in out], _frames.COLLECTIVE_COLUMNS)
    df.attrs["per_rank"] = [json.loads(r) for _, r in out]
    return df

"""Rank mapping (:func:`map`): the methods of ``fabricsim map`` run on a scenario's network for a
communication pattern, each map priced by hop-bytes and by the link loads of the scenario's own
routing (and, with ``simulate``, by the packet-level network)."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from . import _native
from ._errors import ScenarioError
from ._scenario import ScenarioLike, as_scenario

Flows = Sequence[Tuple[int, int, int]]


class MapResult:
    """What :func:`map` found.

    ``rows`` holds one dict per method, the rows ``fabricsim map --json`` prints (``method``,
    ``detail``, ``hop_bytes``, ``max_link_bytes``, ``mean_link_bytes``, ``busiest_links``,
    ``seconds``, and ``simulated_ns`` when simulated); ``maps`` the node of every rank under
    each method's map; ``best`` the method whose map is best by the objective, ``map`` that map
    and ``text`` it written in the format asked for (``None`` when none was).
    """

    def __init__(self, rows: List[Dict[str, Any]], maps: List[List[int]], best: int, text: Optional[str]) -> None:
        self.rows = rows
        self.maps: Dict[str, List[int]] = {r["method"]: m for r, m in zip(rows, maps)}
        self.best: str = rows[best]["method"]
        self.map: List[int] = maps[best]
        self.text = text

    @property
    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame, one row per method (the busiest links left out)."""
        return pd.DataFrame([{k: v for k, v in r.items() if k != "busiest_links"} for r in self.rows])

    def __repr__(self) -> str:
        return f"MapResult(best={self.best!r}, methods={[r['method'] for r in self.rows]!r})"


def map(
    scenario: ScenarioLike = None,
    pattern: Union[None, str, "os.PathLike[str]", Flows] = None,
    *,
    generate: Optional[str] = None,
    methods: Union[str, Sequence[str], None] = None,
    objective: str = "hop-bytes",
    ranks_per_node: int = 1,
    iterations: int = 0,
    seed: int = 1,
    budget: Optional[str] = "60s",
    simulate: bool = False,
    format: Optional[str] = None,
    hosts: str = "nid{:05}",
) -> MapResult:
    """Map a job's ranks onto the scenario's network, as ``fabricsim map``.

    The pattern is a CSV file of ``src,dst,bytes`` lines (``pattern`` a path), a list of
    ``(src, dst, bytes)`` tuples, or a generator (``generate``, e.g. ``"cg:B:1024"``,
    ``"halo:8x8:64KiB"``). ``methods``: ``default``, ``permutations``, ``blocks``, ``vtorus``,
    ``greedy``, ``anneal`` (none: all). ``objective``: what annealing minimises and which map is
    best, ``hop-bytes`` or ``max-link`` (the busiest link's bytes under the scenario's routing).
    ``ranks_per_node``: ranks a node holds. ``iterations`` (0: the default count), ``seed`` and
    ``budget`` drive annealing; ``simulate`` also runs the pattern on the packet-level network
    under each map; ``format`` (``vcoord``, ``mpich``, ``rankfile``, ``slurm``, ``rankmap``)
    writes the best map as that file's text, host names from ``hosts``. The GIL is released.
    Bad arguments raise :class:`ScenarioError` naming the argument.
    """
    s = as_scenario(scenario)
    csv: Optional[str] = None
    if pattern is not None and generate is not None:
        raise ScenarioError("pattern", "give a pattern or a generator (one of them)", None)
    if isinstance(pattern, (str, os.PathLike)):
        with open(os.fspath(pattern), encoding="utf-8") as f:
            csv = f.read()
    elif pattern is not None:
        csv = "src,dst,bytes\n" + "".join(f"{int(a)},{int(b)},{int(n)}\n" for a, b, n in pattern)
    names = [] if methods is None else [methods] if isinstance(methods, str) else list(methods)
    rows, maps, best, text = s._call(
        _native.map_methods,
        s.to_toml(),
        csv,
        generate,
        names,
        objective,
        ranks_per_node,
        iterations,
        seed,
        budget,
        simulate,
        format,
        hosts,
        s.base_dir,
    )
    return MapResult(json.loads(rows), maps, best, text)

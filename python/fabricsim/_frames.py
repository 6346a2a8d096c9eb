"""DataFrames from the library's JSON: one function per frame, columns and dtypes fixed here
(and documented in docs/python.md)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

# Column -> dtype of each frame ("object": strings, or None where a value does not apply).
PORT_COLUMNS: Dict[str, str] = {
    "router": "int64",
    "port": "int64",
    "kind": "object",
    "label": "object",
    "axis": "object",
    "direction": "object",
    "bytes": "int64",
    "packets": "int64",
    "busy_ns": "float64",
    "idle_ns": "float64",
    "credit_stall_ns": "float64",
    "utilization": "float64",
}
LATENCY_COLUMNS: Dict[str, str] = {"lower_ns": "float64", "upper_ns": "float64", "count": "int64"}
SERIES_COLUMNS: Dict[str, str] = {
    "t_ns": "float64",
    "router": "int64",
    "port": "int64",
    "kind": "object",
    "label": "object",
    "utilization": "float64",
    "packets": "int64",
}
PER_RANK_COLUMNS: Dict[str, str] = {"rank": "int64", "done_ns": "float64"}
SWEEP_COLUMNS: Dict[str, str] = {
    "offered_load": "float64",
    "expected_fraction": "float64",
    "accepted_fraction": "float64",
    "accepted_fraction_ci95": "float64",
    "latency_mean_ns": "float64",
    "latency_mean_ci95_ns": "float64",
    "latency_p50_ns": "float64",
    "latency_p90_ns": "float64",
    "latency_p99_ns": "float64",
    "latency_p999_ns": "float64",
    "latency_max_ns": "float64",
    "runs": "int64",
    "drained": "bool",
    "saturated": "bool",
}
SIZE_COLUMNS: Dict[str, str] = {
    "message_bytes": "int64",
    "throughput_gb_per_s": "float64",
    "one_way_latency_ns": "float64",
    "completion_ns": "float64",
}
COLLECTIVE_COLUMNS: Dict[str, str] = {
    "op": "object",
    "algorithm": "object",
    "bytes": "int64",
    "ranks": "int64",
    "time_ns": "float64",
    "rank_done_min_ns": "float64",
    "rank_done_median_ns": "float64",
    "rank_done_max_ns": "float64",
    "algbw_gb_per_s": "float64",
    "busbw_gb_per_s": "float64",
    "messages": "int64",
    "message_bytes": "int64",
    "events": "int64",
}
VALIDATE_COLUMNS: Dict[str, str] = {
    "system": "object",
    "figure": "object",
    "source": "object",
    "kind": "object",
    "unit": "object",
    "published": "float64",
    "simulated": "float64",
    "error": "float64",
    "tolerance": "float64",
    "status": "object",
    "note": "object",
}


def frame(rows: Sequence[Dict[str, Any]], columns: Dict[str, str]) -> pd.DataFrame:
    """``rows`` with exactly ``columns``, in order and of their dtypes (a missing value of a
    float column is NaN)."""
    df = pd.DataFrame(list(rows), columns=list(columns))
    return df.astype(columns)


def ports(rows: List[Dict[str, Any]], axes: Sequence[str]) -> pd.DataFrame:
    """Per-port counters: the report's ``ports``, with ``axis`` and ``direction`` (torus
    network ports: the axis name and ``+``/``-``; fat-tree ports: ``up``/``down`` and no axis;
    NIC ports: neither) and, on tori and meshes, one column per axis with the router's
    coordinate."""
    out = []
    for p in rows:
        row = dict(p)
        coords = row.pop("coords", None)
        row["axis"], row["direction"] = _axis_direction(row["kind"], row["label"], coords is not None)
        if coords is not None:
            row.update(zip(axes, coords))
        out.append(row)
    cols = dict(PORT_COLUMNS)
    if rows and rows[0].get("coords") is not None:
        cols.update({a: "int64" for a in axes})
    return frame(out, cols)


def _axis_direction(kind: str, label: str, torus: bool) -> "tuple[Optional[str], Optional[str]]":
    if kind != "network":
        return None, None
    if torus:
        return label[:-1], label[-1]
    return None, label.rsplit("-", 1)[-1]


def latency(buckets: List[Dict[str, Any]]) -> pd.DataFrame:
    """The latency histogram: buckets doubling from 1 ns, ``(lower_ns, upper_ns]`` each."""
    rows = []
    lower = 0.0
    for b in buckets:
        rows.append({"lower_ns": lower, "upper_ns": b["upper_ns"], "count": b["count"]})
        lower = b["upper_ns"]
    return frame(rows, LATENCY_COLUMNS)


def axes_of(resolved: Dict[str, Any]) -> List[str]:
    """Axis names of a resolved scenario's torus or mesh (``d0``, ``d1``, ... by default)."""
    topo = resolved.get("topology", {})
    shape = topo.get("shape", [])
    return list(topo.get("axes") or [f"d{i}" for i in range(len(shape))])

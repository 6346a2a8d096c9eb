"""Runs: equal to the CLI's, the GIL released while simulating, progress, stepping, frames."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
import time
from pathlib import Path
from typing import Any, Dict, List

import pandas as pd
import pytest

import fabricsim
from fabricsim import Scenario
from fabricsim._frames import LATENCY_COLUMNS, PER_RANK_COLUMNS, PORT_COLUMNS, SERIES_COLUMNS

from conftest import WALL, without

# The default 8x8x8 torus at 40% for 80 us: a second or so, some millions of events.
BIG: Dict[str, Any] = {"sim": {"duration": "80us"}}

CASES = {
    "uniform": {"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}},
    "pingpong": {"topology": {"shape": [4, 4]}, "workload": {"type": "pingpong", "src": [0, 0], "dst": [2, 1], "message_size": "1KiB"}},
    "allreduce": {"topology": {"shape": [4, 4]}, "workload": {"type": "collective", "op": "allreduce", "size": "4KiB"}},
    "fat_tree": {"topology": {"type": "fat_tree", "radix": 4, "levels": 2}, "sim": {"duration": "2us"}},
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_results_equal_the_cli_json(case: str, tmp_path: Path, cli: Any) -> None:
    f = tmp_path / "s.toml"
    s = Scenario(CASES[case])
    f.write_text(s.to_toml())
    cli("run", str(f), "--json", str(tmp_path / "r.json"))
    want = json.loads((tmp_path / "r.json").read_text())
    got = fabricsim.run(Scenario.from_toml(f))
    assert without(got.report, WALL) == without(want, WALL)
    assert got.report["nodes"] > 0 and got.report["ports"]


def _whole(scenario: Dict[str, Any]) -> None:
    fabricsim.run(scenario)


def _stepped(scenario: Dict[str, Any]) -> None:
    sim = fabricsim.Simulation(scenario)
    sim.run_until("60us")
    sim.finish()


@pytest.mark.parametrize("how", [_whole, _stepped])
def test_the_gil_is_released_while_simulating(how: Any) -> None:
    ticks: List[float] = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=tick)
    t.start()
    start = time.monotonic()
    try:
        how(BIG)
    finally:
        end = time.monotonic()
        done.set()
        t.join()
    during = [x for x in ticks if start <= x <= end]
    assert end - start > 0.2, "the run is too short to tell"
    gaps = [b - a for a, b in zip([start] + during, during + [end])]
    # Held, the GIL would stop the ticker for the whole run; released, it ticks every ms or so.
    assert max(gaps) < (end - start) / 4, (max(gaps), end - start)
    assert len(during) > 20


class Bar:
    """What a tqdm bar offers the progress argument: total and update."""

    def __init__(self) -> None:
        self.total = None
        self.n = 0.0

    def update(self, k: float) -> None:
        self.n += k


def test_progress_reaches_functions_and_bars() -> None:
    seen: List[Any] = []
    r = fabricsim.run(BIG, progress=lambda now, end: seen.append((now, end)))
    assert seen, "a run of millions of events reports progress"
    assert all(0 < now <= r.report["sim_time_ns"] for now, _ in seen)
    assert seen[0][1] == pytest.approx(r.report["warmup_ns"] + r.report["window_ns"])
    bar = Bar()
    fabricsim.run(BIG, progress=bar)
    assert bar.total == pytest.approx(seen[0][1] / 1e3) and 0 < bar.n <= r.report["sim_time_ns"] / 1e3


def test_an_exception_in_the_progress_callback_is_raised_after_the_run() -> None:
    def fail(now: float, end: Any) -> None:
        raise KeyError("stop")

    with pytest.raises(KeyError):
        fabricsim.run(BIG, progress=fail)


def _dtypes(df: pd.DataFrame) -> Dict[str, str]:
    return {c: str(t) for c, t in df.dtypes.items()}


def test_frames_have_the_documented_columns_and_dtypes() -> None:
    r = fabricsim.run(CASES["uniform"], series="500ns")
    ports = r.ports
    assert _dtypes(ports) == {**PORT_COLUMNS, "d0": "int64", "d1": "int64"}
    assert len(ports) == len(r.report["ports"]) and ports["bytes"].sum() == sum(p["bytes"] for p in r.report["ports"])
    net = ports[ports.kind == "network"]
    assert set(net.axis) == {"d0", "d1"} and set(net.direction) == {"+", "-"}
    assert ports[ports.kind == "terminal"].axis.isna().all()
    assert (ports.d0.between(0, 3) & ports.d1.between(0, 3)).all()
    lat = r.latency
    assert _dtypes(lat) == LATENCY_COLUMNS and lat["count"].sum() == r.summary["latency_ns"]["count"]
    series = r.series
    assert series is not None and _dtypes(series) == SERIES_COLUMNS
    assert series.t_ns.min() == 0 and (series.t_ns.diff().dropna() >= 0).all()
    assert _dtypes(r.per_rank) == PER_RANK_COLUMNS and r.per_rank.empty
    assert fabricsim.run(CASES["uniform"]).series is None
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.run(CASES["uniform"], series="often")
    assert e.value.key == "series" and e.value.value == "often"
    assert "ports" not in r.summary and r.summary["nodes"] == 16


def test_fat_tree_ports_have_directions_not_axes() -> None:
    ports = fabricsim.run(CASES["fat_tree"]).ports
    net = ports[ports.kind == "network"]
    assert net.axis.isna().all() and set(net.direction) == {"up", "down"}
    assert list(ports.columns) == list(PORT_COLUMNS)


def test_per_rank_of_a_collective() -> None:
    r = fabricsim.run(CASES["allreduce"])
    pr = r.per_rank
    c = r.summary["collective"]
    assert list(pr["rank"]) == list(range(16))
    assert pr.done_ns.max() == pytest.approx(c["rank_done_max_ns"]) and pr.done_ns.min() == pytest.approx(c["rank_done_min_ns"])


def test_stepping_gives_the_run_result() -> None:
    whole = fabricsim.run(CASES["uniform"])
    sim = fabricsim.Simulation(CASES["uniform"])
    assert sim.now_ns == 0 and not sim.ended
    assert sim.ports()["bytes"].sum() == 0
    assert sim.run_until("1us") is False
    assert 0 < sim.now_ns <= 1000
    mid = sim.ports()
    assert list(mid.columns) == list(whole.ports.columns) and 0 < mid["bytes"].sum() < whole.ports["bytes"].sum()
    sim.run_until(1500.0)
    assert sim.now_ns <= 1500
    sim.step()
    r = sim.finish()
    assert without(r.report, WALL) == without(whole.report, WALL)
    with pytest.raises(fabricsim.ScenarioError):
        sim.ports()


def test_stepping_refuses_jobs_and_bad_times() -> None:
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.Simulation(CASES["allreduce"])
    assert e.value.key == "workload.type"
    sim = fabricsim.Simulation(CASES["uniform"])
    with pytest.raises(fabricsim.ScenarioError) as e:
        sim.run_until("soon")
    assert e.value.key == "t" and e.value.value == "soon"


def test_info_equals_the_cli(cli: Any) -> None:
    want = json.loads(cli("info", "--json", "--set", "topology.shape=[4,6]"))
    assert fabricsim.info({"topology": {"shape": [4, 6]}}) == want


def test_validate_rows_equal_the_cli(cli: Any, tmp_path: Path) -> None:
    cli("validate", "--only", "APEnet+", "--json", str(tmp_path / "v.json"))
    want = json.loads((tmp_path / "v.json").read_text())
    df = fabricsim.validate(only="APEnet+")
    assert len(df) == len(want) > 0
    assert list(df.columns) == list(want[0]) and df.status.isin(["PASS", "FAIL", "INFO"]).all()
    assert list(df.simulated) == [w["simulated"] for w in want]


def test_presets_and_default() -> None:
    p = fabricsim.presets()
    assert "tofud" in p and "bgq" in p
    assert "[topology]" in fabricsim.default_toml()
    assert fabricsim.preset_toml("bgq").strip()


def test_a_simulation_steps_from_any_thread() -> None:
    sim = fabricsim.Simulation(CASES["uniform"])
    with ThreadPoolExecutor(1) as ex:
        assert ex.submit(sim.run_until, "1us").result() is False
    assert 0 < sim.now_ns <= 1000
    assert without(sim.finish().report, WALL) == without(fabricsim.run(CASES["uniform"]).report, WALL)

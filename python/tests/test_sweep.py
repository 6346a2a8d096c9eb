"""Sweeps and collective comparisons: the CLI's numbers, whatever the executor."""

from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing
from pathlib import Path
from typing import Any, Dict, List

import pandas as pd
import pytest

import fabricsim
from fabricsim import Scenario, ScenarioError
from fabricsim._frames import COLLECTIVE_COLUMNS, SIZE_COLUMNS, SWEEP_COLUMNS

from conftest import ROOT, WALL, without

SMALL: Dict[str, Any] = {"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}}
LOADS = ["0.1:0.5:0.2", 0.9]
THROUGHPUT = {"topology": {"shape": [4, 4]}, "workload": {"type": "throughput", "src": [0, 0], "dst": [1, 0]}}


def _dtypes(df: pd.DataFrame) -> Dict[str, str]:
    return {c: str(t) for c, t in df.dtypes.items()}


@pytest.fixture(scope="module")
def by_threads() -> pd.DataFrame:
    with cf.ThreadPoolExecutor(2) as ex:
        return fabricsim.sweep(SMALL, loads=LOADS, seeds=3, executor=ex)


def test_thread_and_process_pools_give_identical_frames(by_threads: pd.DataFrame) -> None:
    with cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        by_processes = fabricsim.sweep(SMALL, loads=LOADS, seeds=3, executor=ex)
    pd.testing.assert_frame_equal(by_threads, by_processes, check_exact=True)
    assert by_threads.attrs == by_processes.attrs
    default = fabricsim.sweep(SMALL, loads=LOADS, seeds=3, jobs=2)
    pd.testing.assert_frame_equal(by_threads, default, check_exact=True)


class Inline(cf.Executor):
    """The least an executor is (as Dask's or Ray's): submit, returning a future."""

    def __init__(self) -> None:
        self.submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> "cf.Future[Any]":
        self.submitted += 1
        f: "cf.Future[Any]" = cf.Future()
        f.set_result(fn(*args, **kwargs))
        return f


def test_any_executor_gives_the_same_frame(by_threads: pd.DataFrame) -> None:
    ex = Inline()
    df = fabricsim.sweep(SMALL, loads=LOADS, seeds=3, executor=ex)
    assert ex.submitted == 4 * 3, "one task per run"
    pd.testing.assert_frame_equal(by_threads, df, check_exact=True)


def test_a_load_sweep_has_a_row_per_point_with_intervals(by_threads: pd.DataFrame) -> None:
    df = by_threads
    assert _dtypes(df) == SWEEP_COLUMNS
    assert list(df.offered_load) == [0.1, 0.3, 0.5, 0.9] and (df.runs == 3).all()
    assert (df.accepted_fraction_ci95 > 0).all() and (df.latency_mean_ci95_ns > 0).all()
    assert df.attrs["saturation_throughput"] == df.accepted_fraction.max()


def test_a_load_sweep_equals_the_cli(by_threads: pd.DataFrame, tmp_path: Path, cli: Any) -> None:
    f = tmp_path / "s.toml"
    f.write_text(Scenario(SMALL).to_toml())
    want = json.loads(cli("sweep", str(f), "--loads", "0.1:0.5:0.2,0.9", "--seeds", "3", "--json", "-"))
    got = [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in by_threads.to_dict("records")]
    assert got == want["points"]
    assert by_threads.attrs["saturation_load"] == want["saturation_load"]
    assert by_threads.attrs["saturation_throughput"] == want["saturation_throughput"]


def test_a_size_sweep_equals_the_cli(tmp_path: Path, cli: Any) -> None:
    f = tmp_path / "s.toml"
    f.write_text(Scenario(THROUGHPUT).to_toml())
    want = json.loads(cli("sweep", str(f), "--sizes", "1KiB,64KiB", "--json", "-"))
    with cf.ThreadPoolExecutor(2) as ex:
        df = fabricsim.sweep(THROUGHPUT, sizes=["1KiB", 65536], executor=ex)
    assert _dtypes(df) == SIZE_COLUMNS
    assert list(df.message_bytes) == [1024, 65536]
    assert list(df.throughput_gb_per_s) == [w["throughput_gb_per_s"] for w in want]


def test_a_collective_comparison_equals_the_cli(tmp_path: Path, cli: Any) -> None:
    f = tmp_path / "s.toml"
    f.write_text(Scenario({"topology": {"shape": [4, 4]}}).to_toml())
    want = json.loads(cli("collective", str(f), "--op", "allreduce", "--sizes", "8B,4KiB", "--json", "-"))
    with cf.ThreadPoolExecutor(2) as ex:
        df = fabricsim.collective(Scenario.from_toml(f), "allreduce", sizes=["8B", "4KiB"], executor=ex)
    assert _dtypes(df) == COLLECTIVE_COLUMNS
    assert len(df) == len(want) > 2
    got = [{k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()} for row in df.to_dict("records")]
    assert got == [{k: w[k] for k in COLLECTIVE_COLUMNS} for w in without(want, WALL)]
    assert all(len(r) == 16 for r in df.attrs["per_rank"])


def test_named_algorithms_and_their_errors() -> None:
    with cf.ThreadPoolExecutor(1) as ex:
        df = fabricsim.collective(SMALL, "broadcast", algorithms=["binomial"], sizes=["1KiB"], executor=ex)
    assert list(df.algorithm) == ["binomial"] and list(df.op) == ["broadcast"]
    with pytest.raises(ScenarioError) as e:
        fabricsim.collective(SMALL, "allreduce", algorithms=["bogus"])
    assert e.value.key == "algorithms" and "bogus" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        fabricsim.collective(SMALL, "allsmash")
    assert e.value.key == "op"
    with pytest.raises(ScenarioError) as e:
        fabricsim.collective(SMALL, "allreduce", sizes=["8 parsecs"], executor=cf.ThreadPoolExecutor(1))
    assert e.value.key.startswith("workload.size")


def test_sweep_arguments_are_checked() -> None:
    with pytest.raises(ScenarioError) as e:
        fabricsim.sweep(SMALL, loads=["0.5:0.1:0.1"])
    assert e.value.key == "loads"
    with pytest.raises(ScenarioError) as e:
        fabricsim.sweep(SMALL)
    assert e.value.key == "loads"
    with pytest.raises(ScenarioError) as e:
        fabricsim.sweep(THROUGHPUT, loads=[0.1], executor=cf.ThreadPoolExecutor(1))
    assert e.value.key == "workload.type"
    with pytest.raises(ScenarioError) as e:
        fabricsim.sweep(SMALL, loads=[0.1], seeds=0)
    assert e.value.key == "seeds"


def test_progress_counts_runs() -> None:
    seen: List[Any] = []
    with cf.ThreadPoolExecutor(2) as ex:
        fabricsim.sweep(SMALL, loads=[0.1, 0.2], seeds=2, executor=ex, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_an_error_in_a_worker_process_is_the_same_scenario_error() -> None:
    with cf.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        with pytest.raises(ScenarioError) as e:
            fabricsim.sweep(THROUGHPUT, loads=[0.1], executor=ex)
    assert e.value.key == "workload.type" and "no offered load" in e.value.expected
    assert e.value.value == "throughput"


def test_background_and_program_points_equal_the_cli(tmp_path: Path, cli: Any) -> None:
    loaded = {"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}, "workload": {"load": 0.3}}
    f = tmp_path / "s.toml"
    f.write_text(Scenario(loaded).to_toml())
    want = json.loads(cli("collective", str(f), "--op", "barrier", "--background", "--json", "-"))
    with cf.ThreadPoolExecutor(2) as ex:
        df = fabricsim.collective(loaded, "barrier", background=True, executor=ex)
        quiet = fabricsim.collective(loaded, "barrier", executor=ex)
    assert list(df.time_ns) == [w["time_ns"] for w in want]
    assert (df.time_ns >= quiet.time_ns).all() and (df.events > quiet.events).all()
    program = ROOT / "docs" / "collectives" / "example-program.txt"
    want = json.loads(cli("collective", "--program", str(program), "--json", "-"))
    df = fabricsim.collective(None, program=str(program), executor=Inline())
    assert list(df.time_ns) == [w["time_ns"] for w in want] and list(df.op) == ["program"]

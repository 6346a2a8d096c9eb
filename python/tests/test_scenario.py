"""Scenarios from dicts, files and presets; their TOML and resolved forms; bad input."""

from __future__ import annotations

import math
import warnings
from pathlib import Path
from typing import Any, Dict

import pytest

import fabricsim
from fabricsim import Scenario, ScenarioError

from conftest import ROOT


def test_dict_and_file_and_toml_round_trip(tmp_path: Path, small: Dict[str, Any]) -> None:
    s = Scenario(small)
    f = tmp_path / "s.toml"
    f.write_text(s.to_toml())
    back = Scenario.from_toml(f)
    assert back.to_dict() == small
    assert back.resolved() == s.resolved()
    assert back.base_dir == str(tmp_path)
    assert Scenario.from_toml_str(s.to_toml()).to_dict() == small


def test_resolved_is_what_the_cli_shows(cli: Any) -> None:
    path = ROOT / "examples" / "torus-uniform.toml"
    assert Scenario.from_toml(path).resolved_toml() == cli("show", str(path))
    s = Scenario.preset("bgq", router={"vcs": 4})
    assert s.resolved_toml() == cli("show", "--set", "machine.preset=bgq", "--set", "router.vcs=4")


def test_preset_with_overrides_per_section() -> None:
    s = Scenario.preset("tofud", workload={"type": "uniform_random", "load": 0.3})
    r = s.resolved()
    assert r["workload"] == {**r["workload"], "type": "uniform_random", "load": 0.3}
    assert len(r["topology"]["shape"]) == 6  # the preset's machine
    assert s.to_dict() == {"machine": {"preset": "tofud"}, "workload": {"type": "uniform_random", "load": 0.3}}


def test_set_returns_a_new_scenario(small: Dict[str, Any]) -> None:
    s = Scenario(small)
    t = s.set("sim.duration", "5us").set("workload.load", 0.1)
    assert s.to_dict() == small
    assert t.resolved()["sim"]["duration"] == "5us" and t.resolved()["workload"]["load"] == 0.1
    assert t != s and t == Scenario(t.to_dict())


def test_numpy_and_tuples_are_plain_values(small: Dict[str, Any]) -> None:
    np = pytest.importorskip("numpy")
    s = Scenario({"topology": {"shape": (np.int64(4), 4)}, "workload": {"load": np.float64(0.25)}})
    assert s.resolved()["topology"]["shape"] == [4, 4] and s.resolved()["workload"]["load"] == 0.25


BAD = [
    # (scenario, key, value, words of the message)
    ({"topology": {"shap": [4]}}, "topology.shap", [4], "is not a key"),
    ({"topologie": {}}, "topologie", {}, "unknown"),
    ({"router": {"vcs": "two"}}, "router.vcs", "two", "expected"),
    ({"topology": {"link_latency": "20 parsecs"}}, "topology.link_latency", "20 parsecs", "parsecs"),
    ({"topology": {"link_bandwidth": 5}}, "topology.link_bandwidth", 5, ""),
    ({"machine": {"preset": "cray"}}, "machine.preset", "cray", "is not one of"),
    ({"workload": {"type": "zigzag"}}, "workload.type", "zigzag", "zigzag"),
    ({"workload": {"load": None}}, "workload.load", None, "None"),
    ({"workload": {"load": math.nan}}, "workload.load", math.nan, "finite"),
    ({"topology": {"shape": [4, object()]}}, "topology.shape[1]", None, "not object"),
    ({"sim": {"seed": -1}}, "sim.seed", -1, "negative"),
]


@pytest.mark.parametrize("data,key,value,words", BAD)
def test_bad_input_names_key_and_value(data: Dict[str, Any], key: str, value: Any, words: str) -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario(data)
    assert e.value.key == key, str(e.value)
    if value is not None and not (isinstance(value, float) and math.isnan(value)):
        assert e.value.value == value
    assert words in str(e.value) and str(e.value).startswith(f"{key}: ")
    assert isinstance(e.value, ValueError)


def test_bad_preset_and_sections() -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario.preset("nonexistent")
    assert e.value.key == "machine.preset" and e.value.value == "nonexistent"
    with pytest.raises(ScenarioError) as e:
        Scenario.preset("bgq", workload="pingpong")
    assert e.value.key == "workload"
    with pytest.raises(ScenarioError):
        Scenario([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ScenarioError) as e:
        Scenario.from_toml_str("[topology\nshape = 3")
    assert e.value.key == "scenario"
    with pytest.raises(ScenarioError) as e:
        fabricsim.preset_toml("cray")
    assert e.value.key == "machine.preset"


def test_errors_found_when_checked_name_the_key() -> None:
    # Parses, but the workload's two ends are one node: found by check() and by run().
    s = Scenario({"topology": {"shape": [4, 4]}, "workload": {"type": "pingpong", "src": [1, 1], "dst": [1, 1]}})
    with pytest.raises(ScenarioError) as e:
        s.check()
    assert e.value.key == "workload.dst" and e.value.value == [1, 1]
    with pytest.raises(ScenarioError) as e:
        fabricsim.run(s)
    assert e.value.key == "workload.dst"


def test_a_failed_run_is_a_simulation_error() -> None:
    s = Scenario({"topology": {"shape": [4, 4]}, "workload": {"type": "pingpong", "src": [0, 0], "dst": [2, 2], "iterations": 50}})
    with pytest.raises(fabricsim.SimulationError) as e:
        fabricsim.run(s.set("sim.max_time", "100ns"))
    assert "sim.max_time" in str(e.value)


def test_a_panic_is_an_internal_error_not_a_panic_exception() -> None:
    with pytest.raises(fabricsim.InternalError) as e:
        fabricsim._native._guard_selftest()
    assert "deliberate panic" in str(e.value)


def test_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        Scenario.from_toml(tmp_path / "nope.toml")
    s = Scenario({"topology": {"shape": [4, 4]}, "workload": {"type": "program", "file": "missing-program.txt"}}, base_dir=tmp_path)
    with pytest.raises(fabricsim.FabricsimError):
        fabricsim.run(s)


def test_an_old_section_still_works_with_a_deprecation_warning_naming_the_new_one() -> None:
    with pytest.warns(DeprecationWarning, match=r"\[barrier\] is deprecated.*tofu_gates"):
        old = Scenario({"machine": {"preset": "tofud"}, "barrier": {"hardware": "tofu_gates", "tnis": 6}})
    assert old.resolved()["hardware"]["type"] == "tofu_gates"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Scenario({"machine": {"preset": "tofud"}, "hardware": {"type": "tofu_gates", "tnis": 6}})

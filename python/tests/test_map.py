"""fabricsim.map: the numbers of `fabricsim map`, maps that hold the job, bad arguments named."""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, Dict

import pytest

import fabricsim

TORUS: Dict[str, Any] = {"topology": {"shape": [8, 8]}}


def test_map_gives_the_cli_numbers_and_the_best_map(cli: Any) -> None:
    r = fabricsim.map(TORUS, generate="cg:A:64", methods="default,blocks,greedy,anneal".split(","), iterations=20000)
    out = json.loads(cli("map", "--set", "topology.shape=[8,8]", "--generate", "cg:A:64", "--method", "default,blocks,greedy,anneal", "--iterations", "20000", "--json"))
    assert [x["method"] for x in r.rows] == [x["method"] for x in out]
    for mine, theirs in zip(r.rows, out):
        for k in ("hop_bytes", "max_link_bytes", "mean_link_bytes", "busiest_links", "detail"):
            assert mine[k] == theirs[k], k
    # The best map has the least hop-bytes, is a permutation of the nodes, and is the one named.
    least = min(r.rows, key=lambda x: x["hop_bytes"])
    assert r.best == least["method"] and r.map == r.maps[r.best]
    assert sorted(r.map) == list(range(64))
    assert r.rows[0]["hop_bytes"] > least["hop_bytes"]
    assert list(r.frame["method"]) == ["default", "blocks", "greedy", "anneal"]
    assert r.text is None


def test_max_link_objective_picks_the_least_loaded_busiest_link() -> None:
    r = fabricsim.map(TORUS, generate="cg:A:64", methods=["default", "blocks", "anneal"], objective="max-link", iterations=3000)
    assert r.best == min(r.rows, key=lambda x: (x["max_link_bytes"], x["hop_bytes"]))["method"]
    assert r.rows[2]["detail"].startswith("from ") and "max-link" in r.rows[2]["detail"]
    assert r.rows[2]["max_link_bytes"] <= min(x["max_link_bytes"] for x in r.rows[:2])


def test_flows_several_ranks_a_node_and_a_file_text() -> None:
    # A ring of 32 ranks on 16 nodes, two a node.
    flows = [(i, (i + 1) % 32, 1024) for i in range(32)]
    r = fabricsim.map({"topology": {"shape": [4, 4]}}, flows, ranks_per_node=2, iterations=5000, format="rankfile", simulate=True)
    for m in r.maps.values():
        assert len(m) == 32 and max(Counter(m).values()) <= 2
    assert all(x["simulated_ns"] > 0 for x in r.rows)
    assert r.text is not None
    lines = r.text.splitlines()
    assert len(lines) == 32 and lines[0].startswith("rank 0=nid") and {line.split("slot=")[1] for line in lines} == {"0", "1"}


def test_bad_arguments_name_the_argument() -> None:
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.map(TORUS, generate="ring:8:8", methods=["sideways"])
    assert e.value.key == "methods" and "'sideways' is not a method" in str(e.value)
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.map(TORUS, generate="ring:8:8", objective="speed")
    assert e.value.key == "objective"
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.map(TORUS, generate="ring:65:8")
    assert e.value.key == "pattern" and "65 ranks do not fit" in str(e.value)
    with pytest.raises(fabricsim.ScenarioError) as e:
        fabricsim.map(TORUS)
    assert e.value.key == "pattern"


def test_the_mapping_docs_example_runs() -> None:
    from conftest import ROOT

    section = (ROOT / "docs" / "mapping.md").read_text().split("## From Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "docs/mapping.md has a Python example"
    scope: Dict[str, Any] = {}
    exec(compile(code.group(1), "mapping.md", "exec"), scope)
    assert isinstance(scope["r"], fabricsim.MapResult) and scope["r"].best in scope["r"].maps
    assert scope["m"].text is not None and len(scope["m"].map) == 32

"""The README's Python example runs as written."""

from __future__ import annotations

import concurrent.futures as cf
import re
from typing import Any, Dict

import fabricsim

from conftest import ROOT


def test_the_readme_example_runs() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the README's Python section has an example"
    scope: Dict[str, Any] = {}
    exec(compile(code.group(1), "README.md", "exec"), scope)
    assert isinstance(scope["r"], fabricsim.RunResult) and scope["r"].summary["workload_type"] == "uniform_random"
    curve = scope["curve"]
    assert list(curve.offered_load) == [round(0.1 * k, 9) for k in range(1, 10)]
    assert curve.latency_mean_ns.iloc[-1] > curve.latency_mean_ns.iloc[0]


def test_the_docs_executor_example_shape() -> None:
    # docs/python.md: a thread pool sweep with five seeds per load.
    s = fabricsim.Scenario({"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}})
    with cf.ThreadPoolExecutor(2) as pool:
        curve = fabricsim.sweep(s, loads=[0.1, 0.2, 0.3], seeds=5, executor=pool)
    assert list(curve.runs) == [5, 5, 5]

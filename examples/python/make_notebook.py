"""Writes fabricsim-tour.ipynb from the cells below (edit here, then run this script; the
notebook is committed without outputs)."""

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

cells = [
    new_markdown_cell(
        "# fabricsim from Python\n\n"
        "Two classic plots: a latency-load curve (uniform random against tornado traffic on a "
        "torus) and a comparison of allreduce algorithms over message sizes. Install the "
        "package with `pip install ./python` from the repository, plus matplotlib."
    ),
    new_code_cell(
        "import concurrent.futures as cf\n"
        "import matplotlib.pyplot as plt\n"
        "import fabricsim\n\n"
        "base = fabricsim.Scenario({'topology': {'shape': [4, 4, 4]}, 'sim': {'duration': '5us'}})\n"
        "fabricsim.info(base)['bisection_bandwidth'] / 1e9  # GB/s"
    ),
    new_markdown_cell(
        "## Latency against offered load\n\n"
        "Each load runs three seeds; the rows hold means and 95% confidence half-widths. The "
        "runs go to a process pool here; any `concurrent.futures.Executor` gives the same frame."
    ),
    new_code_cell(
        "curves = {}\n"
        "with cf.ProcessPoolExecutor(2) as pool:\n"
        "    for pattern in ['uniform_random', 'tornado']:\n"
        "        s = base.set('workload.type', pattern)\n"
        "        curves[pattern] = fabricsim.sweep(s, loads=['0.05:0.85:0.1'], seeds=3, executor=pool)\n"
        "curves['uniform_random'][['offered_load', 'accepted_fraction', 'latency_mean_ns', 'latency_mean_ci95_ns', 'saturated']]"
    ),
    new_code_cell(
        "fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))\n"
        "for name, df in curves.items():\n"
        "    ok = df[~df.saturated]\n"
        "    a.errorbar(ok.offered_load, ok.latency_mean_ns, yerr=ok.latency_mean_ci95_ns, marker='o', capsize=3, label=name)\n"
        "    b.plot(df.offered_load, df.accepted_fraction, marker='o', label=name)\n"
        "a.set(xlabel='offered load', ylabel='mean latency (ns)', title='latency-load, 4x4x4 torus')\n"
        "b.set(xlabel='offered load', ylabel='accepted (fraction of injection)', title='throughput')\n"
        "a.legend(); b.legend(); fig.tight_layout()\n"
        "u = curves['uniform_random']\n"
        "assert u.latency_mean_ns.iloc[-1] > u.latency_mean_ns.iloc[0]  # latency grows with load"
    ),
    new_markdown_cell(
        "## Allreduce algorithms over sizes\n\n"
        "One row per (size, algorithm): every algorithm that applies to this network."
    ),
    new_code_cell(
        "with cf.ThreadPoolExecutor(2) as pool:\n"
        "    coll = fabricsim.collective(base, 'allreduce', sizes=['8B', '1KiB', '16KiB', '128KiB'], executor=pool)\n"
        "fig, ax = plt.subplots(figsize=(6, 4))\n"
        "for alg, df in coll.groupby('algorithm'):\n"
        "    ax.loglog(df.bytes, df.time_ns / 1e3, marker='o', label=alg)\n"
        "ax.set(xlabel='bytes per rank', ylabel='time (us)', title='allreduce on 64 ranks')\n"
        "ax.legend()\n"
        "coll.pivot(index='bytes', columns='algorithm', values='time_ns')"
    ),
    new_markdown_cell("## A preset, its ports, and a run taken step by step"),
    new_code_cell(
        "r = fabricsim.run(fabricsim.Scenario.preset('tofud'))\n"
        "print(r.text)\n"
        "sim = fabricsim.Simulation(base.set('workload.load', 0.5))\n"
        "sim.run_until('3us')\n"
        "ports = sim.ports()\n"
        "ports[ports.kind == 'network'].groupby(['axis', 'direction']).utilization.mean().unstack()"
    ),
]

nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
nbformat.write(nb, "fabricsim-tour.ipynb")

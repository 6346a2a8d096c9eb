#!/bin/sh
# Two codes sharing a machine (issue 31): a 3D halo exchange and an all-to-all-heavy code, each
# 128 ranks as GOAL traces, placed compactly (each on its own part of the machine) or
# interleaved (alternate nodes), on an 8x8x4 torus and on a two-level fat-tree of 256 nodes.
# Each run simulates the two codes together and each alone on the same nodes; the table gives
# each code's time together, alone and the slowdown. Usage: studies/jobs.sh [fabricsim binary]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
bin=${1:-$root/target/release/fabricsim}
mkdir -p "$here/jobs/traces" "$here/results"
python3 "$root/examples/traces/halo3d.py" 8 8 2 --iters 4 --bytes 16384 --calc 2000 > "$here/jobs/traces/halo-8x8x2.goal"
python3 "$root/examples/traces/alltoall.py" 128 --iters 2 --bytes 2048 --calc 2000 > "$here/jobs/traces/a2a-128.goal"
out="$here/results/jobs.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "machine,placement,job,time_us,alone_us,slowdown" > "$out"
for case in torus-compact torus-interleaved torus-random fattree-compact fattree-interleaved fattree-random; do
    "$bin" run "$here/jobs/$case.toml" --json "$tmp/$case.json" > /dev/null
    python3 - "$tmp/$case.json" "$case" >> "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
machine, placement = sys.argv[2].split("-")
for j in r["jobs"]:
    print(f"{machine},{placement},{j['name']},{j['time_ns'] / 1e3:.3f},{j['alone_time_ns'] / 1e3:.3f},{j['slowdown']:.3f}")
PY
done
column -s, -t < "$out"

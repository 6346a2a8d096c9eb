#!/usr/bin/env bash
# Tofu barrier gates against the software dissemination barrier: latency vs node count on K and
# post-K shapes, and TofuD's intra-node test programs. Results go to studies/results/.
#
#   studies/barrier.sh [FABRICSIM]
#
# About 10 minutes on one core, most of it the software barrier on the full machines. Each line
# is an ordinary fabricsim command: copy one to rerun a single point.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
out="$here/results"
mkdir -p "$out"
# One barrier per algorithm; prints "nodes,algorithm,time_us,stages,max_gates_per_tni".
point() { # preset shape extra-settings...
  local preset=$1 shape=$2; shift 2
  "$fs" collective --set machine.preset="$preset" --set topology.shape="$shape" "$@" \
    --op barrier --algorithm dissemination,hardware --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$by_algorithm"
}
by_algorithm='import json, sys
for p in json.load(sys.stdin):
    g = p.get("gates") or {}
    print("%d,%s,%.3f,%s,%s" % (p["ranks"], p["algorithm"], p["time_ns"] / 1000, g.get("stages", ""), g.get("max_gates_per_tni", "")))'
header="nodes,algorithm,time_us,stages,max_gates_per_tni"
{
  echo "$header"
  for shape in "[2,2,2,2,3,2]" "[4,4,4,2,3,2]" "[8,6,8,2,3,2]" "[12,9,8,2,3,2]" "[24,18,16,2,3,2]"; do
    point tofu-k "$shape"
  done
} > "$out/barrier-k.csv"
{
  echo "$header"
  for shape in "[2,2,8,2,3,2]" "[4,4,8,2,3,2]" "[8,8,16,2,3,2]" "[24,23,24,2,3,2]"; do
    point tofud "$shape" --set packaging.block=[1,1,1,1,1,1]
  done
} > "$out/barrier-postk.csv"
# TofuD's intra-node test programs (Table VI): n start-and-end points on node 0.
{
  echo "points,time_us,tnis,max_channels_per_tni,max_gates_per_tni,stages"
  for n in 1 4 8 16 48; do
    map=$(mktemp)
    for _ in $(seq "$n"); do echo "0 0 0 0 0 0"; done > "$map"
    "$fs" collective --set machine.preset=tofud --op barrier --algorithm hardware --rank-map "$map" --ranks-per-node 48 --json - 2>/dev/null |
      sed -n '/^\[/,$p' | python3 -c 'import json, sys
p = json.load(sys.stdin)[0]
g = p["gates"]
print("%d,%.3f,%d,%d,%d,%d" % (p["ranks"], p["time_ns"] / 1000, g["tnis"], g["max_channels_per_tni"], g["max_gates_per_tni"], g["stages"]))'
    rm -f "$map"
  done
} > "$out/barrier-tofud-points.csv"

#!/usr/bin/env bash
# Blue Gene/Q class routes against software collectives: 8 B allreduce and barrier latency vs
# node count (the first N nodes of a midplane, then Sequoia), and allreduce throughput vs size on
# a midplane. Results go to studies/results/.
#
#   studies/class_routes.sh [FABRICSIM]
#
# A few minutes on one core. Each line is an ordinary fabricsim command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
out="$here/results"
mkdir -p "$out"
rows='import json, sys
for p in json.load(sys.stdin):
    c = p.get("class_route") or {}
    print("%d,%s,%s,%d,%.3f,%.3f,%s" % (p["ranks"], p["op"], p["algorithm"], p["bytes"], p["time_ns"] / 1000, p["algbw_gb_per_s"], c.get("depth", "")))'
header="nodes,op,algorithm,bytes,time_us,algbw_gb_per_s,tree_depth"
map=$(mktemp)
trap 'rm -f "$map"' EXIT
{
  echo "$header"
  for n in 2 4 8 16 32 64 128 256 512; do
    # The first n nodes of the 4x4x4x4x2 midplane (A fastest): a rectangle.
    python3 -c "
for v in range($n):
    c = []
    for s in (4, 4, 4, 4, 2):
        c.append(v % s); v //= s
    print(*c)" > "$map"
    for op in "allreduce --algorithm recursive_doubling,hardware" "barrier --algorithm dissemination,hardware"; do
      # shellcheck disable=SC2086
      "$fs" collective --set machine.preset=bgq --rank-map "$map" --op $op --sizes 8B --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$rows"
    done
  done
  for op in "allreduce --algorithm hardware" "barrier --algorithm hardware"; do
    # shellcheck disable=SC2086
    "$fs" collective --set machine.preset=bgq-sequoia --op $op --sizes 8B --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$rows"
  done
} > "$out/class-routes-latency.csv"
# Beside uniform random traffic at a load (fraction of injection bandwidth): the collective
# starts after the warm-up, while the traffic goes on.
{
  echo "load,$header"
  for load in 0.02 0.05 0.1; do
    "$fs" collective --set machine.preset=bgq --set workload.type=uniform_random --set workload.load=$load --background \
      --op allreduce --algorithm recursive_doubling,hardware --sizes 8B,64KiB --json - 2>/dev/null | sed -n '/^\[/,$p' |
      python3 -c "$rows" | sed "s/^/$load,/"
  done
} > "$out/class-routes-background.csv"
{
  echo "$header"
  "$fs" collective --set machine.preset=bgq --op allreduce --algorithm hardware,ring,rabenseifner \
    --sizes 1KiB,16KiB,256KiB,1MiB,4MiB --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$rows"
} > "$out/class-routes-throughput.csv"

#!/usr/bin/env bash
# Dawning 5000's switch multicast against software broadcasts: broadcast latency vs member count
# on one plane (the first N nodes), broadcast latency beside unicast traffic for each root
# choice (HLSE, random, fixed), and all-to-all multicast (an allgather by broadcasts) throughput
# vs block size on all 1,024 nodes. Results go to studies/results/.
#
#   studies/multicast.sh [FABRICSIM]
#
# A few minutes on one core. Each line is an ordinary fabricsim command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
out="$here/results"
mkdir -p "$out"
scenario="$here/dawning1024.toml"
rows='import json, sys
for p in json.load(sys.stdin):
    print("%d,%s,%d,%.3f,%.4f" % (p["ranks"], p["algorithm"], p["bytes"], p["time_ns"] / 1000, p["algbw_gb_per_s"]))'
header="ranks,algorithm,bytes,time_us,algbw_gb_per_s"
map=$(mktemp)
trap 'rm -f "$map"' EXIT
{
  echo "$header"
  for n in 2 8 16 64 128 512 1024; do
    seq 0 $((n - 1)) > "$map"
    "$fs" collective "$scenario" --rank-map "$map" --op broadcast --algorithm binomial,hardware --sizes 8B,1KiB --json - 2>/dev/null |
      sed -n '/^\[/,$p' | python3 -c "$rows"
  done
} > "$out/multicast-latency.csv"
# One broadcast per run, so each point runs under five seeds of the background traffic (and of
# the random root choices).
{
  echo "pattern,load,root,seed,$header"
  for pattern in uniform_random hot_region; do
    for load in 0.1 0.3 0.6; do
      for root in hlse random fixed; do
        for seed in 1 2 3 4 5; do
          "$fs" collective "$scenario" --set workload.type=$pattern --set workload.load=$load --set hardware.multicast.root=$root \
            --set sim.seed=$seed --background --op broadcast --algorithm hardware --sizes 8B,1KiB --json - 2>/dev/null |
            sed -n '/^\[/,$p' | python3 -c "$rows" | sed "s/^/$pattern,$load,$root,$seed,/"
        done
      done
    done
  done
} > "$out/multicast-background.csv"
{
  echo "$header"
  # Gathered sizes of 8 B to 1 KiB per rank (one packet each).
  "$fs" collective "$scenario" --op allgather --algorithm ring,hardware --sizes 8KiB,64KiB,256KiB,1MiB --json - 2>/dev/null |
    sed -n '/^\[/,$p' | python3 -c "$rows"
} > "$out/multicast-allgather.csv"

#!/usr/bin/env bash
# Dawning 5000's switch barrier against a software barrier: latency vs member count on one
# plane (the first N nodes: 8 share a leaf switch), then on all 1,024 nodes beside unicast
# traffic (uniform, hot-region, sphere; 1 KB and 256 B packets, header included) with and without the dedicated
# barrier VC, with links multiplexing their VCs flit by flit (the preset, 16 B flits) and sending
# whole packets, and with barrier packets lost on the links. Results go to studies/results/.
#
#   studies/switch_barrier.sh [FABRICSIM]
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
    b = p.get("switch_barrier") or {}
    print("%d,%s,%.3f,%s,%s,%s,%s" % (p["ranks"], p["algorithm"], p["time_ns"] / 1000, b.get("root_level", ""),
          b.get("packets", ""), b.get("resent", ""), b.get("urges", "")))'
header="ranks,algorithm,time_us,root_level,packets,resent,urges"
map=$(mktemp)
trap 'rm -f "$map"' EXIT
{
  echo "$header"
  for n in 2 4 8 16 64 128 512 1024; do
    seq 0 $((n - 1)) > "$map"
    "$fs" collective "$scenario" --rank-map "$map" --op barrier --algorithm dissemination,hardware --json - 2>/dev/null |
      sed -n '/^\[/,$p' | python3 -c "$rows"
  done
} > "$out/switch-barrier-latency.csv"
{
  echo "pattern,packet_bytes,load,class_vcs,flit_size,$header"
  for pattern in uniform_random hot_region sphere; do
    for size in 1024 256; do
      for load in 0.1 0.3 0.6 0.9; do
        for vcs in 1 0; do
          for flit in 16 0; do
            "$fs" collective "$scenario" --set workload.type=$pattern --set workload.packet_size=${size}B --set packet.max_payload=$((size - 16))B \
              --set workload.load=$load --set router.class_vcs=$vcs --set router.flit_size=${flit}B --background --op barrier --algorithm hardware \
              --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$rows" | sed "s/^/$pattern,$size,$load,$vcs,$flit,/"
          done
        done
      done
    done
  done
} > "$out/switch-barrier-background.csv"
{
  echo "drop,$header"
  for drop in 0 0.001 0.01 0.05; do
    "$fs" collective "$scenario" --set hardware.barrier.drop=$drop --set hardware.barrier.retry_timeout=2us \
      --set hardware.barrier.urge_timeout=5us --op barrier --algorithm hardware --json - 2>/dev/null |
      sed -n '/^\[/,$p' | python3 -c "$rows" | sed "s/^/$drop,/"
  done
} > "$out/switch-barrier-loss.csv"

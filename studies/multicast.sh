#!/usr/bin/env bash
# Dawning 5000's switch multicast against software broadcasts: broadcast latency vs member count
# on one plane (the first N nodes), broadcast latency beside unicast traffic for each root
# choice (HLSE, random, fixed), and all-to-all multicast (an allgather by broadcasts) throughput
# vs block size on all 1,024 nodes, and all-to-all multicasts for each root choice with and
# without the bulletin's grant round trip. Results go to studies/results/.
#
#   studies/multicast.sh [FABRICSIM] [PART...]     PART: latency background allgather roots
#
# Half an hour on one core (the background part most of it). Each line is an ordinary
# fabricsim command.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
parts=${*:2}
parts=${parts:-latency background allgather roots}
want() { [[ " $parts " == *" $1 "* ]]; }
out="$here/results"
mkdir -p "$out"
scenario="$here/dawning1024.toml"
rows='import json, sys
for p in json.load(sys.stdin):
    print("%d,%s,%d,%.3f,%.4f" % (p["ranks"], p["algorithm"], p["bytes"], p["time_ns"] / 1000, p["algbw_gb_per_s"]))'
header="ranks,algorithm,bytes,time_us,algbw_gb_per_s"
map=$(mktemp)
prog=$(mktemp)
trap 'rm -f "$map" "$prog"' EXIT
want latency && {
  echo "$header"
  for n in 2 8 16 64 128 512 1024; do
    seq 0 $((n - 1)) > "$map"
    "$fs" collective "$scenario" --rank-map "$map" --op broadcast --algorithm binomial,hardware --sizes 8B,1KiB --json - 2>/dev/null |
      sed -n '/^\[/,$p' | python3 -c "$rows"
  done
} > "$out/multicast-latency.csv"
# One broadcast per run, so each point runs under five seeds of the background traffic (and of
# the random root choices).
want background && {
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
want allgather && {
  echo "$header"
  # Gathered sizes of 8 B to 1 KiB per rank (one packet each).
  "$fs" collective "$scenario" --op allgather --algorithm ring,hardware --sizes 8KiB,64KiB,256KiB,1MiB --json - 2>/dev/null |
    sed -n '/^\[/,$p' | python3 -c "$rows"
} > "$out/multicast-allgather.csv"
# All-to-all multicasts, every node broadcasting one block: to all 1,023 others (an allgather),
# or in 8 interleaved groups of 128 (group g: the nodes at position g on their leaf switch, so
# every leaf switch takes in the blocks of 8 groups and the root choice decides which of its 8
# up-links each one comes down), all at once or one node every 400 ns; for each root choice,
# with the bulletin's grant round trip (25.6 ns) and without it (0 ns). received_mb_per_s: what
# each node receives per microsecond of the run (its link down carries 312.5 MB/s).
groups='import sys
# n ranks in k interleaved groups; rank s broadcasts size to its group s * gap ns after the
# start (a compute first), and takes part in the other broadcasts of its group.
n, k, size, gap = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
sets = [[r for r in range(n) if r % k == g] for g in range(k)]
print(f"ranks {n}")
for s in range(n):
    mine = sets[s % k]
    print("group %d %s" % (s, ",".join(str(x) for x in [s] + [m for m in mine if m != s])))
for s in range(n):
    mine = sets[s % k]
    if gap > 0 and s > 0:
        print(f"{s} compute {s * gap:.1f}ns")
    order = mine[mine.index(s):] + mine[:mine.index(s)]
    for t in order:
        print(f"{s} hw broadcast {t} {size} tag={t}")
    for t in order:
        print(f"{s} hwwait tag={t}")'
time_of='import json, sys
print("%.3f" % (json.load(sys.stdin)[0]["time_ns"] / 1000))'
want roots && {
  echo "pattern,root,grant_delay_ns,block_bytes,time_us,received_mb_per_s"
  for block in 64 1024; do
    for grant in 25.6 0; do
      for root in hlse random fixed; do
        t=$("$fs" collective "$scenario" --set hardware.multicast.root=$root --set hardware.multicast.grant_delay=${grant}ns \
          --op allgather --algorithm hardware --sizes $((block * 1024))B --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$time_of")
        echo "all,$root,$grant,$block,$t,$(python3 -c "print('%.1f' % (1023 * $block / $t))")"
      done
    done
  done
  for gap in 0 400; do
    python3 -c "$groups" 1024 8 1KiB $gap > "$prog"
    for grant in 25.6 0; do
      for root in hlse random fixed; do
        t=$("$fs" collective "$scenario" --program "$prog" --set hardware.multicast.root=$root \
          --set hardware.multicast.grant_delay=${grant}ns --json - 2>/dev/null | sed -n '/^\[/,$p' | python3 -c "$time_of")
        echo "groups8-every${gap}ns,$root,$grant,1024,$t,$(python3 -c "print('%.1f' % (127 * 1024 / $t))")"
      done
    done
  done
} > "$out/multicast-roots.csv"
exit 0

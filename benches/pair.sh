#!/usr/bin/env bash
# Paired A/B of two fabricsim binaries: both run the same scenario at the same time, one per
# core (swapping cores each round), so both see the same machine state; this VM's wall times
# drift by 20-40% over minutes, which makes back-to-back runs hard to compare.
#
#   benches/pair.sh ROUNDS BIN_A BIN_B [SCENARIO]
#
# Prints the median, min and max packet-hops/s of each binary, and the median and quartiles of
# the per-round ratio B/A. Both runs share the L3 cache and memory bandwidth, so absolute figures
# are lower than solo runs (and memory-bound scenarios are slowed more); compare them with each
# other only.
set -euo pipefail
rounds=$1; a=$2; b=$3
scenario=${4:-"$(dirname "$0")/torus-8x8x8-uniform-30.toml"}
hops() { grep '^engine' "$1" | sed -E 's/.*\(([0-9.]+) M hops.*/\1/'; }
tmp=$(mktemp -d)
ra=(); rb=()
for i in $(seq "$rounds"); do
  if (( i % 2 )); then ca=0; cb=1; else ca=1; cb=0; fi
  taskset -c $ca "$a" run "$scenario" > "$tmp/a" &
  taskset -c $cb "$b" run "$scenario" > "$tmp/b" &
  wait
  ra+=("$(hops "$tmp/a")"); rb+=("$(hops "$tmp/b")")
done
stats() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {printf "median %s  min %s  max %s (M hops/s, %d runs)\n", v[int((NR+1)/2)], v[1], v[NR], NR}'; }
echo "A $a: $(stats "${ra[@]}")"
echo "B $b: $(stats "${rb[@]}")"
# The ratio of the two runs of each round cancels most of the machine's drift between rounds.
for i in "${!ra[@]}"; do echo "${rb[$i]} ${ra[$i]}"; done | awk '{print $1 / $2}' | sort -n |
  awk '{v[NR]=$1} END {printf "B/A per round: median %.3f  quartiles %.3f-%.3f\n", v[int((NR+1)/2)], v[int(NR/4)+1], v[int((3*NR+3)/4)]}'
rm -r "$tmp"

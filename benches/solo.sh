#!/usr/bin/env bash
# Solo runs of one or two fabricsim binaries on one core, alternating (A, B, A, B, ...) so both
# see the same phases of the machine, which on this VM drift by 25-40% over minutes.
#
#   benches/solo.sh RUNS BIN_A [BIN_B] [SCENARIO]
#
# Prints, per binary, the median, quartiles, best three (mean) and maximum packet-hops/s of its
# RUNS runs. Unlike benches/pair.sh, nothing else runs meanwhile, so the figures are the ones to
# quote against a target; alternate the binaries to compare them.
set -euo pipefail
runs=$1; a=$2; b=${3:-}
scenario=${4:-"$(dirname "$0")/torus-8x8x8-uniform-30.toml"}
core=${CORE:-1}
hops() { taskset -c "$core" "$1" run "$scenario" | grep '^engine' | sed -E 's/.*\(([0-9.]+) M hops.*/\1/'; }
ra=(); rb=()
for _ in $(seq "$runs"); do
  ra+=("$(hops "$a")")
  if [[ -n "$b" ]]; then rb+=("$(hops "$b")"); fi
done
stats() {
  printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {
    printf "median %s  quartiles %s-%s  best three %.2f  max %s (M hops/s, %d runs)\n",
      v[int((NR+1)/2)], v[int(NR/4)+1], v[int((3*NR+3)/4)], (v[NR]+v[NR-1]+v[NR-2])/3, v[NR], NR }'
}
echo "A $a: $(stats "${ra[@]}")"
if [[ -n "$b" ]]; then echo "B $b: $(stats "${rb[@]}")"; fi

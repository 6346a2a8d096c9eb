#!/usr/bin/env bash
# A/B of the current build against an older commit, as whole processes, in alternating pairs
# (A B A B ...: both see the same phases of this noisy VM).
#
#   benches/ab.sh OLD_REV [-n PAIRS] [SCENARIO...]
#
# Builds OLD_REV once (in a git worktree under target/ab/, kept for the next call) and the
# current tree, then for each scenario (default: the standing benchmarks below) runs PAIRS
# pairs (default 7) and prints, per build, the median CPU time (user + sys) and peak RSS from
# /usr/bin/time, the ratio of the medians (current / old) and the median of the per-pair ratios,
# and the packet-hops of each run (they must agree: the builds simulate the same thing). Where
# `perf stat` has hardware counters (not on this VM), it adds instructions, cycles and cache
# misses per packet-hop; `CACHEGRIND=1` adds cachegrind's instructions and simulated L1 data
# misses per hop instead (deterministic, about 50x slower: use short scenarios).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
old=${1:?usage: benches/ab.sh OLD_REV [-n PAIRS] [SCENARIO...]}
shift
pairs=7
if [[ ${1:-} == -n ]]; then pairs=$2; shift 2; fi
scenarios=("$@")
if [[ ${#scenarios[@]} -eq 0 ]]; then
  scenarios=("$here/torus-8x8x8-uniform-30.toml" "$here/torus-16x16x16-dor-5pct.toml" "$here/torus-16x16x16-uniform-30.toml")
fi

sha=$(git -C "$root" rev-parse --short "$old")
wt="$root/target/ab/$sha"
if [[ ! -x "$wt/target/release/fabricsim" ]]; then
  [[ -d "$wt" ]] || git -C "$root" worktree add --detach "$wt" "$sha" >/dev/null
  (cd "$wt" && cargo build --release -q -p fabricsim-cli)
fi
(cd "$root" && cargo build --release -q -p fabricsim-cli)
a="$wt/target/release/fabricsim"
b="$root/target/release/fabricsim"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One timed run: prints "cpu_seconds peak_kb packet_hops".
timed() {
  /usr/bin/time -f "%U %S %M" -o "$tmp/t" "$1" run "$2" --json "$tmp/r.json" >/dev/null
  local hops
  hops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["packet_hops"])' "$tmp/r.json")
  awk -v h="$hops" '{printf "%.3f %d %s\n", $1 + $2, $3, h}' "$tmp/t"
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
counters() { # build scenario hops
  local probe
  probe=$(perf stat -x, -e instructions true 2>&1 >/dev/null | cut -d, -f1 || true)
  if [[ $probe =~ ^[0-9]+$ ]]; then
    perf stat -x, -e instructions,cycles,cache-misses -o "$tmp/p" "$1" run "$2" >/dev/null
    awk -F, -v h="$3" '$3 ~ /instructions|cycles|cache-misses/ {printf "  %s per hop %.1f", $3, $1 / h} END {print ""}' "$tmp/p"
  elif [[ -n ${CACHEGRIND:-} ]]; then
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$1" run "$2" 2>"$tmp/c" >/dev/null
    awk -v h="$3" '/I +refs/ {gsub(",", "", $4); i=$4} /D1 +misses/ {gsub(",", "", $4); d=$4} END {printf "  instructions per hop %.1f, L1 data misses per hop %.2f (cachegrind)\n", i / h, d / h}' "$tmp/c"
  else
    echo "  (no hardware counters here; CACHEGRIND=1 for instruction and L1-miss counts)"
  fi
}

echo "A = $sha ($a)"
echo "B = current tree ($(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes'))"
for s in "${scenarios[@]}"; do
  : > "$tmp/a"; : > "$tmp/b"; : > "$tmp/ratio"
  for _ in $(seq "$pairs"); do
    read -r ca ma ha < <(timed "$a" "$s")
    read -r cb mb hb < <(timed "$b" "$s")
    echo "$ca $ma $ha" >> "$tmp/a"; echo "$cb $mb $hb" >> "$tmp/b"
    awk -v x="$cb" -v y="$ca" 'BEGIN {print x / y}' >> "$tmp/ratio"
  done
  echo "$(basename "$s"): $pairs pairs"
  for side in a b; do
    cpu=$(cut -d' ' -f1 "$tmp/$side" | median); rss=$(cut -d' ' -f2 "$tmp/$side" | median)
    hops=$(cut -d' ' -f3 "$tmp/$side" | sort -u | tr '\n' ' ')
    echo "  ${side^^}: median CPU ${cpu} s, peak RSS $((rss / 1024)) MB, packet-hops ${hops}"
  done
  ca=$(cut -d' ' -f1 "$tmp/a" | median); cb=$(cut -d' ' -f1 "$tmp/b" | median)
  echo "  B/A: ratio of medians $(awk -v x="$cb" -v y="$ca" 'BEGIN {printf "%.3f", x / y}'), median per-pair ratio $(median < "$tmp/ratio" | xargs printf '%.3f') (range $(sort -n "$tmp/ratio" | head -1 | xargs printf '%.3f')-$(sort -n "$tmp/ratio" | tail -1 | xargs printf '%.3f'))"
  for side in a b; do
    bin=$a; [[ $side == b ]] && bin=$b
    echo -n "  ${side^^}:"; counters "$bin" "$s" "$(cut -d' ' -f3 "$tmp/$side" | head -1)"
  done
done

#!/usr/bin/env bash
# Regenerates the tables of docs/collectives.md (CSV files next to this script).
# Usage: docs/collectives/run.sh [path/to/fabricsim]   (about two minutes on one core)
set -euo pipefail
bin=${1:-target/release/fabricsim}
here=$(dirname "$0")
k=$here/k-like-3d.toml
for net in torus8 k; do
  args=()
  [[ $net == k ]] && args=("$k")
  "$bin" collective "${args[@]}" --op broadcast --sizes 8B,64KiB,1MiB,16MiB --csv "$here/$net-broadcast.csv" >/dev/null
  "$bin" collective "${args[@]}" --op allreduce --sizes 8B,64KiB,1MiB --csv "$here/$net-allreduce.csv" >/dev/null
  "$bin" collective "${args[@]}" --op allgather --sizes 1KiB,1MiB,16MiB --csv "$here/$net-allgather.csv" >/dev/null
  "$bin" collective "${args[@]}" --op all_to_all --sizes 64KiB,1MiB,8MiB --csv "$here/$net-all_to_all.csv" >/dev/null
done

#!/usr/bin/env bash
# Remakes the pictures of docs/profiling.md (the PNG files beside this script) from runs of the
# simulator. Usage: docs/img/profiling/make.sh [FABRICSIM], default target/release/fabricsim
# (built with `cargo build --release -p fabricsim-cli`). Scratch data goes to a temporary
# folder; a few seconds on two cores.
set -euo pipefail
cd "$(dirname "$0")"
bin="${1:-../../../target/release/fabricsim}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
size=800x480

# 1. A hot region on an 8x8 torus: the links into the hot nodes saturate.
"$bin" run --set topology.shape=[8,8] --set workload.type=hot_region --set workload.load=0.3 \
  --set workload.hot_fraction=0.3 --set workload.hot_nodes=2 --set sim.duration=10us \
  --json "$tmp/hot.json" --embed-series --interval 1us >/dev/null
"$bin" plot heatmap "$tmp/hot.json" --axes 0,1 --size $size -o hot-region-heatmap.png \
  --title "hot region, 8x8 torus, load 0.3"
"$bin" plot timeline "$tmp/hot.json" --top 5 --size $size -o hot-region-timeline.png \
  --title "hot region: the five busiest links"

# 2. Broadcast on a 4x4x4 torus: binomial tree against the triple trinary tree.
"$bin" collective --set topology.shape=[4,4,4] --op broadcast --algorithm binomial,chain,trinary_tree \
  --sizes 1KiB,64KiB,1MiB --json "$tmp/bcast.json" >/dev/null
"$bin" plot collective "$tmp/bcast.json" --size $size -o broadcast-bars.png \
  --title "broadcast on a 4x4x4 torus, 64 ranks"

# 3. All-to-all on a 4x4x4 torus: pairwise exchange against the symmetric algorithm.
"$bin" collective --set topology.shape=[4,4,4] --op all_to_all --algorithm pairwise,symmetric,bruck \
  --sizes 64B,4KiB,64KiB --json "$tmp/a2a.json" >/dev/null
"$bin" plot collective "$tmp/a2a.json" --size $size -o alltoall-bars.png \
  --title "all-to-all on a 4x4x4 torus, 64 ranks"

# 4. Adaptive against dimension-order routing up to saturation (uniform random, 4x4x4, 3 VCs).
for r in dimension_order adaptive; do
  "$bin" sweep --set topology.shape=[4,4,4] --set router.vcs=3 --set routing.type=$r \
    --set sim.duration=5us --loads 0.1:0.9:0.1 --seeds 2 --json "$tmp/$r.json" >/dev/null
done
"$bin" plot sweep "$tmp/dimension_order.json" "$tmp/adaptive.json" --size $size -o routing-sweep.png \
  --title "uniform random on a 4x4x4 torus: dimension order against adaptive"
# 5. The viewer: binomial against trinary-tree broadcast side by side (a screenshot when
#    Chromium is installed; the page itself is left out of the repository).
for a in binomial trinary_tree; do
  "$bin" run --set topology.shape=[4,4,4] --set workload.type=collective --set workload.op=broadcast \
    --set workload.algorithm=$a --set workload.size=256KiB --json "$tmp/$a.json" --embed-series --interval 2us >/dev/null
done
"$bin" view "$tmp/binomial.json" "$tmp/trinary_tree.json" --html "$tmp/broadcast.html"
if command -v chromium >/dev/null 2>&1; then
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1100,640 \
    --user-data-dir="$tmp/chromium" --screenshot="$PWD/viewer-broadcast.png" "file://$tmp/broadcast.html#tick=3" 2>/dev/null
fi
echo "wrote $(ls *.png | tr '\n' ' ')"

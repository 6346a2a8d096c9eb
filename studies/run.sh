#!/usr/bin/env bash
# Reruns the routing and switch studies of docs/studies.md; results go to studies/results/.
#
#   studies/run.sh [FABRICSIM [SECTION...]]
#
# FABRICSIM: default fabricsim on PATH, else target/release/fabricsim. SECTION: alltoall,
# switch16, dawning, torus (default: these four), alltoall1m (the 1 MB points, about two hours),
# alltoall8192 (the 16x8x8x8 torus beyond 1 KB, sampled, several hours), alltoallspi (the
# SPI all-to-all on the midplane, each router mechanism in turn, about 25 minutes).
# About 20 minutes on one core, most of it the 64 KB all-to-alls. Each line is an ordinary fabricsim command: copy one to rerun a single point.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
out="$here/results"
mkdir -p "$out"
shift || true
sections=${*:-alltoall switch16 dawning torus}
want() { [[ " $sections " == *" $1 "* ]]; }

# Fraction of the all-to-all peak: routing x message size, on the BG/Q midplane and a 3D torus.
a2a_header="routing,message_size,fraction_of_peak,throughput_gb_per_s,peak_gb_per_s"
a2a() { # file routing-label sizes... ; settings come from $routing
  local file=$1 label=$2; shift 2
  for size in "$@"; do
    f=$("$fs" run "$here/$file" $routing --set workload.message_size="$size" --json - 2>/dev/null |
      python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["fraction_of_peak"], r["workload"]["throughput_gb_per_s"], r["all_to_all_peak_gb_per_s"])')
    echo "$label,$size,${f// /,}"
  done
}
if want alltoall; then
{
  echo "$a2a_header"
  sizes="1KB 4KB 16KB 64KB"
  routing="--set routing.type=dimension_order --set router.vcs=3 --set router.queues=1" a2a alltoall-bgq.toml dimension_order $sizes
  routing="--set routing.zones=[[\"A\",\"B\",\"C\",\"D\",\"E\"]]" a2a alltoall-bgq.toml adaptive $sizes
  routing="--set router.queues=1" a2a alltoall-bgq.toml zones_abcd_e_one_queue $sizes
  routing="" a2a alltoall-bgq.toml zones_abcd_e $sizes
  routing="--set routing.zones=[[\"A\",\"B\"],[\"C\",\"D\"],[\"E\"]]" a2a alltoall-bgq.toml zones_ab_cd_e $sizes
} > "$out/alltoall-bgq.csv"
# The same on an asymmetric 4D torus, 8x4x4x4 (the proportions of 16x8x8x8 at 512 nodes),
# with and without a zone for the long axis first.
{
  echo "$a2a_header"
  shape="--set topology.shape=[8,4,4,4,1]"
  routing="$shape --set routing.type=dimension_order --set router.vcs=3 --set router.queues=1" a2a alltoall-bgq.toml dimension_order $sizes
  routing="$shape --set routing.zones=[[\"A\",\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml adaptive $sizes
  routing="$shape --set routing.zones=[[\"A\"],[\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml zones_a_bcd $sizes
  routing="$shape --set routing.zones=[[\"A\"],[\"B\",\"C\",\"D\"]] --set router.queues=1" a2a alltoall-bgq.toml zones_a_bcd_one_queue $sizes
} > "$out/alltoall-8x4x4x4.csv"
{
  echo "$a2a_header"
  routing="--set routing.type=dimension_order" a2a alltoall-torus3d.toml dimension_order $sizes
  routing="--set routing.type=adaptive" a2a alltoall-torus3d.toml adaptive $sizes
  routing="--set routing.type=adaptive --set routing.escape=bubble --set router.vcs=2 --set router.queues=2" a2a alltoall-torus3d.toml adaptive_bubble_2_queues $sizes
  routing="--set routing.type=adaptive --set routing.zones=[[\"d0\",\"d1\"],[\"d2\"]]" a2a alltoall-torus3d.toml zones_d0d1_d2 $sizes
} > "$out/alltoall-torus3d.csv"
fi

# 1 MB all-to-alls on the midplane and the 3D torus, 16 to 32 minutes each: only when asked for
# (alltoall1m).
if want alltoall1m; then
{
  echo "$a2a_header"
  long="--set sim.max_time=5s"
  routing="$long --set routing.type=dimension_order --set router.vcs=3 --set router.queues=1" a2a alltoall-bgq.toml dimension_order 1MB
  routing="$long --set routing.zones=[[\"A\",\"B\",\"C\",\"D\",\"E\"]]" a2a alltoall-bgq.toml adaptive 1MB
  routing="$long" a2a alltoall-bgq.toml zones_abcd_e 1MB
} > "$out/alltoall-bgq-1mb.csv"
{
  echo "$a2a_header"
  long="--set sim.max_time=5s"
  routing="$long --set routing.type=dimension_order" a2a alltoall-torus3d.toml dimension_order 1MB
  routing="$long --set routing.type=adaptive" a2a alltoall-torus3d.toml adaptive 1MB
  routing="$long --set routing.type=adaptive --set routing.escape=bubble --set router.vcs=2 --set router.queues=2" a2a alltoall-torus3d.toml adaptive_bubble_2_queues 1MB
  routing="$long --set routing.type=adaptive --set routing.zones=[[\"d0\",\"d1\"],[\"d2\"]]" a2a alltoall-torus3d.toml zones_d0d1_d2 1MB
} > "$out/alltoall-torus3d-1mb.csv"
fi

# The 16x8x8x8 torus (8,192 nodes) beyond 1 KB, as sampled exchanges: each node sends to 128
# translations of itself (64 at 64 KB) instead of to all 8,191 others (several hours on one
# core; only when asked for: alltoall8192).
if want alltoall8192; then
{
  echo "$a2a_header"
  big="--set topology.shape=[16,8,8,8,1]"
  routing="$big --set workload.destinations=128 --set routing.zones=[[\"A\",\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml adaptive 4KB 16KB
  routing="$big --set workload.destinations=64 --set routing.zones=[[\"A\",\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml adaptive 64KB
  routing="$big --set workload.destinations=128 --set routing.zones=[[\"A\"],[\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml zones_a_bcd 4KB 16KB
  routing="$big --set workload.destinations=64 --set routing.zones=[[\"A\"],[\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml zones_a_bcd 64KB
  # Without the transit ratio: the router mechanism that makes the zone pay.
  routing="$big --set workload.destinations=128 --set router.transit_ratio=0 --set routing.zones=[[\"A\",\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml adaptive_no_transit_ratio 16KB
  routing="$big --set workload.destinations=128 --set router.transit_ratio=0 --set routing.zones=[[\"A\"],[\"B\",\"C\",\"D\"]]" a2a alltoall-bgq.toml zones_a_bcd_no_transit_ratio 16KB
} > "$out/alltoall-16x8x8x8-sampled.csv"
fi

# The SPI all-to-all on the midplane (studies/alltoall-bgq-spi.toml) with the preset's router,
# then each of its mechanisms taken away in turn (about 25 minutes, most of it the 32 KB points).
want alltoallspi && {
  echo "$a2a_header"
  routing="" a2a alltoall-bgq-spi.toml preset 4KB 32KB
  routing="--set router.transit_ratio=0" a2a alltoall-bgq-spi.toml no_transit_ratio 4KB 32KB
  routing="--set router.queue_buffer=split" a2a alltoall-bgq-spi.toml split_queue_buffers 4KB
  routing="--set routing.leave_escape=false" a2a alltoall-bgq-spi.toml stay_on_escape 4KB
  routing="--set routing.ties=pair" a2a alltoall-bgq-spi.toml ties_by_pair 4KB 32KB
  routing="--set routing.zones=[[\"A\",\"B\",\"C\",\"D\",\"E\"]]" a2a alltoall-bgq-spi.toml no_zones 4KB
  routing="--set router.transit_ratio=0 --set router.queue_buffer=split --set routing.leave_escape=false --set routing.ties=pair" \
    a2a alltoall-bgq-spi.toml session_22_router 4KB 32KB
  routing="--set workload.chunk=1GB --set workload.window=4 --set nic.interleave=1" a2a alltoall-bgq-spi.toml window_4_whole_messages 4KB 32KB
} > "$out/alltoall-bgq-spi.csv"

# Saturation (first saturated offered load, peak accepted) of a sweep: file, loads, settings.
saturation() {
  local file=$1 loads=$2; shift 2
  line=$("$fs" sweep "$here/$file" "$@" --loads "$loads" 2>/dev/null | tail -1)
  sat=$(sed -E 's/.*offered load ([0-9.]+).*/\1/;t;s/.*/-/' <<<"$line")
  peak=$(sed -E 's/.*peak accepted ([0-9.]+).*/\1/' <<<"$line")
  echo "$sat,$peak"
}
# Saturation of a 16-port switch: VCs x buffer (in packets), traffic pattern, packet size,
# crossbar.
want switch16 && {
  echo "pattern,packet_bytes,crossbar,vcs,buffer_packets,saturation_load,peak_accepted"
  for pattern in uniform_random hot_region sphere; do
    for size in 128 512 1024; do
      for xbar in per_vc shared; do
        for vcs in 1 2 3 4; do
          for pk in 1 2 4 8; do
            # The full grid for uniform 512 B packets; elsewhere 4-packet buffers only.
            if [[ $pattern != uniform_random || $size != 512 ]] && [[ $pk != 4 ]]; then continue; fi
            if [[ $xbar == shared && $pk != 4 ]]; then continue; fi
            echo "$pattern,$size,$xbar,$vcs,$pk,$(saturation switch16.toml 0.1:1.0:0.05 --set workload.type=$pattern \
              --set workload.packet_size=${size}B --set router.crossbar=$xbar --set router.vcs=$vcs --set router.buffer=$((pk * size))B)"
          done
        done
      done
    done
  done
} > "$out/switch16.csv"
# The 1,024-node Dawning 5000 fat-tree (4 rails of 16-port switches, 1 KB packets): VCs and
# buffer per VC under uniform, hot-region and sphere traffic.
want dawning && {
  echo "pattern,vcs,buffer_packets,saturation_load,peak_accepted"
  for pattern in uniform_random hot_region sphere; do
    for vp in "1 4" "2 4" "3 4" "4 4" "3 1" "3 2" "3 8"; do
      set -- $vp
      echo "$pattern,$1,$2,$(saturation dawning1024.toml 0.1:1.0:0.1 --set workload.type=$pattern --set router.vcs=$1 --set router.buffer=$(($2 * 1024))B)"
    done
  done
} > "$out/dawning1024.csv"

# Latency-load curves and saturation of each routing on the 8x8x8 torus (the last with
# virtual output queues: the bubble routing's one dynamic VC as two queues of half its buffer).
want torus && for r in "dimension_order 2" "dimension_order 4" "dimension_order 8" "adaptive 3" "adaptive 4" "adaptive 8" "bubble 2" "bubble 4" "bubble_queues 2"; do
  set -- $r
  case $1 in
    bubble) routing="--set routing.type=adaptive --set routing.escape=bubble" ;;
    bubble_queues) routing="--set routing.type=adaptive --set routing.escape=bubble --set router.queues=2" ;;
    *) routing="--set routing.type=$1" ;;
  esac
  "$fs" sweep "$here/torus-routing.toml" $routing --set router.vcs=$2 --loads 0.1:1.0:0.1 --csv "$out/torus-$1-$2vc.csv" 2>/dev/null | tail -1 |
    sed "s/^/$1 $2 VCs: /"
done > "$out/torus-saturation.txt"
echo "results in $out"

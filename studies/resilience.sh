#!/usr/bin/env bash
# The resilience studies of docs/resilience.md: latency and throughput against lane BER for the
# four protection schemes, one lane dark on one link, a link failure during an all-to-all, and
# the cost of slicing on clean lanes. Results go to studies/results/resilience-*.csv.
#
#   studies/resilience.sh [FABRICSIM]
#
# About a minute on one core. Each line is an ordinary fabricsim command: copy one to rerun a
# single point.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
fs=${1:-$(command -v fabricsim || echo "$here/../target/release/fabricsim")}
out="$here/results"
mkdir -p "$out"
# One run as a CSV row: latency mean and p99 (ns), accepted throughput (fraction of injection),
# and the fault counts.
row='import json, sys
r = json.load(sys.stdin)
f = r.get("faults") or {}
l = r["latency_ns"]
errors = sum(f.get(k, 0) for k in ("errors_random", "errors_burst", "errors_dark_lane", "errors_link_down"))
print("%.1f,%.1f,%.4f,%d,%d,%d,%d,%d,%d" % (l["mean"], l["p99"], r["accepted_throughput"]["fraction_of_injection"],
      errors, f.get("frames_retransmitted", 0), f.get("frames_duplicated", 0), f.get("lanes_dropped", 0),
      f.get("packets_lost", 0), r["messages_delivered"]))'
cols="latency_mean_ns,latency_p99_ns,accepted_fraction,lane_errors,retransmitted,duplicated_frames,lanes_dropped,packets_lost,messages_delivered"
uniform="$here/resilience-tofud.toml"

# 1. Lane BER 1e-12 .. 1e-5, the four schemes, uniform traffic at 10% load.
{
  echo "protection,lane_ber,$cols"
  for p in none retry slicing degrade; do
    for ber in 1e-12 1e-10 1e-9 1e-8 1e-7 1e-6 3e-6 1e-5; do
      echo "$p,$ber,$("$fs" run "$uniform" --set link.protection=$p --set faults.lane_ber=$ber --json - 2>/dev/null | python3 -c "$row")"
    done
  done
} > "$out/resilience-ber.csv"

# 2. One lane dark from 3 us to 8 us on the busiest link direction of the uniform run (Z- of
# node (1,1,1,0,2,0)), lanes otherwise clean (BER 1e-15 keeps the protocol on).
dark="--set faults.lane_ber=1e-15 --set faults.events=[{at=\"3us\",kind=\"lane_down\",lane=1,link={node=[1,1,1,0,2,0],axis=\"Z\",direction=\"-\"}},{at=\"8us\",kind=\"lane_up\",lane=1,link={node=[1,1,1,0,2,0],axis=\"Z\",direction=\"-\"}}]"
{
  echo "protection,recovered_after_ns,$cols"
  for p in retry slicing degrade; do
    j=$("$fs" run "$uniform" --set link.protection=$p $dark --json - 2>/dev/null)
    rec=$(echo "$j" | python3 -c 'import json,sys; r=json.load(sys.stdin)["faults"]["recovery"][0]["recovered_after_ns"]; print("" if r is None else "%.0f" % r)')
    echo "$p,$rec,$(echo "$j" | python3 -c "$row")"
  done
} > "$out/resilience-dark-lane.csv"

# 3. A link failure during an all-to-all: down at 3 us, back after 0 (no failure) to 20 us, or
# never; the routers learn of it at once or 1 us late (frames sent into it meanwhile wait for it
# when it comes back, or go around once the routers know when it does not).
{
  echo "awareness,outage_us,completion_ns,throughput_gb_per_s,recovered_after_ns,reroutes"
  for aware in 0ns 1us; do
    for us in 0 2 5 10 20 never; do
      down="{at=\"3us\",kind=\"link_down\",link={node=[0,0,0,0,0,0],axis=\"Z\",direction=\"+\"}}"
      case "$us" in
        0) set_events=(--set "faults.events=[]") ;;
        never) set_events=(--set "faults.events=[$down]") ;;
        *) set_events=(--set "faults.events=[$down,{at=\"$((3 + us))us\",kind=\"link_up\",link={node=[0,0,0,0,0,0],axis=\"Z\",direction=\"+\"}}]") ;;
      esac
      "$fs" run "$here/resilience-alltoall.toml" "${set_events[@]}" --set faults.awareness=$aware --json - 2>/dev/null | python3 -c 'import json, sys
r = json.load(sys.stdin)
f = r.get("faults") or {"recovery": []}
rec = f["recovery"][0]["recovered_after_ns"] if f["recovery"] else None
print("'"$aware,$us"',%.1f,%.3f,%s,%d" % (r["workload"]["completion_ns"], r["workload"]["throughput_gb_per_s"], "" if rec is None else "%.0f" % rec, f.get("reroutes", 0)))'
    done
  done
} > "$out/resilience-alltoall.csv"

# 4. Slicing on clean lanes: no fault configured against faults configured that never strike.
{
  echo "case,$cols"
  echo "perfect links,$("$fs" run "$uniform" --set faults.lane_ber=0 --json - 2>/dev/null | python3 -c "$row")"
  echo "slicing, BER 1e-15,$("$fs" run "$uniform" --set link.protection=slicing --set faults.lane_ber=1e-15 --json - 2>/dev/null | python3 -c "$row")"
} > "$out/resilience-clean.csv"
for f in ber dark-lane alltoall clean; do
  echo "== $out/resilience-$f.csv"
  cat "$out/resilience-$f.csv"
done

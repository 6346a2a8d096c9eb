//! A run as a trace that Perfetto's UI (and chrome://tracing) opens: the JSON trace event
//! format. Each router is a process whose counter tracks are its links' utilisation per
//! interval (a `C` event when the value changes); the run's phases (warm-up, measurement
//! window, drain) are slices on a "run" track, and a collective's time on each rank's track,
//! from the start until that rank finished, with the rank's program operations (sends,
//! receives, computes, in-network collectives) as slices nested in it.

use crate::input::{Port, Series};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Microseconds, the trace format's unit, from nanoseconds.
fn us(ns: f64) -> f64 {
    ns / 1e3
}

/// One program operation of a rank, for a slice on its track; times in ns from the program's
/// start, like the ranks' finishing times.
#[derive(Debug, Clone, PartialEq)]
pub struct OpSlice {
    pub rank: u32,
    /// Lane of the rank (lane 0 is drawn on the rank's track, others on tracks of their own).
    pub lane: u32,
    pub name: String,
    pub start_ns: f64,
    pub end_ns: f64,
    /// What the slice shows when clicked (peer, bytes, tag, operation index).
    pub args: Value,
}

/// The track of `rank`'s lane `lane` among `ranks` ranks (lane 0: the rank's own track).
pub fn op_track(rank: u32, lane: u32, ranks: usize) -> u64 {
    10 + rank as u64 + lane as u64 * ranks as u64
}

/// The trace of a run: its report `run` (as JSON), its series, its ports (for coordinates) and,
/// for a collective or program, when each rank finished (ns, in rank order) and the ranks'
/// operations (`ops`, empty when they were not logged).
pub fn trace(run: &Value, series: &Series, ports: &[Port], rank_done_ns: &[f64], ops: &[OpSlice]) -> String {
    let mut ev: Vec<Value> = Vec::new();
    let name = run.get("name").and_then(Value::as_str).unwrap_or("run");
    let f = |k: &str| run.get(k).and_then(Value::as_f64).unwrap_or(0.0);
    let (warmup, window, end) = (f("warmup_ns"), f("window_ns"), f("sim_time_ns"));
    ev.push(json!({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": format!("fabricsim: {name}")}}));
    ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "run phases"}}));
    let mut slice = |pid: u64, tid: u64, label: &str, from: f64, to: f64, args: Value| {
        if to > from {
            ev.push(json!({"name": label, "ph": "X", "pid": pid, "tid": tid, "ts": us(from), "dur": us(to - from), "args": args}));
        }
    };
    slice(1, 1, "warm-up", 0.0, warmup, json!({}));
    slice(1, 1, "measurement window", warmup, warmup + window, json!({}));
    slice(1, 1, "drain", warmup + window, end, json!({}));
    if let Some(c) = run.get("collective") {
        let what = format!("{} ({})", c["op"].as_str().unwrap_or("collective"), c["algorithm"].as_str().unwrap_or("?"));
        let time = c["time_ns"].as_f64().unwrap_or(0.0);
        // The collective starts after the warm-up of its background traffic (0 without one).
        let start = warmup;
        slice(1, 2, &what, start, start + time, json!({"bytes": c["bytes"], "ranks": c["ranks"]}));
        for (rank, done) in rank_done_ns.iter().enumerate() {
            slice(1, 10 + rank as u64, &what, start, start + done, json!({"rank": rank}));
        }
        // The operations nest in their rank's slice: they run between its start and its end.
        for o in ops {
            let (tid, from, to) = (op_track(o.rank, o.lane, rank_done_ns.len()), start + o.start_ns, start + o.end_ns);
            ev.push(json!({"name": o.name, "ph": "X", "pid": 1, "tid": tid, "ts": us(from), "dur": us(to - from), "args": o.args}));
        }
    }
    ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "collective"}}));
    for rank in 0..rank_done_ns.len() {
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 10 + rank, "args": {"name": format!("rank {rank}")}}));
    }
    let mut lanes: Vec<(u32, u32)> = ops.iter().filter(|o| o.lane > 0).map(|o| (o.rank, o.lane)).collect();
    lanes.sort_unstable();
    lanes.dedup();
    for (rank, lane) in lanes {
        let tid = op_track(rank, lane, rank_done_ns.len());
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": tid, "args": {"name": format!("rank {rank} lane {lane}")}}));
    }
    let coords: HashMap<u32, &Vec<u32>> = ports.iter().filter_map(|p| Some((p.router, p.coords.as_ref()?))).collect();
    let mut named = std::collections::HashSet::new();
    for (p, sp) in series.ports.iter().enumerate() {
        let pid = 100 + sp.router as u64;
        if named.insert(sp.router) {
            let at = coords.get(&sp.router).map(|c| format!(" ({})", c.iter().map(u32::to_string).collect::<Vec<_>>().join(","))).unwrap_or_default();
            ev.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": format!("router {}{at}", sp.router)}}));
        }
        let track = format!("{} util", sp.label);
        let mut last = f64::NAN;
        for (i, u) in series.utilization[p].iter().enumerate() {
            if *u != last {
                ev.push(json!({"name": track, "ph": "C", "pid": pid, "ts": us(i as f64 * series.interval_ns), "args": {"utilization": u}}));
                last = *u;
            }
        }
        let n = series.intervals();
        ev.push(json!({"name": track, "ph": "C", "pid": pid, "ts": us(n as f64 * series.interval_ns), "args": {"utilization": last}}));
    }
    serde_json::to_string(&json!({"traceEvents": ev, "displayTimeUnit": "ns"})).expect("trace serialises")
}

//! A run as a trace that Perfetto's UI (and chrome://tracing) opens: the JSON trace event
//! format. Each router is a process whose counter tracks are its links' utilisation per
//! interval (a `C` event when the value changes); the run's phases (warm-up, measurement
//! window, drain) are slices on a "run" track, and a collective's time on each rank's track,
//! from the start until that rank finished.

use crate::input::{Port, Series};
use serde_json::{json, Value};
use std::collections::HashMap;

/// Microseconds, the trace format's unit, from nanoseconds.
fn us(ns: f64) -> f64 {
    ns / 1e3
}

/// The trace of a run: its report `run` (as JSON), its series, its ports (for coordinates) and,
/// for a collective, when each rank finished (ns, in rank order).
pub fn trace(run: &Value, series: &Series, ports: &[Port], rank_done_ns: &[f64]) -> String {
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
    }
    ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "collective"}}));
    for rank in 0..rank_done_ns.len() {
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": 10 + rank, "args": {"name": format!("rank {rank}")}}));
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

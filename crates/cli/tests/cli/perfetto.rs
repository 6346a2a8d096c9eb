//! `run --perfetto FILE`: a JSON trace Perfetto's UI opens, checked against the run's series.

use super::{example, fabricsim};
use serde_json::Value;

#[test]
fn the_trace_has_a_counter_track_per_link_and_the_collectives_ranks_as_slices() {
    let d = std::env::temp_dir().join(format!("fabricsim-perfetto-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (trace, run) = (d.join("trace.json"), d.join("run.json"));
    let (code, _, err) = fabricsim(&[
        "run",
        &example("collective-allreduce.toml"),
        "--perfetto",
        trace.to_str().unwrap(),
        "--json",
        run.to_str().unwrap(),
        "--embed-series",
        "--interval",
        "2us",
    ]);
    assert_eq!(code, 0, "{err}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let ev = t["traceEvents"].as_array().unwrap();
    for e in ev {
        assert!(["M", "X", "C"].contains(&e["ph"].as_str().unwrap()), "{e}");
        if e["ph"] != "M" {
            assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["pid"].is_u64(), "{e}");
        }
    }
    // One slice per rank, each ending when the report says the last rank finished at most.
    let coll = &r["collective"];
    let what = format!("{} ({})", coll["op"].as_str().unwrap(), coll["algorithm"].as_str().unwrap());
    let ranks: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "X" && e["name"] == what.as_str() && e["args"]["rank"].is_u64()).collect();
    assert_eq!(ranks.len() as u64, coll["ranks"].as_u64().unwrap());
    let longest = ranks.iter().map(|e| e["dur"].as_f64().unwrap()).fold(0.0, f64::max);
    assert!((longest * 1e3 - coll["time_ns"].as_f64().unwrap()).abs() < 1e-6);
    // Each port of the series is a counter track under its router, starting with its first value.
    let s = &r["series"];
    let ports = s["ports"].as_array().unwrap();
    for (p, port) in ports.iter().enumerate() {
        let pid = 100 + port["router"].as_u64().unwrap();
        let name = format!("{} util", port["label"].as_str().unwrap());
        let track: Vec<&Value> = ev.iter().filter(|e| e["ph"] == "C" && e["pid"] == pid && e["name"] == name.as_str()).collect();
        assert!(!track.is_empty(), "a track for {name} of router {pid}");
        assert_eq!(track[0]["args"]["utilization"], s["utilization"][p][0]);
    }
    let busy: usize = ev.iter().filter(|e| e["ph"] == "C" && e["args"]["utilization"].as_f64().unwrap() > 0.0).count();
    assert!(busy > ports.len(), "the allreduce keeps links busy");
}

#[test]
fn a_bad_interval_is_refused_naming_it() {
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--perfetto", "/tmp/never.json", "--interval", "0ns"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--interval"), "{err}");
}

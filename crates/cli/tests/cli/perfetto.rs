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

/// The trace's slices of track `tid` (pid 1), as (name, start us, end us).
fn slices(ev: &[Value], tid: u64) -> Vec<(String, f64, f64)> {
    ev.iter()
        .filter(|e| e["ph"] == "X" && e["pid"] == 1 && e["tid"] == tid)
        .map(|e| (e["name"].as_str().unwrap().to_string(), e["ts"].as_f64().unwrap(), e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap()))
        .collect()
}

#[test]
fn a_programs_operations_are_slices_nested_in_their_ranks_slice() {
    let d = std::env::temp_dir().join(format!("fabricsim-perfetto-ops-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    // Rank 0 computes, then sends to 1 and 2 and waits for their answers; 1 and 2 wait for it,
    // compute for different times and answer; 3 only computes.
    let program = "ranks 4\n0 compute 2us\n0 put 1 4KiB tag=1\n0 put 2 4KiB tag=1\n0 wait 1 tag=2\n0 wait 2 tag=2\n\
                   1 wait 0 tag=1\n1 compute 1us\n1 put 0 8B tag=2\n2 wait 0 tag=1\n2 compute 3us\n2 put 0 8B tag=2\n3 compute 500ns\n";
    std::fs::write(d.join("p.txt"), program).unwrap();
    std::fs::write(d.join("p.toml"), "[topology]\nshape = [4]\n[workload]\ntype = \"program\"\nfile = \"p.txt\"\n").unwrap();
    let (trace, run) = (d.join("trace.json"), d.join("run.json"));
    let (code, _, err) = fabricsim(&[
        "run",
        d.join("p.toml").to_str().unwrap(),
        "--perfetto",
        trace.to_str().unwrap(),
        "--json",
        run.to_str().unwrap(),
        "--interval",
        "1us",
    ]);
    assert_eq!(code, 0, "{err}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    let ev = t["traceEvents"].as_array().unwrap();
    let coll = &r["collective"];
    let mut sends = 0;
    let mut computes = Vec::new();
    for rank in 0..4u64 {
        let s = slices(ev, 10 + rank);
        // The rank's own slice (the program, from its start to the rank's end) comes first and
        // holds the others; the operations follow one another without overlapping.
        let (whole, ops) = s.split_first().expect("the rank's slice");
        assert!(whole.0.starts_with("program"), "{whole:?}");
        assert!(!ops.is_empty(), "rank {rank} has operation slices");
        for o in ops {
            assert!(o.1 >= whole.1 - 1e-9 && o.2 <= whole.2 + 1e-9, "rank {rank}: {o:?} outside {whole:?}");
        }
        for w in ops.windows(2) {
            assert!(w[0].2 <= w[1].1 + 1e-9, "rank {rank}: {:?} overlaps {:?}", w[0], w[1]);
        }
        // The rank ends when its last operation does.
        assert!((ops.last().unwrap().2 - whole.2).abs() < 1e-6, "rank {rank}: last {:?}, rank ends {}", ops.last(), whole.2);
        sends += ops.iter().filter(|o| o.0.starts_with("send to")).count() as u64;
        computes.extend(ops.iter().filter(|o| o.0 == "compute").map(|o| ((o.2 - o.1) * 1e3).round() as u64));
    }
    // One send slice per message, and computes as long as the program says.
    assert_eq!(sends, coll["messages"].as_u64().unwrap());
    computes.sort_unstable();
    assert_eq!(computes, vec![500, 1000, 2000, 3000]);
    // A receive lasts from when the rank reached it until the message was there: rank 1 waits
    // for rank 0's send, which comes after rank 0's 2 us compute.
    let r1 = slices(ev, 11);
    let recv = r1.iter().find(|o| o.0 == "recv from 0").expect("rank 1's receive");
    let send = slices(ev, 10).into_iter().find(|o| o.0 == "send to 1").expect("rank 0's send");
    assert!(recv.1 < 1e-9 && recv.2 > send.1, "{recv:?} vs {send:?}");
}

#[test]
fn a_trace_on_standard_output_is_all_there_is_on_it() {
    let (code, out, err) =
        fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us", "--perfetto", "-", "--interval", "500ns"]);
    assert_eq!(code, 0, "{err}");
    let t: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("standard output is not one JSON trace ({e}): {out:.300}"));
    assert!(t["traceEvents"].as_array().is_some_and(|e| e.iter().any(|e| e["ph"] == "C")));
    // The run's summary went to standard error.
    assert!(err.contains("scenario") && err.contains("latency ns"), "{err}");
}

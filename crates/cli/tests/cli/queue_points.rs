//! `sweep --queues` and `collective --queues`: each point carries the queue summary `run
//! --queues` gives, in the JSON, the CSV and the text; nothing without the flag; refused by
//! name on several threads.

use super::fabricsim;

#[test]
fn sweep_points_carry_the_queue_summary_of_their_runs() {
    let base = ["sweep", "--loads", "0.1,0.7", "--set", "topology.shape=[4,4]", "--set", "sim.duration=4us", "--json", "-"];
    let (code, out, err) = fabricsim(&[&base[..], &["--queues"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let wait = |i: usize| v["points"][i]["queues"]["network_wait_ns"].as_f64().unwrap();
    assert!(wait(0) >= 0.0 && wait(1) > wait(0), "the wait grows with the load: {} then {} ns", wait(0), wait(1));
    assert!(err.contains("queues (Little's law)"), "the text table (on standard error beside --json -): {err}");
    // Without the flag: no queue field, no table.
    let (code, out, err) = fabricsim(&base);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["points"][0].get("queues").is_none() && !err.contains("Little"));
    // CSV: three more columns, filled, only with the flag.
    let csv = ["sweep", "--loads", "0.5", "--set", "topology.shape=[4,4]", "--set", "sim.duration=4us", "--csv", "-"];
    let (_, out, _) = fabricsim(&[&csv[..], &["--queues"]].concat());
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("saturated,queue_network_wait_ns,queue_terminal_wait_ns,queue_mean_packets"), "{out}");
    assert!(lines[1].split(',').next_back().unwrap().parse::<f64>().unwrap() > 0.0, "{out}");
    let (_, out, _) = fabricsim(&csv);
    assert!(out.lines().next().unwrap().ends_with(",saturated"), "{out}");
    // On several threads the meter cannot run.
    let (code, _, err) = fabricsim(&[&csv[..], &["--queues", "--set", "sim.threads=2"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sim.threads"), "{err}");
}

#[test]
fn collective_points_carry_queue_counters_with_their_ports() {
    let base = ["collective", "--set", "topology.shape=[4,4]", "--op", "all_to_all", "--algorithm", "bruck", "--sizes", "1KiB,16KiB", "--json", "-"];
    let (code, out, err) = fabricsim(&[&base[..], &["--queues", "--ports"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = v.as_array().unwrap();
    let wait: Vec<f64> = points.iter().map(|p| p["queues"]["network_wait_ns"].as_f64().unwrap()).collect();
    assert!(wait[0] > 0.0 && wait[1] > wait[0], "Bruck's rounds queue, more with larger messages: {wait:?}");
    assert!(points.iter().all(|p| p["ports"][0].get("queue_packet_ns").is_some()), "per-port fields with --ports");
    let (code, out, err) = fabricsim(&base);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v[0].get("queues").is_none());
    let (code, _, err) = fabricsim(&[&base[..], &["--queues", "--set", "sim.threads=2"]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sim.threads"), "{err}");
}

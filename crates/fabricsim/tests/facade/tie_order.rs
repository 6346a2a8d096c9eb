//! Results must not depend on the order in which the event queue hands out events of the same
//! instant. `sim.tie_order = "shuffle"` draws that order at random (seeded); every example, the
//! validation rows and a few harder settings must give exactly what the fixed order gives: the
//! whole JSON report (summary, workload results, per-port counters), wall-clock figures aside.

use fabricsim::{Plan, Scenario};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The JSON report of a run without its wall-clock figures and provenance (with the queue
/// meter's per-port fields and summary when `queues`).
fn report_of(s: &Scenario, queues: bool) -> serde_json::Value {
    let r = Plan { queues, ..Plan::new(s).unwrap() }.run().unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    let o = v.as_object_mut().unwrap();
    // Wall-clock figures, and the provenance (its scenario names the tie order itself).
    for k in ["wall_seconds", "events_per_second", "packet_hops_per_second", "provenance"] {
        o.remove(k);
    }
    v
}

fn with(s: &Scenario, sets: &[(&str, &str)]) -> Scenario {
    let mut s = s.clone();
    for (k, v) in sets {
        s.set(k, v).unwrap();
    }
    s
}

/// The fixed order's report equals the report under two shuffles.
fn assert_tie_order_free(name: &str, s: &Scenario) {
    assert_tie_order_free_of(name, s, false)
}

/// [`assert_tie_order_free`], with the queue meter on when `queues`.
fn assert_tie_order_free_of(name: &str, s: &Scenario, queues: bool) {
    let fixed = report_of(s, queues);
    for seed in ["11", "12"] {
        // The shuffle draws from the scenario's seed: change the queue's draws, not the traffic.
        let shuffled = report_of(&with(s, &[("sim.tie_order", "\"shuffle\"")]).clone_with_queue_seed(seed), queues);
        assert!(
            fixed == shuffled,
            "{name}: results change when same-instant events are shuffled (draw {seed})\nfixed:    {}\nshuffled: {}",
            brief(&fixed),
            brief(&shuffled)
        );
    }
}

fn brief(v: &serde_json::Value) -> String {
    let mut v = v.clone();
    v.as_object_mut().unwrap().remove("ports");
    v.to_string()
}

trait QueueSeed {
    fn clone_with_queue_seed(&self, seed: &str) -> Scenario;
}

impl QueueSeed for Scenario {
    /// The scenario with another shuffle stream for the event queue (traffic keeps its seed).
    fn clone_with_queue_seed(&self, seed: &str) -> Scenario {
        with(self, &[("sim.tie_seed", seed)])
    }
}

#[test]
fn every_example_gives_the_same_results_with_shuffled_ties() {
    let mut n = 0;
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("examples")).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    for p in paths.iter().filter(|p| p.extension().is_some_and(|x| x == "toml")) {
        assert_tie_order_free(&p.display().to_string(), &Scenario::from_file(p).unwrap());
        n += 1;
    }
    assert!(n >= 9, "only {n} examples");
}

#[test]
fn harder_settings_give_the_same_results_with_shuffled_ties() {
    // Ties are common where every packet has the same size and links the same latency; these
    // add saturation, several engines, VCs, credit stalls, priorities of the NIC's resources.
    let base = Scenario::from_file(&root().join("examples/torus-uniform.toml")).unwrap();
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "saturated uniform, 2 engines, 4 VCs",
            &[("workload.load", "0.9"), ("nic.injection_engines", "2"), ("router.vcs", "4"), ("sim.duration", "2us")],
        ),
        (
            "tornado, small buffers",
            &[("workload.type", "\"tornado\""), ("workload.load", "0.6"), ("router.buffer", "\"1KiB\""), ("sim.duration", "2us")],
        ),
        (
            "uniform, per-core costs",
            &[("nic.software_overhead", "\"40ns\""), ("nic.poll_overhead", "\"40ns\""), ("nic.injection_engines", "2"), ("sim.duration", "2us")],
        ),
        ("uniform, 4 engines, random selection", &[("nic.injection_engines", "4"), ("routing.selection", "random"), ("sim.duration", "2us")]),
        (
            "saturated uniform, shared crossbar, 4 VCs",
            &[("workload.load", "0.9"), ("router.crossbar", "\"shared\""), ("router.vcs", "4"), ("sim.duration", "2us")],
        ),
        (
            "hot region on a mesh",
            &[("workload.type", "\"hot_region\""), ("topology.wrap", "[false,false,false]"), ("workload.load", "0.5"), ("sim.duration", "2us")],
        ),
    ];
    for (name, sets) in cases {
        assert_tie_order_free(name, &with(&base, sets));
    }
    // Adaptive packets that find no room sleep until credit returns to one of their hops.
    let adaptive: &[(&str, &str)] = &[
        ("routing.type", "\"adaptive\""),
        ("routing.escape", "\"bubble\""),
        ("router.vcs", "2"),
        ("router.queues", "3"),
        ("workload.type", "\"tornado\""),
        ("workload.load", "1.0"),
        ("sim.duration", "2us"),
    ];
    assert_tie_order_free("saturated adaptive tornado, bubble escape, 3 queues", &with(&base, adaptive));
    let bgq =
        [("router.queue_buffer", "\"shared\""), ("routing.leave_escape", "true"), ("routing.ties", "\"source\""), ("router.transit_ratio", "4")];
    assert_tie_order_free("the same with shared queue buffers, leaving the escape VC, transit ratio", &with(&with(&base, adaptive), &bgq));
    let a2a = Scenario::from_file(&root().join("examples/all-to-all.toml")).unwrap();
    assert_tie_order_free("all-to-all, window 8, 2 engines", &with(&a2a, &[("workload.window", "8"), ("nic.injection_engines", "2")]));
    // The cores' costs: software per post and polling per completion, one at a time per rank.
    let costs =
        [("nic.injection_engines", "2"), ("nic.software_overhead", "\"30ns\""), ("nic.poll_overhead", "\"50ns\""), ("nic.tx_overhead", "\"20ns\"")];
    assert_tie_order_free("all-to-all, 2 engines, core costs", &with(&a2a, &costs));
}

#[test]
fn queue_counters_and_credit_stalls_per_vc_are_the_same_with_shuffled_ties() {
    // Saturated runs with small buffers: many outputs wait for credit, returns and requests
    // meet at the same instants (adaptive packets wait only on the escape VC).
    let base = Scenario::from_file(&root().join("examples/torus-uniform.toml")).unwrap();
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("saturated uniform, 2 VCs, 1 KiB buffers", &[("workload.load", "0.9"), ("router.buffer", "\"1KiB\""), ("sim.duration", "2us")]),
        (
            "saturated uniform, 4 VCs, 1 KiB buffers, 2 engines",
            &[("workload.load", "1.0"), ("router.vcs", "4"), ("router.buffer", "\"1KiB\""), ("nic.injection_engines", "2"), ("sim.duration", "2us")],
        ),
        (
            "saturated adaptive, bubble escape, 1 KiB buffers",
            &[
                ("routing.type", "\"adaptive\""),
                ("routing.escape", "\"bubble\""),
                ("router.vcs", "2"),
                ("router.buffer", "\"1KiB\""),
                ("workload.load", "1.0"),
                ("sim.duration", "2us"),
            ],
        ),
    ];
    for (name, sets) in cases {
        let s = with(&base, sets);
        let v = report_of(&s, true);
        let stalled =
            v["ports"].as_array().unwrap().iter().any(|p| p["credit_stall_vc_ns"].as_array().unwrap().iter().any(|x| x.as_f64().unwrap() > 0.0));
        assert!(stalled, "{name}: some VC waits for credit");
        assert_tie_order_free_of(name, &s, true);
    }
}

#[test]
fn validation_rows_give_the_same_results_with_shuffled_ties() {
    // Every validation row (the papers' benchmarks on the machine presets), fixed and shuffled.
    let dir = root().join("validation");
    let simulated = |extra: &[String]| -> Vec<(String, f64)> {
        let rows = fabricsim::validate::validate_with(Some(Path::new(&dir)), None, extra, |_| {}).unwrap();
        rows.into_iter().map(|r| (format!("{}: {}", r.system, r.figure), r.simulated)).collect()
    };
    let fixed = simulated(&[]);
    assert!(fixed.len() >= 60, "only {} rows", fixed.len());
    let shuffled = simulated(&["sim.tie_order=shuffle".into(), "sim.tie_seed=5".into()]);
    let moved: Vec<String> =
        fixed.iter().zip(&shuffled).filter(|(f, s)| f != s).map(|(f, s)| format!("{}: {} fixed, {} shuffled", f.0, f.1, s.1)).collect();
    assert!(moved.is_empty(), "validation figures change when same-instant events are shuffled:\n{}", moved.join("\n"));
}

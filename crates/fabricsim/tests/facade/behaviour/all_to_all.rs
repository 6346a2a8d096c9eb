//! All-to-all exchanges: a sampled exchange standing for the whole, the fraction of the network
//! peak, schedules.

use super::*;

#[test]
fn a_sampled_all_to_all_stands_for_the_whole_exchange() {
    // 128 nodes (8x4x4), 4 KB messages: each node sends to 32 translations of itself instead of
    // to all 127 others. Its fraction of (its own) peak is the whole exchange's, within a few
    // hundredths, for a deterministic and an adaptive routing, at a quarter of the cost.
    let run = |routing: &str, sample: Option<&str>| {
        let mut sets = vec![
            "topology.shape=[8,4,4]".to_string(),
            format!("routing.type={routing}"),
            "router.vcs=3".into(),
            "workload.type=all_to_all".into(),
            "workload.message_size=4KB".into(),
            "workload.schedule=random".into(),
        ];
        sets.extend(sample.map(|k| format!("workload.destinations={k}")));
        let mut s = Scenario::default();
        s.apply_overrides(&sets).unwrap();
        Plan::new(&s).unwrap().run().unwrap()
    };
    for routing in ["dimension_order", "adaptive"] {
        let (whole, sample) = (run(routing, None), run(routing, Some("32")));
        assert_eq!(whole.workload.messages, 128 * 127);
        assert_eq!(sample.workload.messages, 128 * 32);
        let (fw, fs) = (whole.fraction_of_peak.unwrap(), sample.fraction_of_peak.unwrap());
        assert!((fw - fs).abs() < 0.05, "{routing}: whole {fw}, sampled {fs}");
        // The sample's peak is its own (its translations' hops), not the whole exchange's.
        assert_ne!(whole.all_to_all_peak_gb_per_s, sample.all_to_all_peak_gb_per_s);
    }
    let err = |sets: &[&str]| Plan::new(&with(sets)).and_then(|p| p.run()).err().unwrap().to_string();
    let a2a = ["workload.type=all_to_all", "workload.schedule=random"];
    for (extra, why) in [
        (&["workload.destinations=31"][..], "odd"),
        (&["workload.destinations=512"], "as many as the nodes"),
        (&["workload.destinations=8", "workload.schedule=shifted"], "shifted order"),
        (&["workload.destinations=8", "topology.type=mesh", "topology.shape=[8,8,8]"], "a mesh"),
    ] {
        let sets: Vec<&str> = a2a.iter().chain(extra).copied().collect();
        assert!(err(&sets).starts_with("workload.destinations"), "{why}: {}", err(&sets));
    }
}

#[test]
fn all_to_all_reports_its_fraction_of_the_network_peak_and_schedules_matter() {
    // 8x8 torus at 5 GB/s with link-rate NICs: the axes allow 64 x 63 x 5 GB/s / 64 = 315 GB/s
    // in wire bytes (injection a little more). A random order per node beats the shifted one,
    // whose every step is a translation of the whole machine.
    let run = |schedule: &str| {
        let s = with(&["topology.shape=[8,8]", "workload.type=all_to_all", "workload.message_size=2KB", &format!("workload.schedule={schedule}")]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let shifted = run("shifted");
    let peak = shifted.all_to_all_peak_gb_per_s.unwrap();
    assert!((peak - 315.0).abs() < 1e-6, "{peak}");
    let f = shifted.fraction_of_peak.unwrap();
    assert!(f > 0.0 && f <= 1.0, "{f}");
    assert!(shifted.summary().contains("of it reached"));
    assert!(run("random").fraction_of_peak.unwrap() > f);
    // Other workloads have no all-to-all peak.
    assert!(Plan::new(&Scenario::default()).unwrap().run().unwrap().fraction_of_peak.is_none());
}

//! Every packet delivered once, and the same seed giving the same run.

use super::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]
    #[test]
    fn every_packet_is_accounted_for(
        shape in proptest::collection::vec(2u32..5, 1..4),
        load in 0.05f64..1.0,
        pattern in 0usize..5,
        seed in any::<u64>(),
    ) {
        let kinds = ["uniform_random", "nearest_neighbor", "bit_complement", "tornado", "hot_region"];
        let mut s = Scenario::default();
        s.set("topology.shape", &format!("{shape:?}")).unwrap();
        s.set("workload.type", kinds[pattern]).unwrap();
        s.workload.set_load(load).unwrap();
        s.sim.seed = seed;
        s.sim.duration = Time::from_us(2);
        // The run itself checks injected == delivered + in flight and no duplicates.
        let r = Plan::new(&s).unwrap().run().unwrap();
        prop_assert!(r.packets_delivered <= r.packets_injected);
        // Measured messages are a subset of the delivered ones (single-packet messages here).
        // A short run may measure none: its messages can all fall in the warm-up.
        prop_assert!(r.latency_ns.count <= r.packets_delivered);
    }
}

#[test]
fn same_seed_same_result_and_other_seed_differs() {
    let mut s = scenario(include_str!("../../../../../examples/torus-uniform.toml"));
    let a = Plan::new(&s).unwrap().run().unwrap();
    let b = Plan::new(&s).unwrap().run().unwrap();
    assert_eq!(a.packets_injected, b.packets_injected);
    assert_eq!(a.latency_ns, b.latency_ns);
    assert_eq!(a.events, b.events);
    s.sim.seed += 1;
    let c = Plan::new(&s).unwrap().run().unwrap();
    assert_ne!(a.latency_ns, c.latency_ns);
}

#[test]
fn accepted_equals_offered_below_saturation() {
    let s = scenario(include_str!("../../../../../examples/torus-uniform.toml"));
    let r = Plan::new(&s).unwrap().run().unwrap();
    assert!(r.drained);
    let acc = r.accepted_throughput.fraction_of_injection;
    assert!((acc - 0.3).abs() < 0.03, "accepted {acc}");
}

#[test]
fn window_length_does_not_change_the_steady_state() {
    // Results must not flip with the measurement window: a 4x longer window agrees within noise.
    let mut s = scenario(include_str!("../../../../../examples/torus-uniform.toml"));
    let short = Plan::new(&s).unwrap().run().unwrap();
    s.sim.duration = Time::from_us(20);
    let long = Plan::new(&s).unwrap().run().unwrap();
    let (a, b) = (short.latency_ns.mean, long.latency_ns.mean);
    assert!((a - b).abs() / b < 0.08, "{a} vs {b}");
    let (a, b) = (short.accepted_throughput.fraction_of_injection, long.accepted_throughput.fraction_of_injection);
    assert!((a - b).abs() < 0.03, "{a} vs {b}");
}

//! Load sweeps: what is, and is not, taken for saturation.

use super::*;

#[test]
fn idle_nodes_and_packet_headers_are_not_taken_for_saturation() {
    // A transpose leaves its diagonal idle, and BG/Q's packet format carries 512 B of payload
    // in 552 B on the wire: at low loads neither is saturated (both once were, at every load).
    let s = scenario(include_str!("../../../../../examples/mesh-transpose.toml"));
    let rep = fabricsim::sweep(&s, &[0.05, 0.1, 0.2], Default::default(), |_| {}).unwrap();
    for p in &rep.points {
        assert!(!p.saturated && p.expected_fraction < p.offered_load, "{p:?}");
        assert!((p.accepted_fraction - p.expected_fraction).abs() < 0.2 * p.expected_fraction, "{p:?}");
    }
    let mut bgq = Scenario::default();
    bgq.set("machine.preset", "bgq").unwrap();
    bgq.set("workload.type", "uniform_random").unwrap();
    bgq.set("sim.duration", "5us").unwrap();
    // (10 engines of 2 GB/s per node: 2% of injection is 0.4 GB/s of uniform traffic.)
    let rep = fabricsim::sweep(&bgq, &[0.01, 0.02], Default::default(), |_| {}).unwrap();
    assert!(rep.points.iter().all(|p| !p.saturated), "{:?}", rep.points);
    assert_eq!(rep.saturation_load, None);
}

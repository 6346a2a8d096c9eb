//! Accepted throughput and saturation, per-port counters, and whether the measurement window was
//! steady.

use super::*;

#[test]
fn single_stream_approaches_link_bandwidth() {
    let mut s = pingpong_torus(&[4, 4], &[true, true], &[0, 0], &[1, 0], 65536);
    as_stream(&mut s, 8);
    set_packet_size(&mut s, 512);
    let r = Plan::new(&s).unwrap().run().unwrap();
    let gbs = r.workload.throughput_gb_per_s.unwrap();
    let link = s.topology.link_bandwidth().as_gb_per_s();
    assert!(gbs <= link && gbs > 0.98 * link, "{gbs} vs {link}");
}

#[test]
fn header_bytes_cost_bandwidth() {
    let mut s = pingpong_torus(&[4], &[true], &[0], &[1], 65536);
    as_stream(&mut s, 16);
    set_packet_size(&mut s, 512);
    s.packet.header = fabricsim::Bytes(64);
    let r = Plan::new(&s).unwrap().run().unwrap();
    let eff = r.workload.throughput_gb_per_s.unwrap() / s.topology.link_bandwidth().as_gb_per_s();
    assert!((eff - 448.0 / 512.0).abs() < 0.01, "efficiency {eff}");
}

#[test]
fn tornado_saturates_where_uniform_does_not() {
    let mut s = Scenario::default();
    torus(&mut s).shape = vec![8, 8];
    s.sim.duration = Time::from_us(5);
    s.workload = WorkloadSpec::Tornado(OpenLoopSpec::default());
    let rep = fabricsim::sweep(&s, &[0.2, 0.9], Default::default(), |_| {}).unwrap();
    assert!(!rep.points[0].saturated);
    assert!(rep.points[1].saturated, "{:?}", rep.points[1]);
    assert_eq!(rep.saturation_load, Some(0.9));
    // Tornado on an 8-ring sends everything 3 hops the same way: at most 1/3 of a link per node.
    assert!(rep.saturation_throughput < 0.5);
}

#[test]
fn per_port_counters_add_up() {
    // A closed workload whose run ends inside the window: the counters see every hop.
    let s = scenario(include_str!("../../../../../examples/all-to-all.toml"));
    let r = Plan::new(&s).unwrap().run().unwrap();
    let eject: u64 = r.ports.iter().filter(|p| p.kind == "terminal").map(|p| p.packets).sum();
    assert_eq!(eject, r.packets_delivered);
    let net: u64 = r.ports.iter().filter(|p| p.kind == "network").map(|p| p.packets).sum();
    assert_eq!(net + eject, r.packet_hops);
    for p in &r.ports {
        assert!((p.busy_ns + p.idle_ns - r.sim_time_ns).abs() < 1e-3);
        assert!(p.utilization <= 1.0);
    }
}

#[test]
fn per_port_counters_cover_the_measurement_window_only() {
    // Open-loop traffic with a warm-up and a drain: the counters leave both out.
    let s = scenario(include_str!("../../../../../examples/torus-uniform.toml"));
    let r = Plan::new(&s).unwrap().run().unwrap();
    let window_ns = r.window_ns;
    assert!(window_ns > 0.0 && r.warmup_ns > 0.0 && r.sim_time_ns > window_ns + r.warmup_ns);
    let eject: u64 = r.ports.iter().filter(|p| p.kind == "terminal").map(|p| p.packets).sum();
    let net: u64 = r.ports.iter().filter(|p| p.kind == "network").map(|p| p.packets).sum();
    assert!(eject > 0 && net + eject < r.packet_hops, "{} + {} vs {}", net, eject, r.packet_hops);
    // Below saturation the window carries its share of the run's hops: the window is a
    // fraction of the run, and so are the hops counted in it (within 10%).
    let share = (net + eject) as f64 / r.packet_hops as f64;
    let expected = window_ns / r.sim_time_ns;
    assert!(share > 0.9 * expected && share < 1.1 * expected.max(1e-9) + 0.05, "share {share}, expected {expected}");
    for p in &r.ports {
        // The busy/idle split is over the window's length (not the run's).
        assert!((p.busy_ns + p.idle_ns - window_ns).abs() < 1e-3, "{} + {} vs {window_ns}", p.busy_ns, p.idle_ns);
        // Stall time is split at the window's boundaries, so it fits in the window.
        assert!(p.credit_stall_ns <= window_ns + 1e-3, "stall {} in a {window_ns} ns window", p.credit_stall_ns);
    }
}

#[test]
fn a_window_that_opens_before_the_traffic_settles_is_flagged() {
    // With no warm-up and a window of a few packet latencies, deliveries ramp up across the
    // window; with the default warm-up and a long window they do not.
    let run = |sets: &[&str]| Plan::new(&with(sets)).unwrap().run().unwrap();
    let short = run(&["sim.warmup=0ns", "sim.duration=1us", "workload.load=0.1"]);
    assert_eq!(short.steady, Some(false));
    assert!(short.summary().contains("not in steady state"));
    let long = run(&["sim.duration=20us", "workload.load=0.1"]);
    assert_eq!(long.steady, Some(true));
    assert!(!long.summary().contains("warning"));
    // Closed workloads have no window to judge.
    assert_eq!(run(&["workload.type=pingpong", "workload.src=[0,0,0]", "workload.dst=[1,0,0]"]).steady, None);
}

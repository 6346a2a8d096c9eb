//! Cores paying for posting and polling.

use super::*;

#[test]
fn open_loop_cores_pay_for_polling_though_the_traffic_ignores_completions() {
    // Posting waits behind polling on the same core: with both costs, latency grows.
    let mut s = scenario(include_str!("../../../../../examples/torus-uniform.toml"));
    s.nic.software_overhead = Time::from_ns(40);
    let post_only = Plan::new(&s).unwrap().run().unwrap();
    s.nic.poll_overhead = Time::from_ns(40);
    let both = Plan::new(&s).unwrap().run().unwrap();
    assert!(both.latency_ns.mean > post_only.latency_ns.mean, "{} vs {}", both.latency_ns.mean, post_only.latency_ns.mean);
}

#[test]
fn regression_a_ping_pong_waits_for_its_last_leg_to_be_polled() {
    // With a polling cost the last leg reaches the workload after it arrives: the run must
    // not stop before (it once reported 2n - 1 legs).
    let mut s = pingpong_torus(&[8], &[true], &[0], &[3], 64);
    s.nic.poll_overhead = Time::from_ns(100);
    let r = Plan::new(&s).unwrap().run().unwrap();
    assert_eq!(r.workload.messages, 4, "two round trips: four legs heard");
    let free = Plan::new(&pingpong_torus(&[8], &[true], &[0], &[3], 64)).unwrap().run().unwrap();
    // Each leg is measured from its posting, which the polling delays: same one-way time.
    assert_eq!(r.workload.one_way_latency_ns, free.workload.one_way_latency_ns);
    assert!(r.sim_time_ns > free.sim_time_ns + 399.0, "{} vs {}", r.sim_time_ns, free.sim_time_ns);
}

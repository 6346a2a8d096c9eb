//! The NIC model: engines and links in use, the neighbour exchange, per-message costs, RDMA Get,
//! host and memory limits.

use super::*;

fn streams(kind: &str, engines: u32, directions: Option<u32>) -> f64 {
    let mut s = Scenario::default();
    torus(&mut s).shape = vec![4, 4, 4];
    s.nic.injection_engines = Some(engines);
    let spec = LinkStreamsSpec { src: Some(vec![0, 0, 0]), message_size: fabricsim::Bytes(1 << 18), directions, ..Default::default() };
    s.workload = match kind {
        "simultaneous_puts" => WorkloadSpec::SimultaneousPuts(spec),
        _ => WorkloadSpec::NeighborExchange(spec),
    };
    Plan::new(&s).unwrap().run().unwrap().workload.throughput_gb_per_s.unwrap()
}

#[test]
fn simultaneous_puts_scale_with_engines_until_links_or_engines_run_out() {
    let link = 5.0;
    // 4 directions with 4 engines: 4 links busy; with 2 engines only 2 messages at a time.
    let four = streams("simultaneous_puts", 4, Some(4));
    assert!(four > 3.95 * link * 0.99 && four <= 4.0 * link, "{four}");
    let two_engines = streams("simultaneous_puts", 2, Some(4));
    assert!(two_engines < 2.0 * link * 1.01, "{two_engines}");
}

/// Completion time of a neighbour exchange on a 4x4 torus with `iterations` and the rest of
/// the loop's keys as `tune` sets them.
fn exchange_ns(bytes: u64, iterations: u64, tune: impl Fn(&mut Scenario, &mut LinkStreamsSpec)) -> f64 {
    let mut s = Scenario::default();
    let mut spec = LinkStreamsSpec { src: Some(vec![0, 0]), message_size: fabricsim::Bytes(bytes), iterations, ..Default::default() };
    tune(&mut s, &mut spec);
    torus(&mut s).shape = vec![4, 4];
    s.nic.injection_engines = Some(4);
    s.workload = WorkloadSpec::NeighborExchange(spec);
    Plan::new(&s).unwrap().run().unwrap().workload.completion_ns.unwrap()
}

#[test]
fn the_exchange_loop_repeats_whole_iterations_and_pays_its_fixed_cost_once_each() {
    for bytes in [2048, 65536] {
        let one = exchange_ns(bytes, 1, |_, _| {});
        // Nothing of one iteration overlaps the next: three take three times one.
        let three = exchange_ns(bytes, 3, |_, _| {});
        assert!((three - 3.0 * one).abs() < 1e-6, "{bytes} B: {three} vs 3 x {one}");
        // The per-iteration cost adds itself once per iteration, whatever the size.
        let paid = exchange_ns(bytes, 3, |_, w| w.iteration_overhead = Time::from_ns(250));
        assert!((paid - three - 750.0).abs() < 1e-6, "{bytes} B: {paid} vs {three}");
        // A barrier of the node each iteration (class routes, whose message-unit work costs
        // time): a fixed time per iteration too.
        let run = |iterations, barrier| {
            exchange_ns(bytes, iterations, |s, w| {
                s.set("hardware.type", "\"bgq_class_routes\"").unwrap();
                (s.nic.tx_overhead, s.nic.rx_overhead) = (Time::from_ns(100), Time::from_ns(100));
                w.iteration_barrier = barrier;
            })
        };
        let (b1, b3, plain) = (run(1, true), run(3, true), run(1, false));
        assert!(b1 > plain + 200.0 - 1e-6, "{bytes} B: the barrier costs time ({b1} vs {plain})");
        assert!((b3 - 3.0 * b1).abs() < 1e-6, "{bytes} B: {b3} vs 3 x {b1}");
    }
}

#[test]
fn an_iteration_barrier_without_collective_hardware_is_refused_by_name() {
    let mut s = Scenario::default();
    torus(&mut s).shape = vec![4, 4];
    s.workload = WorkloadSpec::NeighborExchange(LinkStreamsSpec { src: Some(vec![0, 0]), iteration_barrier: true, ..Default::default() });
    let e = Plan::new(&s).and_then(|p| p.run()).unwrap_err().to_string();
    assert!(e.contains("workload.iteration_barrier"), "{e}");
    s.workload = WorkloadSpec::NeighborExchange(LinkStreamsSpec { src: Some(vec![0, 0]), iterations: 0, ..Default::default() });
    let e = Plan::new(&s).and_then(|p| p.run()).unwrap_err().to_string();
    assert!(e.contains("workload.iterations"), "{e}");
}

#[test]
fn neighbor_exchange_uses_every_link_both_ways() {
    let t = streams("neighbor_exchange", 6, None);
    assert!(t > 0.98 * 12.0 * 5.0 && t <= 12.0 * 5.0, "{t}");
}

#[test]
fn per_message_costs_add_to_latency_and_options_remove_them() {
    let base = {
        let s = pingpong_torus(&[4], &[true], &[0], &[1], 8);
        Plan::new(&s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap()
    };
    let mut s = pingpong_torus(&[4], &[true], &[0], &[1], 8);
    s.nic.tx_overhead = Time::from_ns(100);
    s.nic.descriptor_fetch = Time::from_ns(240);
    s.nic.memory_write = Time::from_ns(160);
    s.nic.far_cmg_penalty = Time::from_ns(50);
    let lat = |s: &Scenario| Plan::new(s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap();
    assert!((lat(&s) - (base + 500.0)).abs() < 1e-6);
    s.nic.direct_descriptor = true;
    assert!((lat(&s) - (base + 260.0)).abs() < 1e-6);
    s.nic.cache_injection = true;
    assert!((lat(&s) - (base + 100.0)).abs() < 1e-6);
    s.nic.cmg = fabricsim::scenario::Cmg::Far;
    assert!((lat(&s) - (base + 150.0)).abs() < 1e-6);
}

#[test]
fn rdma_get_is_a_request_then_the_data_back() {
    let mut s = pingpong_torus(&[8], &[true], &[0], &[3], 4096);
    set_packet_size(&mut s, 1024);
    let put = Plan::new(&s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap();
    let WorkloadSpec::Pingpong(r) = s.workload.clone() else { unreachable!() };
    s.workload = WorkloadSpec::RdmaGet(r);
    let get = Plan::new(&s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap();
    // Get = a 64 B request one way + the 4 KiB data the other way.
    let hop = (s.router.delay + s.topology.link_latency()) * 3;
    let req = s.nic.latency + hop + s.topology.link_bandwidth().serialization(64);
    assert!((get - (req.as_ns_f64() + put)).abs() < 1e-6, "get {get} put {put}");
}

#[test]
fn host_and_memory_limits_cap_throughput() {
    let mut s = pingpong_torus(&[4], &[true], &[0], &[1], 1 << 20);
    as_stream(&mut s, 2);
    s.nic.host_bandwidth = Some(Bandwidth(2_000_000_000));
    let t = Plan::new(&s).unwrap().run().unwrap().workload.throughput_gb_per_s.unwrap();
    assert!(t < 2.0 && t > 1.95, "{t}");
    s.nic.host_bandwidth = None;
    s.nic.memory_bandwidth = Some(Bandwidth(1_000_000_000));
    s.nic.cache_size = fabricsim::Bytes(4096);
    let t = Plan::new(&s).unwrap().run().unwrap().workload.throughput_gb_per_s.unwrap();
    // Sender reads and receiver writes use different nodes' memory: 1 GB/s each.
    assert!(t < 1.0 && t > 0.97, "{t}");
}

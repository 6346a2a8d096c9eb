//! Zero-load latency against its closed form: NIC, hops, routers, links and serialisation.

use super::*;

/// NIC + hops x (router + link) + serialisation, on a direct network.
fn closed_form(s: &Scenario, hops: u64, bytes: u64) -> f64 {
    let ser = s.topology.link_bandwidth().serialization(bytes);
    let t = s.nic.latency + (s.router.delay + s.topology.link_latency()) * hops + ser;
    t.as_ns_f64()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn torus_one_packet_matches_closed_form(
        shape in proptest::collection::vec(2u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
        seed in any::<u64>(),
        size in 1u64..512,
        delay_ns in 1u64..100,
        lat_ns in 0u64..100,
    ) {
        let wrap = &wraps[..shape.len()];
        let n: u32 = shape.iter().product();
        let a = (seed % n as u64) as u32;
        let b = ((seed / 7) % n as u64) as u32;
        prop_assume!(a != b);
        let coords = |mut x: u32| shape.iter().map(|&k| { let c = x % k; x /= k; c }).collect::<Vec<u32>>();
        let mut s = pingpong_torus(&shape, wrap, &coords(a), &coords(b), size);
        s.router.delay = Time::from_ns(delay_ns);
        torus(&mut s).link_latency = Time::from_ns(lat_ns);
        let plan = Plan::new(&s).unwrap();
        let hops = plan.topology.distance(NodeId(a), NodeId(b)) as u64;
        let r = plan.run().unwrap();
        let got = r.workload.one_way_latency_ns.unwrap();
        prop_assert!((got - closed_form(&s, hops, size)).abs() < 1e-6, "got {got}, hops {hops}");
    }
}

/// On an idle network the packets of one message follow each other without meeting: the
/// last arrives `(n - 1)` engine serialisation times after a lone packet would. The grid
/// covers a packet arriving as the one ahead leaves (engine as fast as the links), arriving
/// after it left (slower engine), and queued behind one still in the router pipeline (long
/// router delays): the three ways a packet's request is made (its own head-ready event, the
/// release of the packet ahead, or an event that release schedules).
#[test]
fn a_message_pipelines_its_packets() {
    for (engine_gbs, delay_ns, lat_ns, size, n) in
        [(5.0, 40, 20, 64u64, 4u64), (5.0, 0, 0, 256, 3), (2.5, 300, 20, 64, 4), (2.5, 40, 20, 512, 2), (1.25, 500, 0, 64, 5), (5.0, 300, 20, 64, 5)]
    {
        let mut s = pingpong_torus(&[6], &[false], &[0], &[5], size);
        s.router.delay = Time::from_ns(delay_ns);
        torus(&mut s).link_latency = Time::from_ns(lat_ns);
        s.nic.bandwidth = Some(Bandwidth((engine_gbs * 1e9) as u64));
        set_packet_size(&mut s, size);
        let one = Plan::new(&s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap();
        s.workload.set_message_size(fabricsim::Bytes(n * size)).unwrap();
        let many = Plan::new(&s).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap();
        let step = s.nic.bandwidth.unwrap().serialization(size).as_ns_f64();
        let want = one + (n - 1) as f64 * step;
        assert!((many - want).abs() < 1e-6, "engine {engine_gbs} GB/s, delay {delay_ns} ns, {n} x {size} B: {many} ns, want {want}");
    }
}

#[test]
fn fat_tree_adds_nic_links_and_one_router_per_switch() {
    let mut s = scenario(
        r#"
        [topology]
        type = "fat_tree"
        radix = 4
        levels = 3
        [workload]
        type = "pingpong"
        src = [0]
        dst = [7]
        message_size = "64B"
        "#,
    );
    s.sim.seed = 1;
    let plan = Plan::new(&s).unwrap();
    let hops = plan.topology.distance(NodeId(0), NodeId(7)) as u64; // links, NIC links included
    assert_eq!(hops, 6);
    let r = plan.run().unwrap();
    let ser = s.topology.link_bandwidth().serialization(64);
    let want = s.nic.latency + s.topology.link_latency() * hops + s.router.delay * (hops - 1) + ser;
    assert!((r.workload.one_way_latency_ns.unwrap() - want.as_ns_f64()).abs() < 1e-6);
}

#[test]
fn multi_packet_message_pipelines_over_hops() {
    // A message of m packets pays serialisation m times but hop latency once (cut-through).
    let mut s = pingpong_torus(&[8], &[true], &[0], &[3], 2048);
    set_packet_size(&mut s, 512);
    let r = Plan::new(&s).unwrap().run().unwrap();
    let ser = s.topology.link_bandwidth().serialization(512);
    let want = s.nic.latency + (s.router.delay + s.topology.link_latency()) * 3 + ser * 4;
    assert!((r.workload.one_way_latency_ns.unwrap() - want.as_ns_f64()).abs() < 1e-6);
}

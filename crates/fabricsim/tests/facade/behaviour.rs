//! Behaviour of whole simulations built from scenarios.

use fabricsim::scenario::{TopologySpec, TorusSpec};
use fabricsim::workloads::{LinkStreamsSpec, OpenLoopSpec, RoundTripSpec, StreamSpec, WorkloadSpec};
use fabricsim::{Plan, Scenario};
use fabricsim_core::{Bandwidth, NodeId, Time};
use fabricsim_topology::Topology;
use proptest::prelude::*;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap()
}

fn pingpong_torus(shape: &[u32], wrap: &[bool], src: &[u32], dst: &[u32], size: u64) -> Scenario {
    let mut s = Scenario::default();
    torus(&mut s).shape = shape.to_vec();
    torus(&mut s).wrap = Some(wrap.to_vec());
    s.workload = WorkloadSpec::Pingpong(RoundTripSpec {
        src: Some(src.to_vec()),
        dst: Some(dst.to_vec()),
        message_size: fabricsim::Bytes(size),
        iterations: 2,
        ..Default::default()
    });
    s
}

/// The scenario's torus (or mesh) section.
fn torus(s: &mut Scenario) -> &mut TorusSpec {
    match &mut s.topology {
        TopologySpec::Torus(t) | TopologySpec::Mesh(t) => t,
        other => panic!("not a torus: {other:?}"),
    }
}

/// The ping-pong of `pingpong_torus` as a stream of `messages` messages (same endpoints, sizes).
fn as_stream(s: &mut Scenario, messages: u64) {
    let WorkloadSpec::Pingpong(r) = s.workload.clone() else { panic!("not a ping-pong") };
    s.workload = WorkloadSpec::Throughput(StreamSpec { packet_size: r.packet_size, src: r.src, dst: r.dst, message_size: r.message_size, messages });
}

fn set_packet_size(s: &mut Scenario, bytes: u64) {
    *s.workload.keys_mut().packet_size_mut() = fabricsim::Bytes(bytes);
}

mod zero_load_latency {
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
        for (engine_gbs, delay_ns, lat_ns, size, n) in [
            (5.0, 40, 20, 64u64, 4u64),
            (5.0, 0, 0, 256, 3),
            (2.5, 300, 20, 64, 4),
            (2.5, 40, 20, 512, 2),
            (1.25, 500, 0, 64, 5),
            (5.0, 300, 20, 64, 5),
        ] {
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
}

mod conservation_and_determinism {
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
        let mut s = scenario(include_str!("../../../../examples/torus-uniform.toml"));
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
        let s = scenario(include_str!("../../../../examples/torus-uniform.toml"));
        let r = Plan::new(&s).unwrap().run().unwrap();
        assert!(r.drained);
        let acc = r.accepted_throughput.fraction_of_injection;
        assert!((acc - 0.3).abs() < 0.03, "accepted {acc}");
    }

    #[test]
    fn window_length_does_not_change_the_steady_state() {
        // Results must not flip with the measurement window: a 4x longer window agrees within noise.
        let mut s = scenario(include_str!("../../../../examples/torus-uniform.toml"));
        let short = Plan::new(&s).unwrap().run().unwrap();
        s.sim.duration = Time::from_us(20);
        let long = Plan::new(&s).unwrap().run().unwrap();
        let (a, b) = (short.latency_ns.mean, long.latency_ns.mean);
        assert!((a - b).abs() / b < 0.08, "{a} vs {b}");
        let (a, b) = (short.accepted_throughput.fraction_of_injection, long.accepted_throughput.fraction_of_injection);
        assert!((a - b).abs() < 0.03, "{a} vs {b}");
    }
}

mod throughput_and_saturation {
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
        let s = scenario(include_str!("../../../../examples/all-to-all.toml"));
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
        let s = scenario(include_str!("../../../../examples/torus-uniform.toml"));
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
}

mod bad_input {
    use super::*;

    fn err(toml: &str) -> String {
        match Scenario::from_toml_str(toml).and_then(|s| Plan::new(&s)) {
            Ok(_) => panic!("accepted: {toml}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_name_field_and_value() {
        assert!(err("[topology]\nshape = [4, 0]").starts_with("topology.shape"));
        assert!(err("[topology]\ntype = \"ring\"").contains("'ring'"));
        assert!(err("[router]\nvcs = 1").starts_with("router.vcs"));
        assert!(err("[router]\nbuffer = \"100B\"").starts_with("router.buffer"));
        assert!(err("[router]\nclass_vcs = 5").starts_with("router.class_vcs"));
        assert!(err("[router]\nvcs = 6\nclass_vcs = 3").starts_with("router.class_vcs"));
        assert!(err("[router]\nclass_vcs = 1\nclass_buffer = \"8GiB\"").starts_with("router.class_buffer"));
        assert!(err("[routing]\norder = [\"d0\", \"d9\"]").contains("'d9'"));
        assert!(err("[routing]\ntype = \"up_down\"").starts_with("routing.type"));
        assert!(err("[workload]\nload = 1.5").starts_with("workload.load"));
        assert!(err("[workload]\ntype = \"pingpong\"").starts_with("workload.src"));
        assert!(err("[workload]\ntype = \"pingpong\"\nsrc=[0,0,0]\ndst=[9,0,0]").starts_with("workload.dst"));
        assert!(err("[workload]\nradius = 3").starts_with("workload.radius"));
        assert!(err("[sim]\nduration = \"5\"").starts_with("sim.duration"));
        assert!(err("[topology]\ntype = \"fat_tree\"\n[nic]\ninjection_engines = 3").starts_with("nic.injection_engines"));
        assert!(err("[topology]\nshape = [4, 4]\n[workload]\ntype = \"transpose\"\n[topology.extra]").contains("extra"));
    }

    #[test]
    fn keys_of_another_type_zeros_and_contradictions_are_refused_by_name() {
        // Each workload type takes its own keys only: a ping-pong has no load, a torus no radix.
        let pp = "[workload]\ntype = \"pingpong\"\nsrc = [0,0,0]\ndst = [1,0,0]\n";
        assert!(err(&format!("{pp}load = 0.3")).starts_with("workload.load: is not a key of workload type 'pingpong'"));
        assert!(err("[topology]\nradix = 8").starts_with("topology.radix: is not a key of topology type 'torus'"));
        assert!(err("[topology]\ntype = \"fat_tree\"\n[routing]\norder = [\"d0\"]").starts_with("routing.order"));
        // Zero counts and sizes are errors, not silently 1.
        assert!(err(&format!("{pp}message_size = \"0B\"")).starts_with("workload.message_size"));
        assert!(err(&format!("{pp}iterations = 0")).starts_with("workload.iterations"));
        assert!(err("[workload]\ntype = \"throughput\"\nsrc = [0,0,0]\ndst = [1,0,0]\nmessages = 0").starts_with("workload.messages"));
        assert!(err("[workload]\ntype = \"all_to_all\"\nwindow = 0").starts_with("workload.window"));
        // A mesh does not wrap around.
        assert!(err("[topology]\ntype = \"mesh\"\nshape = [4, 4]\nwrap = [true, false]").starts_with("topology.wrap"));
        assert!(Plan::new(&Scenario::from_toml_str("[topology]\ntype = \"mesh\"\nshape = [4, 4]").unwrap()).is_ok());
    }

    #[test]
    fn regression_review_findings_are_config_errors_not_panics() {
        assert!(err("[topology]\ntype = \"fat_tree\"\nlevels = 2\nradix = 4\n[workload]\ntype = \"simultaneous_puts\"\nsrc = [5]")
            .starts_with("workload.type"));
        assert!(err("[nic]\ninjection_engines = 17").starts_with("nic.injection_engines"));
        assert!(err("[packet]\nlanes = 1000000\nlane_framing = \"4096B\"\nmax_payload = \"1KiB\"").starts_with("packet.lanes"));
        assert!(err("[packet]\nmax_payload = \"64MiB\"").starts_with("packet.max_payload"));
        assert!(err("[sim]\nduration = \"10000000s\"").starts_with("sim.duration"));
        assert!(err("[router]\nbuffer = \"8GiB\"").starts_with("router.buffer"));
        assert!(err("[router]\nvcs = 8\n[nic]\ninjection_engines = 16").starts_with("router.vcs"));
    }

    #[test]
    fn a_run_longer_than_the_event_queue_can_hold_is_refused_by_name() {
        // Open loop: warm-up + window + drain (4 x window by default) past 2^60 ps.
        assert!(err("[sim]\nwarmup = \"1000000s\"\nduration = \"1000000s\"").starts_with("sim.duration"));
        assert!(err("[sim]\nduration = \"900000s\"").starts_with("sim.duration"));
    }

    #[test]
    fn regression_a_step_longer_than_the_watchdog_is_not_a_deadlock() {
        // One hop over a 300 us link with a 100 us watchdog: slow, not stuck.
        let mut s = pingpong_torus(&[4], &[true], &[0], &[1], 8);
        torus(&mut s).link_latency = Time::from_us(300);
        s.sim.watchdog = Time::from_us(100);
        let r = Plan::new(&s).unwrap().run().unwrap();
        assert!(r.workload.one_way_latency_ns.unwrap() > 300_000.0);
        // And slow serialisation: a 1 MiB packet over a 1 GB/s link takes ~1 ms.
        let mut s = pingpong_torus(&[4], &[true], &[0], &[1], 1 << 20);
        set_packet_size(&mut s, 1 << 20);
        s.router.buffer = fabricsim::Bytes(2 << 20);
        torus(&mut s).link_bandwidth = Bandwidth(1_000_000_000);
        assert!(Plan::new(&s).unwrap().run().is_ok());
    }

    #[test]
    fn analysis_of_the_default_is_consistent() {
        let plan = Plan::new(&Scenario::default()).unwrap();
        let a = plan.analysis();
        assert_eq!(a.nodes, 512);
        assert_eq!(a.links, 3 * 512);
        assert!(matches!(plan.topology, Topology::Torus(_)));
        let bw = Bandwidth(5_000_000_000).bytes_per_sec() as f64;
        assert_eq!(a.bisection_bandwidth, 2.0 * 64.0 * 2.0 * bw);
    }
}

mod nic_model {
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
}

mod selection {
    use super::*;

    /// Packets ejected at each of node 0's four reception engines (terminal ports), under
    /// uniform traffic with the given selection policy.
    fn ejections(selection: &str) -> Vec<u64> {
        let mut s = Scenario::default();
        s.set("topology.shape", "[4, 4]").unwrap();
        s.set("nic.injection_engines", "4").unwrap();
        s.set("routing.selection", selection).unwrap();
        s.set("sim.duration", "40us").unwrap();
        let r = Plan::new(&s).unwrap().run().unwrap();
        r.ports.iter().filter(|p| p.router == 0 && p.kind == "terminal").map(|p| p.packets).collect()
    }

    #[test]
    fn the_policy_chosen_decides_among_equal_candidates() {
        // Reception engines are equal candidates with unlimited room: "first" always takes the
        // first, "credit" and "random" spread over all four.
        let first = ejections("first");
        assert_eq!(first.len(), 4);
        assert!(first[0] > 0 && first[1..].iter().all(|&n| n == 0), "{first:?}");
        for policy in ["credit", "random"] {
            let e = ejections(policy);
            let total: u64 = e.iter().sum();
            assert!(total > 20, "{policy}: {e:?}");
            assert!(e.iter().all(|&n| n * 8 > total), "{policy}: {e:?}");
        }
        assert_ne!(ejections("credit"), ejections("random"));
        assert!(Scenario::default().set("routing.selection", "best").unwrap_err().to_string().starts_with("routing.selection"));
    }
}

mod observers {
    use super::*;

    #[test]
    fn the_port_series_adds_up_to_the_port_counters_and_changes_nothing() {
        // A closed workload: the report's port counters cover the whole run, as the series does.
        let s = scenario(include_str!("../../../../examples/all-to-all.toml"));
        let plan = Plan::new(&s).unwrap();
        let plain = plan.run().unwrap();
        let (observed, series) = plan.run_with_series(Time::from_ns(37), |_| {}).unwrap();
        assert_eq!(
            plain.summary().lines().filter(|l| !l.starts_with("engine")).collect::<Vec<_>>(),
            observed.summary().lines().filter(|l| !l.starts_with("engine")).collect::<Vec<_>>()
        );
        let mut checked = 0;
        for p in &plain.ports {
            let rows: Vec<_> = series.rows.iter().filter(|r| r.router == p.router && r.port == p.port).collect();
            assert!(!rows.is_empty());
            let busy_ns: f64 = rows.iter().map(|r| r.utilization * series.interval_ns).sum();
            let packets: u64 = rows.iter().map(|r| r.packets as u64).sum();
            assert!((busy_ns - p.busy_ns).abs() < 1e-6, "router {} port {}: {busy_ns} vs {}", p.router, p.port, p.busy_ns);
            assert_eq!(packets, p.packets);
            assert!(rows.iter().all(|r| r.utilization <= 1.0 + 1e-12 && r.label == p.label && r.kind == p.kind));
            checked += (p.packets > 0) as u32;
        }
        assert!(checked > 50, "{checked} busy ports");
        assert!(series.to_csv().starts_with("t_ns,router,port,kind,label,utilization,packets\n"));
    }
}

mod sweeps {
    use super::*;

    #[test]
    fn idle_nodes_and_packet_headers_are_not_taken_for_saturation() {
        // A transpose leaves its diagonal idle, and BG/Q's packet format carries 512 B of payload
        // in 552 B on the wire: at low loads neither is saturated (both once were, at every load).
        let s = scenario(include_str!("../../../../examples/mesh-transpose.toml"));
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
}

mod cores {
    use super::*;

    #[test]
    fn open_loop_cores_pay_for_polling_though_the_traffic_ignores_completions() {
        // Posting waits behind polling on the same core: with both costs, latency grows.
        let mut s = scenario(include_str!("../../../../examples/torus-uniform.toml"));
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

#[test]
fn saturated_sources_are_back_pressured_by_a_bounded_nic_queue() {
    // Far beyond saturation: with a queue of 8 messages per NIC the sources are refused and the
    // backlog stays bounded; without a bound every message waits at the NIC. The network carries
    // the same traffic either way.
    let run = |limit: &str| {
        let limit = format!("nic.queue_limit={limit}");
        let s = with(&["topology.shape=[6,6]", "workload.load=1.0", "sim.duration=5us", "workload.type=transpose", &limit]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let bounded = run("8");
    let open = run("0");
    assert!(bounded.workload.refused.unwrap() > 0);
    assert_eq!(open.workload.refused, Some(0));
    assert!(open.workload.messages > bounded.workload.messages + bounded.workload.refused.unwrap() / 2);
    let (a, b) = (bounded.accepted_throughput.fraction_of_injection, open.accepted_throughput.fraction_of_injection);
    assert!((a - b).abs() < 0.1 * b, "{a} vs {b}");
    assert!(bounded.summary().contains("refused"));
    // Known saturated, the bounded run stops at the end of its window instead of draining.
    assert!(!bounded.drained);
    assert!(bounded.sim_time_ns <= bounded.warmup_ns + bounded.window_ns + 100.0, "{}", bounded.sim_time_ns);
    assert!(open.sim_time_ns > open.warmup_ns + open.window_ns + 100.0);
}

#[test]
fn extra_vcs_give_a_switch_input_several_queues() {
    // One 16-port switch under uniform random traffic at 90% load: with one VC per input, head-
    // of-line blocking holds it near 0.6 of its injection bandwidth; the NIC spreads its packets
    // over the VCs of its input (the injection VC is chosen like any hop), so with four VCs the
    // switch carries much more.
    let accepted = |vcs: u8| {
        let vcs = format!("router.vcs={vcs}");
        let s = with(&[
            "topology.type=fat_tree",
            "topology.radix=16",
            "topology.levels=1",
            "routing.type=up_down",
            "workload.load=0.9",
            "sim.duration=5us",
            &vcs,
        ]);
        Plan::new(&s).unwrap().run().unwrap().accepted_throughput.fraction_of_injection
    };
    let (one, four) = (accepted(1), accepted(4));
    assert!(one < 0.7, "{one}");
    assert!(four > one + 0.15, "1 VC {one}, 4 VCs {four}");
}

/// A scenario from the defaults and `--set`-style overrides.
fn with(sets: &[&str]) -> Scenario {
    let mut s = Scenario::default();
    s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
    s
}

#[test]
fn adaptive_routing_survives_saturation_without_deadlock_and_loses_nothing() {
    // Beyond saturation, with same-instant events shuffled: the deadlock watchdog never fires
    // (the run returns a report), and every packet injected is delivered or still in flight
    // where the run stopped; a closed all-to-all delivers every packet. Mesh and torus, each
    // selection policy.
    for escape in [["routing.escape=dateline", "router.vcs=3"], ["routing.escape=bubble", "router.vcs=2"]] {
        saturate_adaptive(&escape);
    }
    // Virtual output queues: the dynamic VC split in three.
    saturate_adaptive(&["routing.escape=bubble", "router.vcs=2", "router.queues=3", "router.buffer=6KiB"]);
}

fn saturate_adaptive(escape: &[&str]) {
    let mut base = vec!["routing.type=adaptive", "sim.tie_order=shuffle", "sim.duration=3us", "nic.queue_limit=16"];
    base.extend(escape);
    for shape in ["topology.shape=[4,4,4]", "topology.type=mesh", "topology.shape=[6,5]"] {
        for (pattern, selection) in [("uniform_random", "credit"), ("tornado", "random"), ("hot_region", "first"), ("transpose", "credit")] {
            if pattern == "transpose" && shape.contains("[6,5]") {
                continue; // transpose needs a square shape
            }
            let mut sets = base.to_vec();
            let (p, sel) = (format!("workload.type={pattern}"), format!("routing.selection={selection}"));
            sets.extend([shape, p.as_str(), "workload.load=1.0", sel.as_str()]);
            if shape == "topology.type=mesh" {
                sets.push("topology.shape=[4,4,4]");
            }
            let r = Plan::new(&with(&sets)).unwrap().run().unwrap_or_else(|e| panic!("{sets:?}: {e}"));
            assert!(r.packets_delivered > 0 && r.packets_delivered <= r.packets_injected, "{sets:?}");
        }
        let mut sets = base.to_vec();
        sets.extend([shape, "workload.type=all_to_all", "workload.message_size=2KB", "workload.window=8"]);
        if shape == "topology.type=mesh" {
            sets.push("topology.shape=[4,4,4]");
        }
        let r = Plan::new(&with(&sets)).unwrap().run().unwrap_or_else(|e| panic!("{sets:?}: {e}"));
        assert_eq!(r.packets_delivered, r.packets_injected, "{sets:?}");
    }
}

#[test]
fn blocked_adaptive_packets_wait_for_any_hop_rather_than_commit_to_the_escape_one() {
    // An all-to-all on an asymmetric 4D torus (8x4x2x2) with the Blue Gene/Q router: its long
    // axis saturates, and packets often find no dynamic queue with room. Waiting for whichever
    // hop has room first keeps more of them on the dynamic VC than taking the escape hop at
    // once (where they stay, deterministic to their destination), and the exchange is faster.
    let run = |blocked: &str| {
        let s = with(&[
            "machine.preset=bgq",
            "topology.shape=[8,4,2,2,1]",
            "workload.type=all_to_all",
            "workload.message_size=8KB",
            "workload.schedule=random",
            &format!("routing.blocked={blocked}"),
        ]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let (wait, commit) = (run("wait"), run("escape"));
    assert_eq!(wait.packets_delivered, commit.packets_delivered);
    assert_eq!(wait.packets_delivered, wait.packets_injected);
    let (ew, ec) = (wait.escaped_fraction.unwrap(), commit.escaped_fraction.unwrap());
    assert!(ew < ec - 0.02, "escaped: waiting {ew}, committing {ec}");
    assert!(ec > 0.1, "the long axis saturates: {ec}");
    let (fw, fc) = (wait.fraction_of_peak.unwrap(), commit.fraction_of_peak.unwrap());
    assert!(fw > fc + 0.02, "fraction of peak: waiting {fw}, committing {fc}");
    // Dimension-order routing has no escape sub-network to report.
    assert!(run_dimension_order_report().escaped_fraction.is_none());
    let e = Scenario::from_toml_str("[routing]\ntype = \"adaptive\"\nblocked = \"drop\"").err().unwrap().to_string();
    assert!(e.contains("blocked") || e.contains("drop"), "{e}");
}

fn run_dimension_order_report() -> fabricsim::RunReport {
    Plan::new(&with(&["sim.duration=1us"])).unwrap().run().unwrap()
}

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
fn adaptive_routing_beats_dimension_order_under_load() {
    // Same torus, same VCs, 80% uniform load: spreading over minimal paths cuts the latency.
    let run = |routing: &str| {
        let s = with(&[&format!("routing.type={routing}"), "router.vcs=4", "workload.load=0.8", "sim.duration=5us"]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let (dor, ada) = (run("dimension_order"), run("adaptive"));
    let (a, d) = (ada.latency_ns.mean, dor.latency_ns.mean);
    assert!(a < 0.85 * d, "adaptive {a} ns, dimension order {d} ns");
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

#[test]
fn regression_bubble_flow_control_leaves_room_for_the_largest_packet() {
    // 4 KB messages are seven 569 B packets and one of 473 B. A bubble rule of "room for the
    // packet twice" let a short packet enter a ring leaving less room than a full packet needs,
    // and the escape rings of a 128-node Blue Gene/Q block filled and froze under an all-at-once
    // all-to-all; room for the packet plus the largest one keeps them moving.
    let s = with(&[
        "machine.preset=bgq",
        "topology.shape=[4,4,2,2,2]",
        "workload.type=all_to_all",
        "workload.message_size=4KB",
        "workload.schedule=all_at_once",
    ]);
    let r = Plan::new(&s).unwrap().run().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.packets_delivered, r.packets_injected);
}

#[test]
fn rail_choice_stripes_a_stream_or_keeps_it_on_one_rail() {
    // Two rails of 5 GB/s: one stream of messages between a pair runs on both when messages
    // are dealt round-robin or to the shorter queue, on one when rails are chosen per pair.
    let throughput = |choice: &str| {
        let s = with(&[
            "topology.type=fat_tree",
            "topology.radix=4",
            "topology.levels=2",
            "topology.rails=2",
            &format!("nic.engine_choice={choice}"),
            "workload.type=throughput",
            "workload.src=[0]",
            "workload.dst=[3]",
            "workload.message_size=64KB",
            "workload.messages=16",
        ]);
        Plan::new(&s).unwrap().run().unwrap().workload.throughput_gb_per_s.unwrap()
    };
    let (rr, pair, short) = (throughput("round_robin"), throughput("pair"), throughput("shortest_queue"));
    assert!(pair < 5.01 && pair > 4.5, "{pair}");
    assert!(rr > 1.9 * pair && short > 1.9 * pair, "round robin {rr}, shortest queue {short}, pair {pair}");
}

#[test]
fn cables_laid_out_on_the_floor_add_their_length_to_zero_load_latency() {
    // 8x8x8 torus in racks of 2x2x8 nodes, four racks to a row. From (0,0,0) to (3,0,0) the
    // packet crosses one cable (racks 0 and 1 of a row: 2 m of slack + 0.8 m) and two board
    // links; to (0,3,0) one cable across a row (2 m + 2.4 m).
    let one_way = |dst: [u32; 3], floor: bool| {
        let dst = format!("workload.dst=[{},{},{}]", dst[0], dst[1], dst[2]);
        let mut sets = vec!["workload.type=pingpong", "workload.src=[0,0,0]", &dst];
        if floor {
            sets.extend(["packaging.rack=[2,2,8]", "packaging.racks_per_row=4", "packaging.optical_latency=\"50ns\""]);
        }
        Plan::new(&with(&sets)).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap()
    };
    let board = torus(&mut Scenario::default()).link_latency.as_ns_f64();
    for (dst, metres) in [([3, 0, 0], 2.8), ([0, 3, 0], 4.4)] {
        let extra = one_way(dst, true) - one_way(dst, false);
        let want = 50.0 + metres * 5.0 - board;
        assert!((extra - want).abs() < 1e-6, "to {dst:?}: {extra} ns more, want {want}");
    }
    // `info` lists the links by latency: board links, and cables of three lengths.
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[8,8,8]", "packaging.rack=[2,2,8]", "packaging.racks_per_row=4"].map(String::from)).unwrap();
    let info = fabricsim::info(&s).unwrap();
    let links: u64 = info.link_latencies.iter().map(|l| l.links).sum();
    assert_eq!(links, 3 * 512);
    assert_eq!(info.link_latencies.len(), 4, "{:?}", info.link_latencies);
    // A rack that splits a block is refused by name.
    s.apply_overrides(&["packaging.block=[4,4,8]".to_string()]).unwrap();
    let e = Plan::new(&s).err().unwrap().to_string();
    assert!(e.starts_with("packaging.rack"), "{e}");
}

#[test]
fn a_ring_closed_inside_its_block_pays_the_loopback_on_its_wrap_link_only() {
    // A 4x4x4 torus in one block: the wrap links of d0 and d1 close through a loopback of
    // 60 ns (the board links' 20 ns plus 40), d2's do not. From (0,0,0) to (3,0,0) is one hop
    // over d0's wrap link; to (1,0,0) one board link; to (0,0,3) one hop over d2's wrap link.
    let one_way = |dst: &str, loopback: bool| {
        let dst = format!("workload.dst={dst}");
        let mut sets = vec!["topology.shape=[4,4,4]", "workload.type=pingpong", "workload.src=[0,0,0]", &dst];
        if loopback {
            sets.extend(["packaging.block=[4,4,4]", "packaging.loopback_latency=\"60ns\"", "packaging.loopback_axes=[\"d0\",\"d1\"]"]);
        }
        Plan::new(&with(&sets)).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap()
    };
    let board = torus(&mut Scenario::default()).link_latency.as_ns_f64();
    assert!((one_way("[3,0,0]", true) - one_way("[3,0,0]", false) - (60.0 - board)).abs() < 1e-6);
    assert_eq!(one_way("[1,0,0]", true), one_way("[1,0,0]", false));
    assert_eq!(one_way("[0,0,3]", true), one_way("[0,0,3]", false));
    // `info` counts them: 16 rings on each of d0 and d1.
    let mut s = Scenario::default();
    s.apply_overrides(
        &["topology.shape=[4,4,4]", "packaging.block=[4,4,4]", "packaging.loopback_latency=\"60ns\"", "packaging.loopback_axes=[\"d0\",\"d1\"]"]
            .map(String::from),
    )
    .unwrap();
    let kinds = fabricsim::info(&s).unwrap().link_kinds.unwrap();
    assert_eq!((kinds.links_loopback, kinds.links_electrical, kinds.links_optical), (32, 3 * 64 - 32, 0));
    // A bad axis, or axes without a latency, are refused by name.
    s.apply_overrides(&["packaging.loopback_axes=[\"W\"]".to_string()]).unwrap();
    let e = Plan::new(&s).err().unwrap().to_string();
    assert!(e.starts_with("packaging.loopback_axes") && e.contains("\"W\""), "{e}");
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[4,4,4]", "packaging.loopback_axes=[\"d0\"]"].map(String::from)).unwrap();
    assert!(Plan::new(&s).err().unwrap().to_string().starts_with("packaging.loopback_axes"));
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[4,4,4]", "packaging.loopback_latency=\"60ns\""].map(String::from)).unwrap();
    assert!(Plan::new(&s).err().unwrap().to_string().starts_with("packaging.loopback_latency"));
}

#[test]
fn an_engine_interleaving_messages_sends_their_packets_in_turn() {
    // A 3-ring, one engine per node, every node posting its two 2 KB messages (four 512 B
    // packets each) at once, one hop each way round: no link carries two messages. One at a
    // time, the first message ends after 4 packets and the second after 8. Taking turns: the
    // first packet leaves as the first message is posted, before the second is; then they
    // alternate (A A B A B A B B), so the first ends after 6 and the second still after 8.
    // The exchange ends at the same time.
    let run = |interleave: u32| {
        let s = with(&[
            "topology.shape=[3]",
            "workload.type=all_to_all",
            "workload.schedule=all_at_once",
            "workload.message_size=2KB",
            "packet.max_payload=512B",
            &format!("nic.interleave={interleave}"),
        ]);
        let r = Plan::new(&s).unwrap().run().unwrap();
        (r.latency_ns.mean, r.workload.completion_ns.unwrap())
    };
    let (one, two) = (run(1), run(2));
    assert!((one.1 - two.1).abs() < 1e-6, "completion {} vs {}", one.1, two.1);
    // The mean message latency grows by (6 - 4) / 2 packet times: one 512 B packet at 5 GB/s.
    let packet = 512.0 / 5.0;
    assert!((two.0 - one.0 - packet).abs() < 1e-6, "mean latency {} -> {}", one.0, two.0);
    // More than the queue holds changes nothing more; 0 is refused by name.
    assert_eq!(run(8), two);
    let e = Plan::new(&with(&["nic.interleave=0"])).err().unwrap().to_string();
    assert!(e.starts_with("nic.interleave"), "{e}");
}

#[test]
fn a_shared_crossbar_costs_a_switch_throughput_only_with_several_vcs() {
    // One 16-port switch under saturating uniform traffic. With one VC per port the two
    // crossbars are the same switch: identical runs. With four, a shared crossbar input sends
    // one packet at a time where one per VC lets a port feed several outputs at once.
    let accepted = |crossbar: &str, vcs: &str| {
        let s = with(&[
            "topology.type=fat_tree",
            "topology.radix=16",
            "topology.levels=1",
            "workload.type=uniform_random",
            "workload.packet_size=512B",
            "workload.load=1.0",
            "router.buffer=2KiB",
            "sim.duration=10us",
            &format!("router.crossbar={crossbar}"),
            &format!("router.vcs={vcs}"),
        ]);
        Plan::new(&s).unwrap().run().unwrap().accepted_throughput.fraction_of_injection
    };
    assert_eq!(accepted("shared", "1"), accepted("per_vc", "1"));
    let (shared, per_vc) = (accepted("shared", "4"), accepted("per_vc", "4"));
    assert!(shared < per_vc - 0.02, "shared {shared}, per VC {per_vc}");
    assert!(shared > accepted("per_vc", "1") + 0.1, "several VCs still help a shared crossbar: {shared}");
    let e = Scenario::from_toml_str("[router]\ncrossbar = \"banyan\"").err().unwrap().to_string();
    assert!(e.contains("router.crossbar") || e.contains("crossbar"), "{e}");
}

#[test]
fn virtual_output_queues_relieve_head_of_line_blocking_within_the_same_buffer() {
    // A 128-node Blue Gene/Q (4x4x2x2x2) all-to-all: adaptive zone routing over a bubble escape
    // VC and one dynamic VC, whose 4 KiB hold one queue or three (an arriving packet takes the
    // emptiest). Each queue holds two packets: a packet waiting for a busy output no longer
    // blocks the ones behind it for other outputs.
    let run = |queues: &str| {
        let s = with(&[
            "machine.preset=bgq",
            "topology.shape=[4,4,2,2,2]",
            &format!("router.queues={queues}"),
            "workload.type=all_to_all",
            "workload.message_size=4KB",
            "workload.schedule=random",
        ]);
        Plan::new(&s).unwrap().run().unwrap()
    };
    let (one, three) = (run("1"), run("3"));
    assert_eq!(one.packets_delivered, three.packets_delivered);
    let (f1, f3) = (one.fraction_of_peak.unwrap(), three.fraction_of_peak.unwrap());
    assert!(f3 > f1 + 0.03, "three queues {f3}, one {f1}");
    // Queues split dynamic VCs only, and each must hold a packet.
    let err = |sets: &[&str]| Plan::new(&with(sets)).and_then(|p| p.run()).err().unwrap().to_string();
    assert!(err(&["router.queues=2"]).starts_with("router.queues"), "dimension order has no dynamic VC");
    assert!(err(&["routing.type=adaptive", "router.vcs=4", "router.queues=4"]).starts_with("router.queues"), "2 + 2 x 4 VCs");
    let e = err(&[
        "routing.type=adaptive",
        "router.vcs=3",
        "router.queues=3",
        "router.buffer=1KiB",
        "workload.type=pingpong",
        "workload.src=[0,0,0]",
        "workload.dst=[1,0,0]",
    ]);
    assert!(e.starts_with("router.queues"), "{e}");
}

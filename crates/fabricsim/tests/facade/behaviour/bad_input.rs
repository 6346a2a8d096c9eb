//! Bad scenarios refused with the key and value named, never a panic.

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

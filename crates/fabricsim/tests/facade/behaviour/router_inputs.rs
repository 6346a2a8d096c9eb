//! A switch's inputs: extra VCs as separate queues, a shared or per-VC crossbar, virtual output
//! queues against head-of-line blocking.

use super::*;

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

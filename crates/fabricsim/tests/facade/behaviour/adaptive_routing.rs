//! Adaptive routing: no deadlock or loss beyond saturation, blocked packets waiting for any hop,
//! beating dimension order under load, the bubble rule.

use super::*;

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
    // Blue Gene/Q's router: the queues share the dynamic VC's buffer, packets leave the escape
    // VC again, ties go by the source's parity, cut-through traffic wins 4 grants in 5.
    saturate_adaptive(&[
        "routing.escape=bubble",
        "router.vcs=2",
        "router.queues=3",
        "router.queue_buffer=shared",
        "routing.leave_escape=true",
        "routing.ties=source",
        "router.transit_ratio=4",
    ]);
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
    // An all-to-all on an asymmetric 4D torus (8x4x2x2) with the Blue Gene/Q router as it was
    // before session 23 (split queue buffers, no transit ratio, packets that stay on the
    // escape VC): its long axis saturates, and packets often find no dynamic queue with room.
    // Waiting for whichever hop has room first keeps more of them on the dynamic VC than
    // taking the escape hop at once (where they stay, deterministic to their destination), and
    // the exchange is faster.
    let run = |blocked: &str| {
        let s = with(&[
            "machine.preset=bgq",
            "topology.shape=[8,4,2,2,1]",
            "router.queue_buffer=split",
            "router.transit_ratio=0",
            "routing.leave_escape=false",
            "routing.ties=pair",
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
fn shared_queue_buffers_refuse_flits_and_partitioned_runs_by_name() {
    // Not combined yet: each refusal names the key to leave out.
    let shared = ["routing.type=adaptive", "routing.escape=bubble", "router.vcs=2", "router.queues=3", "workload.load=0.1", "sim.duration=1us"];
    for (key, extra) in [("router.flit_size", "router.flit_size=16B"), ("router.queue_buffer", "sim.threads=2")] {
        let mut sets = shared.to_vec();
        sets.extend(["router.queue_buffer=shared", extra]);
        let e = Plan::new(&with(&sets)).and_then(|p| p.run()).err().unwrap_or_else(|| panic!("{extra} ran"));
        assert!(e.to_string().contains(key), "{extra}: {e}");
        // With split buffers it runs.
        let mut sets = shared.to_vec();
        sets.push(extra);
        assert!(Plan::new(&with(&sets)).and_then(|p| p.run()).is_ok(), "{extra} with split buffers");
    }
}

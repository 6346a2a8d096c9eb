//! Dawning's switch barrier: a barrier costs its tree's links and pipelines, no member leaves
//! before the last has arrived (whatever the delays, the background traffic and the order of
//! same-instant events), lost packets are recovered by resends going up and urges going down,
//! and a dedicated VC keeps the barrier clear of the unicast queues.

use crate::common::rounds::Rounds;
use fabricsim_core::{Bytes, NodeId, Time};
use fabricsim_network::switch_barrier::{BarrierCounts, SwitchBarrierParams};
use fabricsim_network::{DawningSwitchParams, DawningUnit, HardwareSpec, NetworkParams, RunLimits, Simulation};
use fabricsim_routing::{Routing, UpDown};
use fabricsim_topology::{FatTree, Topology};

use crate::common;

/// A fat-tree network with the switch barrier: `class_vc` adds the dedicated barrier VC.
struct Net {
    radix: u32,
    levels: u32,
    class_vc: bool,
    drop: f64,
    /// Ranks per node (rank `r` on node `r / per_node`).
    per_node: u32,
}

fn run(net: &Net, w: Rounds, shuffle: Option<u64>) -> (Rounds, BarrierCounts) {
    let tree = FatTree::new(net.radix, net.levels, 1, true).unwrap();
    let g = tree.build_graph();
    let routing = Routing::from(UpDown::new(tree.clone(), 2)).with_class_vcs(&Topology::FatTree(tree.clone()), u8::from(net.class_vc)).unwrap();
    let base = common::params(2);
    let p = NetworkParams {
        vcs: routing.vcs(),
        buffer_bytes: 1024,
        class_buffer_bytes: net.class_vc.then_some(128),
        // A fat-tree's NIC links are links: their latency and the switch's pipeline.
        terminal_latency: base.link_latency,
        terminal_router_delay: base.router_delay,
        nic_latency: Time::ZERO,
        hardware: HardwareSpec::DawningSwitch(DawningSwitchParams {
            units: vec![DawningUnit::Barrier],
            barrier: SwitchBarrierParams {
                rail: 0,
                delay: Time::ZERO,
                payload: Bytes(8),
                retry_timeout: Time::from_ns(600),
                urge_timeout: Time::from_ns(1500),
                drop: net.drop,
            },
            ..Default::default()
        }),
        seed: 11,
        watchdog: Time::from_us(50),
        ..base
    };
    let ranks = w.ranks;
    let mut sim = Simulation::new(g, routing, p, w).unwrap();
    if net.per_node > 1 {
        sim = sim.with_rank_map((0..ranks).map(|r| NodeId(r / net.per_node)).collect()).unwrap();
    }
    if let Some(seed) = shuffle {
        sim = sim.with_tie_shuffle(seed);
    }
    let o = sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100_000), drain: Time::ZERO }, |_| {}).unwrap();
    let counts = sim.barrier_counts().unwrap();
    // Every packet sent reached its element (or its loss was seen) by the last member's end.
    if sim.workload().error.is_none() {
        assert_eq!(o.packets_injected, o.packets_delivered, "packets still in flight at the end");
    }
    (std::mem::replace(sim.workload_mut(), Rounds::barrier(1, 0, |_, _| Time::ZERO)), counts)
}

fn ok(r: (Rounds, BarrierCounts)) -> (Rounds, BarrierCounts) {
    if let Some(e) = &r.0.error {
        panic!("{e}");
    }
    r
}

/// Every round: no member is done before the last member started it.
fn never_early(w: &Rounds) {
    for k in 0..w.rounds as usize {
        let last_start = w.started.iter().map(|s| s[k]).max().unwrap();
        let first_done = w.done.iter().map(|d| d[k]).min().unwrap();
        assert!(first_done > last_start, "round {k}: a member left at {first_done} before the last arrived at {last_start}");
    }
}

#[test]
fn a_barrier_on_one_switch_costs_two_links_and_one_pipeline() {
    // One 16-port switch, 8 members. Arrives: a link (20 ns) and the pipeline (40 ns) to the
    // switch's head; the last one's tail is in a serialisation later (8 B at 5 GB/s: 1.6 ns).
    // Done: a serialisation and a link back. All members leave together.
    let net = Net { radix: 16, levels: 1, class_vc: true, drop: 0.0, per_node: 1 };
    let (w, counts) = ok(run(&net, Rounds::barrier(8, 1, |_, _| Time::ZERO), None));
    let ser = 1600;
    let expect = Time(20_000 + 40_000 + ser + ser + 20_000);
    for d in &w.done {
        assert_eq!(d[0], expect);
    }
    // 8 arrives, 8 acks, 8 dones; no loss, so nothing resent, and nobody waited long enough to urge.
    assert_eq!(counts, BarrierCounts { packets: 24, lost: 0, resent: 0, urges: 0 });
}

#[test]
fn a_late_member_holds_everyone_and_the_tree_climbs_to_a_top_switch() {
    // 64 nodes under 3 levels of 8-port switches: the root is a top switch, 6 links from
    // every member and back. Member 37 comes 3 us late.
    let net = Net { radix: 8, levels: 3, class_vc: true, drop: 0.0, per_node: 1 };
    let w = Rounds::barrier(64, 3, |r, k| if r == 37 && k == 1 { Time::from_us(3) } else { Time::from_ns(((r * 7 + k * 13) % 50) as u64) });
    let (w, counts) = ok(run(&net, w, None));
    never_early(&w);
    let late = w.started[37][1];
    assert!(w.done.iter().all(|d| d[1] > late + Time::from_ns(3 * 60)), "done comes down from the root, three levels up");
    // Members waiting for the late one urge their parents.
    assert!(counts.urges > 0);
}

#[test]
fn the_result_does_not_depend_on_the_order_of_same_instant_events() {
    let net = Net { radix: 8, levels: 3, class_vc: false, drop: 0.05, per_node: 1 };
    let make = || {
        let mut w = Rounds::barrier(64, 4, |r, k| Time::from_ns(((r * 31 + k * 17) % 5 * 100) as u64));
        w.background = 3;
        w
    };
    let (a, ca) = ok(run(&net, make(), None));
    never_early(&a);
    for seed in [1, 2] {
        let (b, cb) = ok(run(&net, make(), Some(seed)));
        assert_eq!(a.done, b.done, "tie shuffle {seed}");
        assert_eq!(ca, cb);
    }
}

#[test]
fn lost_packets_are_resent_up_and_urged_down() {
    let clean = Net { radix: 8, levels: 3, class_vc: true, drop: 0.0, per_node: 1 };
    let lossy = Net { drop: 0.15, ..clean };
    let w = || Rounds::barrier(64, 6, |r, k| Time::from_ns(((r * 13 + k * 7) % 9 * 50) as u64));
    let (a, ca) = ok(run(&clean, w(), None));
    let (b, cb) = ok(run(&lossy, w(), None));
    never_early(&b);
    assert_eq!(ca.lost, 0);
    assert!(cb.lost > 20, "{cb:?}");
    assert!(cb.resent > 0, "lost arrives and acks are resent: {cb:?}");
    assert!(cb.urges > ca.urges, "lost dones are urged: {cb:?} vs {ca:?}");
    // Every round ended at every member; the losses cost time.
    assert!(b.done.iter().all(|d| d.len() == 6));
    assert!(b.done[0][5] > a.done[0][5]);
}

#[test]
fn the_dedicated_vc_keeps_the_barrier_out_of_the_unicast_queues() {
    // Every member first posts 100 Puts of 256 B to node 0: the tree saturates back to every
    // source, and with the barrier on the unicast VCs its arrives queue behind Puts that wait
    // for node 0's link.
    let time = |class_vc| {
        let net = Net { radix: 8, levels: 3, class_vc, drop: 0.0, per_node: 1 };
        let mut w = Rounds::barrier(64, 1, |_, _| Time::from_us(1));
        w.background = 100;
        w.background_to = Some(|r, _| u32::from(r == 0));
        let (w, _) = ok(run(&net, w, None));
        never_early(&w);
        w.done.iter().map(|d| d[0]).max().unwrap() - Time::from_us(1)
    };
    let (with, without) = (time(true), time(false));
    assert!(with.ps() * 2 < without.ps(), "dedicated VC {with}, shared {without}");
}

#[test]
fn members_must_be_ranks_of_the_job() {
    let net = Net { radix: 16, levels: 1, class_vc: true, drop: 0.0, per_node: 1 };
    let (w, _) = run(&net, Rounds::barrier(20, 1, |_, _| Time::ZERO), None);
    assert!(w.error.as_deref().unwrap_or("").contains("rank 16"), "{:?}", w.error);
}

#[test]
fn a_nic_gathers_its_node_members_before_its_arrive_goes_up() {
    // 16 ranks, two per node, on the 8 nodes of one switch: the same tree and the same time as
    // one rank per node, and nobody leaves before the last member of any node has started.
    let one = Net { radix: 16, levels: 1, class_vc: true, drop: 0.0, per_node: 1 };
    let two = Net { per_node: 2, ..one };
    let (a, _) = ok(run(&one, Rounds::barrier(8, 1, |_, _| Time::ZERO), None));
    let (b, counts) = ok(run(&two, Rounds::barrier(16, 1, |_, _| Time::ZERO), None));
    assert!(b.done.iter().all(|d| d[0] == a.done[0][0]));
    assert_eq!(counts.packets, 24, "one arrive, ack and done per node");
    // Staggered: the second member of node 5 (rank 11) comes 2 us late, over three rounds.
    let w = Rounds::barrier(16, 3, |r, k| if r == 11 && k == 1 { Time::from_us(2) } else { Time::from_ns(((r * 5 + k * 3) % 7 * 40) as u64) });
    let (w, _) = ok(run(&two, w, Some(9)));
    never_early(&w);
    assert!(w.done.iter().all(|d| d[1] > w.started[11][1]));
}

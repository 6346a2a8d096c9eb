//! The gates on a mock network: barriers, allreduces, and what the hardware refuses.

use super::*;
use crate::hardware::mock::{drive, MockContext};
use crate::params::NetworkParams;
use fabricsim_core::Time;

/// K-computer-like gates on a ring of `nodes` nodes, one rank per node, in a mock network.
fn unit(nodes: u32) -> (GateUnit, MockContext) {
    let p = GateParams {
        tnis: 4,
        channels: 4,
        gates: 16,
        channel_serial: Time::from_ns(100),
        channel_overlap: Time::from_ns(50),
        relay: Time::from_ns(200),
        int_elements: 3,
        float_elements: 3,
        algorithm: GateAlgorithm::Auto,
    };
    let torus = fabricsim_topology::Torus::new(vec![nodes], Some(vec![true]), None).unwrap();
    (GateUnit::new(p, nodes), MockContext::new(torus.build_graph(1), NetworkParams::default()))
}

fn group(n: u32, sums: bool) -> HwGroup {
    HwGroup { id: 7, members: (0..n).map(Rank).collect(), sums, root: None }
}

fn collective(kind: HwKind, op: HwOp, tag: u64, value: u64) -> HwCollective {
    let mut v = [0; 8];
    v[0] = value;
    HwCollective { kind, group: 7, bytes: if kind == HwKind::Barrier { 0 } else { 8 }, tag, op, value: v }
}

#[test]
fn a_barrier_ends_for_every_member_only_after_the_last_one_starts() {
    let (mut u, mut cx) = unit(8);
    let nodes: Vec<u32> = (0..8).collect();
    u.group(&mut cx, &group(8, false), &nodes).unwrap();
    for r in 0..7 {
        u.start(&mut cx, Rank(r), collective(HwKind::Barrier, HwOp::None, 100 + r as u64, 0)).unwrap();
    }
    // Seven of eight in: the network runs dry with nobody done.
    assert!(drive(&mut u, &mut cx, 1_000).is_empty());
    let late = cx.now + 5_000;
    cx.now = late;
    u.start(&mut cx, Rank(7), collective(HwKind::Barrier, HwOp::None, 107, 0)).unwrap();
    cx.due = true;
    let done = drive(&mut u, &mut cx, 1_000);
    let mut ranks: Vec<(u32, u64)> = done.iter().map(|&(_, r, t)| (r, t)).collect();
    ranks.sort_unstable();
    assert_eq!(ranks, (0..8).map(|r| (r, 100 + r as u64)).collect::<Vec<_>>());
    // Signals crossed the network: at least one hop after the last start.
    assert!(done.iter().all(|&(t, _, _)| t >= late + 1_000), "{done:?}");
}

#[test]
fn an_allreduce_gives_every_member_the_sum() {
    let (mut u, mut cx) = unit(4);
    let nodes: Vec<u32> = (0..4).collect();
    u.group(&mut cx, &group(4, true), &nodes).unwrap();
    for r in 0..4 {
        u.start(&mut cx, Rank(r), collective(HwKind::Allreduce, HwOp::Sum, r as u64, r as u64 + 1)).unwrap();
    }
    let done = drive(&mut u, &mut cx, 700);
    assert_eq!(done.len(), 4);
    for r in 0..4 {
        assert_eq!(u.value(Rank(r), 7).unwrap()[0], 10, "rank {r}");
    }
}

#[test]
fn what_the_gates_cannot_do_is_refused() {
    let (mut u, mut cx) = unit(4);
    let nodes: Vec<u32> = (0..4).collect();
    u.group(&mut cx, &group(4, true), &nodes).unwrap();
    assert!(u.group(&mut cx, &group(4, true), &nodes).unwrap_err().contains("exists already"));
    let e = u.start(&mut cx, Rank(0), collective(HwKind::Broadcast, HwOp::None, 0, 0)).unwrap_err();
    assert!(e.contains("barriers and allreduces"), "{e}");
    let mut big = collective(HwKind::Allreduce, HwOp::Sum, 0, 1);
    big.bytes = 64;
    assert!(u.start(&mut cx, Rank(0), big).unwrap_err().contains("1 to 3"));
    assert!(!u.runs(HwKind::Broadcast) && u.runs(HwKind::Barrier));
}

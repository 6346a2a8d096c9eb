//! The switch barrier's protocol on a mock network: arrivals, acks, resends and urges.

use super::*;
use crate::hardware::mock::{drive, MockContext};
use crate::params::NetworkParams;
use fabricsim_core::{Bytes, Time};
use fabricsim_topology::FatTree;

/// The barrier logic of a two-level fat-tree of radix-4 switches, losing packets with
/// probability `drop`, in a mock network.
fn unit(drop: f64) -> (SwitchBarrier, MockContext) {
    let tree = FatTree::new(4, 2, 1, true).unwrap();
    let graph = tree.build_graph();
    let p = SwitchBarrierParams {
        rail: 0,
        delay: Time::from_ns(100),
        payload: Bytes(16),
        retry_timeout: Time::from_us(3),
        urge_timeout: Time::from_us(5),
        drop,
    };
    (SwitchBarrier::new(p, tree, 7).unwrap(), MockContext::new(graph, NetworkParams::default()))
}

/// Every node's rank starts one barrier at 0; returns when each ended.
fn run(drop: f64) -> (Vec<(u64, u32, u64)>, BarrierCounts, u32) {
    let (mut u, mut cx) = unit(drop);
    let n = cx.graph.nodes;
    let g = HwGroup { id: 1, members: (0..n).map(Rank).collect(), sums: false, root: None };
    u.group(&mut cx, &g, &(0..n).collect::<Vec<_>>()).unwrap();
    for r in 0..n {
        let c = HwCollective { kind: HwKind::Barrier, group: 1, bytes: 0, tag: 50 + r as u64, op: Default::default(), value: [0; 8] };
        u.start(&mut cx, Rank(r), c).unwrap();
    }
    let done = drive(&mut u, &mut cx, 200);
    (done, u.counts, n)
}

#[test]
fn every_member_leaves_the_barrier_once() {
    let (done, counts, n) = run(0.0);
    let mut tags: Vec<u64> = done.iter().map(|d| d.2).collect();
    tags.sort_unstable();
    assert_eq!(tags, (0..n).map(|r| 50 + r as u64).collect::<Vec<_>>());
    assert_eq!((counts.lost, counts.resent), (0, 0));
    assert!(counts.packets > 0);
}

#[test]
fn lost_packets_are_sent_again_and_the_barrier_still_ends() {
    let (clean, ..) = run(0.0);
    let (done, counts, n) = run(0.3);
    assert_eq!(done.len(), n as usize, "every member leaves despite the losses");
    assert!(counts.lost > 0 && counts.resent + counts.urges > 0, "{counts:?}");
    // Recovery waits for timeouts: the lossy barrier ends later than the clean one.
    let last = |d: &[(u64, u32, u64)]| d.iter().map(|x| x.0).max().unwrap();
    assert!(last(&done) >= last(&clean) + 3_000_000, "{} vs {}", last(&done), last(&clean));
}

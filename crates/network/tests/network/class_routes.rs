//! Blue Gene/Q class routes: trees that fill sub-rectangles, reductions that arrive reduced
//! (floating-point sums with the same bits whatever the arrival order), hops that cost what a
//! message hop costs plus the combining delay, and groups the hardware cannot take.

use crate::common::rounds::{ok, run_rounds, Rounds};
use fabricsim_core::{NodeId, Time};
use fabricsim_network::class_routes::{ClassRouteParams, ClassTree};
use fabricsim_network::{HardwareSpec, HwKind, HwOp, NetworkParams};
use fabricsim_topology::Torus;

/// Blue Gene/Q's class routes (the defaults are its parameters).
fn class_routes() -> HardwareSpec {
    HardwareSpec::BgqClassRoutes(ClassRouteParams::default())
}

/// One rank per node; an engine per link direction (the copies going down leave at once).
fn run(shape: Vec<u32>, w: Rounds, shuffle: Option<u64>) -> Rounds {
    let engines = 2 * shape.len() as u32;
    run_rounds(shape, engines, w, shuffle, |r, _, _| r, &|_, p| NetworkParams { hardware: class_routes(), buffer_bytes: 2048, ..p })
}

#[test]
fn a_tree_spans_its_rectangle_through_neighbours_in_dimension_order() {
    let t = Torus::new(vec![4, 4, 2], None, None).unwrap();
    let rects: Vec<Vec<u32>> = vec![
        (0..32).collect(),
        // A 2x3 plane going round the first ring's end (x = 3, 0; y = 1, 2, 3).
        [[3, 1], [0, 1], [3, 2], [0, 2], [3, 3], [0, 3]].iter().map(|&[x, y]| t.node_at(&[x, y, 0]).unwrap().0).collect(),
        // A line.
        (0..4).map(|x| t.node_at(&[x, 2, 1]).unwrap().0).collect(),
    ];
    for nodes in rects {
        for root in [ClassTree::centre(&t, &nodes), nodes[nodes.len() - 1]] {
            let tree = ClassTree::build(&t, &nodes, root).unwrap();
            assert_eq!(tree.nodes[tree.root], root);
            let mut depth_sum = 0;
            for i in 0..tree.nodes.len() {
                let (mut j, mut hops) = (i, 0);
                while tree.parent[j] != usize::MAX {
                    let (a, b) = (t.coords(NodeId(tree.nodes[j])), t.coords(NodeId(tree.nodes[tree.parent[j]])));
                    let diff: Vec<usize> = (0..3).filter(|&x| a[x] != b[x]).collect();
                    assert_eq!(diff.len(), 1, "a parent is a neighbour");
                    j = tree.parent[j];
                    hops += 1;
                    assert!(hops <= 16, "every path reaches the root");
                }
                depth_sum += hops;
            }
            assert!(depth_sum > 0 || nodes.len() == 1);
            assert!(tree.children.iter().all(|c| c.len() <= 6));
        }
    }
    // The centre of a 4-ring is 1 away from one end and 2 from the other: depth 2 + 2 + 1.
    let all: Vec<u32> = (0..32).collect();
    assert_eq!(ClassTree::build(&t, &all, ClassTree::centre(&t, &all)).unwrap().depth(), 5);
    // Half-way round a ring either way is as deep; the tree then keeps off the wrap link.
    for root_x in 0..4 {
        let line: Vec<u32> = (0..4).map(|x| t.node_at(&[x, 0, 0]).unwrap().0).collect();
        let tree = ClassTree::build(&t, &line, line[root_x]).unwrap();
        assert_eq!(tree.depth(), 2);
        for i in (0..4).filter(|&i| i != root_x) {
            let (x, px) = (t.coord(NodeId(tree.nodes[i]), 0), t.coord(NodeId(tree.nodes[tree.parent[i]]), 0));
            let wrap = x.abs_diff(px) == 3;
            let tie = x.abs_diff(root_x as u32) == 2;
            assert!(!(tie && wrap), "root {root_x}: node {x} reaches its parent {px} over the wrap link on a tie");
        }
    }
    // Not a rectangle.
    let e = ClassTree::build(&t, &[0, 1, 5], 0).unwrap_err();
    assert!(e.contains("rectangle"), "{e}");
}

#[test]
fn one_hop_costs_a_message_hop_plus_the_combining_delay() {
    // Two nodes: the non-root's chunk goes up one link, the result comes back down one link.
    // A hop is a link (20 ns) and a router pipeline (40 ns), as for any packet; floating point
    // adds 18 ns going up and 6 going down. Chunks pass the logic head first (cut-through), so
    // the chunk's wire time is paid once, at the end, as a message pays it: the last member
    // has the data when its tail is in.
    let p = crate::common::params(2);
    let tail = |bytes: u32| p.link_bandwidth.serialization(p.format.wire(bytes) as u64);
    for (op, extra) in [(HwOp::Sum, 0), (HwOp::FloatSum, 24)] {
        for bytes in [8, 256] {
            let mut w = Rounds::barrier(2, 1, |_, _| Time::ZERO);
            (w.op, w.bytes) = (op, bytes as u64);
            let w = ok(run(vec![2], w, None));
            let last = w.done.iter().map(|d| d[0]).max().unwrap();
            assert_eq!(last, Time::from_ns(2 * 60 + extra) + tail(bytes), "{op:?} {bytes} B");
        }
    }
}

#[test]
fn a_local_contribution_slower_than_the_link_holds_the_combined_chunk_back() {
    // The engines stream a node's own data in at half the link's rate: a chunk's output cannot
    // stream out at the link's rate before its input is in far enough, which costs the
    // difference of the two wire times once (the root's own input is in by then).
    let base = crate::common::params(2);
    let link = base.link_bandwidth;
    let slow = fabricsim_core::Bandwidth(link.bytes_per_sec() / 2);
    let wire = base.format.wire(256) as u64;
    let lag = slow.serialization(wire) - link.serialization(wire);
    let mut at = Vec::new();
    for terminal in [link, slow] {
        let mut w = Rounds::barrier(2, 1, |_, _| Time::ZERO);
        (w.op, w.bytes) = (HwOp::Sum, 256);
        let setup =
            move |_: &Torus, p: NetworkParams| NetworkParams { hardware: class_routes(), buffer_bytes: 2048, terminal_bandwidth: terminal, ..p };
        let w = ok(run_rounds(vec![2], 2, w, None, |r, _, _| r, &setup));
        at.push(w.done.iter().map(|d| d[0]).max().unwrap());
    }
    assert!(lag > Time::ZERO);
    assert_eq!(at[1], at[0] + lag);
}

#[test]
fn reductions_arrive_reduced_and_floating_point_sums_keep_their_bits() {
    let value = |r: u32| {
        let mut v = [0u64; 8];
        for (i, x) in v.iter_mut().enumerate() {
            *x = ((r as u64 + 3) * (i as u64 + 7)) ^ (r as u64 * 101);
        }
        v
    };
    for op in [HwOp::Sum, HwOp::Min, HwOp::Max, HwOp::And, HwOp::Or, HwOp::Xor] {
        let mut w = Rounds::barrier(24, 2, |r, k| Time::from_ns((r * 37 % 11 + k) as u64 * 30));
        (w.op, w.bytes, w.value) = (op, 64, value);
        let w = ok(run(vec![4, 3, 2], w, None));
        let mut want = value(0);
        for r in 1..24 {
            op.combine(&mut want, &value(r));
        }
        assert!(w.values.iter().all(|v| *v == want), "{op:?}");
    }
    // Floating point: values of very different sizes, whose sum depends on the order of
    // additions; every member gets the same bits, with or without traffic that moves arrivals.
    let fvalue = |r: u32| [(if r.is_multiple_of(3) { 1e16 } else { 0.1 * r as f64 + 1.0 }).to_bits(), 0, 0, 0, 0, 0, 0, 0];
    let sums: Vec<u64> = [0, 40]
        .iter()
        .map(|&background| {
            let mut w = Rounds::barrier(24, 1, |r, _| Time::from_ns((r * 53 % 17) as u64 * 20));
            (w.op, w.bytes, w.value, w.background) = (HwOp::FloatSum, 8, fvalue, background);
            let w = ok(run(vec![4, 3, 2], w, None));
            assert!(w.values.iter().all(|v| v[0] == w.values[0][0]));
            w.values[0][0]
        })
        .collect();
    assert_eq!(sums[0], sums[1]);
    let exact: f64 = (0..24).map(|r| f64::from_bits(fvalue(r)[0])).sum();
    assert!((f64::from_bits(sums[0]) - exact).abs() / exact < 1e-12);
}

#[test]
fn long_reductions_stream_at_link_speed_and_others_complete() {
    // 256 KiB over a 4x4 torus: 1024 chunks of 256 B (the test network's packet) pipelined
    // through the tree; the time approaches the chunks' serialisation on one link.
    let mut w = Rounds::barrier(16, 1, |_, _| Time::ZERO);
    (w.op, w.bytes) = (HwOp::Sum, 256 * 1024);
    let w = ok(run(vec![4, 4], w, None));
    let last = w.done.iter().map(|d| d[0]).max().unwrap();
    let wire = Time::from_ps(256 * 1024 * 200); // 5 GB/s
    assert!(last > wire && last < wire + Time::from_us(3), "{last} against {wire}");
    // Broadcast and reduce run too (from the root: the member at the centre).
    for kind in [HwKind::Broadcast, HwKind::Reduce] {
        let mut w = Rounds::barrier(16, 2, |_, _| Time::ZERO);
        (w.op, w.bytes, w.kind) = (HwOp::Sum, 4096, kind);
        let w = ok(run(vec![4, 4], w, None));
        assert!(w.done.iter().all(|d| d.len() == 2), "{kind:?}");
    }
}

#[test]
fn results_do_not_depend_on_the_order_of_same_instant_events() {
    let make = || {
        let mut w = Rounds::barrier(18, 3, |r, k| Time::from_ns(((r % 3) * 100 + k * 50) as u64));
        (w.op, w.bytes, w.background) = (HwOp::FloatSum, 2048, 10);
        w
    };
    let base = ok(run(vec![3, 3, 2], make(), None));
    for seed in 1..4 {
        let w = ok(run(vec![3, 3, 2], make(), Some(seed)));
        assert_eq!((w.done, w.values), (base.done.clone(), base.values.clone()), "seed {seed}");
    }
}

#[test]
fn groups_the_hardware_cannot_take_are_refused_by_name() {
    // Ranks 0..6 of a 4x4 torus are not a rectangle.
    let w = run(vec![4, 4], Rounds::barrier(6, 1, |_, _| Time::ZERO), None);
    assert!(w.error.as_deref().unwrap().contains("rectangle"), "{:?}", w.error);
    // A node in more class routes than it may be.
    let w = run_rounds(vec![4, 4], 1, Rounds::barrier(16, 1, |_, _| Time::ZERO), None, |r, _, _| r, &|_, p| NetworkParams {
        hardware: HardwareSpec::BgqClassRoutes(ClassRouteParams { routes: 0, ..Default::default() }),
        ..p
    });
    assert!(w.error.as_deref().unwrap().contains("hardware.routes"), "{:?}", w.error);
}

#[test]
fn long_reductions_carry_their_values_and_late_broadcast_members_still_finish() {
    // 2 KiB: eight chunks of 256 B; the values (the first chunk's) arrive reduced.
    let mut w = Rounds::barrier(9, 2, |r, _| Time::from_ns(r as u64 * 7));
    (w.op, w.bytes, w.value) = (HwOp::Max, 2048, |r| [r as u64 * 3 + 1; 8]);
    let w = ok(run(vec![3, 3], w, None));
    assert!(w.values.iter().all(|v| v[0] == 25), "{:?}", w.values);
    // A broadcast from the centre: a member that starts long after the data reached it ends
    // when it starts.
    let mut w = Rounds::barrier(9, 2, |r, k| Time::from_ns(if r == 8 { 5_000 } else { 10 * k as u64 }));
    (w.op, w.bytes, w.kind) = (HwOp::Sum, 512, HwKind::Broadcast);
    let w = ok(run(vec![3, 3], w, None));
    assert!(w.done.iter().all(|d| d.len() == 2));
    assert!(w.done[8][0] >= Time::from_ns(5_000));
}

/// The time the last member of a barrier or an 8 B floating-point allreduce on a ring of `n`
/// nodes has it, with the class routes' parameters `p`.
fn last_done(n: u32, p: ClassRouteParams, op: HwOp) -> Time {
    let mut w = Rounds::barrier(n, 1, |_, _| Time::ZERO);
    if op != HwOp::None {
        (w.op, w.bytes) = (op, 8);
    }
    let hw = HardwareSpec::BgqClassRoutes(p);
    let w = ok(run_rounds(vec![n], 2, w, None, |r, _, _| r, &move |_, q| NetworkParams { hardware: hw.clone(), buffer_bytes: 2048, ..q }));
    w.done.iter().map(|d| d[0]).max().unwrap()
}

#[test]
fn a_barrier_pays_the_logic_per_hop_up_and_down_the_tree() {
    // Every node on the deepest path combines (up) or passes on (down) the barrier packet in
    // its logic: the barrier grows by the tree's depth times the logic's cost up plus down.
    let free = ClassRouteParams { barrier_up_delay: Time::ZERO, barrier_down_delay: Time::ZERO, ..ClassRouteParams::default() };
    let logic = ClassRouteParams { barrier_up_delay: Time::from_ns(14), barrier_down_delay: Time::from_ns(4), ..free.clone() };
    let mut depths = Vec::new();
    for n in [2, 4, 7, 12] {
        let t = Torus::new(vec![n], None, None).unwrap();
        let all: Vec<u32> = (0..n).collect();
        let depth = ClassTree::build(&t, &all, ClassTree::centre(&t, &all)).unwrap().depth() as u64;
        let (a, b) = (last_done(n, free.clone(), HwOp::None), last_done(n, logic.clone(), HwOp::None));
        assert_eq!(b, a + Time::from_ns(18 * depth), "{n} nodes, depth {depth}");
        depths.push(depth);
    }
    assert!(depths.windows(2).all(|w| w[0] < w[1]), "the rings give trees of growing depth: {depths:?}");
}

#[test]
fn a_barrier_with_the_float_combines_cost_trails_an_8_byte_allreduce_by_the_wire_time_only() {
    // A barrier is a combine of a header-only packet: with the floating-point combine's cost
    // per hop (the default), it differs from an 8 B floating-point allreduce only in the last
    // packet's wire time, at every depth; with a free logic it gains 24 ns per level too.
    let p = crate::common::params(2);
    let tail = |bytes: u32| p.link_bandwidth.serialization(p.format.wire(bytes) as u64);
    let d = ClassRouteParams::default();
    assert_eq!((d.barrier_up_delay, d.barrier_down_delay), (d.float_up_delay, d.float_down_delay));
    let free = ClassRouteParams { barrier_up_delay: Time::ZERO, barrier_down_delay: Time::ZERO, ..d.clone() };
    for n in [3, 5, 9] {
        let t = Torus::new(vec![n], None, None).unwrap();
        let all: Vec<u32> = (0..n).collect();
        let depth = ClassTree::build(&t, &all, ClassTree::centre(&t, &all)).unwrap().depth() as u64;
        let reduce = last_done(n, d.clone(), HwOp::FloatSum);
        assert_eq!(reduce, last_done(n, d.clone(), HwOp::None) + tail(8) - tail(0), "{n} nodes");
        assert_eq!(reduce, last_done(n, free.clone(), HwOp::None) + tail(8) - tail(0) + Time::from_ns(24 * depth), "{n} nodes");
    }
}

//! Tofu barrier gates at run time: latency from the gates' processing and the network, the
//! serial processing of a TNI's gates, barriers that never end early, reductions that arrive
//! reduced, and resources that run out with an error naming them.

use crate::common::rounds::{ok, run_rounds, Rounds};
use fabricsim_core::{NodeId, Time};
use fabricsim_network::gates::{GateAlgorithm, GateParams};
use fabricsim_network::{HardwareSpec, HwOp, NetworkParams, RunLimits, Simulation};
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::Torus;

use crate::common;

/// TofuD's measured components: 0.48 us for a BCH and its start gate (0.29 us of it holding
/// the TNI), 0.13 us for a relay.
fn tofud_gates(tnis: u32) -> GateParams {
    GateParams {
        tnis,
        channels: 16,
        gates: 48,
        channel_serial: Time::from_ns(290),
        channel_overlap: Time::from_ns(190),
        relay: Time::from_ns(130),
        int_elements: 8,
        float_elements: 3,
        algorithm: GateAlgorithm::Auto,
    }
}

/// `w` on a torus of `shape`, `per_node` ranks on each node (and as many engines), with the
/// TofuD gates on every engine; `shuffle`: draw the order of same-instant events.
fn run(shape: Vec<u32>, per_node: u32, w: Rounds, shuffle: Option<u64>) -> Rounds {
    run_placed(shape, per_node, w, shuffle, |r, per_node, nodes| r / per_node % nodes)
}

/// Every rank on node 0 (of two), `engines` TNIs.
fn one_node(engines: u32, w: Rounds) -> Rounds {
    run_placed(vec![2], engines, w, None, |_, _, _| 0)
}

fn run_placed(shape: Vec<u32>, per_node: u32, w: Rounds, shuffle: Option<u64>, place: fn(u32, u32, u32) -> u32) -> Rounds {
    run_rounds(shape, per_node, w, shuffle, place, &|_, p| NetworkParams { hardware: HardwareSpec::TofuGates(tofud_gates(per_node)), ..p })
}

fn latest(w: &Rounds) -> Time {
    w.done.iter().map(|d| d[0]).max().unwrap()
}

#[test]
fn one_point_costs_a_channel_and_a_relay() {
    let w = ok(one_node(1, Rounds::barrier(1, 1, |_, _| Time::ZERO)));
    assert_eq!(latest(&w), Time::from_ns(480 + 130));
}

#[test]
fn a_tnis_gates_are_processed_one_at_a_time() {
    // Points of one node over its 6 TNIs, all starting at once.
    let at = |n: u32| latest(&ok(one_node(6, Rounds::barrier(n, 1, |_, _| Time::ZERO))));
    // Four points, one per TNI: start, one exchange relay, end: as one point alone.
    assert_eq!(at(4), Time::from_ns(610));
    // Eight: TNI 0 serves two starts (0.29 us each), their combining relay, an exchange relay
    // and the relay fanning out to the two ends, one after another.
    assert_eq!(at(8), Time::from_ns(290 + 290 + 190 + 130 + 130 + 130));
    let (a16, a48) = (at(16), at(48));
    assert!(a16 > at(8) && a48 > a16 + Time::from_ns(8 * 290 - 3 * 290), "{a16} {a48}");
}

#[test]
fn two_nodes_add_one_signal_through_the_network() {
    let w = ok(run(vec![2], 1, Rounds::barrier(2, 1, |_, _| Time::ZERO), None));
    // Zero-load latency of an 8-byte packet over one link (see the crate docs): 100 ns NIC,
    // 40 + 20 ns per hop, 8 B at 5 GB/s.
    assert_eq!(latest(&w), Time::from_ns(480) + Time::from_ps(100_000 + 60_000 + 1_600));
}

#[test]
fn no_member_leaves_a_barrier_before_the_last_one_enters() {
    let delay = |r: u32, k: u32| Time::from_ns(((r * 7919 + k * 104_729) % 3001) as u64);
    for (shape, per_node) in [(vec![4, 4], 1), (vec![3, 2], 3), (vec![5], 2)] {
        let mut w = Rounds::barrier(shape.iter().product::<u32>() * per_node, 5, delay);
        w.background = 20;
        let w = ok(run(shape.clone(), per_node, w, None));
        for k in 0..5 {
            let last_in = w.started.iter().map(|s| s[k]).max().unwrap();
            let first_out = w.done.iter().map(|d| d[k]).min().unwrap();
            assert!(first_out >= last_in + Time::from_ns(480), "{shape:?} round {k}: out at {first_out}, last in at {last_in}");
        }
    }
}

#[test]
fn results_do_not_depend_on_the_order_of_same_instant_events() {
    let make = || {
        let mut w = Rounds::barrier(18, 3, |r, k| Time::from_ns(((r % 3) * 100 + k * 50) as u64));
        w.background = 10;
        w
    };
    let base = ok(run(vec![3, 2], 3, make(), None)).done;
    for seed in 1..4 {
        assert_eq!(ok(run(vec![3, 2], 3, make(), Some(seed))).done, base, "seed {seed}");
    }
}

#[test]
fn allreduces_arrive_reduced_at_every_member() {
    let value = |r: u32| {
        let mut v = [0u64; 8];
        for (i, x) in v.iter_mut().enumerate() {
            *x = ((r as u64 + 1) * (i as u64 + 1)) ^ (r as u64 * 37);
        }
        v
    };
    let n = 12u32;
    for (op, bytes) in [(HwOp::Sum, 64), (HwOp::Max, 24), (HwOp::Xor, 8), (HwOp::Or, 64)] {
        let mut w = Rounds::barrier(n, 2, |r, _| Time::from_ns(r as u64 * 10));
        (w.op, w.bytes, w.value) = (op, bytes, value);
        let w = ok(run(vec![3, 2], 2, w, None));
        let mut want = value(0);
        for r in 1..n {
            op.combine(&mut want, &value(r));
        }
        let k = (bytes / 8) as usize;
        for r in 0..n as usize {
            assert_eq!(w.values[r][..k], want[..k], "{op:?} at rank {r}");
        }
    }
    // Floating point: the right sum, and the same bits everywhere.
    let mut w = Rounds::barrier(n, 1, |_, _| Time::ZERO);
    (w.op, w.bytes, w.value) =
        (HwOp::FloatSum, 24, |r| [(0.1 * (r + 1) as f64).to_bits(), (1e16 + r as f64).to_bits(), 1f64.to_bits(), 0, 0, 0, 0, 0]);
    let w = ok(run(vec![3, 2], 2, w, None));
    let sum = f64::from_bits(w.values[0][0]);
    assert!((sum - 7.8).abs() < 1e-12, "{sum}");
    assert_eq!(f64::from_bits(w.values[0][2]), 12.0);
    assert!(w.values.iter().all(|v| *v == w.values[0]));
}

#[test]
fn too_many_elements_and_missing_resources_are_named() {
    let mut w = Rounds::barrier(2, 1, |_, _| Time::ZERO);
    (w.op, w.bytes) = (HwOp::FloatSum, 32);
    let msg = run(vec![2], 1, w, None).error.unwrap();
    assert!(msg.contains("bytes") && msg.contains("3 floating-point"), "{msg}");
    // 20 points on one TNI: more channels (16) than it has.
    let msg = one_node(1, Rounds::barrier(20, 1, |_, _| Time::ZERO)).error.unwrap();
    assert!(msg.contains("hardware.channels") && msg.contains("16"), "{msg}");
    // 16 points on one TNI with 20 gates: 16 start-and-end gates, 15 relays combining and 14
    // fanning out do not fit.
    let t = Torus::new(vec![2], None, None).unwrap();
    let p = NetworkParams { hardware: HardwareSpec::TofuGates(GateParams { gates: 20, ..tofud_gates(1) }), ..common::params(2) };
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let mut sim = Simulation::new(t.build_graph(1), r, p, Rounds::barrier(16, 1, |_, _| Time::ZERO)).unwrap();
    sim = sim.with_rank_map(vec![NodeId(0); 16]).unwrap();
    sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }, |_| {}).unwrap();
    let msg = sim.workload().error.clone().unwrap();
    assert!(msg.contains("hardware.gates") && msg.contains("20"), "{msg}");
}

#[test]
fn members_must_agree_on_a_rounds_operation() {
    // Rank 1 runs its first round as a sum of one element, the others of two: refused, naming
    // the disagreement.
    let mut w = Rounds::barrier(4, 1, |_, _| Time::ZERO);
    (w.op, w.bytes) = (HwOp::Sum, 16);
    w.value = |_| [1; 8];
    w.bytes_of = Some(|r| if r == 1 { 8 } else { 16 });
    let e = run(vec![4], 1, w, None).error.unwrap();
    assert!(e.contains("other members"), "{e}");
}

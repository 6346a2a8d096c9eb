//! Barrier gate wirings: every member's end hears every start (exactly once where the wiring
//! says so), gates keep to two inputs and two outputs, and the TofuD test programs' resource
//! counts come out of the builder.

use fabricsim_network::gates::wiring::{GateAlgorithm, Role, Share, Wiring, NONE};

/// Paths from each start to each end, counted (a start's contribution reaches an end once per
/// path).
fn paths(w: &Wiring) -> Vec<Vec<u64>> {
    let order = w.topological_order().expect("acyclic");
    w.starts
        .iter()
        .map(|&s| {
            let mut n = vec![0u64; w.gates.len()];
            n[s as usize] = 1;
            for &g in &order {
                for (to, _) in w.outs(g) {
                    n[to as usize] += n[g as usize];
                }
            }
            w.ends.iter().map(|&e| n[e as usize]).collect()
        })
        .collect()
}

fn check(w: &Wiring) {
    for (i, g) in w.gates.iter().enumerate() {
        assert!(g.need <= 2, "gate {i} waits for {}", g.need);
        assert_eq!(g.need == 0, g.role == Role::Start, "gate {i}: only starts wait for nothing");
        let ins = w.gates.iter().flat_map(|h| h.outs).filter(|o| o.0 == i as u32).count();
        assert_eq!(ins, g.need as usize, "gate {i}: inputs and links differ");
        assert!(g.role != Role::End || g.outs.iter().all(|o| o.0 == NONE), "an end signals nobody");
    }
    for row in paths(w) {
        for n in row {
            assert!(n >= 1, "an end does not hear a start: a barrier could end early");
            assert!(!w.exact || n == 1, "a contribution reaches an end {n} times in an exact wiring");
        }
    }
}

#[test]
fn every_wiring_hears_every_start_within_the_gate_limits() {
    for alg in [GateAlgorithm::Tree, GateAlgorithm::RecursiveDoubling, GateAlgorithm::Dissemination, GateAlgorithm::Auto] {
        for n in 1..=40u32 {
            for tnis in [1u32, 2, 3, 6] {
                // Several nodes: members spread over (node, TNI) slots, a few per TNI.
                let points: Vec<u32> = (0..n).map(|m| (m * 7919) % (tnis * 5) + (m % 3) * 100).collect();
                let share = (n % 2 == 0).then_some(Share { tnis_per_node: tnis, gates_per_channel: 3 });
                let w = Wiring::build(&points, alg, false, share).unwrap();
                check(&w);
                assert_ne!(w.algorithm, GateAlgorithm::Auto);
            }
        }
    }
}

#[test]
fn sums_never_get_a_wiring_that_counts_twice() {
    let points: Vec<u32> = (0..6).collect();
    assert!(!Wiring::build(&points, GateAlgorithm::Dissemination, false, None).unwrap().exact);
    assert!(Wiring::build(&points, GateAlgorithm::Dissemination, true, None).is_err());
    assert!(Wiring::build(&points, GateAlgorithm::Auto, true, None).unwrap().exact);
    assert!(Wiring::build(&points[..4], GateAlgorithm::Dissemination, true, None).unwrap().exact);
}

#[test]
fn a_tree_member_uses_one_gate_plus_two_per_child() {
    // Seven members on seven nodes: three inner members (five gates), four leaves (one).
    let w = Wiring::build(&(0..7).collect::<Vec<_>>(), GateAlgorithm::Tree, true, None).unwrap();
    let mut per = w.gates_per_tni();
    per.sort_unstable();
    assert_eq!(per, vec![1, 1, 1, 1, 4, 5, 5], "the root turns the signal round with one relay fewer");
    // Recursive doubling over 8 nodes: log2(8) gates each.
    let w = Wiring::build(&(0..8).collect::<Vec<_>>(), GateAlgorithm::RecursiveDoubling, true, None).unwrap();
    assert_eq!(w.gates_per_tni(), vec![3; 8]);
    assert_eq!(w.stages(), 3);
}

/// TofuD's intra-node test programs: `n` start-and-end points of one node over its 6 TNIs.
fn tofud_test(n: u32) -> Wiring {
    let points: Vec<u32> = (0..n).map(|m| m % 6).collect();
    Wiring::build(&points, GateAlgorithm::Auto, false, Some(Share { tnis_per_node: 6, gates_per_channel: 3 })).unwrap()
}

#[test]
fn tofud_test_program_configurations() {
    // (points, TNIs, max BCHs per TNI, max BGs per TNI, stages) as the builder makes them.
    for (n, tnis, bch, bg, stages) in [(1, 1, 1, 2, 2), (4, 4, 1, 2, 2), (8, 6, 2, 5, 4), (16, 6, 3, 9, 6), (48, 6, 8, 24, 9)] {
        let w = tofud_test(n);
        let got = (w.tnis.len() as u32, *w.channels_per_tni().iter().max().unwrap(), w.max_gates_per_tni(), w.stages());
        assert_eq!(got, (tnis, bch, bg, stages), "{n} points");
    }
    // Sixteen points without sharing: the TNIs with three channels keep all their relays (ten
    // gates, over their share of nine); sharing moves one to a TNI of two channels.
    let points: Vec<u32> = (0..16).map(|m| m % 6).collect();
    let w = Wiring::build(&points, GateAlgorithm::Auto, false, None).unwrap();
    assert_eq!((w.max_gates_per_tni(), w.stages()), (10, 6));
    assert_eq!(tofud_test(16).gates_per_tni(), vec![9, 9, 9, 9, 4, 4]);
}

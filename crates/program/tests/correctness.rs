//! Every algorithm leaves every rank with exactly the data its collective requires, on many
//! rank counts (powers of two and not), checked symbolically; broken programs are caught.

use fabricsim_program::algorithms::{build, names, Layout};
use fabricsim_program::check::run;
use fabricsim_program::{check, Collective, Combine, Grid, Op, Program, Slots};

/// Tori of two and three axes, with rings of 2 to 8 and odd lengths.
const TORI: &[&[u32]] =
    &[&[2, 2], &[3, 3], &[4, 2], &[5, 3], &[4, 4], &[8, 6], &[2, 2, 2], &[3, 4, 5], &[4, 4, 4], &[2, 6, 3], &[6, 5, 2], &[1, 4, 3]];

fn torus(dims: &[u32]) -> Layout {
    let grid = Grid::new(dims, &vec![true; dims.len()]);
    Layout { ranks: grid.ranks(), grid: Some(grid), link_bandwidth: Some(fabricsim_core::Bandwidth(5_000_000_000)), engines: 4 }
}

#[test]
fn every_algorithm_is_correct_on_many_rank_counts() {
    let counts: Vec<u32> = (1..=33).chain([48, 63, 64, 65, 100, 127, 128]).collect();
    for c in Collective::ALL {
        for &name in names(c) {
            for &p in &counts {
                // A chain with several segments, and one with a single segment.
                for size in [8, 1 << 20] {
                    match build(c, name, &Layout::flat(p), size) {
                        Ok(prog) => check(prog.as_ref(), c).unwrap_or_else(|e| panic!("{} {name} on {p} ranks: {e}", c.name())),
                        // Only the topology-aware algorithms need a torus.
                        Err(e) => assert!(e.contains("torus"), "{} {name} on {p} ranks: {e}", c.name()),
                    }
                }
            }
        }
    }
}

#[test]
fn every_algorithm_is_correct_on_tori() {
    for c in Collective::ALL {
        for &name in names(c) {
            for dims in TORI {
                for size in [8, 1 << 20] {
                    let prog = build(c, name, &torus(dims), size).unwrap_or_else(|e| panic!("{} {name} on {dims:?}: {e}", c.name()));
                    check(prog.as_ref(), c).unwrap_or_else(|e| panic!("{} {name} on {dims:?}: {e}", c.name()));
                }
            }
        }
    }
}

#[test]
fn the_symmetric_all_to_all_serves_every_pair_once() {
    // Every rank puts exactly one message to every other rank.
    for dims in TORI {
        let prog = build(Collective::AllToAll, "symmetric", &torus(dims), 64).unwrap();
        let n = prog.ranks();
        for r in 0..n {
            let mut to: Vec<u32> = (0..prog.len(r, 0))
                .filter_map(|i| match prog.op(r, 0, i) {
                    Op::Put { to, .. } => Some(to),
                    _ => None,
                })
                .collect();
            to.sort_unstable();
            assert_eq!(to, (0..n).filter(|&x| x != r).collect::<Vec<_>>(), "{dims:?} rank {r}");
        }
    }
}

#[test]
fn unknown_algorithms_are_refused_with_the_known_ones() {
    let e = build(Collective::Allreduce, "tree", &Layout::flat(8), 8).err().unwrap();
    assert!(e.contains("'tree'") && e.contains("rabenseifner"), "{e}");
}

/// A program given as lists of operations.
struct Lists(Vec<Vec<Op>>, u32);

impl Program for Lists {
    fn ranks(&self) -> u32 {
        self.0.len() as u32
    }
    fn slots(&self) -> u32 {
        self.1
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        self.0[r as usize].len() as u32
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        self.0[r as usize][i as usize]
    }
}

#[test]
fn a_wait_without_a_matching_send_is_a_deadlock_naming_the_rank_and_operation() {
    let one = Slots::range(0, 1, 1);
    let p = Lists(
        vec![
            vec![Op::Put { to: 1, slots: one, tag: 0 }],
            vec![Op::Wait { from: 0, tag: 0, into: one, combine: Combine::Copy }, Op::Wait { from: 0, tag: 1, into: one, combine: Combine::Copy }],
        ],
        1,
    );
    let e = run(&p, |_, _| None).unwrap_err();
    assert_eq!((e.rank, e.op), (1, 1), "{e}");
    assert!(e.message.contains("deadlock"), "{e}");
}

#[test]
fn a_reduction_counting_a_rank_twice_is_caught() {
    // Ring reduce-scatter whose receive adds into the block it just sent (off by one).
    let p = 4;
    let good = build(Collective::ReduceScatter, "ring", &Layout::flat(p), 64).unwrap();
    let ops: Vec<Vec<Op>> = (0..p)
        .map(|r| {
            (0..good.len(r, 0))
                .map(|i| match good.op(r, 0, i) {
                    Op::Wait { from, tag, combine, .. } => Op::Wait { from, tag, into: Slots::range(r + 2 * p - tag - 1, 1, p), combine },
                    op => op,
                })
                .collect()
        })
        .collect();
    let bad = Lists(ops, p);
    assert!(check(&bad, Collective::ReduceScatter).is_err());
    // And an allgather that skips its last step leaves a block missing.
    let ag = build(Collective::Allgather, "ring", &Layout::flat(5), 64).unwrap();
    let short = Lists((0..5).map(|r| (0..ag.len(r, 0) - 2).map(|i| ag.op(r, 0, i)).collect()).collect(), 5);
    let e = check(&short, Collective::Allgather).unwrap_err();
    assert!(e.message.contains("ends with nothing"), "{e}");
}

#[test]
fn bit_slot_sets_count_what_they_list() {
    for window in 0..70 {
        for bit in 0..7u8 {
            let s = Slots::Bit { base: 3, window, bit };
            assert_eq!(s.iter().count() as u32, s.count(), "window {window} bit {bit}");
            assert!(s.iter().all(|x| (x - 3) >> bit & 1 == 1));
        }
    }
    let down = Slots::Down { base: 10, window: 4, start: 1, count: 4 };
    assert_eq!(down.iter().collect::<Vec<_>>(), vec![11, 10, 13, 12]);
}

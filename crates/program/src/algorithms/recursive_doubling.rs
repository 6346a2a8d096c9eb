//! Recursive doubling, for allgather and allreduce: in round `k` each member exchanges with
//! the member `2^k` away (its index with bit `k` flipped) everything it has gathered so far
//! (allgather: the blocks of its aligned group of `2^k` members, doubling each round) or its
//! whole partial sum (allreduce). `log2 P` latencies. Rank counts that are not a power of two
//! fold first (see [`super::fold`]): the extra ranks hand their data to their partner before
//! and get the result back after.

use super::fold::Fold;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

/// Tag of the fold and unfold messages (core rounds use `1 + k`).
const FOLD: u32 = 0;
const UNFOLD: u32 = 63;

pub struct RecursiveDoubling {
    pub ranks: u32,
    /// Allreduce (whole buffer, one slot) rather than allgather (one block per rank).
    pub reduce: bool,
    /// Whether the extra ranks hand their data in first (a Rabenseifner allreduce starts from
    /// a reduce-scatter that has already folded them).
    pub fold_in: bool,
}

impl RecursiveDoubling {
    fn fold(&self) -> Fold {
        Fold::new(self.ranks)
    }
    fn all(&self) -> Slots {
        Slots::range(0, self.slots(), self.slots())
    }
    /// Blocks of the aligned group of `2^k` members containing member `g`.
    fn group(&self, g: u32, k: u32) -> Slots {
        if self.reduce {
            return self.all();
        }
        let f = self.fold();
        let a = g & !((1 << k) - 1);
        let end = if a + (1 << k) >= f.q { self.ranks } else { f.start(a + (1 << k)) };
        Slots::range(f.start(a), end - f.start(a), self.ranks)
    }
}

impl Program for RecursiveDoubling {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        if self.reduce {
            1
        } else {
            self.ranks
        }
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        let f = self.fold();
        if f.is_extra(r) {
            self.fold_in as u32 + 1
        } else {
            2 * f.rounds() + if f.has_extra(r) { self.fold_in as u32 + 1 } else { 0 }
        }
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let f = self.fold();
        let combine = if self.reduce { Combine::Reduce } else { Combine::Copy };
        let mine = if self.reduce { self.all() } else { Slots::range(r, 1, self.ranks) };
        if f.is_extra(r) {
            return if self.fold_in && i == 0 {
                Op::Put { to: r + 1, slots: mine, tag: FOLD }
            } else {
                Op::Wait { from: r + 1, tag: UNFOLD, into: self.all(), combine: Combine::Copy }
            };
        }
        let pre = (f.has_extra(r) && self.fold_in) as u32;
        if i < pre {
            let theirs = if self.reduce { self.all() } else { Slots::range(r - 1, 1, self.ranks) };
            return Op::Wait { from: r - 1, tag: FOLD, into: theirs, combine };
        }
        let j = i - pre;
        if j >= 2 * f.rounds() {
            return Op::Put { to: r - 1, slots: self.all(), tag: UNFOLD };
        }
        let (k, g) = (j / 2, f.member(r));
        let partner = g ^ (1 << k);
        if j.is_multiple_of(2) {
            Op::Put { to: f.rank(partner), slots: self.group(g, k), tag: 1 + k }
        } else {
            Op::Wait { from: f.rank(partner), tag: 1 + k, into: self.group(partner, k), combine }
        }
    }
}

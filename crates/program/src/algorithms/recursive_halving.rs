//! Recursive halving reduce-scatter: in round `k` (from the top bit down) each member keeps
//! half of the blocks it is responsible for and sends the other half, summed so far, to the
//! member `2^k` away, which adds it in. Each round halves the data: `log2 P` latencies and
//! `(P - 1) / P` of the buffer sent, bandwidth-optimal. Rank counts that are not a power of
//! two fold first (see [`super::fold`]); the extra ranks get their block back at the end,
//! unless the caller (Rabenseifner's allreduce) goes on with the folded members.

use super::fold::Fold;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

const FOLD: u32 = 0;
const UNFOLD: u32 = 63;

pub struct RecursiveHalving {
    pub ranks: u32,
    /// Whether the extra ranks get their block back at the end.
    pub fold_out: bool,
}

impl RecursiveHalving {
    fn fold(&self) -> Fold {
        Fold::new(self.ranks)
    }
    /// Blocks of members `a..b`.
    fn blocks(&self, a: u32, b: u32) -> Slots {
        let f = self.fold();
        let end = if b >= f.q { self.ranks } else { f.start(b) };
        Slots::range(f.start(a), end - f.start(a), self.ranks)
    }
}

impl Program for RecursiveHalving {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        self.ranks
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        let f = self.fold();
        if f.is_extra(r) {
            1 + self.fold_out as u32
        } else {
            2 * f.rounds() + if f.has_extra(r) { 1 + self.fold_out as u32 } else { 0 }
        }
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let f = self.fold();
        let all = Slots::range(0, self.ranks, self.ranks);
        if f.is_extra(r) {
            return if i == 0 {
                Op::Put { to: r + 1, slots: all, tag: FOLD }
            } else {
                Op::Wait { from: r + 1, tag: UNFOLD, into: Slots::range(r, 1, self.ranks), combine: Combine::Copy }
            };
        }
        let pre = f.has_extra(r) as u32;
        if i < pre {
            return Op::Wait { from: r - 1, tag: FOLD, into: all, combine: Combine::Reduce };
        }
        let j = i - pre;
        if j >= 2 * f.rounds() {
            return Op::Put { to: r - 1, slots: Slots::range(r - 1, 1, self.ranks), tag: UNFOLD };
        }
        // Round j/2 works on bit k, from the top down.
        let k = f.rounds() - 1 - j / 2;
        let g = f.member(r);
        let a = g & !((2 << k) - 1);
        let (lower, upper) = ((a, a + (1 << k)), (a + (1 << k), a + (2 << k)));
        let (keep, give) = if g & (1 << k) == 0 { (lower, upper) } else { (upper, lower) };
        let partner = f.rank(g ^ (1 << k));
        if j.is_multiple_of(2) {
            Op::Put { to: partner, slots: self.blocks(give.0, give.1), tag: 1 + k }
        } else {
            Op::Wait { from: partner, tag: 1 + k, into: self.blocks(keep.0, keep.1), combine: Combine::Reduce }
        }
    }
}

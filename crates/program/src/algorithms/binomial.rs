//! Binomial trees rooted at rank 0, for broadcast and reduce. In relative numbering a rank's
//! parent is itself with its lowest set bit cleared; its children are `r + 2^k` for the `k`
//! below that bit. `ceil(log2 P)` steps, each moving the whole buffer: latency-optimal,
//! bandwidth-poor (the root sends the buffer `log2 P` times). Any rank count.

use crate::op::{Combine, Op, Slots};
use crate::program::Program;

/// Broadcast from rank 0 (`reduce: false`), or reduce to rank 0 (`reduce: true`).
pub struct Binomial {
    pub ranks: u32,
    pub reduce: bool,
}

impl Binomial {
    /// Children of `r`, nearest first.
    fn children(&self, r: u32) -> impl Iterator<Item = u32> + '_ {
        let lim = if r == 0 { super::ceil_log2(self.ranks) } else { r.trailing_zeros() };
        (0..lim).map(move |k| r + (1 << k)).filter(move |&c| c < self.ranks)
    }
    fn parent(r: u32) -> u32 {
        r & (r - 1)
    }
}

impl Program for Binomial {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        1
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        self.children(r).count() as u32 + (r != 0) as u32
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let all = Slots::range(0, 1, 1);
        let kids: Vec<u32> = self.children(r).collect();
        if self.reduce {
            // Children nearest first (they finish first), then up to the parent.
            match kids.get(i as usize) {
                Some(&c) => Op::Wait { from: c, tag: 0, into: all, combine: Combine::Reduce },
                None => Op::Put { to: Self::parent(r), slots: all, tag: 0 },
            }
        } else {
            // From the parent, then to the children farthest first (the largest subtree).
            let i = if r == 0 {
                i
            } else if i == 0 {
                return Op::Wait { from: Self::parent(r), tag: 0, into: all, combine: Combine::Copy };
            } else {
                i - 1
            };
            Op::Put { to: kids[kids.len() - 1 - i as usize], slots: all, tag: 0 }
        }
    }
}

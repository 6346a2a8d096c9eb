//! Bruck's allgather: in round `k` rank `r` sends the `2^k` blocks it holds (its own and the
//! ones after it: `r, r+1, ...`) to rank `r - 2^k` and receives the next `2^k` from rank
//! `r + 2^k`, so what it holds doubles each round; the last round moves only what is missing.
//! `ceil(log2 P)` latencies for any rank count (recursive doubling needs a power of two for
//! that). Blocks are addressed by owner here, so the final local rotation of the textbook
//! version has nothing to do.

use super::ceil_log2;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct BruckAllgather {
    pub ranks: u32,
}

impl Program for BruckAllgather {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        self.ranks
    }
    fn len(&self, _r: u32, _lane: u32) -> u32 {
        2 * ceil_log2(self.ranks)
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let (p, k) = (self.ranks, i / 2);
        let d = 1u32 << k;
        let count = d.min(p - d);
        if i.is_multiple_of(2) {
            Op::Put { to: (r + p - d) % p, slots: Slots::range(r, count, p), tag: k }
        } else {
            Op::Wait { from: (r + d) % p, tag: k, into: Slots::range(r + d, count, p), combine: Combine::Copy }
        }
    }
}

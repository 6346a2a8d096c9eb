//! Dissemination barrier (Hensgen, Finkel and Manber): in round `k` every rank signals rank
//! `r + 2^k` and waits for rank `r - 2^k`. After `ceil(log2 P)` rounds each rank has heard,
//! directly or through others, from every rank. Any rank count; `ceil(log2 P)` latencies.

use super::ceil_log2;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct Dissemination {
    pub ranks: u32,
}

impl Program for Dissemination {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        1
    }
    fn len(&self, _rank: u32, _lane: u32) -> u32 {
        2 * ceil_log2(self.ranks)
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let (k, p) = (i / 2, self.ranks);
        let d = (1u32 << k) % p;
        let knowledge = Slots::range(0, 1, 1);
        if i.is_multiple_of(2) {
            Op::Put { to: (r + d) % p, slots: knowledge, tag: k }
        } else {
            Op::Wait { from: (r + p - d) % p, tag: k, into: knowledge, combine: Combine::Union }
        }
    }
}

//! Rings for allgather and reduce-scatter, one block per rank: in step `s` rank `r` passes a
//! block to `r + 1` and takes one from `r - 1`. Allgather forwards block `r - s`; reduce-scatter
//! forwards the partial sum of block `r - s - 1` and adds its own share to the one it takes,
//! so after `P - 1` steps rank `r` holds block `r` summed over all ranks. `P - 1` latencies,
//! each rank sends `(P - 1) / P` of the buffer: bandwidth-optimal. Any rank count.

use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct Ring {
    pub ranks: u32,
    pub reduce: bool,
}

impl Program for Ring {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        self.ranks
    }
    fn len(&self, _r: u32, _lane: u32) -> u32 {
        2 * (self.ranks - 1)
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let (p, s) = (self.ranks, i / 2);
        let block = |b: u32| Slots::range(b % p, 1, p);
        // Block sent in step s; the one received is the one the left neighbour sends.
        let shift = if self.reduce { 1 } else { 0 };
        let send = r + 2 * p - s - shift;
        if i.is_multiple_of(2) {
            Op::Put { to: (r + 1) % p, slots: block(send), tag: s }
        } else {
            let combine = if self.reduce { Combine::Reduce } else { Combine::Copy };
            Op::Wait { from: (r + p - 1) % p, tag: s, into: block(send - 1), combine }
        }
    }
}

//! Pipelined chain for broadcast and reduce: the buffer in `segments` pieces flows along the
//! chain 0 -> 1 -> ... -> P-1 (broadcast) or back (reduce), each rank forwarding a piece as
//! soon as it has it. Time about `(P - 2 + segments)` piece times: bandwidth-optimal for
//! large buffers, poor latency on long chains. Any rank count.

use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct Chain {
    pub ranks: u32,
    pub segments: u32,
    pub reduce: bool,
}

impl Program for Chain {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        self.segments
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        let ends = r == 0 || r == self.ranks - 1;
        if self.ranks == 1 {
            0
        } else if ends {
            self.segments
        } else {
            2 * self.segments
        }
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let last = self.ranks - 1;
        // Broadcast flows up the ranks, reduce down; `head` starts the chain.
        let (head, tail) = if self.reduce { (last, 0) } else { (0, last) };
        let (prev, next) = if self.reduce { (r + 1, r.wrapping_sub(1)) } else { (r.wrapping_sub(1), r + 1) };
        let combine = if self.reduce { Combine::Reduce } else { Combine::Copy };
        let seg = |s: u32| Slots::range(s, 1, self.segments);
        if r == head {
            Op::Put { to: next, slots: seg(i), tag: i }
        } else if r == tail {
            Op::Wait { from: prev, tag: i, into: seg(i), combine }
        } else if i.is_multiple_of(2) {
            Op::Wait { from: prev, tag: i / 2, into: seg(i / 2), combine }
        } else {
            Op::Put { to: next, slots: seg(i / 2), tag: i / 2 }
        }
    }
}

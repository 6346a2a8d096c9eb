//! Pairwise-exchange all-to-all: in step `s` (1 to `P - 1`) rank `r` sends its block for
//! `r + s` and receives from `r - s`, so every rank sends and receives one block per step and
//! no destination is hit by two senders in the same step. `P - 1` latencies, each block
//! crosses the network once. Any rank count. Buffer: blocks to send in slots `0..P`, blocks
//! received in `P..2P`.

use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct Pairwise {
    pub ranks: u32,
    /// Post every send before the first wait (all at once) instead of step by step.
    pub all_at_once: bool,
}

impl Program for Pairwise {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        2 * self.ranks
    }
    fn len(&self, _r: u32, _lane: u32) -> u32 {
        1 + 2 * (self.ranks - 1)
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let p = self.ranks;
        let recv = |src: u32| Slots::Range { base: p, window: p, start: src, count: 1 };
        if i == 0 {
            // Its own block stays home.
            return Op::Copy { from: Slots::range(r, 1, p), to: recv(r) };
        }
        let j = i - 1;
        let (put, s) = if self.all_at_once { (j < p - 1, j % (p - 1) + 1) } else { (j.is_multiple_of(2), j / 2 + 1) };
        if put {
            let to = (r + s) % p;
            Op::Put { to, slots: Slots::range(to, 1, p), tag: s }
        } else {
            let from = (r + p - s) % p;
            Op::Wait { from, tag: s, into: recv(from), combine: Combine::Copy }
        }
    }
}

//! Bruck's all-to-all: rotate the send buffer so position `p` holds the block for `r + p`;
//! in round `k` send every position with bit `k` set to rank `r + 2^k`, which stores them at
//! the same positions; after `ceil(log2 P)` rounds position `p` holds the block from `r - p`,
//! and a last local copy puts each block in its source's receive slot. `ceil(log2 P)`
//! latencies, but each block crosses up to `log2 P` links' worth of rounds: it wins for small
//! blocks. Any rank count. Buffer: send blocks `0..P`, the working and receive area `P..2P`.

use super::ceil_log2;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct BruckAllToAll {
    pub ranks: u32,
}

impl Program for BruckAllToAll {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        2 * self.ranks
    }
    fn len(&self, _r: u32, _lane: u32) -> u32 {
        2 * ceil_log2(self.ranks) + 2
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let p = self.ranks;
        let work = Slots::Range { base: p, window: p, start: 0, count: p };
        if i == 0 {
            return Op::Copy { from: Slots::range(r, p, p), to: work };
        }
        let j = i - 1;
        if j == 2 * ceil_log2(self.ranks) {
            // Position q holds the block from r - q: into that source's slot.
            return Op::Copy { from: work, to: Slots::Down { base: p, window: p, start: r, count: p } };
        }
        let k = j / 2;
        let d = 1u32 << k;
        let moved = Slots::Bit { base: p, window: p, bit: k as u8 };
        if j.is_multiple_of(2) {
            Op::Put { to: (r + d) % p, slots: moved, tag: k }
        } else {
            Op::Wait { from: (r + p - d % p) % p, tag: k, into: moved, combine: Combine::Copy }
        }
    }
}

//! In-network hardware: every rank starts the collective on one group of all ranks (group 0,
//! rooted at rank 0 for a broadcast) and waits for the network to say it is over. What the
//! hardware does (Tofu's barrier gates, their wiring and timing) is the network's; the program
//! only starts and waits. An allreduce contributes its buffer as 8-byte elements (the hardware's
//! limit applies: TofuD reduces up to eight integers per synchronisation).

use crate::op::{Op, Slots};
use crate::program::Program;
use fabricsim_nic::{HwGroup, HwKind, Rank};

pub struct Hardware {
    pub ranks: u32,
    pub kind: HwKind,
    /// Bytes each rank contributes (0 for a barrier).
    pub bytes: u64,
}

impl Program for Hardware {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        1
    }
    fn len(&self, _rank: u32, _lane: u32) -> u32 {
        2
    }
    fn op(&self, _rank: u32, _lane: u32, i: u32) -> Op {
        if i == 0 {
            Op::HwStart { kind: self.kind, group: 0, slots: Slots::Bytes(self.bytes), tag: 0 }
        } else {
            Op::HwWait { tag: 0 }
        }
    }
    fn hw_groups(&self) -> Vec<HwGroup> {
        vec![HwGroup { id: 0, members: (0..self.ranks).map(Rank).collect(), sums: self.kind != HwKind::Barrier, root: None }]
    }
}

/// An allgather by in-network broadcasts (all-to-all multicast): group `r` is every rank, rooted
/// at rank `r`; each rank starts its own broadcast (its block), then joins everyone else's, then
/// waits for them all.
pub struct HardwareAllgather {
    pub ranks: u32,
    /// Bytes each rank broadcasts (its block of the gathered buffer).
    pub bytes: u64,
}

impl HardwareAllgather {
    /// The group a rank starts at its `k`-th start (its own first).
    fn group(&self, rank: u32, k: u32) -> u32 {
        (rank + k) % self.ranks
    }
}

impl Program for HardwareAllgather {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn slots(&self) -> u32 {
        self.ranks
    }
    fn len(&self, _rank: u32, _lane: u32) -> u32 {
        2 * self.ranks
    }
    fn op(&self, rank: u32, _lane: u32, i: u32) -> Op {
        if i < self.ranks {
            let g = self.group(rank, i);
            Op::HwStart { kind: HwKind::Broadcast, group: g, slots: Slots::Bytes(self.bytes), tag: g }
        } else {
            Op::HwWait { tag: self.group(rank, i - self.ranks) }
        }
    }
    fn hw_groups(&self) -> Vec<HwGroup> {
        let all: Vec<Rank> = (0..self.ranks).map(Rank).collect();
        (0..self.ranks).map(|r| HwGroup { id: r, members: all.clone(), sums: false, root: Some(Rank(r)) }).collect()
    }
}

//! What a program is: per-rank operation lists, generated on demand.

use crate::op::Op;

/// A program: for each rank a list of operations, produced one at a time (`op(rank, i)`), so
/// that no program holds a table per rank pair; a 158,976-rank barrier is a few words of state.
pub trait Program {
    /// Ranks it runs on.
    fn ranks(&self) -> u32;
    /// Slots in each rank's buffer (the unit the operations move; see [`crate::Slots`]).
    fn slots(&self) -> u32;
    /// Length of `rank`'s list.
    fn len(&self, rank: u32) -> u32;
    /// Operation `i < len(rank)` of `rank`'s list.
    fn op(&self, rank: u32, i: u32) -> Op;
}

/// A program made of stages run one after the other on every rank (ring allreduce: a
/// reduce-scatter, then an allgather). A stage's tags are offset by `stage << 24`, so
/// messages of two stages never match each other. Stages must share the slot count.
pub struct Stages {
    stages: Vec<Box<dyn Program + Send + Sync>>,
}

/// Tags of one stage stay below this.
pub const STAGE_TAGS: u32 = 1 << 24;

impl Stages {
    pub fn new(stages: Vec<Box<dyn Program + Send + Sync>>) -> Self {
        assert!(!stages.is_empty() && stages.len() < 256, "one to 255 stages");
        Stages { stages }
    }
}

impl Program for Stages {
    fn ranks(&self) -> u32 {
        self.stages[0].ranks()
    }
    fn slots(&self) -> u32 {
        self.stages[0].slots()
    }
    fn len(&self, rank: u32) -> u32 {
        self.stages.iter().map(|s| s.len(rank)).sum()
    }
    fn op(&self, rank: u32, mut i: u32) -> Op {
        for (s, stage) in self.stages.iter().enumerate() {
            let n = stage.len(rank);
            if i < n {
                let shift = (s as u32) * STAGE_TAGS;
                return match stage.op(rank, i) {
                    Op::Put { to, slots, tag } => Op::Put { to, slots, tag: tag + shift },
                    Op::Get { from, slots, tag } => Op::Get { from, slots, tag: tag + shift },
                    Op::Wait { from, tag, into, combine } => Op::Wait { from, tag: tag + shift, into, combine },
                    other => other,
                };
            }
            i -= n;
        }
        panic!("operation {i} beyond rank {rank}'s list")
    }
}

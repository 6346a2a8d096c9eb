//! What a program is: per-rank lanes of operations, generated on demand.

use crate::op::Op;

/// A program: for each rank one or more lanes (sequences) of operations, produced one at a time
/// (`op(rank, lane, i)`), so that no program holds a table per rank pair; a 158,976-rank
/// barrier is a few words of state.
///
/// A rank runs its lanes independently, each in order (as an MPI rank progresses several
/// nonblocking requests at once): a lane blocked in a Wait does not hold up the others. The
/// lanes of a rank share its buffer; they should touch different slots.
pub trait Program {
    /// Ranks it runs on.
    fn ranks(&self) -> u32;
    /// Slots in each rank's buffer (the unit the operations move; see [`crate::Slots`]).
    fn slots(&self) -> u32;
    /// Lanes of operations per rank (default 1).
    fn lanes(&self) -> u32 {
        1
    }
    /// Length of `rank`'s list in `lane`.
    fn len(&self, rank: u32, lane: u32) -> u32;
    /// Operation `i < len(rank, lane)` of that list.
    fn op(&self, rank: u32, lane: u32, i: u32) -> Op;
    /// For gather-like layouts (allgather, reduce-scatter): the rank whose block slot `slot`
    /// belongs to. Default: blocks in rank order, `slots / ranks` slots each.
    fn owner(&self, slot: u32) -> u32 {
        slot / (self.slots() / self.ranks().max(1)).max(1)
    }
    /// Groups for in-network collectives, made when the program starts (default none).
    fn hw_groups(&self) -> Vec<fabricsim_nic::HwGroup> {
        Vec::new()
    }
    /// The line of the text operation `i` of `rank`'s `lane` was read from, for a program
    /// read from a file (default: none).
    fn line(&self, _rank: u32, _lane: u32, _i: u32) -> Option<u32> {
        None
    }
}

/// A program made of stages run one after the other (ring allreduce: a reduce-scatter, then
/// an allgather): on each rank, lane `l` of a stage starts when lane `l` of the stage before
/// has ended. A stage's tags are offset by `stage << 24`, so messages of two stages never match
/// each other. Stages must share the slot count.
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
    fn lanes(&self) -> u32 {
        self.stages.iter().map(|s| s.lanes()).max().unwrap_or(1)
    }
    fn owner(&self, slot: u32) -> u32 {
        self.stages[0].owner(slot)
    }
    fn hw_groups(&self) -> Vec<fabricsim_nic::HwGroup> {
        self.stages.iter().flat_map(|s| s.hw_groups()).collect()
    }
    fn len(&self, rank: u32, lane: u32) -> u32 {
        self.stages.iter().filter(|s| lane < s.lanes()).map(|s| s.len(rank, lane)).sum()
    }
    fn op(&self, rank: u32, lane: u32, mut i: u32) -> Op {
        for (s, stage) in self.stages.iter().enumerate() {
            let n = if lane < stage.lanes() { stage.len(rank, lane) } else { 0 };
            if i < n {
                let shift = (s as u32) * STAGE_TAGS;
                return match stage.op(rank, lane, i) {
                    Op::Put { to, slots, tag } => Op::Put { to, slots, tag: tag + shift },
                    Op::Get { from, slots, tag } => Op::Get { from, slots, tag: tag + shift },
                    Op::Wait { from, tag, into, combine } => Op::Wait { from, tag: tag + shift, into, combine },
                    Op::HwStart { kind, group, slots, tag } => Op::HwStart { kind, group, slots, tag: tag + shift },
                    Op::HwWait { tag } => Op::HwWait { tag: tag + shift },
                    Op::WaitBytes { from, tag, bytes } => Op::WaitBytes { from, tag: tag + shift, bytes },
                    other => other,
                };
            }
            i -= n;
        }
        panic!("operation {i} beyond rank {rank}'s lane {lane}")
    }
}

//! Where a replay reads a trace's operations from: a [`Trace`] in memory (the reference), or
//! a trace spilled to a temporary file ([`super::spill::Spilled`]) read back in small chunks.
//! A replay asks for one operation at a time, so it holds only the operations in flight.

use super::trace::{GoalOp, Kind, Trace, IREQ};
use std::fmt;
use std::sync::Arc;

/// What a replay needs of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rec {
    /// The operation.
    pub op: GoalOp,
    /// The line of the file it was read from.
    pub line: u32,
    /// How many dependencies it has (`requires` and `irequires`).
    pub deps: u32,
    /// Its successors: `count` entries from `start` in the trace's successor rows.
    pub succ_start: u32,
    /// How many operations depend on it.
    pub succ_count: u32,
}

/// Totals over a trace, counted while it is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Operations by kind.
    pub sends: u64,
    /// Receives.
    pub recvs: u64,
    /// Calcs.
    pub calcs: u64,
    /// Bytes over all sends.
    pub bytes: u64,
    /// Calc units over all calcs.
    pub calc_units: u64,
    /// Dependency edges.
    pub edges: u64,
}

impl Counts {
    /// Count one operation.
    pub(crate) fn add(&mut self, op: &GoalOp) {
        match op.kind {
            Kind::Send => {
                self.sends += 1;
                self.bytes += op.size;
            }
            Kind::Recv => self.recvs += 1,
            Kind::Calc => {
                self.calcs += 1;
                self.calc_units += op.size;
            }
        }
    }
}

/// A trace a replay can read: its shape in memory, its operations through an [`OpReader`].
pub trait Source: fmt::Debug + Send + Sync {
    /// Ranks (`num_ranks`).
    fn ranks(&self) -> u32;
    /// Rank `r`'s operations: a range of indices.
    fn range(&self, r: u32) -> std::ops::Range<u32>;
    /// Totals over the trace.
    fn counts(&self) -> Counts;
    /// Bytes of memory the trace holds (its operations in memory, or the index of a spill).
    fn heap_bytes(&self) -> usize;
    /// A reader of its operations (each replay has its own).
    fn reader(self: Arc<Self>) -> Box<dyn OpReader>;
}

/// Reads operations one at a time.
pub trait OpReader: Send {
    /// Operation `i`.
    fn rec(&mut self, i: u32) -> Rec;
    /// The successors of an operation (see [`Rec`]; each with [`IREQ`] for `irequires`),
    /// into `out` (cleared first).
    fn successors(&mut self, rec: &Rec, out: &mut Vec<u32>);
    /// Rank `r`'s operations without dependencies (its range is `range`), in file order, into
    /// `out` (cleared first).
    fn roots(&mut self, _r: u32, range: std::ops::Range<u32>, out: &mut Vec<u32>) {
        out.clear();
        out.extend(range.filter(|&i| self.rec(i).deps == 0));
    }
}

impl Source for Trace {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn range(&self, r: u32) -> std::ops::Range<u32> {
        Trace::range(self, r)
    }
    fn counts(&self) -> Counts {
        self.counts
    }
    fn heap_bytes(&self) -> usize {
        Trace::heap_bytes(self)
    }
    fn reader(self: Arc<Self>) -> Box<dyn OpReader> {
        let mut deps = vec![0u32; self.len()];
        for &s in &self.succ {
            deps[(s & !IREQ) as usize] += 1;
        }
        Box::new(MemoryReader { trace: self, deps })
    }
}

/// Reads a trace in memory (the dependency counts counted once).
struct MemoryReader {
    trace: Arc<Trace>,
    deps: Vec<u32>,
}

impl OpReader for MemoryReader {
    fn rec(&mut self, i: u32) -> Rec {
        let t = &self.trace;
        let (a, b) = (t.succ_start[i as usize], t.succ_start[i as usize + 1]);
        Rec { op: t.op(i), line: t.line(i), deps: self.deps[i as usize], succ_start: a, succ_count: b - a }
    }
    fn successors(&mut self, rec: &Rec, out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.trace.succ[rec.succ_start as usize..(rec.succ_start + rec.succ_count) as usize]);
    }
}

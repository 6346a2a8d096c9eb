//! A log of the operations each rank ran, with when they began and ended: what a trace viewer
//! draws as slices on a rank's track (`run --perfetto`). Kept only when asked for
//! ([`crate::ProgramRun::with_op_log`]); a run without it pays one untaken branch per operation.

use crate::op::Op;
use fabricsim_core::Time;

/// What an operation did, for a slice's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// A Put posted (the rank goes on at once: the slice has no length).
    Send,
    /// A Get posted (no length either).
    Get,
    /// A Wait or WaitBytes: from when the rank reached it until the message was there.
    Recv,
    /// A WaitAll, until the rank's Puts and Gets completed.
    WaitAll,
    /// A Compute, for its duration.
    Compute,
    /// An in-network collective started (no length).
    HwStart,
    /// Waiting for the end of an in-network collective.
    HwWait,
}

impl OpKind {
    /// Its name on a slice.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Send => "send",
            OpKind::Get => "get",
            OpKind::Recv => "recv",
            OpKind::WaitAll => "wait all",
            OpKind::Compute => "compute",
            OpKind::HwStart => "hw collective start",
            OpKind::HwWait => "hw collective wait",
        }
    }
}

/// One operation of one rank's lane, from `start` to `end` (equal for those that do not block).
#[derive(Debug, Clone, PartialEq)]
pub struct OpSlice {
    pub rank: u32,
    pub lane: u32,
    /// Index of the operation in its lane.
    pub index: u32,
    pub kind: OpKind,
    /// The rank sent to, read from or waited for (none for the others).
    pub peer: Option<u32>,
    /// Bytes sent, read or waited for (0 when the operation names none).
    pub bytes: u64,
    pub tag: Option<u32>,
    pub start: Time,
    pub end: Time,
}

impl OpSlice {
    /// The slice with its times counted from `origin`.
    pub fn since(&self, origin: Time) -> OpSlice {
        OpSlice { start: self.start.saturating_sub(origin), end: self.end.saturating_sub(origin), ..self.clone() }
    }
}

/// The log (see the module docs): per lane, where its current operation began; the slices of
/// the operations done so far, at most `cap` of them.
#[derive(Debug, Clone)]
pub struct OpLog {
    /// Per lane: (operation index, start ps) of the operation it is at.
    begun: Vec<(u32, u64)>,
    slices: Vec<OpSlice>,
    cap: usize,
    dropped: u64,
}

impl OpLog {
    /// A log of `lanes` lanes (ranks times lanes per rank) holding at most `cap` slices.
    pub fn new(lanes: usize, cap: usize) -> Self {
        OpLog { begun: vec![(u32::MAX, 0); lanes], slices: Vec::new(), cap, dropped: 0 }
    }

    /// Lane `at` is at operation `index` at `now`: it began now unless the lane was already
    /// there (a Wait looked at again).
    pub(crate) fn begin(&mut self, at: usize, index: u32, now: Time) {
        if self.begun[at].0 != index {
            self.begun[at] = (index, now.ps());
        }
    }

    /// Lane `at` (of `rank`, lane `lane`) is done with operation `op` (of `bytes`), which ended at
    /// `end`. Operations that show nothing (copies, rate and engine settings) leave no slice.
    pub(crate) fn done(&mut self, at: usize, rank: u32, lane: u32, op: &Op, bytes: u64, end: Time) {
        let (index, start) = self.begun[at];
        self.begun[at] = (u32::MAX, 0);
        let (kind, peer, tag) = match *op {
            Op::Put { to, tag, .. } => (OpKind::Send, Some(to), Some(tag)),
            Op::Get { from, tag, .. } => (OpKind::Get, Some(from), Some(tag)),
            Op::Wait { from, tag, .. } | Op::WaitBytes { from, tag, .. } => (OpKind::Recv, Some(from), Some(tag)),
            Op::WaitAll => (OpKind::WaitAll, None, None),
            Op::Compute(_) => (OpKind::Compute, None, None),
            Op::HwStart { tag, .. } => (OpKind::HwStart, None, Some(tag)),
            Op::HwWait { tag } => (OpKind::HwWait, None, Some(tag)),
            Op::Copy { .. } | Op::Rate(_) | Op::Engine(_) => return,
        };
        if self.slices.len() >= self.cap {
            self.dropped += 1;
            return;
        }
        self.slices.push(OpSlice { rank, lane, index, kind, peer, bytes, tag, start: Time(start), end });
    }

    /// The slices logged, in the order the operations ended.
    pub fn slices(&self) -> &[OpSlice] {
        &self.slices
    }

    /// Operations left out because the log was full.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

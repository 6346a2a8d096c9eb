//! A trace replayed without a network (every message arrives the instant it is sent): the
//! critical path of its dependencies and calcs, and the matching problems it has whatever the
//! network (a receive never matched, a send never received).

use super::replay::TraceRun;
use super::source::Source;
use super::trace::{CalcUnit, GoalError};
use crate::job_run::JobRun;
use fabricsim_core::{NodeId, Time};
use fabricsim_nic::{Api, Delivered, Message, Nic, Rank, Workload};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// What `fabricsim trace check` prints about a trace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TraceStats {
    /// Ranks (`num_ranks`).
    pub ranks: u32,
    /// Operations by kind.
    pub sends: u64,
    /// Receives.
    pub recvs: u64,
    /// Calcs.
    pub calcs: u64,
    /// Dependency edges (`requires` and `irequires`).
    pub dependencies: u64,
    /// Bytes sent, over all sends.
    pub bytes: u64,
    /// Calc units, over all calcs.
    pub calc_units: u64,
    /// The critical path without a network: messages arrive the instant they are sent, calcs
    /// last their units (a rank's calcs one at a time).
    pub critical_path_ps: u64,
    /// Bytes the trace takes in memory (for a trace streamed from a temporary file, only the
    /// index of its ranks).
    pub memory_bytes: u64,
    /// The most operations the check held at once (see [`TraceRun::held`]).
    pub peak_held_ops: u64,
}

/// A NIC that delivers every message the instant it is posted.
struct Instant {
    now: Time,
    ranks: u32,
    posted: VecDeque<(Time, Message)>,
    timers: BinaryHeap<Reverse<(Time, u64, u32)>>,
    seq: u64,
}

impl Nic for Instant {
    fn now(&self) -> Time {
        self.now
    }
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn node_of(&self, r: Rank) -> NodeId {
        NodeId(r.0)
    }
    fn post(&mut self, m: Message) {
        self.posted.push_back((self.now, m));
    }
    fn wake_at(&mut self, rank: Rank, at: Time) {
        self.seq += 1;
        self.timers.push(Reverse((at.max(self.now), self.seq, rank.0)));
    }
}

/// Check `trace` by replaying it without a network (calc units of `unit`): its statistics, or
/// the first matching problem, naming the line (a receive never matched, a send never received).
pub fn check(trace: Arc<dyn Source>, unit: CalcUnit) -> Result<TraceStats, GoalError> {
    let mut run = TraceRun::new(Arc::clone(&trace), unit);
    let mut nic = Instant { now: Time::ZERO, ranks: trace.ranks(), posted: VecDeque::new(), timers: BinaryHeap::new(), seq: 0 };
    run.start(&mut Api::new(&mut nic));
    loop {
        if let Some((created, m)) = nic.posted.pop_front() {
            let d = Delivered { src: m.src, dst: m.dst, bytes: m.bytes, op: m.op, tag: m.tag, created, delivered: nic.now };
            run.delivered(&d, &mut Api::new(&mut nic));
        } else if let Some(Reverse((t, _, r))) = nic.timers.pop() {
            nic.now = t;
            run.wake(Rank(r), &mut Api::new(&mut nic));
        } else {
            break;
        }
    }
    if !run.finished() {
        if let Some((r, (i, what))) = (0..trace.ranks()).find_map(|r| run.blocked_at(r).map(|b| (r, b))) {
            let stuck = run.unfinished();
            let more = if stuck > 1 { format!(" ({} more rank(s) stuck)", stuck - 1) } else { String::new() };
            return Err(GoalError::new(run.line(i), format!("deadlock even without a network: rank {r}: {what}{more}")));
        }
    }
    if let Some(&(r, j)) = run.unreceived(1).first() {
        let o = run.op(j);
        return Err(GoalError::new(run.line(j), format!("send {}b to {r} tag {} is never received (no recv of rank {r} matches it)", o.size, o.tag)));
    }
    let c = trace.counts();
    Ok(TraceStats {
        ranks: trace.ranks(),
        sends: c.sends,
        recvs: c.recvs,
        calcs: c.calcs,
        dependencies: c.edges,
        bytes: c.bytes,
        calc_units: c.calc_units,
        critical_path_ps: run.done_at().iter().max().map_or(0, |t| t.ps()),
        memory_bytes: trace.heap_bytes() as u64,
        peak_held_ops: run.peak_held() as u64,
    })
}

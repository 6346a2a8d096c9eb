//! What a closed job's run tells once the network is done with it, whatever runs it: a
//! program ([`crate::ProgramRun`]) or a GOAL trace ([`crate::goal::TraceRun`]).

use fabricsim_core::Time;
use fabricsim_nic::Workload;

/// A job's run over the NIC interface, read when the simulation is over.
pub trait JobRun: Workload {
    /// When each rank finished (zero for ranks not done).
    fn done_at(&self) -> &[Time];
    /// Messages posted and their bytes.
    fn traffic(&self) -> (u64, u64);
    /// An operation the network refused, if any (the run cannot go on).
    fn error(&self) -> Option<&str> {
        None
    }
    /// If some rank never finished: which, and the operation it is stuck at.
    fn stuck(&self) -> Option<String>;
    /// Per rank, the time it spent computing (`None`: not tracked).
    fn calc_time(&self) -> Option<&[Time]> {
        None
    }
    /// Each operation's start and end, when the run keeps a log (see [`crate::op_log`]).
    fn op_log(&self) -> Option<&crate::OpLog> {
        None
    }
}

impl JobRun for crate::ProgramRun {
    fn done_at(&self) -> &[Time] {
        crate::ProgramRun::done_at(self)
    }
    fn traffic(&self) -> (u64, u64) {
        crate::ProgramRun::traffic(self)
    }
    fn error(&self) -> Option<&str> {
        crate::ProgramRun::error(self)
    }
    fn stuck(&self) -> Option<String> {
        crate::ProgramRun::stuck(self)
    }
    fn op_log(&self) -> Option<&crate::OpLog> {
        crate::ProgramRun::op_log(self)
    }
}

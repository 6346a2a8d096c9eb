//! GOAL traces at the facade: what a replay reports beyond a program's point (time computing
//! and communicating, per rank; the critical path without a network and the network's share
//! of the time), and any collective or program written as GOAL (`--goal-out`).

use crate::workloads::job::{rename_field, Work};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_program::algorithms::build;
use fabricsim_program::goal;
pub use fabricsim_program::goal::{CalcUnit, TraceStats};
use serde::Serialize;

/// What a trace's replay adds to its point (under `collective.trace` in a run's JSON).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceReport {
    /// Operations in the trace.
    pub operations: u64,
    /// Per rank, when it finished (from the trace's start).
    pub rank_done_ns: Vec<f64>,
    /// Per rank, the time it spent in calcs.
    pub rank_calc_ns: Vec<f64>,
    /// Over all ranks: time in calcs, and time not computing before the rank finished (in
    /// communication: waiting for messages and their dependants).
    pub calc_ns: f64,
    pub communication_ns: f64,
    /// `calc_ns` over the two.
    pub calc_fraction: f64,
    /// The trace's critical path without a network (messages arrive the instant they are sent).
    pub critical_path_ns: f64,
    /// The share of the run's time the network added: `1 - critical_path / time`.
    pub network_share: f64,
}

impl TraceReport {
    /// The report of a replay whose ranks finished at `done` (from the trace's start) having
    /// computed for `calc`; the trace's own figures come with [`TraceReport::of_trace`].
    pub(crate) fn new(done: &[Time], calc: &[Time]) -> TraceReport {
        let ns = |t: &Time| t.as_ns_f64();
        let calc_ns: f64 = calc.iter().map(ns).sum();
        let communication_ns = (done.iter().map(ns).sum::<f64>() - calc_ns).max(0.0);
        let total = calc_ns + communication_ns;
        TraceReport {
            operations: 0,
            rank_done_ns: done.iter().map(ns).collect(),
            rank_calc_ns: calc.iter().map(ns).collect(),
            calc_ns,
            communication_ns,
            calc_fraction: if total > 0.0 { calc_ns / total } else { 0.0 },
            critical_path_ns: 0.0,
            network_share: 0.0,
        }
    }

    /// With the trace's operation count and critical path (from its check), and the share of
    /// the run's time the network added.
    pub(crate) fn of_trace(mut self, stats: &goal::TraceStats, time_ns: f64) -> TraceReport {
        self.operations = stats.sends + stats.recvs + stats.calcs;
        self.critical_path_ns = stats.critical_path_ps as f64 / 1e3;
        self.network_share = if time_ns > 0.0 { (1.0 - self.critical_path_ns / time_ns).max(0.0) } else { 0.0 };
        self
    }

    /// Its summary line.
    pub(crate) fn line(&self) -> String {
        format!(
            "replay       {} operations; calc {:.1}% of the ranks' time, communication {:.1}%; without the network {:.3} us (the network's share {:.1}%)\n",
            self.operations,
            self.calc_fraction * 100.0,
            if self.calc_ns + self.communication_ns > 0.0 { 100.0 - self.calc_fraction * 100.0 } else { 0.0 },
            self.critical_path_ns / 1e3,
            self.network_share * 100.0
        )
    }
}

/// `plan`'s job (a collective or a program) written as GOAL to `out`, calcs in units of `unit`.
pub fn write_goal(plan: &Plan, unit: CalcUnit, out: &mut dyn std::io::Write) -> Result<(), Error> {
    let job = plan.job.as_ref().ok_or_else(|| ConfigError::new("--goal-out", "writes a collective or a program"))?;
    let failed = |e: goal::ExportError| ConfigError::new("--goal-out", e.to_string());
    match &job.work {
        Work::Collective { op, algorithm, size } => {
            let layout = job.ranks.layout(plan).map_err(|e| rename_field(e, true))?;
            let p = build(*op, algorithm, &layout, *size).map_err(|m| ConfigError::new("--algorithm", m))?;
            goal::write(p.as_ref(), *size, unit, out).map_err(failed)?;
        }
        Work::Program { program, .. } => goal::write(program, 0, unit, out).map_err(failed)?,
        Work::Trace { .. } => return Err(ConfigError::new("--goal-out", "the workload is a trace already").into()),
    }
    Ok(())
}

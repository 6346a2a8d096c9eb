//! `trace`: a GOAL trace (LogGOPSim's format; see `fabricsim_program::goal`) replayed on the
//! network, its ranks placed as a `program`'s are.

use super::job::{self, Job, PlacementKeys, Work};
use super::{default_packet_size, WorkloadSpec};
use crate::{Error, Plan};
use fabricsim_core::{Bytes, ConfigError};
use fabricsim_program::goal::{self, CalcUnit};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The keys of a `trace` workload.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TraceSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// The GOAL file, relative to the scenario file's folder (to the current directory for a
    /// scenario not read from a file). Its `num_ranks` must be the job's rank count. Required.
    pub file: Option<PathBuf>,
    /// How long one unit of a `calc` lasts: a time (`"1ns"`, `"500ps"`) or a clock rate whose
    /// cycles they count (`"2.4GHz"`). Default `"1ns"`.
    pub calc_unit: String,
    /// Ranks per node: ranks fill the nodes in order, or `rank_map`'s nodes up to this many
    /// each. Default 1.
    pub ranks_per_node: u32,
    /// A file giving each rank's node, one line per rank: coordinates on a torus or mesh, a
    /// node id on a fat-tree (relative to the scenario file's folder). Unset: nodes in order.
    pub rank_map: Option<PathBuf>,
    /// One rank per node on the network's virtual torus. Default false.
    pub virtual_torus: bool,
    /// Open-loop traffic to run beside it (`[workload.background]`; see the `collective`
    /// workload). Unset: an idle network.
    pub background: Option<Box<WorkloadSpec>>,
}

impl Default for TraceSpec {
    fn default() -> Self {
        TraceSpec {
            packet_size: default_packet_size(),
            file: None,
            calc_unit: "1ns".into(),
            ranks_per_node: 1,
            rank_map: None,
            virtual_torus: false,
            background: None,
        }
    }
}

impl TraceSpec {
    /// The job, checked against `plan`: the trace read, checked without a network (its
    /// statistics kept), for the job's rank count.
    pub(crate) fn job(&self, plan: &Plan) -> Result<Job, Error> {
        let field = "workload.file";
        let work = self.work(plan)?;
        let Work::Trace { ref trace, ref file, .. } = work else { unreachable!("a trace's work") };
        let keys = PlacementKeys { ranks_per_node: self.ranks_per_node, rank_map: &self.rank_map, grid: &None, virtual_torus: self.virtual_torus };
        let ranks = job::ranks(plan, &keys)?;
        if trace.ranks() != ranks.count(plan) {
            let why = crate::collective::rank_mismatch(plan, &ranks, trace.ranks());
            return Err(ConfigError::new(field, format!("'{}' {why}", file.display())).into());
        }
        let background = job::background(plan, &self.background, &ranks)?;
        Ok(Job { ranks, work, background })
    }

    /// What it runs: the trace read and checked without a network (errors name `workload.file`
    /// and `workload.calc_unit`).
    pub(crate) fn work(&self, plan: &Plan) -> Result<Work, Error> {
        let field = "workload.file";
        let file = self.file.as_ref().ok_or_else(|| ConfigError::new(field, "is required by workload type 'trace'"))?;
        let unit = CalcUnit::parse(&self.calc_unit).map_err(|m| ConfigError::new("workload.calc_unit", m))?;
        let (trace, stats) = read(&plan.scenario.resolve_path(file), unit).map_err(|m| ConfigError::new(field, m))?;
        Ok(Work::Trace { trace, file: file.clone(), unit, stats })
    }
}

/// Read and check the GOAL file at `path`, streamed: line by line, each rank block checked as
/// it closes and spilled to a temporary file, which replays read back as they go (so memory
/// grows with the ranks and the operations in flight, not with the trace). Errors name the
/// file, the line and the value.
pub fn read(path: &std::path::Path, unit: CalcUnit) -> Result<(Arc<dyn goal::Source>, goal::TraceStats), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("'{}': {e}", path.display()))?;
    let trace = goal::spill(std::io::BufReader::with_capacity(1 << 16, f)).map_err(|e| format!("'{}' {e}", path.display()))?;
    let trace: Arc<dyn goal::Source> = Arc::new(trace);
    let stats = goal::check(Arc::clone(&trace), unit).map_err(|e| format!("'{}' {e}", path.display()))?;
    Ok((trace, stats))
}

//! `program`: a program written as text, one operation per line (the format of
//! `fabricsim collective --program`; see `fabricsim_program::file`).

use super::job::{self, Job, PlacementKeys, Work};
use super::{default_packet_size, WorkloadSpec};
use crate::{Error, Plan};
use fabricsim_core::{Bytes, ConfigError};
use fabricsim_program::{FileProgram, Program};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ProgramSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// The program file, relative to the scenario file's folder (to the current directory for
    /// a scenario not read from a file). Its first line gives the rank count, which must be the
    /// job's; its operations give their own sizes. Required.
    pub file: Option<PathBuf>,
    /// Ranks per node: ranks fill the nodes in order, or `rank_map`'s nodes up to this many
    /// each. Default 1.
    pub ranks_per_node: u32,
    /// A file giving each rank's node, one line per rank: coordinates on a torus or mesh, a
    /// node id on a fat-tree (relative to the scenario file's folder). Unset: nodes in order.
    pub rank_map: Option<PathBuf>,
    /// One rank per node on the network's virtual torus (axis i threaded with axis i + n/2).
    /// Default false.
    pub virtual_torus: bool,
    /// Open-loop traffic to run beside it, a workload of its own (`[workload.background]`; see
    /// the `collective` workload). Unset: an idle network.
    pub background: Option<Box<WorkloadSpec>>,
}

impl Default for ProgramSpec {
    fn default() -> Self {
        ProgramSpec { packet_size: default_packet_size(), file: None, ranks_per_node: 1, rank_map: None, virtual_torus: false, background: None }
    }
}

impl ProgramSpec {
    /// The job, checked against `plan`: the program read and parsed, for the job's rank count.
    pub(crate) fn job(&self, plan: &Plan) -> Result<Job, Error> {
        let field = "workload.file";
        let Work::Program { program, file } = self.work(plan)? else { unreachable!("a program's work") };
        let keys = PlacementKeys { ranks_per_node: self.ranks_per_node, rank_map: &self.rank_map, grid: &None, virtual_torus: self.virtual_torus };
        let ranks = job::ranks(plan, &keys)?;
        let n = ranks.count(plan);
        if program.ranks() != n {
            let why = crate::collective::rank_mismatch(plan, &ranks, program.ranks());
            return Err(ConfigError::new(field, format!("'{}' {why}", file.display())).into());
        }
        let background = job::background(plan, &self.background, &ranks)?;
        Ok(Job { ranks, work: Work::Program { program, file }, background })
    }

    /// What it runs: the program file read and parsed (errors name `workload.file`).
    pub(crate) fn work(&self, plan: &Plan) -> Result<Work, Error> {
        let field = "workload.file";
        let file = self.file.as_ref().ok_or_else(|| ConfigError::new(field, "is required by workload type 'program'"))?;
        let program =
            FileProgram::parse(&job::read_file(plan, field, file)?).map_err(|m| ConfigError::new(field, format!("'{}': {m}", file.display())))?;
        Ok(Work::Program { program, file: file.clone() })
    }
}

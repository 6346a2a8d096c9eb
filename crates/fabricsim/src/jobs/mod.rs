//! Several jobs on one network (`[[jobs]]`): each job a workload of its own (a GOAL trace, a
//! program, a collective or open-loop traffic) on its own nodes, from its own start time. The
//! jobs share the links, and that is where they slow each other down: the run simulates them
//! together (see [`fabricsim_program::shared`]) and then each alone on the same nodes, and
//! reports each job's time, its time alone and the slowdown.
//!
//! ```toml
//! [[jobs]]
//! name = "halo"
//! origin = [0, 0, 0]          # a region: its first node ...
//! shape = [4, 8, 8]           # ... and its length along each axis (ranks fill it axis 0 first)
//! [jobs.workload]
//! type = "trace"
//! file = "halo.goal"
//!
//! [[jobs]]
//! name = "a2a"
//! nodes = [256, 257, 258]     # or a list of node ids
//! start = "2us"
//! [jobs.workload]
//! type = "collective"
//! op = "all_to_all"
//! ```

mod nodes;
mod report;
mod run;

pub use nodes::region_nodes;
pub use report::{JobLinkBytes, JobReport};
pub use run::run_jobs;

use crate::workloads::job::Work;
use crate::workloads::WorkloadSpec;
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, NodeId, Time};
use fabricsim_program::algorithms::{build, Layout};
use fabricsim_workload::{Pattern, Shape};
use serde::{Deserialize, Serialize};

/// One `[[jobs]]` entry.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct JobSpec {
    /// A name for reports. Default `job0`, `job1`, ... in file order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// When the job starts. Default 0.
    pub start: Time,
    /// The job's nodes by id, its ranks filling them in this order. Give this, or `origin`
    /// and `shape`, or `allocate`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<u32>>,
    /// A region of a torus or mesh: its first node's coordinates ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Vec<u32>>,
    /// ... and its length along each axis (wrapping round a ring axis). Ranks fill the region
    /// axis 0 first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<u32>>,
    /// A region of this shape placed by the allocator (`fabricsim_mapping::allocate`): the
    /// first free place in node order, the shape's axes in the given order or, with `rotate`,
    /// in any order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocate: Option<Vec<u32>>,
    /// With `allocate`: may the shape's axes be permuted to fit. Default false.
    pub rotate: bool,
    /// What the job runs: `trace`, `program`, `collective` or an open-loop pattern
    /// (`uniform_random`, `nearest_neighbor`, `transpose`, `bit_complement`, `tornado`,
    /// `hot_region`, `sphere`), with its keys. Placement keys (`rank_map`, `virtual_torus`) and
    /// `background` are not a job's: its ranks fill its own nodes, `ranks_per_node` each.
    pub workload: WorkloadSpec,
}

/// A job checked against its plan: its nodes, its ranks and what it runs.
#[derive(Debug, Clone)]
pub struct JobPlan {
    pub name: String,
    pub start: Time,
    /// Its nodes, in rank order.
    pub nodes: Vec<NodeId>,
    /// Ranks per node.
    pub per_node: u32,
    /// The coordinates its ranks form (a region's shape; a list: one axis).
    pub shape: Shape,
    pub work: JobWork,
    /// The workload's `type`.
    pub kind: String,
}

/// What a job runs.
#[derive(Debug, Clone)]
pub enum JobWork {
    /// A trace, program or collective: done when its ranks are.
    Closed(Work),
    /// Open-loop traffic among its own nodes, from its start until the closed jobs are done.
    Open { pattern: Pattern, load: f64 },
}

impl JobPlan {
    /// Ranks in the job.
    pub fn ranks(&self) -> u32 {
        self.nodes.len() as u32 * self.per_node
    }

    /// The node of each of its ranks.
    pub fn rank_nodes(&self) -> Vec<NodeId> {
        self.nodes.iter().flat_map(|&n| std::iter::repeat_n(n, self.per_node as usize)).collect()
    }

    /// What the collective algorithms may know of it.
    pub(crate) fn layout(&self, plan: &Plan) -> Layout {
        Layout { ranks: self.ranks(), grid: None, link_bandwidth: Some(plan.params.link_bandwidth), engines: plan.params.engines }
    }
}

/// The field of job `i`'s key `key`.
pub(crate) fn field(i: usize, key: &str) -> String {
    format!("jobs[{i}].{key}")
}

/// An error of a job's workload keys (`workload.file`), named where they are
/// (`jobs[1].workload.file`).
fn in_job(i: usize, e: Error) -> Error {
    match e {
        Error::Config(mut c) if c.field.starts_with("workload") => {
            c.field = field(i, &c.field);
            Error::Config(c)
        }
        other => other,
    }
}

/// The scenario's jobs, checked: nodes inside the network and no node in two jobs, files read,
/// rank counts matching, one packet size.
pub(crate) fn resolve(plan: &Plan) -> Result<Vec<JobPlan>, Error> {
    let specs = &plan.scenario.jobs;
    let mut owner: Vec<Option<usize>> = vec![None; plan.topology.nodes() as usize];
    let mut taken = Vec::new();
    let mut out: Vec<JobPlan> = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let name = spec.name.clone().unwrap_or_else(|| format!("job{i}"));
        if let Some(j) = out.iter().position(|o| o.name == name) {
            return Err(ConfigError::new(field(i, "name"), format!("'{name}' is also the name of jobs[{j}]")).into());
        }
        let (nodes, shape) = nodes::of(plan, i, spec, &taken)?;
        for &n in &nodes {
            if let Some(j) = owner[n.index()] {
                let at = nodes::describe(&plan.topology, n);
                return Err(ConfigError::new(field(i, "nodes"), format!("node {at} is also a node of job '{}' (jobs[{j}])", out[j].name)).into());
            }
            owner[n.index()] = Some(i);
        }
        taken.extend(nodes.iter().copied());
        let (mut work, per_node) = work(plan, i, &spec.workload)?;
        if let JobWork::Open { pattern: Pattern::HotRegion { nodes: hot @ 0, .. }, .. } = &mut work {
            // The default: an eighth of the job's nodes.
            *hot = (nodes.len() as u32 / 8).max(1);
        }
        let (mine, theirs) = (plan.scenario.workload.keys().packet_size(), spec.workload.keys().packet_size());
        if mine != theirs {
            return Err(ConfigError::new(
                field(i, "workload.packet_size"),
                format!("{theirs} differs from workload.packet_size ({mine}): one packet format serves every job"),
            )
            .into());
        }
        let job = JobPlan { name, start: spec.start, nodes, per_node, shape, work, kind: spec.workload.type_name() };
        check_ranks(plan, i, &job)?;
        out.push(job);
    }
    if !out.iter().any(|j| matches!(j.work, JobWork::Closed(_))) {
        return Err(ConfigError::new("jobs", "no job is a trace, program or collective: open-loop jobs run until those are done").into());
    }
    Ok(out)
}

/// What job `i`'s workload runs, and its ranks per node.
fn work(plan: &Plan, i: usize, w: &WorkloadSpec) -> Result<(JobWork, u32), Error> {
    use WorkloadSpec::*;
    let unset = |key: &str, set: bool| -> Result<(), Error> {
        if set {
            return Err(ConfigError::new(field(i, &format!("workload.{key}")), "is not a job's key: its ranks fill its own nodes in order").into());
        }
        Ok(())
    };
    let open = |pattern: Pattern, load: f64| -> Result<(JobWork, u32), Error> {
        if !(load > 0.0 && load <= 1.0) {
            return Err(ConfigError::new(field(i, "workload.load"), format!("{load} must be above 0 and at most 1")).into());
        }
        Ok((JobWork::Open { pattern, load }, 1))
    };
    match w {
        Trace(s) => {
            unset("rank_map", s.rank_map.is_some())?;
            unset("virtual_torus", s.virtual_torus)?;
            unset("background", s.background.is_some())?;
            Ok((JobWork::Closed(s.work(plan).map_err(|e| in_job(i, e))?), s.ranks_per_node))
        }
        Program(s) => {
            unset("rank_map", s.rank_map.is_some())?;
            unset("virtual_torus", s.virtual_torus)?;
            unset("background", s.background.is_some())?;
            Ok((JobWork::Closed(s.work(plan).map_err(|e| in_job(i, e))?), s.ranks_per_node))
        }
        Collective(s) => {
            unset("rank_map", s.rank_map.is_some())?;
            unset("virtual_torus", s.virtual_torus)?;
            unset("grid", s.grid.is_some())?;
            unset("background", s.background.is_some())?;
            Ok((JobWork::Closed(s.work().map_err(|e| in_job(i, e))?), s.ranks_per_node))
        }
        UniformRandom(s) => open(Pattern::UniformRandom, s.load),
        NearestNeighbor(s) => open(Pattern::NearestNeighbor, s.load),
        Transpose(s) => open(Pattern::Transpose, s.load),
        BitComplement(s) => open(Pattern::BitComplement, s.load),
        Tornado(s) => open(Pattern::Tornado, s.load),
        HotRegion(s) => open(Pattern::HotRegion { fraction: s.hot_fraction, nodes: s.hot_nodes.unwrap_or(0) }, s.load),
        Sphere(s) => open(Pattern::Sphere { radius: s.radius }, s.load),
        other => Err(ConfigError::new(
            field(i, "workload.type"),
            format!("'{}' is a benchmark of the whole network: a job runs a trace, program, collective or open-loop pattern", other.type_name()),
        )
        .into()),
    }
}

/// The job's rank count against what it runs; its pattern against its shape.
fn check_ranks(plan: &Plan, i: usize, job: &JobPlan) -> Result<(), Error> {
    if job.per_node == 0 {
        return Err(ConfigError::new(field(i, "workload.ranks_per_node"), "0 is not a rank count").into());
    }
    let n = job.ranks();
    let wanted = match &job.work {
        JobWork::Closed(Work::Program { program, .. }) => fabricsim_program::Program::ranks(program),
        JobWork::Closed(Work::Trace { trace, .. }) => trace.ranks(),
        JobWork::Closed(Work::Collective { op, algorithm, size }) => {
            build(*op, algorithm, &job.layout(plan), *size)
                .map_err(|m| ConfigError::new(field(i, "workload.algorithm"), format!("'{algorithm}' on the job's {n} ranks: {m}")))?;
            n
        }
        JobWork::Open { pattern, .. } => {
            pattern.check(&job.shape).map_err(|e| ConfigError::new(field(i, "workload.type"), format!("on the job's nodes: {}", e.message)))?;
            n
        }
    };
    if wanted != n {
        let file = match &job.work {
            JobWork::Closed(Work::Program { file, .. } | Work::Trace { file, .. }) => file.display().to_string(),
            _ => String::new(),
        };
        return Err(ConfigError::new(
            field(i, "workload.file"),
            format!("'{file}' is for {wanted} ranks, the job has {n} ({} nodes, {} rank(s) per node)", job.nodes.len(), job.per_node),
        )
        .into());
    }
    Ok(())
}

//! Running a program, a collective or a scenario's job on a plan's network, alone or beside
//! the scenario's open-loop traffic.

use super::point::point;
use super::CollectivePoint;
use crate::placement::Ranks;
use crate::workloads::job::{rename_field, Work};
use crate::workloads::{BuildContext, WorkloadSpec};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_network::{Outcome, RunLimits, Simulation, Workload};
use fabricsim_program::algorithms::{build, Boxed};
use fabricsim_program::goal::TraceRun;
use fabricsim_program::{Collective, JobRun, ProgramRun};
use fabricsim_stats::{Observer, PortCounters};
use fabricsim_topology::PortGraph;

/// Run `algorithm` for `c` with `size` bytes per rank on `plan`'s network, ranks placed by
/// `ranks`.
pub fn run(
    plan: &Plan,
    ranks: &Ranks,
    c: Collective,
    algorithm: &str,
    size: u64,
    ports: bool,
    progress: impl FnMut(Time),
) -> Result<CollectivePoint, Error> {
    run_in(plan, ranks, c, algorithm, size, ports, false, progress)
}

/// [`run`], optionally beside the scenario's own traffic (see [`run_program_in`]).
#[allow(clippy::too_many_arguments)]
pub fn run_in(
    plan: &Plan,
    ranks: &Ranks,
    c: Collective,
    algorithm: &str,
    size: u64,
    ports: bool,
    background: bool,
    progress: impl FnMut(Time),
) -> Result<CollectivePoint, Error> {
    let program = build(c, algorithm, &ranks.layout(plan)?, size).map_err(|m| ConfigError::new("--algorithm", m))?;
    let mut p = run_program_in(plan, ranks, program, size, ports, background, progress)?;
    name_point(&mut p, c, algorithm);
    Ok(p)
}

/// Run any program with `size` bytes per rank on `plan`'s network, ranks placed by `ranks` (a
/// program for another rank count is refused). A rank left waiting is a deadlock, reported
/// with the rank and the operation it waits at. `ports`: report per-port counters.
pub fn run_program(plan: &Plan, ranks: &Ranks, program: Boxed, size: u64, ports: bool, progress: impl FnMut(Time)) -> Result<CollectivePoint, Error> {
    run_program_in(plan, ranks, program, size, ports, false, progress)
}

/// [`run_program`], optionally (`background`) beside the scenario's own open-loop traffic,
/// which starts first and loads the network for the scenario's warm-up before the program
/// starts (see [`crate::background`]); times are then counted from the program's start.
pub fn run_program_in(
    plan: &Plan,
    ranks: &Ranks,
    program: Boxed,
    size: u64,
    ports: bool,
    background: bool,
    progress: impl FnMut(Time),
) -> Result<CollectivePoint, Error> {
    let beside = background.then_some(Beside { spec: &plan.scenario.workload, delay: plan.limits.warmup, field: "--background" });
    Ok(execute(plan, ranks, ProgramRun::new(program, size), size, ports, beside, (), progress, |_| ())?.0)
}

/// Run `plan`'s job (its `collective` or `program` workload, see
/// [`crate::workloads::job`]): the run behind both `fabricsim run` of such a scenario and each
/// point of `fabricsim collective`. `ports`: report per-port counters in the point.
pub fn run_job(plan: &Plan, ports: bool, progress: impl FnMut(Time)) -> Result<CollectivePoint, Error> {
    Ok(run_job_with(plan, ports, (), progress, |_| ())?.0)
}

/// [`run_job`] watched by `obs`; `read` sees the finished run (to build a report from it).
pub(crate) fn run_job_with<O: Observer, T>(
    plan: &Plan,
    ports: bool,
    obs: O,
    progress: impl FnMut(Time),
    read: impl FnOnce(&Finished<O>) -> T,
) -> Result<(CollectivePoint, T), Error> {
    let job = plan.job.as_ref().ok_or_else(|| {
        ConfigError::new("workload.type", format!("'{}' is not a job (a collective or a program)", plan.scenario.workload.type_name()))
    })?;
    let beside = job.background.as_ref().map(|b| Beside { spec: &b.spec, delay: b.delay, field: "workload.background" });
    if let Work::Trace { trace, file, unit, stats } = &job.work {
        let run = TraceRun::new(std::sync::Arc::clone(trace), *unit);
        let value = file.display().to_string();
        let (mut p, t) = execute(plan, &job.ranks, run, 0, ports, beside, obs, progress, read).map_err(|e| in_job(e, "workload.file", &value))?;
        (p.op, p.algorithm) = ("trace", value);
        p.trace = p.trace.take().map(|r| r.of_trace(stats, p.time_ns));
        return Ok((p, t));
    }
    let (program, size, value, field): (Boxed, u64, String, &str) = match &job.work {
        Work::Collective { op, algorithm, size } => {
            let layout = job.ranks.layout(plan).map_err(|e| rename_field(e, false))?;
            let p = build(*op, algorithm, &layout, *size).map_err(|m| ConfigError::new("workload.algorithm", format!("'{algorithm}': {m}")))?;
            (p, *size, algorithm.clone(), "workload.algorithm")
        }
        Work::Program { program, file } => (Box::new(program.clone()), 0, file.display().to_string(), "workload.file"),
        Work::Trace { .. } => unreachable!("a trace ran above"),
    };
    let run = ProgramRun::new(program, size).with_op_log(plan.op_log, crate::plan::OP_LOG_CAP);
    let (mut p, t) = execute(plan, &job.ranks, run, size, ports, beside, obs, progress, read).map_err(|e| in_job(e, field, &value))?;
    match &job.work {
        Work::Collective { op, algorithm, .. } => name_point(&mut p, *op, algorithm),
        _ => p.algorithm = value,
    }
    Ok((p, t))
}

/// An error of a job's run: what the program met on its way (hardware it asked for and the
/// network lacks) named by the key that chose it (`field`, `value`); others by their keys.
fn in_job(e: Error, field: &str, value: &str) -> Error {
    match e {
        Error::Config(c) if c.field == "program" => ConfigError::new(field, format!("'{value}': {}", c.message)).into(),
        other => rename_field(other, false),
    }
}

/// A point's operation and algorithm, and its bus bandwidth (which the operation sets).
fn name_point(p: &mut CollectivePoint, c: Collective, algorithm: &str) {
    p.op = c.name();
    p.algorithm = algorithm.to_string();
    p.busbw_gb_per_s = c.bus_factor(p.ranks).map(|f| f * p.algbw_gb_per_s);
}

/// Open-loop traffic to run a program beside: its workload, when the program starts, and the
/// option or key that asked for it (named in errors).
struct Beside<'a> {
    spec: &'a WorkloadSpec,
    delay: Time,
    field: &'a str,
}

/// A finished run, as a caller of [`run_job_with`] may read it.
pub(crate) struct Finished<'a, O> {
    pub point: &'a CollectivePoint,
    pub graph: &'a PortGraph,
    pub observer: &'a O,
    pub outcome: &'a Outcome,
    /// Every port's counters over the measurement window (taken when asked: a copy).
    pub counters: &'a dyn Fn() -> Vec<PortCounters>,
}

/// Why a program for `wanted` ranks cannot run as the job's `ranks` on `plan`'s network, and
/// how it could.
pub(crate) fn rank_mismatch(plan: &Plan, ranks: &Ranks, wanted: u32) -> String {
    let (n, nodes) = (ranks.count(plan), plan.topology.nodes());
    let placed = match &ranks.map {
        Some(_) => "placed by its rank map".to_string(),
        None => format!("{} per node on {nodes} nodes", ranks.per_node),
    };
    format!(
        "is for {wanted} ranks, the job has {n} ({placed}): run it on a network of {wanted} nodes (topology.shape = [{wanted}], say), or place its ranks with ranks per node or a rank map"
    )
}

/// Run `program` with `size` bytes per rank on `plan`'s network, ranks placed by `ranks`,
/// beside `beside`'s traffic if any, watched by `obs`; `read` sees the finished run.
#[allow(clippy::too_many_arguments)]
fn execute<R: JobRun + 'static, O: Observer, T>(
    plan: &Plan,
    ranks: &Ranks,
    run: R,
    size: u64,
    ports: bool,
    beside: Option<Beside>,
    obs: O,
    progress: impl FnMut(Time),
    read: impl FnOnce(&Finished<O>) -> T,
) -> Result<(CollectivePoint, T), Error> {
    let started = std::time::Instant::now();
    ranks.check(plan)?;
    let n = ranks.count(plan);
    let wanted = run.done_at().len() as u32;
    if wanted != n {
        return Err(ConfigError::new("program", rank_mismatch(plan, ranks, wanted)).into());
    }
    let graph = plan.build_graph();
    let Some(beside) = beside else {
        let (sim, outcome) = simulate(plan, ranks, graph, run, Time::ZERO, obs, progress)?;
        let p = point(plan, &sim, sim.workload(), &outcome, (n, size, ports, started, Time::ZERO))?;
        let t = finish(&sim, &p, &outcome, read);
        return Ok((p, t));
    };
    if ranks.map.is_some() || ranks.per_node != 1 {
        return Err(ConfigError::new(beside.field, "background traffic runs with one rank per node in node order").into());
    }
    let back = beside.spec.build(&BuildContext { plan, graph: Some(&graph) })?;
    if back.is_closed() {
        let ty = beside.spec.type_name();
        return Err(
            ConfigError::new(beside.field, format!("the scenario's workload ('{ty}') is a benchmark, not open-loop traffic to run beside")).into()
        );
    }
    let both = crate::background::WithBackground::new(run, back, beside.delay);
    let (sim, outcome) = simulate(plan, ranks, graph, both, beside.delay, obs, progress)?;
    let p = point(plan, &sim, &sim.workload().front, &outcome, (n, size, ports, started, beside.delay))?;
    let t = finish(&sim, &p, &outcome, read);
    Ok((p, t))
}

/// What `read` gives for the finished `sim`.
fn finish<W: Workload, O: Observer, T>(sim: &Simulation<W, O>, p: &CollectivePoint, outcome: &Outcome, read: impl FnOnce(&Finished<O>) -> T) -> T {
    let counters = || sim.port_counters();
    read(&Finished { point: p, graph: sim.graph(), observer: sim.observer(), outcome, counters: &counters })
}

/// Run `w` on `plan`'s network over `graph` (rank map from `ranks`, watched by `obs`) until its
/// program is done; its measurement window (port counters) opens at `from`, when the program
/// starts.
fn simulate<W: Workload, O: Observer>(
    plan: &Plan,
    ranks: &Ranks,
    graph: PortGraph,
    w: W,
    from: Time,
    obs: O,
    progress: impl FnMut(Time),
) -> Result<(Simulation<W, O>, Outcome), Error> {
    let mut network = plan.network(graph).observer(obs);
    if let Some(map) = ranks.nodes(plan) {
        network = network.rank_map(map);
    }
    let mut sim = network.build(w)?;
    let s = &plan.scenario.sim;
    let limits = RunLimits { warmup: from, measure: s.max_time, drain: Time::ZERO };
    limits.check("sim.max_time")?;
    let outcome = sim.run(limits, progress)?;
    Ok((sim, outcome))
}

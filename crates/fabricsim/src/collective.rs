//! Collectives on a scenario's network: run an algorithm at a size, compare algorithms over
//! sizes (`fabricsim collective`), run a scenario's `collective` or `program` workload
//! ([`run_job`]).

pub use crate::applicable::{Selection, Skip};
use crate::placement::Ranks;
use crate::report::port_reports;
use crate::workloads::job::{rename_field, Work};
use crate::workloads::{BuildContext, CollectiveSpec, WorkloadSpec};
use crate::{Error, Plan, Scenario};
use fabricsim_core::{Bytes, ConfigError, Time};
use fabricsim_network::{Outcome, RunLimits, Simulation, Workload};
use fabricsim_program::algorithms::{build, Boxed};
use fabricsim_program::goal::TraceRun;
use fabricsim_program::{Collective, JobRun, ProgramRun};
use fabricsim_stats::{Observer, PortCounters, PortReport};
use fabricsim_topology::PortGraph;
use serde::Serialize;

/// One collective run: an algorithm at one size.
#[derive(Debug, Clone, Serialize)]
pub struct CollectivePoint {
    pub op: &'static str,
    pub algorithm: String,
    /// One rank's buffer (see [`Collective`]).
    pub bytes: u64,
    pub ranks: u32,
    /// From the start until the last rank finished.
    pub time_ns: f64,
    /// When ranks finished: earliest, median, latest.
    pub rank_done_min_ns: f64,
    pub rank_done_median_ns: f64,
    pub rank_done_max_ns: f64,
    /// When each rank finished, in rank order (left out of the JSON, which gives the summary
    /// above; the Python package's `per_rank` frame shows it).
    #[serde(skip)]
    pub rank_done_ns: Vec<f64>,
    /// Each rank's program operations, times from the program's start: kept when the plan asks
    /// ([`Plan::op_log`], for `run --perfetto`), left out of the JSON.
    #[serde(skip)]
    pub ops: Vec<fabricsim_program::OpSlice>,
    /// `bytes / time`.
    pub algbw_gb_per_s: f64,
    /// Algorithm bandwidth times the operation's bus factor (`None` for a barrier).
    pub busbw_gb_per_s: Option<f64>,
    pub messages: u64,
    pub message_bytes: u64,
    pub events: u64,
    /// Seconds the run took on this machine (left out of a run report, which has its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// Per-port counters over the whole run, when asked for (`fabricsim collective --ports`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortReport>,
    /// The barrier gates the run's group 0 used (Tofu barrier hardware).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gates: Option<GateUse>,
    /// The class route the run's group 0 used (Blue Gene/Q collective hardware).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_route: Option<ClassRouteUse>,
    /// The switch-barrier tree of the run's group 0 and what its packets did (Dawning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch_barrier: Option<SwitchBarrierUse>,
    /// The point's resolved scenario and this build (points of `fabricsim collective`; a run
    /// report has its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::report::Provenance>,
    /// A GOAL trace's replay: time computing and communicating, the critical path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceReport>,
}

/// A group's Dawning switch-barrier tree, and the barrier packets of the run (see
/// `fabricsim_network::switch_barrier`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SwitchBarrierUse {
    /// Switches in the tree, and the root's level (1: the members' leaf switch).
    pub switches: u32,
    pub root_level: u32,
    /// Barrier packets sent, lost, arrives resent, urges.
    pub packets: u64,
    pub lost: u64,
    pub resent: u64,
    pub urges: u64,
}

/// A group's Blue Gene/Q class route (see `fabricsim_network::class_routes`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassRouteUse {
    pub nodes: u32,
    /// The root's node.
    pub root: u32,
    /// Links from the deepest node to the root.
    pub depth: u32,
}

/// What a group's Tofu barrier wiring takes (see `fabricsim_network::gates`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GateUse {
    pub algorithm: fabricsim_network::gates::GateAlgorithm,
    /// TNIs with the group's gates, over all nodes.
    pub tnis: u32,
    pub max_channels_per_tni: u32,
    pub max_gates_per_tni: u32,
    /// Gate-to-gate signals on the longest path from a start to an end.
    pub stages: u32,
    /// Whether every contribution reaches every member exactly once.
    pub exact: bool,
}

impl GateUse {
    pub fn of(w: &fabricsim_network::gates::Wiring) -> Self {
        GateUse {
            algorithm: w.algorithm,
            tnis: w.tnis.len() as u32,
            max_channels_per_tni: w.channels_per_tni().into_iter().max().unwrap_or(0),
            max_gates_per_tni: w.max_gates_per_tni(),
            stages: w.stages(),
            exact: w.exact,
        }
    }
}

/// The collective named by `--op`.
pub fn parse_op(s: &str) -> Result<Collective, Error> {
    Collective::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
        ConfigError::new("--op", format!("'{s}' is not a collective (known: {})", all.join(", "))).into()
    })
}

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

/// The point of a finished run of program `w` in `sim`; `(ranks, size, ports, wall-clock start,
/// the program's start)`.
fn point<W: Workload, O: Observer, R: JobRun>(
    plan: &Plan,
    sim: &Simulation<W, O>,
    w: &R,
    outcome: &Outcome,
    (n, size, ports, started, from): (u32, u64, bool, std::time::Instant, Time),
) -> Result<CollectivePoint, Error> {
    let s = &plan.scenario.sim;
    if let Some(e) = w.error() {
        return Err(ConfigError::new("program", e).into());
    }
    if !w.finished() {
        // Beside background traffic (`from` > 0) a stuck program runs on to `sim.max_time`.
        if let (true, Some(why)) = (outcome.sim_time < s.max_time || from > Time::ZERO, w.stuck()) {
            return Err(Error::Failed(why));
        }
        return Err(ConfigError::new("sim.max_time", format!("{} was reached before the program finished", s.max_time)).into());
    }
    let mut done: Vec<Time> = w.done_at().iter().map(|&t| Time(t.ps().saturating_sub(from.ps()))).collect();
    let rank_done_ns = done.iter().map(|t| t.as_ns_f64()).collect();
    done.sort_unstable();
    let time = done.last().copied().unwrap_or(Time::ZERO);
    let ns = |t: Time| t.as_ns_f64();
    let algbw = if time > Time::ZERO { size as f64 / time.as_secs_f64() / 1e9 } else { 0.0 };
    let (messages, message_bytes) = w.traffic();
    Ok(CollectivePoint {
        op: "program",
        algorithm: String::new(),
        bytes: size,
        ranks: n,
        time_ns: ns(time),
        rank_done_min_ns: done.first().map_or(0.0, |&t| ns(t)),
        rank_done_median_ns: done.get(done.len() / 2).map_or(0.0, |&t| ns(t)),
        rank_done_max_ns: ns(time),
        rank_done_ns,
        ops: w.op_log().map_or_else(Vec::new, |l| l.slices().iter().map(|o| o.since(from)).collect()),
        algbw_gb_per_s: algbw,
        busbw_gb_per_s: None,
        messages,
        message_bytes,
        events: outcome.events,
        wall_s: Some(started.elapsed().as_secs_f64()),
        ports: if ports { port_reports(&plan.topology, sim.graph(), &sim.port_counters(), time.ps()) } else { Vec::new() },
        gates: sim.gate_wiring(0).map(GateUse::of),
        class_route: sim.class_tree(0).map(|t| ClassRouteUse { nodes: t.nodes.len() as u32, root: t.nodes[t.root], depth: t.depth() }),
        switch_barrier: sim.barrier_tree(0).zip(sim.barrier_counts()).map(|(t, c)| SwitchBarrierUse {
            switches: t.switches() as u32,
            root_level: t.root_level as u32,
            packets: c.packets,
            lost: c.lost,
            resent: c.resent,
            urges: c.urges,
        }),
        provenance: None,
        // A trace's replay: its ranks' time computing and communicating.
        trace: w.calc_time().map(|calc| {
            let done: Vec<Time> = w.done_at().iter().map(|&t| t.saturating_sub(from)).collect();
            crate::trace::TraceReport::new(&done, calc)
        }),
    })
}

/// What to compare: a collective workload (its operation, ranks and background) at several
/// points (size and algorithm, see [`select`]), and whether to keep per-port counters.
#[derive(Debug, Clone)]
pub struct Comparison<'a> {
    /// The workload of every point, but for its `algorithm` and `size`.
    pub workload: CollectiveSpec,
    /// (size, algorithm) in run order.
    pub points: &'a [(Bytes, String)],
    pub ports: bool,
    /// Where each point writes its series (`--series DIR`), if anywhere.
    pub series: Option<&'a crate::series_points::PointSeries>,
}

/// The points `algorithms` (`--algorithm`: names, or empty or `all` for every one that
/// applies) name for `workload`'s operation at `sizes` on `base`'s network, sizes outermost,
/// and the algorithms left out with why: decided before anything runs (see
/// [`crate::applicable`]). Errors name the command's options.
pub fn select(base: &Scenario, workload: &CollectiveSpec, algorithms: &[String], sizes: &[Bytes]) -> Result<Selection, Error> {
    let op = workload.op.ok_or_else(|| ConfigError::new("--op", "is required"))?;
    let size = *sizes.first().ok_or_else(|| ConfigError::new("--sizes", "names no size"))?;
    if let Some(z) = sizes.iter().find(|s| s.get() == 0) {
        return Err(ConfigError::new("--sizes", format!("{z}: a collective moves at least one byte per rank")).into());
    }
    let plan = crate::applicable::probe_plan(base, workload, size).map_err(|e| rename_field(e, true))?;
    crate::applicable::select(&plan, op, algorithms, sizes, "--algorithm")
}

/// Every point of `what`, in order: each a scenario of its own (`base` with the point's
/// workload, see [`point_scenario`]) run by [`run_job`], as `fabricsim run` runs it. Every
/// point's scenario is checked before the first runs. `progress` hears the simulated time now
/// and then during a run, `done` is called after each run.
pub fn compare(
    base: &Scenario,
    what: &Comparison,
    mut progress: impl FnMut(Time),
    mut done: impl FnMut(&CollectivePoint),
) -> Result<Vec<CollectivePoint>, Error> {
    if let Some((z, _)) = what.points.iter().find(|(s, _)| s.get() == 0) {
        return Err(ConfigError::new("workload.size", format!("{}B: a collective moves at least one byte per rank", z.get())).into());
    }
    let scenario = |(size, a): &(Bytes, String)| {
        let workload = CollectiveSpec { algorithm: Some(a.clone()), size: *size, ..what.workload.clone() };
        point_scenario(base, WorkloadSpec::Collective(workload))
    };
    if what.ports && what.series.is_some() {
        return Err(
            ConfigError::new("--ports", "not with --series: a point's port counters are not kept beside its series yet; run them apart").into()
        );
    }
    // Checked first, so a point that cannot run stops the comparison before any has run.
    for p in what.points {
        Plan::new(&scenario(p))?;
    }
    let mut out = Vec::new();
    for p in what.points {
        let plan = Plan::new(&scenario(p))?;
        let mut p = match what.series {
            None => run_job(&plan, what.ports, &mut progress)?,
            // The point as `fabricsim run` gives it for the same scenario, with its series.
            Some(series) => {
                let op = what.workload.op.map_or("program", |o| o.name());
                let report = series.run(&plan, &crate::series_points::collective_stem(op, &p.1, p.0.get()), &mut progress)?;
                let point = report.collective.ok_or_else(|| Error::Io(format!("{} {}: the run reported no collective", op, p.1)))?;
                CollectivePoint { wall_s: Some(report.wall_seconds), ..point }
            }
        };
        p.provenance = Some(crate::report::Provenance::of(&plan.scenario));
        done(&p);
        out.push(p);
    }
    Ok(out)
}

/// The scenario of one point of `fabricsim collective`: `base` running `workload` (a
/// `collective` or `program`) in its place, with `base`'s packet size. The command's file
/// options are paths from the current directory, so the point's paths are read from there.
pub fn point_scenario(base: &Scenario, mut workload: WorkloadSpec) -> Scenario {
    let mut s = base.clone();
    *workload.keys_mut().packet_size_mut() = base.workload.keys().packet_size();
    s.workload = workload;
    s.set_base_dir(std::path::PathBuf::new());
    s
}

/// The points as CSV.
pub fn to_csv(points: &[CollectivePoint]) -> String {
    let mut s = String::from("op,algorithm,bytes,ranks,time_ns,rank_done_min_ns,rank_done_median_ns,rank_done_max_ns,algbw_gb_per_s,busbw_gb_per_s,messages,message_bytes\n");
    for p in points {
        let bus = p.busbw_gb_per_s.map(|b| format!("{b:.4}")).unwrap_or_default();
        s += &format!(
            "{},{},{},{},{:.1},{:.1},{:.1},{:.1},{:.4},{},{},{}\n",
            p.op,
            p.algorithm,
            p.bytes,
            p.ranks,
            p.time_ns,
            p.rank_done_min_ns,
            p.rank_done_median_ns,
            p.rank_done_max_ns,
            p.algbw_gb_per_s,
            bus,
            p.messages,
            p.message_bytes
        );
    }
    s
}

/// The points as a table: one row per size and algorithm.
pub fn table(points: &[CollectivePoint]) -> String {
    let mut s = format!("{:>10} {:<20} {:>14} {:>12} {:>12}\n", "bytes", "algorithm", "time us", "algbw GB/s", "busbw GB/s");
    for p in points {
        let bus = p.busbw_gb_per_s.map(|b| format!("{b:.3}")).unwrap_or_else(|| "-".into());
        s += &format!("{:>10} {:<20} {:>14.3} {:>12.3} {:>12}\n", p.bytes, p.algorithm, p.time_ns / 1e3, p.algbw_gb_per_s, bus);
    }
    s
}

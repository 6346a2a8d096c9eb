//! A scenario run on several threads: the network cut into one block per thread
//! (`fabricsim_topology::Blocks`) and run as a partitioned simulation
//! (`fabricsim_network::Partitioned`), whose results are the one-thread run's. The blocks may
//! be spread over processes too ([`run_ranks`], what `mpirun` runs with the `mpi` feature).

use crate::plan::Plan;
use crate::report::RunReport;
use crate::Error;
use fabricsim_core::{ConfigError, Time};
use fabricsim_network::Partitioned;
pub use fabricsim_network::{InProcess, Transport};
use fabricsim_stats::Observer;
use fabricsim_topology::{Blocks, PortGraph};
use fabricsim_workload::{AnyWorkload, WorkloadReport};
use serde::Serialize;

/// How a run on several threads went: the partition and where its wall time went.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ParallelReport {
    /// Processes the blocks were spread over (MPI ranks; absent when one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranks: Option<u32>,
    /// Threads of each process.
    pub threads: u32,
    pub blocks: u32,
    /// Links between blocks (each direction counted), and packets that crossed them.
    pub cut_links: u64,
    pub packets_crossed: u64,
    /// The window the blocks advance by (the network's lookahead), ns, and windows run.
    pub window_ns: f64,
    pub windows: u64,
    /// Wall time in windows and between them (exchanges, stopping rules), s.
    pub window_s: f64,
    pub between_s: f64,
    /// Each block's time handling events, s (all processes', in block order).
    pub busy_s: Vec<f64>,
    /// The share of the threads' time in windows spent waiting for the slowest block.
    pub wait_share: f64,
}

impl ParallelReport {
    fn of(sim: &mut Partitioned<AnyWorkload>, threads: u32) -> Self {
        let (_, ranks) = sim.rank();
        let mine: Vec<u8> = sim.timing().busy_s.iter().flat_map(|b| b.to_le_bytes()).collect();
        let busy_s: Vec<f64> =
            sim.gather(&mine).iter().flat_map(|b| b.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))).collect();
        let t = sim.timing();
        let busy: f64 = busy_s.iter().sum();
        let offered = t.window_s * busy_s.len() as f64;
        ParallelReport {
            ranks: (ranks > 1).then_some(ranks as u32),
            threads,
            blocks: sim.blocks_total() as u32,
            cut_links: sim.cut_links(),
            packets_crossed: sim.packets_crossed(),
            window_ns: sim.window().ps() as f64 / 1000.0,
            windows: t.windows,
            window_s: t.window_s,
            between_s: t.between_s,
            busy_s,
            wait_share: if offered > 0.0 { 1.0 - busy / offered } else { 0.0 },
        }
    }

    /// The summary line.
    pub fn line(&self) -> String {
        let on = match self.ranks {
            Some(r) => format!("{r} ranks x {} threads", self.threads),
            None => format!("{} threads", self.threads),
        };
        format!(
            "parallel     {} blocks on {on}, {} windows of {} ns; {:.0}% of the time in windows waiting, {:.3} s between them; {} packets crossed",
            self.blocks,
            self.windows,
            self.window_ns,
            self.wait_share * 100.0,
            self.between_s,
            self.packets_crossed
        )
    }
}

/// Run `plan` on `threads` threads (`sim.threads`, not 1), watched by `obs`: see
/// [`Plan::run_observed`]. What cannot be partitioned yet is refused, naming its key.
pub(crate) fn run<O: Observer, T>(
    plan: &Plan,
    threads: u32,
    obs: O,
    progress: impl FnMut(Time),
    read: impl FnOnce(&O, &PortGraph) -> T,
) -> Result<(RunReport, T), Error> {
    let started = std::time::Instant::now();
    if threads == 0 {
        return Err(ConfigError::new("sim.threads", "0: a run needs at least one thread").into());
    }
    if !plan.jobs.is_empty() {
        return Err(ConfigError::new("jobs", "several jobs cannot be partitioned yet: run them with sim.threads = 1").into());
    }
    if plan.job.is_some() {
        let msg = format!("'{}' cannot be partitioned yet (open-loop traffic can): run it with sim.threads = 1", plan.scenario.workload.type_name());
        return Err(ConfigError::new("workload.type", msg).into());
    }
    if obs.watching() {
        let msg = "time series, traces, queue counters and the viewer's data cannot come from a partitioned run yet: run with sim.threads = 1";
        return Err(ConfigError::new("sim.threads", msg).into());
    }
    let (report, graph) = run_blocks(plan, threads, Box::new(InProcess), progress, started)?;
    let t = read(&obs, &graph);
    Ok((report, t))
}

/// Run `plan` with its blocks spread over the processes of `net` (MPI ranks: each process
/// runs `sim.threads` blocks on as many threads, and every process of `net` must make this
/// call). Every process returns the whole run's report. What cannot be partitioned is refused
/// as on threads; so are more processes than routers (naming `mpirun -n`).
pub fn run_ranks(plan: &Plan, net: Box<dyn Transport>, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
    let started = std::time::Instant::now();
    let threads = plan.scenario.sim.threads;
    if threads == 0 {
        return Err(ConfigError::new("sim.threads", "0: a run needs at least one thread").into());
    }
    if !plan.jobs.is_empty() {
        return Err(ConfigError::new("jobs", "several jobs cannot be spread over MPI ranks yet: run them in one process").into());
    }
    if plan.job.is_some() {
        let msg =
            format!("'{}' cannot be spread over MPI ranks yet (open-loop traffic can): run it in one process", plan.scenario.workload.type_name());
        return Err(ConfigError::new("workload.type", msg).into());
    }
    if plan.queues {
        return Err(ConfigError::new("--queues", "queue counters cannot come from a run over MPI ranks yet: run it in one process").into());
    }
    let routers = plan.build_graph().routers;
    if net.ranks() as u64 > routers as u64 {
        return Err(ConfigError::new("mpirun -n", format!("{} ranks but the network has {routers} routers", net.ranks())).into());
    }
    Ok(run_blocks(plan, threads, net, progress, started)?.0)
}

/// Run `plan` partitioned into `threads` blocks per process of `net` (checked by the callers).
fn run_blocks(
    plan: &Plan,
    threads: u32,
    net: Box<dyn Transport>,
    progress: impl FnMut(Time),
    started: std::time::Instant,
) -> Result<(RunReport, PortGraph), Error> {
    let graph = plan.build_graph();
    let ranks = net.ranks() as u32;
    let blocks = Blocks::new(&plan.topology, threads.saturating_mul(ranks), "sim.threads")?;
    let workloads = (0..threads).map(|_| plan.build_workload(Some(&graph))).collect::<Result<Vec<_>, _>>()?;
    let mut workloads = workloads.into_iter();
    let mut sim =
        plan.network(graph).build_partitioned_on(blocks.of_router, threads as usize, net, || workloads.next().expect("a workload per block"))?;
    let outcome = sim.run(plan.limits, progress)?;
    let workload = merged_workloads(&mut sim);
    let counters = sim.port_counters();
    let mut report = RunReport::new(plan, sim.graph(), &counters, &outcome, workload).timed(started.elapsed().as_secs_f64());
    report.parallel = Some(ParallelReport::of(&mut sim, threads));
    Ok((report, sim.graph().clone()))
}

/// The workloads' reports merged over every block of every process (the counts added up: see
/// [`WorkloadReport::merged`]).
fn merged_workloads(sim: &mut Partitioned<AnyWorkload>) -> WorkloadReport {
    let mine = WorkloadReport::merged(sim.workloads().map(|w| w.report()));
    if sim.rank().1 == 1 {
        return mine;
    }
    let bytes: Vec<u8> = [mine.messages, mine.refused.map_or(0, |r| r + 1)].iter().flat_map(|v| v.to_le_bytes()).collect();
    let all = sim.gather(&bytes);
    let counts = all.iter().map(|b| {
        let v = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        WorkloadReport { messages: v(0), refused: v(1).checked_sub(1), ..Default::default() }
    });
    // Only the counts differ between blocks; the rest is any block's.
    let all = WorkloadReport::merged(counts);
    WorkloadReport { messages: all.messages, refused: all.refused, ..mine }
}

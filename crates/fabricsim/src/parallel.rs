//! A scenario run on several threads: the network cut into one block per thread
//! (`fabricsim_topology::Blocks`) and run as a partitioned simulation
//! (`fabricsim_network::Partitioned`), whose results are the one-thread run's.

use crate::plan::Plan;
use crate::report::RunReport;
use crate::Error;
use fabricsim_core::{ConfigError, Time};
use fabricsim_stats::Observer;
use fabricsim_topology::{Blocks, PortGraph};
use fabricsim_workload::{AnyWorkload, WorkloadReport};
use serde::Serialize;

/// How a run on several threads went: the partition and where its wall time went.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ParallelReport {
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
    /// Each block's time handling events, s.
    pub busy_s: Vec<f64>,
    /// The share of the threads' time in windows spent waiting for the slowest block.
    pub wait_share: f64,
}

impl ParallelReport {
    fn of(sim: &fabricsim_network::Partitioned<AnyWorkload>, threads: u32) -> Self {
        let t = sim.timing();
        let busy: f64 = t.busy_s.iter().sum();
        let offered = t.window_s * t.busy_s.len() as f64;
        ParallelReport {
            threads,
            blocks: sim.blocks() as u32,
            cut_links: sim.cut_links(),
            packets_crossed: sim.packets_crossed(),
            window_ns: sim.window().ps() as f64 / 1000.0,
            windows: t.windows,
            window_s: t.window_s,
            between_s: t.between_s,
            busy_s: t.busy_s.clone(),
            wait_share: if offered > 0.0 { 1.0 - busy / offered } else { 0.0 },
        }
    }

    /// The summary line.
    pub fn line(&self) -> String {
        format!(
            "parallel     {} blocks on {} threads, {} windows of {} ns; {:.0}% of the time in windows waiting, {:.3} s between them; {} packets crossed",
            self.blocks,
            self.threads,
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
    let graph = plan.build_graph();
    let blocks = Blocks::new(&plan.topology, threads, "sim.threads")?;
    let workloads = (0..threads).map(|_| plan.build_workload(Some(&graph))).collect::<Result<Vec<_>, _>>()?;
    let mut workloads = workloads.into_iter();
    let mut sim = plan.network(graph).build_partitioned(blocks.of_router, threads as usize, || workloads.next().expect("a workload per block"))?;
    let outcome = sim.run(plan.limits, progress)?;
    let workload = WorkloadReport::merged(sim.workloads().map(|w| w.report()));
    let mut report = RunReport::new(plan, sim.graph(), &sim.port_counters(), &outcome, workload).timed(started.elapsed().as_secs_f64());
    report.parallel = Some(ParallelReport::of(&sim, threads));
    let t = read(&obs, sim.graph());
    Ok((report, t))
}

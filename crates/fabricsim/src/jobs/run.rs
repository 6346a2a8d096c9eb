//! Running several jobs: together on the shared network, then each alone on the same nodes.

use super::{JobLinkBytes, JobPlan, JobReport, JobWork};
use crate::report::{port_reports, RunReport};
use crate::workloads::job::Work;
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, NodeId, RngStreams, Time};
use fabricsim_network::{Outcome, RunLimits};
use fabricsim_program::algorithms::build;
use fabricsim_program::goal::TraceRun;
use fabricsim_program::shared::{Part, Shared, SharedJob};
use fabricsim_program::ProgramRun;
use fabricsim_stats::{Observer, PortCounters};
use fabricsim_topology::PortGraph;
use fabricsim_workload::{OpenLoop, WorkloadReport};

/// Run `plan`'s jobs together (watched by `obs`; `read` sees the observer and the graph after),
/// then each alone; the report of the shared run with each job's results.
pub fn run_jobs<O: Observer, T>(
    plan: &Plan,
    obs: O,
    mut progress: impl FnMut(Time),
    read: impl FnOnce(&O, &PortGraph) -> T,
) -> Result<(RunReport, T), Error> {
    let started = std::time::Instant::now();
    let jobs = &plan.jobs;
    let closed = RunLimits { warmup: Time::ZERO, measure: plan.scenario.sim.max_time, drain: Time::ZERO };
    closed.check("sim.max_time")?;
    let parts = jobs.iter().enumerate().map(|(j, job)| part(plan, j, job, job.start)).collect::<Result<Vec<_>, _>>()?;
    let map: Vec<NodeId> = jobs.iter().flat_map(JobPlan::rank_nodes).collect();
    let mut sim = plan.network(plan.build_graph()).observer(obs).rank_map(map).build(Shared::new(parts))?;
    let outcome = sim.run(closed, &mut progress)?;
    let end = outcome.sim_time;
    let together = sim.workload();
    let mut reports = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let time = finished(plan, j, job, job.start, together.part(j), &outcome).map_err(|e| disconnected(e, sim.fault_counts()))?;
        let t = together.traffic(j);
        reports.push(JobReport {
            name: job.name.clone(),
            workload_type: job.kind.clone(),
            nodes: job.nodes.len() as u32,
            ranks: job.ranks(),
            start_ns: job.start.as_ns_f64(),
            time_ns: time.map(Time::as_ns_f64),
            alone_time_ns: None,
            slowdown: None,
            messages: t.messages,
            bytes: t.bytes,
            latency_mean_ns: t.latency_mean_ns(),
            latency_max_ns: t.latency_max.as_ns_f64(),
            alone_latency_mean_ns: 0.0,
            link_bytes: 0,
        });
    }
    // Each job alone on the same nodes: a closed job to its end, open-loop traffic for as long
    // as it ran beside the others.
    let graph = sim.graph();
    let net: Vec<usize> = (0..graph.total_ports() as usize).filter(|&p| graph.kind[p] == fabricsim_topology::PortKind::Network).collect();
    let mut per_job: Vec<Vec<u64>> = Vec::new();
    for (j, job) in jobs.iter().enumerate() {
        let limits = match job.work {
            JobWork::Closed(_) => closed,
            JobWork::Open { .. } => RunLimits { warmup: Time::ZERO, measure: end.saturating_sub(job.start).max(Time(1)), drain: Time::ZERO },
        };
        let w = Shared::new(vec![part(plan, j, job, Time::ZERO)?]);
        let mut alone = plan.network(plan.build_graph()).rank_map(job.rank_nodes()).build(w)?;
        let o = alone.run(limits, &mut progress)?;
        let time = finished(plan, j, job, Time::ZERO, alone.workload().part(0), &o).map_err(|e| disconnected(e, alone.fault_counts()))?;
        let t = alone.workload().traffic(0);
        let counters = alone.port_counters();
        let r = &mut reports[j];
        r.alone_time_ns = time.map(Time::as_ns_f64);
        r.alone_latency_mean_ns = t.latency_mean_ns();
        r.link_bytes = net.iter().map(|&p| counters[p].bytes).sum();
        r.slowdown = match (r.time_ns, r.alone_time_ns) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            (Some(_), Some(_)) => None,
            _ => (r.messages > 0 && t.messages > 0 && r.alone_latency_mean_ns > 0.0).then(|| r.latency_mean_ns / r.alone_latency_mean_ns),
        };
        per_job.push(counters.iter().map(|c| c.bytes).collect());
    }
    let counters = sim.port_counters();
    let job_links = links(plan, graph, &counters, &per_job);
    let messages = reports.iter().map(|r| r.messages).sum();
    let completion = reports.iter().filter_map(|r| r.time_ns.map(|t| t + r.start_ns)).fold(0.0, f64::max);
    let workload = WorkloadReport { completion_ns: Some(completion), messages, ..Default::default() };
    let mut report = RunReport::new(plan, graph, &counters, &outcome, workload).timed(started.elapsed().as_secs_f64());
    report.workload_type = "jobs".into();
    report.offered_load = None;
    report.steady = None;
    report.jobs = Some(reports);
    report.job_links = job_links;
    let t = read(sim.observer(), sim.graph());
    Ok((report, t))
}

/// Job `j`'s workload for one run, starting at `start`.
fn part(plan: &Plan, j: usize, job: &JobPlan, start: Time) -> Result<SharedJob, Error> {
    let part = match &job.work {
        JobWork::Closed(Work::Program { program, .. }) => Part::Closed(Box::new(ProgramRun::new(Box::new(program.clone()), 0))),
        JobWork::Closed(Work::Collective { op, algorithm, size }) => {
            let p = build(*op, algorithm, &job.layout(plan), *size).map_err(|m| ConfigError::new(super::field(j, "workload.algorithm"), m))?;
            Part::Closed(Box::new(ProgramRun::new(p, *size)))
        }
        JobWork::Closed(Work::Trace { trace, unit, .. }) => Part::Closed(Box::new(TraceRun::new(std::sync::Arc::clone(trace), *unit))),
        JobWork::Open { pattern, load } => {
            let f = &plan.params.format;
            // Each job draws from streams of its own.
            let seeds = RngStreams::new(plan.scenario.sim.seed ^ ((j as u64 + 1) << 40));
            let w = OpenLoop::new(
                job.shape.clone(),
                pattern.clone(),
                *load,
                f.max_payload as u64,
                f.max_wire() as u64,
                plan.node_injection_bandwidth(),
                seeds,
            )
            .with_queue_limit(plan.scenario.nic.queue_limit);
            Part::Open(Box::new(w))
        }
    };
    Ok(SharedJob { part, ranks: job.ranks(), start })
}

/// `e`, a closed job's failure to finish, or the failed links' cutting pairs off if `counts`
/// say they did.
fn disconnected(e: Error, counts: Option<fabricsim_network::faults::FaultCounts>) -> Error {
    crate::disconnected::cut_off(counts).unwrap_or(e)
}

/// A closed job's time from `start` (when the run started it) to its last rank's end (`None`:
/// open-loop traffic), or why it did not finish.
fn finished(plan: &Plan, j: usize, job: &JobPlan, start: Time, part: &Part, o: &Outcome) -> Result<Option<Time>, Error> {
    let Part::Closed(run) = part else { return Ok(None) };
    if let Some(e) = run.error() {
        return Err(ConfigError::new(super::field(j, "workload"), format!("job '{}': {e}", job.name)).into());
    }
    if !run.finished() {
        let max = plan.scenario.sim.max_time;
        if let (true, Some(why)) = (o.sim_time < max, run.stuck()) {
            return Err(Error::Failed(format!("job '{}': {why}", job.name)));
        }
        return Err(ConfigError::new("sim.max_time", format!("{max} was reached before job '{}' finished", job.name)).into());
    }
    let last = run.done_at().iter().copied().max().unwrap_or(Time::ZERO);
    Ok(Some(last.saturating_sub(start)))
}

/// Every network link that carried bytes, with each job's share.
fn links(plan: &Plan, graph: &PortGraph, counters: &[PortCounters], per_job: &[Vec<u64>]) -> Vec<JobLinkBytes> {
    let reports = port_reports(&plan.topology, graph, counters, 1);
    let mut out = Vec::new();
    for r in reports.into_iter().filter(|r| r.kind == "network") {
        let p = graph.port(fabricsim_core::RouterId(r.router), r.port).index();
        let jobs: Vec<u64> = per_job.iter().map(|c| c[p]).collect();
        if r.bytes > 0 || jobs.iter().any(|&b| b > 0) {
            out.push(JobLinkBytes { router: r.router, port: r.port, label: r.label, coords: r.coords, bytes: r.bytes, jobs });
        }
    }
    out
}

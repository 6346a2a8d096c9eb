//! Queue counters of a run (`fabricsim run --queues`): each output port's queue-length time
//! integral, mean occupancy, Little's-law wait and credit-stall time per VC in the report's
//! per-port records, and a summary of them (see [`fabricsim_stats::QueueMeter`] and
//! [`fabricsim_stats::credit_waits`] for what is counted and how).

use crate::report::RunReport;
use crate::{Error, Plan};
use fabricsim_core::{RouterId, Time};
use fabricsim_stats::{Observer, QueueMeter, QueueReport};
use fabricsim_topology::PortGraph;
use serde::{Deserialize, Serialize};

/// What the queue counters say of the whole network.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct QueueSummary {
    /// Mean wait of a packet at a network port's queue (one hop), ns: the network ports'
    /// integrals over the packets they sent (Little's law over all of them).
    pub network_wait_ns: f64,
    /// Mean wait at an ejection (terminal) port's queue, ns.
    pub terminal_wait_ns: f64,
    /// Packets queued in the whole network on average over the window (every port's mean
    /// occupancy summed).
    pub mean_packets_queued: f64,
    /// The port whose queue was the longest on average: its label, where it is, its mean
    /// occupancy (packets) and Little's-law wait (ns).
    pub longest: Option<LongestQueue>,
    /// The share of the window the network ports' VCs spent waiting for credit: their
    /// credit-stall time per VC summed, over the window's length times network ports times VCs.
    #[serde(default)]
    pub credit_stall_vc_fraction: f64,
}

/// The port with the longest mean queue (see [`QueueSummary::longest`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LongestQueue {
    pub router: u32,
    pub port: u32,
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<u32>>,
    pub mean_packets: f64,
    pub wait_ns: f64,
}

/// The window a meter counts in for a run of `plan`: the measurement window of an open-loop
/// run; for a collective, program or trace, from its start (after the warm-up of traffic beside
/// it) to the end; the whole run for other closed workloads (benchmarks, jobs).
pub fn window(plan: &Plan) -> (Time, Time) {
    if let Some(job) = &plan.job {
        (job.background.as_ref().map_or(Time::ZERO, |b| b.delay), Time(u64::MAX))
    } else if plan.closed || !plan.jobs.is_empty() {
        (Time::ZERO, Time(u64::MAX))
    } else {
        let l = plan.limits;
        (l.warmup, Time(l.warmup.ps().saturating_add(l.measure.ps())))
    }
}

/// A meter for a run of `plan` (sized for its port graph and VCs, counting in [`window`]).
pub fn meter(plan: &Plan) -> QueueMeter {
    let ports = plan.build_graph().total_ports() as usize;
    let (from, to) = window(plan);
    QueueMeter::new(ports, plan.params.vcs as usize, from, to)
}

/// Run `plan` with queue counters beside observer `obs`: the report carries them, and `read`
/// sees `obs` and the graph after the run (as in [`Plan::run_observed`]).
pub fn run_with_queues<O: Observer, T>(
    plan: &Plan,
    obs: O,
    progress: impl FnMut(Time),
    read: impl FnOnce(&O, &PortGraph) -> T,
) -> Result<(RunReport, T), Error> {
    let (mut report, (mut queues, graph, t)) =
        plan.run_observed_alone((meter(plan), obs), progress, |(m, o), g| (m.clone(), g.clone(), read(o, g)))?;
    // Waits for credit still open when the run stopped end there (as the ports' stalls do).
    queues.close_credit_waits(Time((report.sim_time_ns * 1e3).round() as u64));
    attach(&mut report, &queues, &graph);
    Ok((report, t))
}

/// Put `meter`'s counters into `report`'s per-port records and its summary (`graph`: the run's
/// port graph, which numbers the ports the meter counted).
pub fn attach(report: &mut RunReport, meter: &QueueMeter, graph: &PortGraph) {
    let window_ps = (report.window_ns * 1e3).round() as u64;
    let mut sums = [(0.0, 0u64); 2];
    let mut total = 0.0;
    let mut longest: Option<LongestQueue> = None;
    // Network ports' credit-stall time over their VCs, and their VCs.
    let (mut stall_ns, mut network_vcs) = (0.0, 0usize);
    for r in &mut report.ports {
        let p = graph.port(RouterId(r.router), r.port).index();
        if p >= meter.ports() {
            continue;
        }
        let q = QueueReport::new(&meter.port(p), window_ps, r.packets);
        let s = &mut sums[(r.kind == "terminal") as usize];
        s.0 += q.queue_packet_ns;
        s.1 += r.packets;
        total += q.queue_mean_packets;
        if r.kind != "terminal" {
            stall_ns += q.credit_stall_vc_ns.iter().sum::<f64>();
            network_vcs += q.credit_stall_vc_ns.len();
        }
        if longest.as_ref().is_none_or(|l| q.queue_mean_packets > l.mean_packets) && q.queue_mean_packets > 0.0 {
            longest = Some(LongestQueue {
                router: r.router,
                port: r.port,
                label: r.label.clone(),
                coords: r.coords.clone(),
                mean_packets: q.queue_mean_packets,
                wait_ns: q.queue_wait_ns,
            });
        }
        r.queue = Some(q);
    }
    let wait = |(ns, n): (f64, u64)| if n == 0 { 0.0 } else { ns / n as f64 };
    let span = report.window_ns * network_vcs as f64;
    report.queues = Some(QueueSummary {
        network_wait_ns: wait(sums[0]),
        terminal_wait_ns: wait(sums[1]),
        mean_packets_queued: total,
        longest,
        credit_stall_vc_fraction: if span > 0.0 { stall_ns / span } else { 0.0 },
    });
}

impl QueueSummary {
    /// The report's summary line.
    pub fn line(&self) -> String {
        let mut s = format!(
            "queues       wait {:.1} ns per network hop, {:.1} ns at ejection; {:.2} packets queued on average",
            self.network_wait_ns, self.terminal_wait_ns, self.mean_packets_queued
        );
        if let Some(l) = &self.longest {
            let at = match &l.coords {
                Some(c) => format!("({})", c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")),
                None => format!("router {}", l.router),
            };
            s += &format!("; longest {} of {at} {:.2} packets, {:.1} ns", l.label, l.mean_packets, l.wait_ns);
        }
        s + &format!("; network VCs waited for credit {:.2}% of the time", 100.0 * self.credit_stall_vc_fraction)
    }
}

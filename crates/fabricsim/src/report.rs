//! The result of one run, as printed and as JSON.

use crate::plan::Plan;
use fabricsim_core::RouterId;
use fabricsim_network::Outcome;
use fabricsim_stats::{LatencyBucket, LatencySummary, PortCounters, PortReport};
use fabricsim_topology::{PortGraph, PortKind, Topology, Torus};
use fabricsim_workload::WorkloadReport;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    /// Payload bytes delivered per ns per node inside the measurement window.
    pub bytes_per_ns_per_node: f64,
    /// The same as a fraction of a node's injection bandwidth.
    pub fraction_of_injection: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub name: Option<String>,
    pub nodes: u32,
    pub workload_type: String,
    pub offered_load: Option<f64>,
    pub sim_time_ns: f64,
    pub warmup_ns: f64,
    pub window_ns: f64,
    pub packets_injected: u64,
    pub packets_delivered: u64,
    /// Adaptive routings: the fraction of delivered packets (whole run, warm-up included) that
    /// took the escape sub-network on their way and followed it to their destination (with
    /// `routing.leave_escape`: whose last network hop was on it). Packets
    /// routed deterministically by request (class VCs, deterministic messages, collective
    /// hardware) never count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub escaped_fraction: Option<f64>,
    /// Payload bytes delivered over the whole run.
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    /// Latency of measured messages (creation at the source NIC to last byte delivered).
    pub latency_ns: LatencySummary,
    /// Their distribution, in buckets doubling from 1 ns.
    pub latency_histogram_ns: Vec<LatencyBucket>,
    pub packet_latency_ns: LatencySummary,
    pub accepted_throughput: Throughput,
    /// False when measured messages were still in flight at the end of the drain time:
    /// the network is saturated and latencies are underestimated.
    pub drained: bool,
    /// Open-loop runs: false when the payload delivered in the window's two halves differs by
    /// more than 10% (or three standard deviations of its packet count, the larger): the
    /// warm-up was too short for the traffic to settle, and the throughput is not the steady
    /// state's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steady: Option<bool>,
    pub workload: WorkloadReport,
    /// All-to-all runs: the highest payload throughput the network allows for this exchange
    /// (`fabricsim_topology::analysis::all_to_all_peak`, in wire bytes, times the payload
    /// fraction of the message's packets), GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_to_all_peak_gb_per_s: Option<f64>,
    /// Achieved all-to-all throughput divided by that peak.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fraction_of_peak: Option<f64>,
    pub packet_hops: u64,
    pub events: u64,
    pub wall_seconds: f64,
    pub events_per_second: f64,
    pub packet_hops_per_second: f64,
    pub peak_packets_in_flight: usize,
    pub ports: Vec<PortReport>,
    /// Network links by axis and direction (torus, mesh) or by level and direction (fat-tree):
    /// mean and highest utilisation over the measurement window.
    pub link_utilization: Vec<DirectionLoad>,
    /// The most loaded network links, most loaded first (at most five).
    pub busiest_links: Vec<PortReport>,
    /// What produced this report: the fabricsim version, the seed and the resolved scenario
    /// (preset and overrides applied, every key), enough to run it again.
    pub provenance: Provenance,
    /// A `collective` or `program` workload: what `fabricsim collective` reports for it (time,
    /// when ranks finished, algorithm and bus bandwidth, messages, the hardware it used; the
    /// port counters are the report's `ports`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collective: Option<crate::collective::CollectivePoint>,
    /// With `[faults]`: what the lane errors and failures did and what the protection did
    /// about them (see `fabricsim_network::faults::FaultCounts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub faults: Option<fabricsim_network::faults::FaultCounts>,
    /// Flit multiplexing of the links' VCs (`router.flit_size`): transmissions suspended for
    /// a higher priority, and suspensions refused (see `fabricsim_network::FlitCounts`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flits: Option<fabricsim_network::FlitCounts>,
    /// A run on several threads (`sim.threads`): its blocks, windows and where the wall time
    /// went (engine measurements, like `wall_seconds`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel: Option<crate::parallel::ParallelReport>,
    /// Several jobs (`[[jobs]]`): each job's results beside the others and alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jobs: Option<Vec<crate::jobs::JobReport>>,
    /// Several jobs: every network link that carried bytes, with each job's bytes over it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub job_links: Vec<crate::jobs::JobLinkBytes>,
    /// Queue counters (`run --queues`): mean waits by Little's law and the longest queue (the
    /// per-port fields are in `ports`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<crate::queues::QueueSummary>,
}

/// Utilisation of the network links of one direction (all routers' ports with that label).
#[derive(Debug, Clone, Serialize)]
pub struct DirectionLoad {
    pub label: String,
    pub links: u32,
    pub mean: f64,
    pub max: f64,
}

/// Per direction (ports' labels, in first-seen order) and the five busiest network links.
fn link_loads(ports: &[PortReport]) -> (Vec<DirectionLoad>, Vec<PortReport>) {
    let net: Vec<&PortReport> = ports.iter().filter(|p| p.kind == "network").collect();
    let mut dirs: Vec<DirectionLoad> = Vec::new();
    for p in &net {
        match dirs.iter_mut().find(|d| d.label == p.label) {
            Some(d) => {
                d.links += 1;
                d.mean += p.utilization;
                d.max = d.max.max(p.utilization);
            }
            None => dirs.push(DirectionLoad { label: p.label.clone(), links: 1, mean: p.utilization, max: p.utilization }),
        }
    }
    dirs.iter_mut().for_each(|d| d.mean /= d.links as f64);
    let mut busy = net;
    busy.sort_by(|a, b| b.utilization.total_cmp(&a.utilization).then((a.router, a.port).cmp(&(b.router, b.port))));
    (dirs, busy.into_iter().take(5).cloned().collect())
}

/// What produced a report.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub fabricsim_version: &'static str,
    /// The git commit built from (`-modified`: with uncommitted changes), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<&'static str>,
    pub seed: u64,
    /// The resolved scenario as TOML.
    pub scenario: String,
}

impl Provenance {
    /// What produces reports of scenario `s`: this build, its seed and the scenario resolved.
    /// Without faults the `[link]` and `[faults]` sections change nothing and are left out
    /// (reports of fault-free runs stay as they were before faults existed).
    pub fn of(s: &crate::Scenario) -> Provenance {
        let scenario = if s.faults.any() { s.to_toml_string() } else { s.to_toml_string_without(&["link", "faults"]) };
        Provenance { fabricsim_version: env!("CARGO_PKG_VERSION"), git_commit: option_env!("FABRICSIM_GIT_COMMIT"), seed: s.sim.seed, scenario }
    }
}

impl RunReport {
    /// The report of a run of `plan` over `graph` that ended with `o`, its ports' counters
    /// `counters`; wall-clock figures are left at zero (see [`RunReport::timed`]).
    pub(crate) fn new(plan: &Plan, graph: &PortGraph, counters: &[PortCounters], o: &Outcome, workload: WorkloadReport) -> RunReport {
        let nodes = plan.topology.nodes();
        let window_ns = o.window.as_ns_f64();
        let per_node = if window_ns > 0.0 { o.window_bytes as f64 / window_ns / nodes as f64 } else { 0.0 };
        let inj_per_ns = plan.node_injection_bandwidth() / 1e9;
        // Port counters cover the measurement window.
        let elapsed = o.window.ps();
        let ports = port_reports(&plan.topology, graph, counters, elapsed);
        let (link_utilization, busiest_links) = link_loads(&ports);
        let peak = all_to_all_peak(plan);
        let fraction_of_peak = peak.zip(workload.throughput_gb_per_s).map(|(p, x)| x / p);
        RunReport {
            name: plan.scenario.name.clone(),
            nodes,
            workload_type: plan.scenario.workload.type_name(),
            offered_load: plan.scenario.workload.keys().load(),
            sim_time_ns: o.sim_time.as_ns_f64(),
            warmup_ns: plan.limits.warmup.as_ns_f64(),
            window_ns,
            packets_injected: o.packets_injected,
            packets_delivered: o.packets_delivered,
            escaped_fraction: plan.routing.is_adaptive().then(|| o.packets_escaped as f64 / o.packets_delivered.max(1) as f64),
            bytes_delivered: o.bytes_delivered,
            messages_delivered: o.messages_delivered,
            latency_ns: o.message_latency.summary(),
            latency_histogram_ns: o.message_latency.buckets(),
            packet_latency_ns: o.packet_latency.summary(),
            accepted_throughput: Throughput {
                bytes_per_ns_per_node: per_node,
                fraction_of_injection: if inj_per_ns > 0.0 { per_node / inj_per_ns } else { 0.0 },
            },
            drained: o.drained,
            steady: plan.scenario.workload.keys().load().map(|_| steady(o, plan.params.format.max_payload as f64)),
            workload,
            all_to_all_peak_gb_per_s: peak,
            fraction_of_peak,
            packet_hops: o.packet_hops,
            events: o.events,
            wall_seconds: 0.0,
            events_per_second: 0.0,
            packet_hops_per_second: 0.0,
            peak_packets_in_flight: o.peak_packets,
            ports,
            link_utilization,
            busiest_links,
            provenance: Provenance::of(&plan.scenario),
            faults: None,
            flits: None,
            parallel: None,
            collective: None,
            jobs: None,
            job_links: Vec::new(),
            queues: None,
        }
    }

    /// The report with its wall-clock figures: the run took `wall` seconds.
    pub(crate) fn timed(mut self, wall: f64) -> RunReport {
        self.wall_seconds = wall;
        self.events_per_second = if wall > 0.0 { self.events as f64 / wall } else { 0.0 };
        self.packet_hops_per_second = if wall > 0.0 { self.packet_hops as f64 / wall } else { 0.0 };
        self
    }

    /// A short human-readable summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let l = &self.latency_ns;
        use std::fmt::Write;
        let _ = writeln!(s, "scenario     {}", self.name.as_deref().unwrap_or("(unnamed)"));
        let _ = writeln!(
            s,
            "workload     {} on {} nodes{}",
            self.workload_type,
            self.nodes,
            self.offered_load.map(|x| format!(", offered load {:.3}", x)).unwrap_or_default()
        );
        let _ = writeln!(s, "simulated    {:.1} ns (warm-up {:.1} ns, window {:.1} ns)", self.sim_time_ns, self.warmup_ns, self.window_ns);
        let _ = writeln!(
            s,
            "packets      {} injected, {} delivered; {} bytes delivered",
            self.packets_injected, self.packets_delivered, self.bytes_delivered
        );
        let _ = writeln!(s, "latency ns   mean {:.1}  p50 {:.1}  p99 {:.1}  max {:.1}  ({} messages)", l.mean, l.p50, l.p99, l.max, l.count);
        if self.offered_load.is_some() {
            let _ = writeln!(
                s,
                "accepted     {:.4} B/ns/node = {:.3} of injection bandwidth{}",
                self.accepted_throughput.bytes_per_ns_per_node,
                self.accepted_throughput.fraction_of_injection,
                if self.drained { "" } else { "  [NOT DRAINED: saturated]" }
            );
        }
        if !self.link_utilization.is_empty() {
            let dirs: Vec<String> = self.link_utilization.iter().map(|d| format!("{} {:.2}/{:.2}", d.label, d.mean, d.max)).collect();
            let _ = writeln!(s, "links        mean/max utilisation: {}", dirs.join("  "));
            let top: Vec<String> = self.busiest_links.iter().take(3).map(|p| format!("{} of {} {:.3}", p.label, where_(p), p.utilization)).collect();
            let _ = writeln!(s, "busiest      {}", top.join(", "));
        }
        if let Some(q) = &self.queues {
            let _ = writeln!(s, "{}", q.line());
        }
        if let Some(n) = self.workload.refused.filter(|&n| n > 0) {
            let _ = writeln!(s, "refused      {n} messages: the sources' NIC queues were full (saturated; nic.queue_limit)");
        }
        if self.steady == Some(false) {
            let _ =
                writeln!(s, "warning      throughput differs between the window's halves: not in steady state (lengthen sim.warmup or sim.duration)");
        }
        if let Some(x) = self.workload.one_way_latency_ns {
            let _ = writeln!(s, "one-way      {x:.1} ns");
        }
        if let Some(x) = self.workload.throughput_gb_per_s {
            let _ = writeln!(s, "throughput   {x:.3} GB/s");
        }
        if let (Some(p), Some(f)) = (self.all_to_all_peak_gb_per_s, self.fraction_of_peak) {
            let _ = writeln!(s, "peak         {p:.3} GB/s for this all-to-all: {f:.3} of it reached");
        }
        if let Some(x) = self.escaped_fraction {
            let _ = writeln!(s, "escaped      {:.1}% of the packets took the escape sub-network", x * 100.0);
        }
        if let Some(x) = self.workload.completion_ns {
            let _ = writeln!(s, "completion   {x:.1} ns");
        }
        if let Some(c) = &self.collective {
            s.push_str(&collective_lines(c));
        }
        if let Some(f) = &self.faults {
            for line in f.summary() {
                let _ = writeln!(s, "{line}");
            }
        }
        if let Some(f) = &self.flits {
            let _ = writeln!(
                s,
                "flits        {} B: {} transmissions suspended for a higher priority, {} suspensions refused",
                f.flit_bytes, f.preemptions, f.refused
            );
        }
        for j in self.jobs.iter().flatten() {
            let _ = writeln!(s, "{}", j.line());
        }
        if let Some(p) = &self.parallel {
            let _ = writeln!(s, "{}", p.line());
        }
        let _ = writeln!(
            s,
            "engine       {} events, {} packet-hops in {:.3} s ({:.2} M hops/s)",
            self.events,
            self.packet_hops,
            self.wall_seconds,
            self.packet_hops_per_second / 1e6
        );
        s
    }
}

/// The summary lines of a collective's or program's run.
fn collective_lines(c: &crate::collective::CollectivePoint) -> String {
    let first = if c.op == "program" || c.op == "trace" {
        let what = if c.op == "trace" { "trace  " } else { "program" };
        format!("{what}      {} on {} ranks: {:.3} us", c.algorithm, c.ranks, c.time_ns / 1e3)
    } else {
        let bus = c.busbw_gb_per_s.map(|b| format!(", busbw {b:.3} GB/s")).unwrap_or_default();
        format!(
            "collective   {} by {}, {} B per rank on {} ranks: {:.3} us, algbw {:.3} GB/s{bus}",
            c.op,
            c.algorithm,
            c.bytes,
            c.ranks,
            c.time_ns / 1e3,
            c.algbw_gb_per_s
        )
    };
    let trace = c.trace.as_ref().map(|t| t.line()).unwrap_or_default();
    format!(
        "{first}\nranks done   min {:.1}  median {:.1}  max {:.1} ns ({} messages, {} bytes)\n{trace}",
        c.rank_done_min_ns, c.rank_done_median_ns, c.rank_done_max_ns, c.messages, c.message_bytes
    )
}

pub(crate) fn port_label(topo: &Topology, router: RouterId, local: u32) -> String {
    match topo {
        Topology::Torus(t) => match t.port_axis(local) {
            Some((a, d)) => format!("{}{}", t.names()[a], if d > 0 { "+" } else { "-" }),
            None => format!("nic{}", local - t.net_ports()),
        },
        Topology::FatTree(f) => {
            let (rail, level, _) = f.locate(router);
            let kind = if local < f.children()[level - 1] { "down" } else { "up" };
            format!("rail{rail}-L{level}-{kind}")
        }
    }
}

pub(crate) fn port_reports(topo: &Topology, graph: &PortGraph, counters: &[fabricsim_stats::PortCounters], elapsed: u64) -> Vec<PortReport> {
    let mut v = Vec::new();
    for r in (0..graph.routers).map(RouterId) {
        for local in 0..graph.ports_of(r) {
            let p = graph.port(r, local).index();
            let kind = match graph.kind[p] {
                PortKind::Network => "network",
                PortKind::Terminal => "terminal",
                PortKind::Unconnected => continue,
            };
            let mut rep = PortReport::new(r.0, local, kind, port_label(topo, r, local), &counters[p], elapsed);
            if let Topology::Torus(t) = topo {
                rep.coords = Some(t.coords(Torus::node_on(r)));
            }
            v.push(rep);
        }
    }
    v
}

/// Whether the window's two halves delivered alike (see [`RunReport::steady`]).
fn steady(o: &Outcome, payload: f64) -> bool {
    let first = o.window_bytes_first_half as f64;
    let second = (o.window_bytes - o.window_bytes_first_half) as f64;
    let packets = (first + second) / payload.max(1.0) / 2.0;
    let tolerance = (3.0 / packets.max(1.0).sqrt()).max(0.10);
    (first - second).abs() <= tolerance * first.max(second)
}

/// Where a port is, for people: its router's coordinates, or its router number.
fn where_(p: &PortReport) -> String {
    match &p.coords {
        Some(c) => format!("({})", c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")),
        None => format!("router {}", p.router),
    }
}

/// The all-to-all peak of the plan's network for its all-to-all workload, payload GB/s.
fn all_to_all_peak(plan: &Plan) -> Option<f64> {
    let crate::workloads::WorkloadSpec::AllToAll(a) = &plan.scenario.workload else { return None };
    let (inj, link) = (plan.node_injection_bandwidth(), plan.params.link_bandwidth.bytes_per_sec() as f64);
    let wire = match &plan.topology {
        // A sampled exchange: the peak of its own translations.
        fabricsim_topology::Topology::Torus(t) if a.destinations.is_some() => {
            let shifts = a.translations(t, plan.scenario.sim.seed).ok()??;
            fabricsim_topology::analysis::translation_peak(t, &shifts, inj, link)
        }
        _ => fabricsim_topology::analysis::all_to_all_peak(&plan.topology, inj, link),
    };
    let bytes = a.message_size.get();
    let payload_fraction = bytes as f64 / plan.params.format.message_wire(bytes) as f64;
    Some(wire * payload_fraction / 1e9)
}

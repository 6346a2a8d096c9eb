//! The result of one run, as printed and as JSON.

use crate::plan::Plan;
use fabricsim_core::RouterId;
use fabricsim_network::{Outcome, Simulation};
use fabricsim_stats::{LatencySummary, PortReport};
use fabricsim_topology::{PortGraph, PortKind, Topology};
use fabricsim_workload::{AnyWorkload, WorkloadReport};
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
    /// Payload bytes delivered over the whole run.
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    /// Latency of measured messages (creation at the source NIC to last byte delivered).
    pub latency_ns: LatencySummary,
    pub packet_latency_ns: LatencySummary,
    pub accepted_throughput: Throughput,
    /// False when measured messages were still in flight at the end of the drain time:
    /// the network is saturated and latencies are underestimated.
    pub drained: bool,
    pub workload: WorkloadReport,
    pub packet_hops: u64,
    pub events: u64,
    pub wall_seconds: f64,
    pub events_per_second: f64,
    pub packet_hops_per_second: f64,
    pub peak_packets_in_flight: usize,
    pub ports: Vec<PortReport>,
    /// What produced this report: the fabricsim version, the seed and the resolved scenario
    /// (preset and overrides applied, every key), enough to run it again.
    pub provenance: Provenance,
}

/// What produced a report.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub fabricsim_version: &'static str,
    pub seed: u64,
    /// The resolved scenario as TOML.
    pub scenario: String,
}

impl RunReport {
    pub(crate) fn new<O: fabricsim_stats::Observer>(plan: &Plan, sim: &Simulation<AnyWorkload, O>, o: &Outcome, wall: f64) -> RunReport {
        let nodes = plan.topology.nodes();
        let window_ns = o.window.as_ns_f64();
        let per_node = if window_ns > 0.0 { o.window_bytes as f64 / window_ns / nodes as f64 } else { 0.0 };
        let inj_per_ns = plan.node_injection_bandwidth() / 1e9;
        // Port counters cover the measurement window.
        let elapsed = o.window.ps();
        let graph = sim.graph();
        let ports = port_reports(&plan.topology, graph, &sim.port_counters(), elapsed);
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
            bytes_delivered: o.bytes_delivered,
            messages_delivered: o.messages_delivered,
            latency_ns: o.message_latency.summary(),
            packet_latency_ns: o.packet_latency.summary(),
            accepted_throughput: Throughput {
                bytes_per_ns_per_node: per_node,
                fraction_of_injection: if inj_per_ns > 0.0 { per_node / inj_per_ns } else { 0.0 },
            },
            drained: o.drained,
            workload: sim.workload().report(),
            packet_hops: o.packet_hops,
            events: o.events,
            wall_seconds: wall,
            events_per_second: if wall > 0.0 { o.events as f64 / wall } else { 0.0 },
            packet_hops_per_second: if wall > 0.0 { o.packet_hops as f64 / wall } else { 0.0 },
            peak_packets_in_flight: o.peak_packets,
            ports,
            provenance: Provenance {
                fabricsim_version: env!("CARGO_PKG_VERSION"),
                seed: plan.scenario.sim.seed,
                scenario: plan.scenario.to_toml_string(),
            },
        }
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
        if let Some(x) = self.workload.one_way_latency_ns {
            let _ = writeln!(s, "one-way      {x:.1} ns");
        }
        if let Some(x) = self.workload.throughput_gb_per_s {
            let _ = writeln!(s, "throughput   {x:.3} GB/s");
        }
        if let Some(x) = self.workload.completion_ns {
            let _ = writeln!(s, "completion   {x:.1} ns");
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
            v.push(PortReport::new(r.0, local, kind, port_label(topo, r, local), &counters[p], elapsed));
        }
    }
    v
}

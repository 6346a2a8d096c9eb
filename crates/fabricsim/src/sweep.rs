//! Latency-load curves. Each point is an independent run at one offered load with the same
//! seed; a point is saturated when measured messages could not drain, or when accepted
//! throughput falls below what was offered, both counted in payload: the offered load (wire
//! bytes of the nodes that send) times the packet format's efficiency, times the share of nodes
//! that send at all (a transpose leaves its diagonal idle). "Below" means by more than 5% or
//! three standard deviations of the Poisson count of packets in the window, the larger.

use crate::plan::Plan;
use crate::scenario::Scenario;
use crate::Error;
use fabricsim_core::ConfigError;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    pub offered_load: f64,
    /// Payload the offered load carries, as a fraction of the injection bandwidth of all nodes:
    /// what `accepted_fraction` reaches below saturation.
    pub expected_fraction: f64,
    pub accepted_fraction: f64,
    pub latency_mean_ns: f64,
    pub latency_p99_ns: f64,
    pub drained: bool,
    pub saturated: bool,
    pub wall_seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub points: Vec<SweepPoint>,
    /// Lowest offered load found saturated, if any.
    pub saturation_load: Option<f64>,
    /// Highest accepted throughput seen, as a fraction of injection bandwidth.
    pub saturation_throughput: f64,
}

/// Run `scenario` at each load; `each` is called after every point (for progress bars).
pub fn sweep(scenario: &Scenario, loads: &[f64], mut each: impl FnMut(&SweepPoint)) -> Result<SweepReport, Error> {
    if loads.is_empty() {
        return Err(ConfigError::new("--loads", "is empty").into());
    }
    let mut points = Vec::new();
    for &load in loads {
        let mut s = scenario.clone();
        s.workload.set_load(load)?;
        let plan = Plan::new(&s)?;
        let r = plan.run()?;
        let acc = r.accepted_throughput.fraction_of_injection;
        let senders = r.workload.senders.unwrap_or(r.nodes) as f64 / r.nodes as f64;
        let expected = load * plan.params.format.efficiency() * senders;
        // Below saturation accepted matches expected up to the noise of a Poisson count: allow
        // 5% or three standard deviations of the packets counted in the window, the larger.
        let packets = r.accepted_throughput.bytes_per_ns_per_node * r.window_ns * r.nodes as f64 / plan.params.format.max_payload as f64;
        let tolerance = (3.0 / packets.max(1.0).sqrt()).max(0.05);
        let saturated = !r.drained || acc < (1.0 - tolerance) * expected;
        let p = SweepPoint {
            offered_load: load,
            expected_fraction: expected,
            accepted_fraction: acc,
            latency_mean_ns: r.latency_ns.mean,
            latency_p99_ns: r.latency_ns.p99,
            drained: r.drained,
            saturated,
            wall_seconds: r.wall_seconds,
        };
        each(&p);
        points.push(p);
    }
    let saturation_load = points.iter().find(|p| p.saturated).map(|p| p.offered_load);
    let saturation_throughput = points.iter().map(|p| p.accepted_fraction).fold(0.0, f64::max);
    Ok(SweepReport { points, saturation_load, saturation_throughput })
}

/// One point of a message-size sweep.
#[derive(Debug, Clone, Serialize)]
pub struct SizePoint {
    pub message_bytes: u64,
    pub throughput_gb_per_s: Option<f64>,
    pub one_way_latency_ns: Option<f64>,
    pub completion_ns: Option<f64>,
}

/// Run a benchmark workload (throughput, simultaneous_puts, neighbor_exchange, pingpong,
/// rdma_get, all_to_all) at each message size: the "vs message size" curves of the papers.
pub fn sweep_sizes(scenario: &Scenario, sizes: &[fabricsim_core::Bytes], mut each: impl FnMut(&SizePoint)) -> Result<Vec<SizePoint>, Error> {
    if sizes.is_empty() {
        return Err(ConfigError::new("--sizes", "is empty").into());
    }
    let mut points = Vec::new();
    for &b in sizes {
        let mut s = scenario.clone();
        s.workload.set_message_size(b)?;
        let plan = Plan::new(&s)?;
        let r = plan.run()?;
        let p = SizePoint {
            message_bytes: b.get(),
            throughput_gb_per_s: r.workload.throughput_gb_per_s,
            one_way_latency_ns: r.workload.one_way_latency_ns,
            completion_ns: r.workload.completion_ns,
        };
        each(&p);
        points.push(p);
    }
    Ok(points)
}

/// Size-sweep points as CSV.
pub fn sizes_csv(points: &[SizePoint]) -> String {
    let f = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    let mut s = String::from("message_bytes,throughput_gb_per_s,one_way_latency_ns,completion_ns\n");
    for p in points {
        s.push_str(&format!("{},{},{},{}\n", p.message_bytes, f(p.throughput_gb_per_s), f(p.one_way_latency_ns), f(p.completion_ns)));
    }
    s
}

impl SweepReport {
    pub fn to_csv(&self) -> String {
        let mut s = String::from("offered_load,expected_fraction,accepted_fraction,latency_mean_ns,latency_p99_ns,drained,saturated\n");
        for p in &self.points {
            s.push_str(&format!(
                "{},{:.6},{:.6},{:.3},{:.3},{},{}\n",
                p.offered_load, p.expected_fraction, p.accepted_fraction, p.latency_mean_ns, p.latency_p99_ns, p.drained, p.saturated
            ));
        }
        s
    }
}

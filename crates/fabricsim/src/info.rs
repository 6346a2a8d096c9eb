//! What `fabricsim info` reports: the closed-form analysis of the network, its packet
//! efficiency and the memory a simulation of it would take. Shapes too large to simulate here
//! are still described, from their shape alone.

pub use crate::blocks::PartitionReport;
use crate::plan::{packet_format, Plan};
use crate::scenario::{Scenario, TopologySpec};
use crate::Error;
use fabricsim_core::ConfigError;
use fabricsim_topology::{analysis, packaging, Analysis, FatTree};

/// What `fabricsim info` reports.
#[derive(Debug, Clone, serde::Serialize)]
pub struct InfoReport {
    #[serde(flatten)]
    pub analysis: Analysis,
    /// Payload fraction of a full packet of the scenario's packet format.
    pub packet_efficiency: f64,
    #[serde(flatten)]
    pub link_kinds: Option<packaging::LinkKinds>,
    /// Network links by latency (one entry per distinct latency, ascending): what the
    /// packaging makes of them. Empty when the scenario was not built.
    pub link_latencies: Vec<LinkLatency>,
    /// Estimated memory to simulate the scenario, bytes.
    pub memory_estimate_bytes: u64,
    /// The highest accepted throughput uniform random traffic can reach, as payload over the
    /// injection bandwidth (see [`Plan::uniform_random_bound`]); `None` when not built.
    pub uniform_random_bound: Option<f64>,
    /// The network's in-network collective hardware, in words (`None`: none).
    pub collective_hardware: Option<String>,
    /// Why the scenario was not built (too large for the memory limit): the figures above are
    /// then computed from the shape alone and the rest of the scenario is not checked.
    pub not_built: Option<String>,
    /// How a partitioned run would cut the network (`fabricsim info --partitions N`; absent
    /// without it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<PartitionReport>,
}

/// Links (counted once, both directions alike) of one latency.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct LinkLatency {
    pub latency_ns: f64,
    pub links: u64,
}

/// How a partitioned run would cut the scenario's network into `blocks` blocks (see
/// [`Plan::partition`]); `field` names the count's origin in errors.
pub fn partition(s: &Scenario, blocks: u32, field: &str) -> Result<PartitionReport, Error> {
    Plan::new(s)?.partition(blocks, field)
}

/// Describe the scenario: build and check it when it fits in memory, else analyse its shape.
pub fn info(s: &Scenario) -> Result<InfoReport, Error> {
    match crate::memory::check(s) {
        Ok(_) => Ok(Plan::new(s)?.info()),
        Err(refusal) => {
            let bw = s.topology.link_bandwidth().bytes_per_sec() as f64;
            let analysis = match &s.topology {
                TopologySpec::Torus(t) | TopologySpec::Mesh(t) => {
                    // Checked here as the builder would: the shape is all there is to go on.
                    let nodes = t.shape.iter().try_fold(1u64, |a, &k| a.checked_mul(k as u64).filter(|_| k > 0));
                    if t.shape.is_empty() || !nodes.is_some_and(|n| (2..1 << 53).contains(&n)) {
                        return Err(ConfigError::new("topology.shape", format!("{:?} is not a shape that can be described", t.shape)).into());
                    }
                    analysis::torus_shape(&t.shape, &s.topology.axis_wraps()?, s.nic.injection_engines.unwrap_or(1), bw)
                }
                TopologySpec::FatTree(f) => {
                    let ft = FatTree::new(f.radix, f.levels, f.rails, f.full_radix_top)?;
                    analysis::analyze(&fabricsim_topology::Topology::FatTree(ft), f.rails, s.topology.link_bandwidth())
                }
            };
            Ok(InfoReport {
                analysis,
                packet_efficiency: packet_format(s)?.efficiency(),
                link_kinds: None,
                link_latencies: Vec::new(),
                memory_estimate_bytes: crate::memory::footprint(s)?.bytes,
                uniform_random_bound: None,
                collective_hardware: None,
                not_built: Some(refusal.to_string()),
                partition: None,
            })
        }
    }
}

impl Plan {
    /// The theoretical bound of uniform random traffic on this network, as accepted payload
    /// over injection bandwidth (what a sweep's `accepted` column can reach at most): uniform
    /// random traffic loads every pair alike on average, as an all-to-all does, so its bound is
    /// the all-to-all peak (injection, the busiest axis's channels, the narrowest cut; see
    /// `fabricsim_topology::analysis::all_to_all_peak`) per node over the injection
    /// bandwidth, at most 1, times the packet format's efficiency.
    pub fn uniform_random_bound(&self) -> f64 {
        let n = self.topology.nodes() as f64;
        let (inj, link) = (self.node_injection_bandwidth(), self.params.link_bandwidth.bytes_per_sec() as f64);
        let peak = analysis::all_to_all_peak(&self.topology, inj, link);
        (peak / (n * inj)).min(1.0) * self.params.format.efficiency()
    }

    /// The network's in-network collective hardware, in words (`fabricsim info`).
    pub fn collective_hardware(&self) -> Option<String> {
        if let Some(g) = self.params.hardware.gates() {
            let per = if g.tnis == 1 { "TNI 0".to_string() } else { format!("each of {} TNIs", g.tnis) };
            return Some(format!(
                "Tofu barrier gates: {} channels and {} gates on {per}, reductions of up to {} integer or {} floating-point elements",
                g.channels, g.gates, g.int_elements, g.float_elements
            ));
        }
        let mut dawning = Vec::new();
        if let Some(b) = self.params.hardware.switch_barrier() {
            let vc = if self.scenario.router.class_vcs > 0 { "on the dedicated class VC" } else { "on the unicast VCs" };
            dawning.push(format!("Dawning switch barrier: trees of switches on rail {}, {vc}, acks and resends up, urges down", b.rail));
        }
        if let Some(m) = self.params.hardware.multicast() {
            let grb = if m.grb { "with" } else { "without" };
            dawning.push(format!("Dawning switch multicast on rail {}, {grb} the Global Resource Bulletin, root choice {}", m.rail, m.root.name()));
        }
        if !dawning.is_empty() {
            return Some(dawning.join("; "));
        }
        self.params.hardware.class_routes().map(|c| format!("Blue Gene/Q class routes: {} per node, up to {} inputs combined", c.routes, c.inputs))
    }

    /// The report for a built plan (electrical/optical link counts when packaging is given).
    pub fn info(&self) -> InfoReport {
        let packaged = self.scenario.packaging.block.is_some() || self.scenario.packaging.rack.is_some();
        let g = self.build_graph();
        let link_kinds = packaged.then(|| packaging::count(&g, &g.optical));
        InfoReport {
            analysis: self.analysis(),
            packet_efficiency: self.params.format.efficiency(),
            link_kinds,
            link_latencies: self.link_latencies(&g).into_iter().map(|(latency_ns, ports)| LinkLatency { latency_ns, links: ports / 2 }).collect(),
            memory_estimate_bytes: crate::memory::footprint(&self.scenario).map(|f| f.bytes).unwrap_or(0),
            uniform_random_bound: Some(self.uniform_random_bound()),
            collective_hardware: self.collective_hardware(),
            not_built: None,
            partition: None,
        }
    }
}

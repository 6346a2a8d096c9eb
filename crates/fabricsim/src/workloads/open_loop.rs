//! Open-loop patterns: every node creates one-packet messages as a Poisson process at an
//! offered load, to destinations drawn from a pattern.

use super::{default_packet_size, BuildContext, WorkloadKeys};
use crate::Error;
use fabricsim_core::{Bytes, ConfigError, RngStreams};
use fabricsim_workload::{AnyWorkload, OpenLoop, Pattern, Shape};
use serde::{Deserialize, Serialize};

/// `uniform_random`, `nearest_neighbor`, `transpose`, `bit_complement`, `tornado`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OpenLoopSpec {
    /// Offered load as a fraction of each node's injection bandwidth. Default 0.4.
    pub load: f64,
    /// Packet size on the wire, header included; also the largest packet. Default 512B.
    pub packet_size: Bytes,
}

impl Default for OpenLoopSpec {
    fn default() -> Self {
        OpenLoopSpec { load: 0.4, packet_size: default_packet_size() }
    }
}

/// `hot_region`: a fraction of the traffic goes to the first nodes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HotRegionSpec {
    /// Offered load. Default 0.4.
    pub load: f64,
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Fraction of traffic sent to the hot nodes. Default 0.25.
    pub hot_fraction: f64,
    /// The hot nodes are node ids 0..hot_nodes. Default 1/8 of the nodes.
    pub hot_nodes: Option<u32>,
}

impl Default for HotRegionSpec {
    fn default() -> Self {
        HotRegionSpec { load: 0.4, packet_size: default_packet_size(), hot_fraction: 0.25, hot_nodes: None }
    }
}

/// `sphere`: destinations uniform among the nodes at most `radius` hops away.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SphereSpec {
    /// Offered load. Default 0.4.
    pub load: f64,
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Hop radius of destinations. Default 2.
    pub radius: u32,
}

impl Default for SphereSpec {
    fn default() -> Self {
        SphereSpec { load: 0.4, packet_size: default_packet_size(), radius: 2 }
    }
}

macro_rules! open_loop_keys {
    ($($t:ty),*) => {$(
        impl WorkloadKeys for $t {
            fn packet_size(&self) -> Bytes {
                self.packet_size
            }
            fn packet_size_mut(&mut self) -> &mut Bytes {
                &mut self.packet_size
            }
            fn load(&self) -> Option<f64> {
                Some(self.load)
            }
            fn load_mut(&mut self) -> Option<&mut f64> {
                Some(&mut self.load)
            }
        }
    )*};
}
open_loop_keys!(OpenLoopSpec, HotRegionSpec, SphereSpec);

/// An open-loop workload with `pattern` at `load`.
fn open_loop(cx: &BuildContext, pattern: Pattern, load: f64) -> Result<AnyWorkload, Error> {
    let plan = cx.plan;
    if !(load > 0.0 && load <= 1.0) {
        return Err(ConfigError::new("workload.load", format!("{load} must be above 0 (a load of 0 sends nothing) and at most 1")).into());
    }
    let shape = Shape::of(&plan.topology);
    pattern.check(&shape)?;
    let wire = plan.params.format.max_wire() as u64;
    let payload = plan.params.format.max_payload as u64;
    let seeds = RngStreams::new(plan.scenario.sim.seed);
    let w =
        OpenLoop::new(shape, pattern, load, payload, wire, plan.node_injection_bandwidth(), seeds).with_queue_limit(plan.scenario.nic.queue_limit);
    Ok(AnyWorkload::OpenLoop(w))
}

impl OpenLoopSpec {
    pub(crate) fn build(&self, cx: &BuildContext, pattern: Pattern) -> Result<AnyWorkload, Error> {
        open_loop(cx, pattern, self.load)
    }
}

impl HotRegionSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        let nodes = self.hot_nodes.unwrap_or((cx.plan.topology.nodes() / 8).max(1));
        open_loop(cx, Pattern::HotRegion { fraction: self.hot_fraction, nodes }, self.load)
    }
}

impl SphereSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        open_loop(cx, Pattern::Sphere { radius: self.radius }, self.load)
    }
}

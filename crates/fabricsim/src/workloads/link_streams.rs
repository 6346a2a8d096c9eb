//! `simultaneous_puts` and `neighbor_exchange`: streams pinned to a node's links.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::plan::rank_on;
use crate::Error;
use fabricsim_core::{Bytes, ConfigError, Time};
use fabricsim_topology::{PortKind, Topology, Torus};
use fabricsim_workload::{AnyWorkload, Iterations, LinkStreams, Stream};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkStreamsSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// The node whose links carry the streams. Required.
    pub src: Option<Vec<u32>>,
    /// Message size. Default 8B.
    pub message_size: Bytes,
    /// Messages per stream. Default 1.
    pub messages: u64,
    /// How many of the node's links (in port order: axis by axis, + before -). Default: all.
    pub directions: Option<u32>,
    /// Iterations of the benchmark's loop: each posts its messages once every message of the
    /// previous one has arrived and been polled. Default 1.
    pub iterations: u64,
    /// Time each posting core spends per iteration before its first post (loop control,
    /// re-arming the reception counters), on top of `nic.software_overhead` per message and
    /// `nic.poll_overhead` per completion. Default 0.
    pub iteration_overhead: Time,
    /// Each iteration starts with an in-network barrier of the `src` node (a group of its own,
    /// as the job of a loopback benchmark on one node), so every reception counter is re-armed
    /// before anything is sent; needs `[hardware]`. Default false.
    pub iteration_barrier: bool,
}

impl Default for LinkStreamsSpec {
    fn default() -> Self {
        LinkStreamsSpec {
            packet_size: default_packet_size(),
            src: None,
            message_size: default_message_size(),
            messages: 1,
            directions: None,
            iterations: 1,
            iteration_overhead: Time::ZERO,
            iteration_barrier: false,
        }
    }
}

impl LinkStreamsSpec {
    /// Streams out of the node's first `directions` links; with `exchange`, each neighbour also
    /// streams back over the same link.
    pub(crate) fn build(&self, cx: &BuildContext, exchange: bool) -> Result<AnyWorkload, Error> {
        let plan = cx.plan;
        if !matches!(plan.topology, Topology::Torus(_)) {
            return Err(ConfigError::new("workload.type", "needs a torus/mesh (links named by node ports)").into());
        }
        let src = plan.node_at("workload.src", &self.src)?;
        let size = positive("workload.message_size", self.message_size)?.get();
        let messages = positive("workload.messages", self.messages)?;
        let count = positive("workload.iterations", self.iterations)?;
        if self.iteration_barrier && matches!(plan.params.hardware, fabricsim_network::HardwareSpec::None {}) {
            return Err(ConfigError::new("workload.iteration_barrier", "needs in-network barrier hardware (hardware.type)").into());
        }
        let barrier = self.iteration_barrier.then(|| rank_on(src));
        let iterations = Iterations { count, overhead: self.iteration_overhead, barrier };
        let built;
        let g = match cx.graph {
            Some(g) => g,
            None => {
                built = plan.build_graph();
                &built
            }
        };
        let router = Torus::router_of(src);
        let ports: Vec<u32> = (0..g.ports_of(router)).filter(|&l| g.kind[g.port(router, l).index()] == PortKind::Network).collect();
        let n = self.directions.map(|d| d as usize).unwrap_or(ports.len());
        if n == 0 || n > ports.len() {
            return Err(ConfigError::new("workload.directions", format!("{n} must be between 1 and {} (the node's links)", ports.len())).into());
        }
        let mut streams = Vec::new();
        for &l in &ports[..n] {
            let peer = g.peer_port(g.port(router, l));
            let (me, nb) = (rank_on(src), rank_on(Torus::node_on(g.owner[peer.index()])));
            streams.push(Stream { src: me, port: l as u8, dst: nb });
            if exchange {
                streams.push(Stream { src: nb, port: g.local(peer) as u8, dst: me });
            }
        }
        Ok(AnyWorkload::LinkStreams(LinkStreams::repeated(streams, size, messages, iterations)))
    }
}

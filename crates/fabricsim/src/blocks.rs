//! How a partitioned run would cut the scenario's network (`fabricsim info --partitions N`):
//! the blocks (bricks of a torus, subtrees of a fat-tree; see [`fabricsim_topology::blocks`]),
//! the links cut between them and the lookahead they leave, the smallest latency of what
//! crosses a cut link (a packet's head or a returned credit, which travel alike), the time a
//! block can run ahead of the others.

use crate::plan::Plan;
use crate::Error;
use fabricsim_core::ConfigError;
use fabricsim_topology::Blocks;

/// A partition of the network into blocks, as `fabricsim info --partitions N` reports it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PartitionReport {
    pub blocks: u32,
    /// Parts each torus axis is cut into (empty for a fat-tree).
    pub grid: Vec<u32>,
    pub routers_per_block_min: u32,
    pub routers_per_block_max: u32,
    pub nodes_per_block_min: u32,
    pub nodes_per_block_max: u32,
    /// Router-to-router links between two blocks (each counted once).
    pub cut_links: u64,
    /// Cut links over all router-to-router links.
    pub cut_link_fraction: f64,
    /// The smallest latency over the cut links, ns (`None`: one block, nothing is cut).
    pub lookahead_ns: Option<f64>,
}

impl Plan {
    /// Cut the network into `count` blocks; `field` names where the count came from in
    /// errors. A cut link without latency is refused (no lookahead: a block could not run
    /// ahead at all).
    pub fn partition(&self, count: u32, field: &str) -> Result<PartitionReport, Error> {
        let g = self.build_graph();
        let blocks = Blocks::new(&self.topology, count, field)?;
        let sizes = blocks.sizes();
        let mut nodes = vec![0u32; count as usize];
        for n in 0..g.nodes {
            let router = g.owner[g.attach[(n * g.engines) as usize].index()];
            nodes[blocks.of_router[router.index()] as usize] += 1;
        }
        let mut cut_ports = 0u64;
        let mut lookahead = u64::MAX;
        for p in blocks.cut_ports(&g) {
            cut_ports += 1;
            let latency = self.params.link_latency_of(&g, p);
            if latency == 0 {
                let (router, port) = (g.owner[p], g.local(fabricsim_core::PortId(p as u32)));
                return Err(ConfigError::new(
                    "topology.link_latency",
                    format!(
                        "0 on router {router} port {port}, a link between two of {count} blocks: a partitioned run needs every cut link to take time"
                    ),
                )
                .into());
            }
            lookahead = lookahead.min(latency);
        }
        Ok(PartitionReport {
            blocks: count,
            grid: blocks.grid,
            routers_per_block_min: sizes.iter().copied().min().unwrap_or(0),
            routers_per_block_max: sizes.iter().copied().max().unwrap_or(0),
            nodes_per_block_min: nodes.iter().copied().min().unwrap_or(0),
            nodes_per_block_max: nodes.iter().copied().max().unwrap_or(0),
            cut_links: cut_ports / 2,
            cut_link_fraction: (cut_ports / 2) as f64 / g.network_links().max(1) as f64,
            lookahead_ns: (cut_ports > 0).then(|| lookahead as f64 / 1000.0),
        })
    }
}

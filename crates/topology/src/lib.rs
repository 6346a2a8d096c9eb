//! Network shapes and their analysis.
//!
//! A topology is described by a small value ([`Torus`] or [`FatTree`], wrapped in [`Topology`])
//! and turned into a flat [`PortGraph`]: routers with numbered ports, each port connected to a
//! port of another router, to a node's network interface, or to nothing (the open edge of a
//! mesh). The network layer simulates the port graph; routing uses the shape value to compute
//! directions. Nothing here knows about time or packets.
//!
//! Conventions used throughout:
//! * Node ids of a torus are mixed-radix coordinates with axis 0 varying fastest.
//! * "Hops" between two nodes count the links a packet crosses: router-to-router links in a
//!   direct network (the NIC sits on the router chip), and every link including the two
//!   NIC-to-switch links in a fat-tree.

pub mod analysis;
pub mod blocks;
pub mod fat_tree;
pub mod graph;
pub mod packaging;
pub mod torus;

pub use analysis::Analysis;
pub use blocks::Blocks;
pub use fat_tree::FatTree;
pub use graph::{PortGraph, PortKind};
pub use torus::Torus;

use fabricsim_core::NodeId;

/// A built network shape.
#[derive(Debug, Clone)]
pub enum Topology {
    /// A direct network: an n-dimensional torus or mesh, one router per node.
    Torus(Torus),
    /// An indirect network: a (possibly multi-rail) fat-tree of switches.
    FatTree(FatTree),
}

impl Topology {
    /// Number of nodes (node ids are `0..nodes()`).
    pub fn nodes(&self) -> u32 {
        match self {
            Topology::Torus(t) => t.nodes(),
            Topology::FatTree(f) => f.nodes(),
        }
    }

    /// Minimal hop distance between two nodes.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        match self {
            Topology::Torus(t) => t.distance(a, b),
            Topology::FatTree(f) => f.distance(a, b),
        }
    }

    /// The port graph with `engines` NIC attachments per node (for a fat-tree, one per rail:
    /// `engines` must equal the rail count).
    pub fn build_graph(&self, engines: u32) -> PortGraph {
        match self {
            Topology::Torus(t) => t.build_graph(engines),
            Topology::FatTree(f) => f.build_graph(),
        }
    }
}

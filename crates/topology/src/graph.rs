//! The flat port graph that the network layer simulates.
//!
//! Ports are numbered globally: port `p` of router `r` is `port_offset[r] + p`. Each port is
//! bidirectional: its input side receives from `peer`, its output side sends to `peer`.
//! All per-port data is kept in flat vectors indexed by the global port id.

use fabricsim_core::{NodeId, PortId, RouterId};

/// Marks an unconnected port in [`PortGraph::peer`].
pub const UNCONNECTED: u32 = u32::MAX;

/// What a port's link leads to; says how to read the port's [`PortGraph::peer`] entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PortKind {
    /// Connected to a port of another router; `peer` is that global port.
    Network,
    /// Connected to a node's network interface; `peer` is the node id.
    Terminal,
    /// The open edge of a mesh, or a spare switch port.
    Unconnected,
}

/// Routers, their ports and what each port connects to, in flat vectors indexed by global port
/// id (see the module docs).
#[derive(Debug, Clone)]
pub struct PortGraph {
    /// Number of routers (switches); router ids are `0..routers`.
    pub routers: u32,
    /// Number of nodes; node ids are `0..nodes`.
    pub nodes: u32,
    /// NIC attachments per node (injection/reception engines, or rails for a fat-tree).
    pub engines: u32,
    /// `port_offset[r]..port_offset[r+1]` are router r's ports. Length `routers + 1`.
    pub port_offset: Vec<u32>,
    /// What each global port connects to.
    pub kind: Vec<PortKind>,
    /// Per port: the peer's global port (a network port) or node id (a terminal port), raw,
    /// since it holds either; [`PortGraph::peer_port`] and [`PortGraph::terminal_node`] type it.
    pub peer: Vec<u32>,
    /// Global port each node engine attaches to: `attach[node * engines + e]`.
    pub attach: Vec<PortId>,
    /// Router owning each global port.
    pub owner: Vec<RouterId>,
    /// Optical links (by packaging); empty when all links are alike.
    pub optical: Vec<bool>,
    /// Loopback links (wrap links closed inside a package through its edge hardware, by
    /// packaging); empty when there are none.
    pub loopback: Vec<bool>,
    /// Cable length in metres of each port's link (by the packaging's floor layout; 0: none, a
    /// link inside a package); empty without a floor layout.
    pub cable_m: Vec<f32>,
}

impl PortGraph {
    /// A graph where every router has `ports` ports, all unconnected for now.
    pub fn with_uniform_ports(routers: u32, nodes: u32, ports: u32, engines: u32) -> Self {
        let port_offset: Vec<u32> = (0..=routers).map(|r| r * ports).collect();
        let total = (routers * ports) as usize;
        let owner = (0..routers).flat_map(|r| std::iter::repeat_n(RouterId(r), ports as usize)).collect();
        PortGraph {
            routers,
            nodes,
            engines,
            port_offset,
            kind: vec![PortKind::Unconnected; total],
            peer: vec![UNCONNECTED; total],
            attach: vec![PortId(UNCONNECTED); (nodes * engines) as usize],
            owner,
            optical: Vec::new(),
            loopback: Vec::new(),
            cable_m: Vec::new(),
        }
    }

    /// Global id of local port `local` of `router`. `local` must be below
    /// [`ports_of`](Self::ports_of)`(router)` (not checked).
    #[inline]
    pub fn port(&self, router: RouterId, local: u32) -> PortId {
        PortId(self.port_offset[router.index()] + local)
    }
    /// Index of a global port among its router's ports (the inverse of [`port`](Self::port)).
    #[inline]
    pub fn local(&self, port: PortId) -> u32 {
        port.0 - self.port_offset[self.owner[port.index()].index()]
    }
    /// Number of ports of `router`.
    pub fn ports_of(&self, router: RouterId) -> u32 {
        self.port_offset[router.index() + 1] - self.port_offset[router.index()]
    }
    /// Number of ports over all routers: global port ids are `0..total_ports()`.
    pub fn total_ports(&self) -> u32 {
        *self.port_offset.last().unwrap_or(&0)
    }
    /// Largest port count of any router (0 without routers).
    pub fn max_ports(&self) -> u32 {
        (0..self.routers).map(|r| self.ports_of(RouterId(r))).max().unwrap_or(0)
    }
    /// Router-to-router links, each bidirectional pair counted once.
    pub fn network_links(&self) -> u64 {
        self.kind.iter().filter(|k| **k == PortKind::Network).count() as u64 / 2
    }
    /// Node-to-router attachments.
    pub fn terminal_links(&self) -> u64 {
        self.kind.iter().filter(|k| **k == PortKind::Terminal).count() as u64
    }
    /// The router port engine `engine` of `node` attaches to.
    #[inline]
    pub fn attach_of(&self, node: NodeId, engine: u32) -> PortId {
        self.attach[(node.0 * self.engines + engine) as usize]
    }
    /// The port at the other end of a network port's link.
    #[inline]
    pub fn peer_port(&self, port: PortId) -> PortId {
        PortId(self.peer[port.index()])
    }
    /// Node attached at a terminal port.
    pub fn terminal_node(&self, port: PortId) -> Option<NodeId> {
        (self.kind[port.index()] == PortKind::Terminal).then_some(NodeId(self.peer[port.index()]))
    }
}

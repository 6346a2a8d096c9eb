//! Routing functions.
//!
//! A routing function answers, for a packet at a router: which (output port, virtual channel)
//! pairs may it take next? The answer is a [`Candidates`] set; the router's selection function
//! picks one (the candidate with the most free credit, first on a tie). Deterministic routings
//! return one port (possibly with several equivalent VCs); adaptive routings (BG/Q dynamic and
//! zone routing, a later issue) will return several ports and slot in as new [`Routing`] variants
//! without touching the router.
//!
//! [`Routing`] is a closed enum so the per-hop call is a `match`, not a virtual call.

pub mod cdg;
pub mod dimension_order;
pub mod fat_tree_updown;
pub mod path;

pub use dimension_order::DimensionOrder;
pub use fat_tree_updown::UpDown;

use fabricsim_core::{ConfigError, NodeId, RouterId};
use fabricsim_topology::Topology;

/// Most candidates a routing returns at one hop.
pub const MAX_CANDIDATES: usize = 16;

/// One permitted next step: a local output port of the current router and a VC on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    pub port: u32,
    pub vc: u8,
}

/// A small fixed-capacity set of hops (no allocation on the hot path).
#[derive(Debug, Clone, Copy)]
pub struct Candidates {
    len: u8,
    hops: [Hop; MAX_CANDIDATES],
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates { len: 0, hops: [Hop { port: 0, vc: 0 }; MAX_CANDIDATES] }
    }
}

impl Candidates {
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    pub fn push(&mut self, port: u32, vc: u8) {
        if (self.len as usize) < MAX_CANDIDATES {
            self.hops[self.len as usize] = Hop { port, vc };
            self.len += 1;
        }
    }
    /// Push `port` with every VC in `vcs`.
    #[inline]
    pub fn push_vcs(&mut self, port: u32, vcs: std::ops::Range<u8>) {
        for vc in vcs {
            self.push(port, vc);
        }
    }
    #[inline]
    pub fn as_slice(&self) -> &[Hop] {
        &self.hops[..self.len as usize]
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// All routing algorithms, as a closed set.
#[derive(Debug, Clone)]
pub enum Routing {
    DimensionOrder(DimensionOrder),
    UpDown(UpDown),
}

/// What the scenario asked for, before it is checked against a topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RoutingSpec {
    DimensionOrder { order: Option<Vec<String>> },
    FatTreeUpDown,
}

impl Routing {
    /// Check `spec` against `topo` and build the routing, or explain why it does not fit.
    pub fn build(spec: &RoutingSpec, topo: &Topology, engines: u32, vcs: u8) -> Result<Routing, ConfigError> {
        if vcs == 0 || vcs > 8 {
            return Err(ConfigError::new("router.vcs", format!("{vcs} must be between 1 and 8")));
        }
        match (spec, topo) {
            (RoutingSpec::DimensionOrder { order }, Topology::Torus(t)) => {
                Ok(Routing::DimensionOrder(DimensionOrder::new(t.clone(), order.as_deref(), engines, vcs)?))
            }
            (RoutingSpec::FatTreeUpDown, Topology::FatTree(f)) => Ok(Routing::UpDown(UpDown::new(f.clone(), vcs))),
            (RoutingSpec::DimensionOrder { .. }, Topology::FatTree(_)) => {
                Err(ConfigError::new("routing.type", "'dimension_order' does not fit a fat_tree topology (use 'up_down')"))
            }
            (RoutingSpec::FatTreeUpDown, Topology::Torus(_)) => {
                Err(ConfigError::new("routing.type", "'up_down' does not fit a torus/mesh topology (use 'dimension_order')"))
            }
        }
    }

    /// Permitted next hops for a packet to `dst` that entered `router` on local port `in_port`
    /// and VC `in_vc`.
    #[inline]
    pub fn route(&self, router: RouterId, in_port: u32, in_vc: u8, dst: NodeId, out: &mut Candidates) {
        out.clear();
        match self {
            Routing::DimensionOrder(r) => r.route(router, in_port, in_vc, dst, out),
            Routing::UpDown(r) => r.route(router, dst, out),
        }
    }

    /// The next hop when the routing offers exactly one (its usual case for dimension order
    /// with one VC per dateline half): the same hop [`route`](Self::route) would give as its only
    /// candidate, without building a set. `None`: call `route`.
    #[inline]
    pub fn route_single(&self, router: RouterId, in_port: u32, in_vc: u8, dst: NodeId) -> Option<Hop> {
        match self {
            Routing::DimensionOrder(r) => r.route_single(router, in_port, in_vc, dst),
            Routing::UpDown(_) => None,
        }
    }

    /// Candidates for a first hop forced onto local port `port` (a direction hint, as BG/Q
    /// hint bits): the VC follows the routing's rules for that port. Routings without
    /// directions ignore the hint.
    #[inline]
    pub fn route_via(&self, router: RouterId, port: u32, dst: NodeId, out: &mut Candidates) {
        out.clear();
        match self {
            Routing::DimensionOrder(r) => r.route_via(router, port, out),
            Routing::UpDown(r) => r.route(router, dst, out),
        }
    }

    /// VC a packet uses on its injection port.
    #[inline]
    pub fn injection_vc(&self) -> u8 {
        0
    }

    /// Scenario name of this routing.
    pub fn name(&self) -> &'static str {
        match self {
            Routing::DimensionOrder(_) => "dimension_order",
            Routing::UpDown(_) => "up_down",
        }
    }
}

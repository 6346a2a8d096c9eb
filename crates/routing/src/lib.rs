//! Routing functions.
//!
//! A routing function answers, for a packet at a router: which (output port, virtual channel)
//! pairs may it take next? It reads the packet's [`Header`] (destination, a first-hop hint, a
//! zone selector, whether the packet has entered the escape sub-network) and fills a
//! [`Candidates`] set, each candidate marked *adaptive* or *escape*; the router's
//! [`Selection`] policy picks one. Deterministic routings return one port (possibly with several
//! equivalent VCs), every hop an escape hop: the whole network is their escape sub-network.
//! Adaptive routings ([`adaptive`]; BG/Q dynamic and zone routing) add adaptive candidates and
//! slot in as new [`Kind`] variants without touching the router; a packet that takes an
//! escape hop of an adaptive routing stays on the escape sub-network (`Header::escaped`).
//!
//! A routing owns its VC and engine counts ([`Routing::vcs`], [`Routing::engines`]); the
//! network refuses a simulation whose parameters disagree. [`cdg::find_escape_cycle`] checks
//! the escape sub-network for deadlock as escape-channel theory requires.
//!
//! [`Kind`] is a closed enum so the per-hop call is a `match`, not a virtual call. A [`Routing`]
//! is a `Kind` plus, optionally, dedicated VCs for priority classes ([`classes`]).

pub mod adaptive;
pub mod cdg;
pub mod classes;
pub mod detour;
pub mod dimension_order;
pub mod fat_tree_updown;
pub mod path;
pub mod selection;
pub mod spec;

pub use adaptive::Adaptive;
pub use classes::ClassVcs;
pub use dimension_order::DimensionOrder;
pub use fat_tree_updown::UpDown;
pub use selection::Selection;
pub use spec::Ties;
pub use spec::{AdaptiveSpec, Blocked, DimensionOrderSpec, RoutingSpec, UpDownSpec};

use fabricsim_core::{ConfigError, NodeId, RouterId};
use fabricsim_topology::Topology;

/// Most candidates a routing returns at one hop (more are dropped; routings list their escape
/// hop first, so only adaptive choices can be lost, on very wide routers with many VCs).
pub const MAX_CANDIDATES: usize = 64;

/// One permitted next step: a local output port of the current router and a VC on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hop {
    /// Local index of the output port at the current router.
    pub port: u32,
    /// The VC on that port (below [`Routing::vcs`]).
    pub vc: u8,
    /// On the escape sub-network (deterministic, deadlock-free by itself), as opposed to an
    /// adaptive hop. Every hop of a deterministic routing is an escape hop.
    pub escape: bool,
    /// Bubble flow control: the hop enters a ring on a VC that relies on it, so it is taken
    /// only when the downstream buffer has room for the packet and one largest packet (it leaves room for one
    /// more, so the ring never fills).
    pub bubble: bool,
}

/// No first-hop hint.
pub const NO_HINT: u8 = u8::MAX;

/// What a router reads of a packet to route it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The node that sent the packet (dimension order splits half-ring ties by it).
    pub src: NodeId,
    /// The node the packet is for.
    pub dst: NodeId,
    /// Local output port forced on the first hop (a direction hint, as BG/Q's hint bits), or
    /// [`NO_HINT`]. Routings honour it only where the packet enters from its NIC.
    pub hint: u8,
    /// A routing-class selector (e.g. the zone mask of BG/Q zone routing); 0 by default.
    pub zone: u8,
    /// The packet has taken an escape hop of an adaptive routing and stays on the escape
    /// sub-network (unless the routing lets it leave, [`Adaptive::leaving_escape`]: then its
    /// last hop was an escape hop).
    pub escaped: bool,
}

impl Header {
    /// A header from `src` to `dst` with no hint, zone 0, not escaped.
    pub fn new(src: NodeId, dst: NodeId) -> Self {
        Header { src, dst, hint: NO_HINT, zone: 0, escaped: false }
    }
}

/// A small fixed-capacity set of hops (no allocation on the hot path).
#[derive(Debug, Clone, Copy)]
pub struct Candidates {
    len: u8,
    hops: [Hop; MAX_CANDIDATES],
}

impl Default for Candidates {
    fn default() -> Self {
        Candidates { len: 0, hops: [Hop { port: 0, vc: 0, escape: true, bubble: false }; MAX_CANDIDATES] }
    }
}

impl Candidates {
    /// Remove every hop.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Add a hop (`escape`: on the escape sub-network).
    #[inline]
    pub fn push(&mut self, port: u32, vc: u8, escape: bool) {
        if (self.len as usize) < MAX_CANDIDATES {
            self.hops[self.len as usize] = Hop { port, vc, escape, bubble: false };
            self.len += 1;
        }
    }
    /// Mark the hops so far that satisfy `f` as bubble hops (the others as not).
    pub fn mark_bubbles(&mut self, f: impl Fn(&Hop) -> bool) {
        for h in &mut self.hops[..self.len as usize] {
            h.bubble = f(h);
        }
    }
    /// Number of hops in the set.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Move every hop so far `by` VCs up (a routing built for VC 0 placed on a later VC).
    #[inline]
    pub fn shift_vcs(&mut self, by: u8) {
        for h in &mut self.hops[..self.len as usize] {
            h.vc += by;
        }
    }
    /// Push `port` with every VC in `vcs` (escape hops).
    #[inline]
    pub fn push_vcs(&mut self, port: u32, vcs: std::ops::Range<u8>) {
        for vc in vcs {
            self.push(port, vc, true);
        }
    }
    /// The hops in the order they were pushed.
    #[inline]
    pub fn as_slice(&self) -> &[Hop] {
        &self.hops[..self.len as usize]
    }
    /// Whether the set holds no hop.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The routing algorithms, as a closed set.
// One per simulation, read on every routed hop: kept inline (a box would add a pointer chase
// to the hot path for no memory saved).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Kind {
    /// Dimension-order routing on a torus or mesh.
    DimensionOrder(DimensionOrder),
    /// Minimal adaptive routing on a torus or mesh, with a dimension-order escape sub-network.
    Adaptive(Adaptive),
    /// Up/down routing on a fat-tree.
    UpDown(UpDown),
}

impl Kind {
    #[inline]
    fn route(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, out: &mut Candidates) {
        match self {
            Kind::DimensionOrder(r) => r.route(router, in_port, in_vc, hdr, out),
            Kind::Adaptive(r) => r.route(router, in_port, in_vc, hdr, out),
            Kind::UpDown(r) => r.route(router, hdr, out),
        }
    }
    fn vcs(&self) -> u8 {
        match self {
            Kind::DimensionOrder(r) => r.vcs(),
            Kind::Adaptive(r) => r.vcs(),
            Kind::UpDown(r) => r.vcs(),
        }
    }
    fn uses_bubbles(&self) -> bool {
        match self {
            Kind::DimensionOrder(r) => r.uses_bubbles(),
            Kind::Adaptive(r) => r.uses_bubbles(),
            Kind::UpDown(_) => false,
        }
    }
}

/// A routing: one algorithm for normal traffic on the first [`Routing::own_vcs`] VCs, and
/// optionally dedicated VCs for priority classes after them ([`classes`]).
#[derive(Debug, Clone)]
pub struct Routing {
    kind: Kind,
    classes: Option<Box<ClassVcs>>,
}

impl From<DimensionOrder> for Routing {
    fn from(r: DimensionOrder) -> Self {
        Routing { kind: Kind::DimensionOrder(r), classes: None }
    }
}
impl From<Adaptive> for Routing {
    fn from(r: Adaptive) -> Self {
        Routing { kind: Kind::Adaptive(r), classes: None }
    }
}
impl From<UpDown> for Routing {
    fn from(r: UpDown) -> Self {
        Routing { kind: Kind::UpDown(r), classes: None }
    }
}

impl Routing {
    /// Add `count` dedicated class VCs after the routing's own (see [`classes`]); 0: none.
    /// Refused (naming `router.class_vcs`) beyond 4 or beyond 8 VCs in all.
    pub fn with_class_vcs(mut self, topo: &Topology, count: u8) -> Result<Routing, ConfigError> {
        if count == 0 {
            self.classes = None;
            return Ok(self);
        }
        let own = self.own_vcs();
        if count > 4 || own + count > 8 {
            return Err(ConfigError::new("router.class_vcs", format!("{count}: at most 4, and at most 8 VCs in all with router.vcs = {own}")));
        }
        let order: Vec<usize> = match &self.kind {
            Kind::DimensionOrder(r) => r.order().to_vec(),
            Kind::Adaptive(r) => r.order().to_vec(),
            Kind::UpDown(_) => Vec::new(),
        };
        self.classes = Some(Box::new(ClassVcs::new(topo, &order, self.engines(), own, count)?));
        Ok(self)
    }

    /// Give each dynamic VC of an adaptive routing `k` queues (see [`Adaptive::with_queues`]);
    /// 1: none. Refused for other routings, naming `router.queues`. Call before
    /// [`with_class_vcs`](Self::with_class_vcs).
    pub fn with_queues(mut self, k: u8) -> Result<Routing, ConfigError> {
        if k == 1 {
            return Ok(self);
        }
        if self.classes.is_some() {
            return Err(ConfigError::new("router.queues", "queues are set before class VCs, which follow them"));
        }
        self.kind = match self.kind {
            Kind::Adaptive(a) => Kind::Adaptive(a.with_queues(k)?),
            _ => {
                return Err(ConfigError::new(
                    "router.queues",
                    format!("{k}: queues split the dynamic VCs of routing.type = \"adaptive\"; this routing has none"),
                ))
            }
        };
        Ok(self)
    }

    /// With `yes`, the queues of each dynamic VC share the VC's buffer (see
    /// [`Adaptive::sharing_buffers`]); other routings, or one queue per VC: unchanged.
    pub fn sharing_queue_buffers(mut self, yes: bool) -> Routing {
        if let Kind::Adaptive(a) = self.kind {
            self.kind = Kind::Adaptive(a.sharing_buffers(yes));
        }
        self
    }

    /// Where VC `vc` sits in the queues of a dynamic VC that share its buffer: `Some(0)` for
    /// the first (the one hops name, whose credit is the whole buffer's), `Some(i)` for the
    /// `i`-th after it; `None` for a VC that is not a queue sharing a buffer.
    pub fn shared_queue(&self, vc: u8) -> Option<u8> {
        match &self.kind {
            Kind::Adaptive(a) if a.shares_buffers() && vc >= a.escape_vcs() && vc < a.vcs() => Some((vc - a.escape_vcs()) % a.queues()),
            _ => None,
        }
    }

    /// One bit per VC that is a queue after the first of a shared buffer (see
    /// [`Routing::shared_queue`]); 0 when no queues share a buffer.
    pub fn shared_queue_followers(&self) -> u8 {
        (0..self.own_vcs()).filter(|&vc| self.shared_queue(vc).is_some_and(|i| i > 0)).fold(0, |m, vc| m | 1 << vc)
    }

    /// Adaptive routing: blocked packets commit to the escape hop (see
    /// [`Adaptive::committing`]); other routings: unchanged.
    pub fn committing(mut self, yes: bool) -> Routing {
        if let Kind::Adaptive(a) = self.kind {
            self.kind = Kind::Adaptive(a.committing(yes));
        }
        self
    }

    /// Whether a packet that took an escape hop may take adaptive hops again (see
    /// [`Adaptive::leaving_escape`]).
    pub fn leaves_escape(&self) -> bool {
        matches!(&self.kind, Kind::Adaptive(a) if a.leaves_escape())
    }

    /// Whether a packet with no hop that has room waits for room on any of its hops (adaptive
    /// routing, unless committing).
    pub fn waits_when_blocked(&self) -> bool {
        matches!(&self.kind, Kind::Adaptive(a) if !a.commits_when_blocked())
    }

    /// The buffer share of VC `vc`: 1, or `k` for the `k` queues of a dynamic VC that split
    /// its buffer (each holds a `k`-th of it; queues that share it: 1, see
    /// [`Routing::shared_queue`]).
    pub fn buffer_share(&self, vc: u8) -> u8 {
        match &self.kind {
            Kind::Adaptive(a) if !a.shares_buffers() && vc >= a.escape_vcs() && vc < a.vcs() => a.queues(),
            _ => 1,
        }
    }

    /// The torus or mesh it routes, if it routes one.
    pub fn torus(&self) -> Option<&fabricsim_topology::Torus> {
        match &self.kind {
            Kind::DimensionOrder(r) => Some(r.torus()),
            Kind::Adaptive(r) => Some(r.torus()),
            Kind::UpDown(_) => None,
        }
    }

    /// The algorithm for normal traffic.
    pub fn kind(&self) -> &Kind {
        &self.kind
    }

    /// The dedicated class VCs, if any.
    pub fn classes(&self) -> Option<&ClassVcs> {
        self.classes.as_deref()
    }

    /// Permitted next hops for a packet with header `hdr` that entered `router` on local port
    /// `in_port` and VC `in_vc`.
    #[inline]
    pub fn route(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, out: &mut Candidates) {
        out.clear();
        match &self.classes {
            Some(c) if hdr.zone & classes::CLASS_VC != 0 => c.route(router, in_port, hdr, out),
            _ => self.kind.route(router, in_port, in_vc, hdr, out),
        }
    }

    /// The next hop when the routing offers exactly one (its usual case for dimension order
    /// with one VC per dateline half) to a packet from `src` for `dst` with no hint and zone 0: the same
    /// hop [`route`](Self::route) would give as its only candidate, without building a set.
    /// `None`: call `route`.
    #[inline]
    pub fn route_single(&self, router: RouterId, in_port: u32, in_vc: u8, src: NodeId, dst: NodeId) -> Option<Hop> {
        match &self.kind {
            Kind::DimensionOrder(r) => r.route_single(router, in_port, in_vc, src, dst),
            Kind::Adaptive(_) | Kind::UpDown(_) => None,
        }
    }

    /// VCs a packet with routing selector `zone` (`Header::zone`) may enter its first router on
    /// (from its NIC): the NIC chooses among them by the selection policy. Every VC of the
    /// routing's own (the input VC of an injection port constrains no routing here), except for
    /// deterministic packets of an adaptive routing and packets on a class VC.
    #[inline]
    pub fn injection_vcs(&self, zone: u8) -> std::ops::Range<u8> {
        match (&self.kind, &self.classes) {
            (_, Some(c)) if zone & classes::CLASS_VC != 0 => {
                let vc = c.vc(zone);
                vc..vc + 1
            }
            // Deterministic packets of an adaptive routing enter on the first escape VC (one
            // queue: they stay in order).
            (Kind::Adaptive(_), _) if zone & adaptive::DETERMINISTIC != 0 => 0..1,
            _ => 0..self.own_vcs(),
        }
    }

    /// VCs per port the routing was built for, class VCs included (the network must have as many).
    pub fn vcs(&self) -> u8 {
        self.own_vcs() + self.classes.as_ref().map_or(0, |c| c.count())
    }

    /// VCs of the routing's own algorithm (the first ones of each port).
    pub fn own_vcs(&self) -> u8 {
        self.kind.vcs()
    }

    /// Injection/reception engines per node the routing was built for.
    pub fn engines(&self) -> u32 {
        match &self.kind {
            Kind::DimensionOrder(r) => r.engines(),
            Kind::Adaptive(r) => r.engines(),
            Kind::UpDown(r) => r.tree().rails(),
        }
    }

    /// Whether some hops rely on bubble flow control (buffers must then hold two packets).
    pub fn uses_bubbles(&self) -> bool {
        self.bubble_vcs() != 0
    }

    /// The VCs on which some hops rely on bubble flow control, one bit per VC: every packet in
    /// their buffers is charged a full slot (see the network's credit accounting).
    pub fn bubble_vcs(&self) -> u32 {
        // The bubble VC of a deterministic or adaptive routing is its VC 0.
        let own = self.kind.uses_bubbles() as u32;
        let class = match &self.classes {
            Some(c) if c.uses_bubbles() => ((1u32 << c.count()) - 1) << c.first(),
            _ => 0,
        };
        own | class
    }

    /// Whether it offers adaptive hops (besides its escape sub-network).
    pub fn is_adaptive(&self) -> bool {
        matches!(self.kind, Kind::Adaptive(_))
    }

    /// Scenario name of this routing.
    pub fn name(&self) -> &'static str {
        match self.kind {
            Kind::DimensionOrder(_) => "dimension_order",
            Kind::Adaptive(_) => "adaptive",
            Kind::UpDown(_) => "up_down",
        }
    }
}

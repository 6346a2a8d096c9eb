//! The simulation core and the events that change it. Its state has one owner each: the fabric
//! (`fabric/`: routers, input VCs, outputs, links), the NICs (`nics/`), the end-of-instant phase
//! (`phase/`), the meter (`meter/`: outcome, window, counters, stopping counts) and the
//! in-network hardware (`hardware/`); the core holds them with what they share (the event queue,
//! the packets, the wiring, the parameters). The builder is `build.rs`, the event loop `run.rs`.

use crate::fabric::records::InputVcId;
use crate::fabric::Fabric;
pub use crate::meter::outcome::{Outcome, RunLimits};
use crate::meter::Meter;
use crate::nics::Nics;
use crate::packet::{Packet, PacketId, Slab};
use crate::params::NetworkParams;
use crate::phase::Phase;
use crate::workload::Workload;
use fabricsim_core::{Bandwidth, FastDiv, NodeId, RouterId, SimError, Time};
use fabricsim_engine::EventQueue;
use fabricsim_routing::Routing;
use fabricsim_stats::Observer;
use fabricsim_stats::PortCounters;
use fabricsim_topology::PortGraph;

/// Events. Plain data, 8 bytes (a lane entry with its ordering key is 16: four per cache line).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ev {
    /// A packet's head has passed the router pipeline and may request an output.
    Ready(PacketId),
    /// Output `out` finished sending the head packet of the input VC with request bit `bit` (its
    /// index within the router); the packet's size is still in that VC's record.
    OutFree { out: u32, bit: u8 },
    /// A credit return that travels as an event: an entry of `Core::credit_returns`.
    Credit(u32),
    /// A NIC engine finished pushing a packet into its router (scheduled only when messages
    /// wait for it).
    EngineFree(u32),
    /// A packet's tail reached its destination NIC.
    Deliver(PacketId),
    /// An ejection port finished sending packet `pkt` straight into an on-chip NIC: delivery
    /// and output release in one event (the packet still names its input VC and output).
    EjectDone(PacketId),
    /// A workload timer.
    Wake(u32),
    /// The oldest message posted by a rank finished its sender-side processing and joins the
    /// NIC queue.
    MsgReady(u32),
    /// The oldest Get data a node's NIC posted is ready to join its queue.
    AnswerReady(u32),
    /// A Put's last packet left its sender: an entry of `Core::notes`.
    Sent(u32),
    /// A rank's core polled a completion: an entry of `Core::notes`.
    Polled(u32),
    /// A message finished its receiver-side processing and counts as delivered.
    MsgDone(u32),
    /// A node's host link or memory port became free.
    NicWake(u32),
    /// Event `e` of hardware unit `unit` (its index in `Core::hardware`; see [`crate::hardware`]).
    Unit { unit: u8, e: u32 },
    /// A class-route chunk's head reached its node's collective logic.
    AgentHead(PacketId),
    /// A switch agent's packet, or a multicast copy, has left output `out` (see `crate::hardware::agent`).
    AgentFree(u32),
    /// Every copy of a multicast packet has left its switch (see `crate::hardware::multicast::replicate`).
    CopyDone(PacketId),
    /// The routers' knowledge of failed links changes (see `crate::faults::known`).
    FaultsKnown,
    /// A flit boundary of output `out`'s transmission, where a higher priority may take the
    /// link (see `crate::fabric::flits`).
    FlitSlot(u32),
}

const _: () = assert!(std::mem::size_of::<Ev>() == 8);

/// The event queue keeps a copy of each lane's front event and fills the slots of empty lanes
/// with this value; it is never handled.
impl Default for Ev {
    fn default() -> Self {
        Ev::Wake(u32::MAX)
    }
}

/// A credit return in flight as an event (see [`crate::fabric::records`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CreditReturn {
    /// The input VC whose sender the credit returns to, and how much.
    pub q: InputVcId,
    pub bytes: u32,
}

/// Most VCs per port.
pub const MAX_VCS: usize = 8;

/// Event-queue lanes: each holds events scheduled a (nearly) fixed delay after now, so they
/// arrive in time order and cost O(1); anything else falls back to the queue's heap.
///
/// The lane number is also the order of same-time events (after the heap's): state arriving at
/// a router (credits, packet heads) comes first, and the events that free an output and
/// arbitrate it come last, so an arbitration at time t sees every request and credit of time t.
pub(crate) mod lane {
    pub(crate) const CREDIT: usize = 0;
    pub(crate) const INJECT_READY: usize = 1;
    pub(crate) const HOP_READY: usize = 2;
    pub(crate) const DELIVER: usize = 3;
    pub(crate) const MSG_READY: usize = 4;
    pub(crate) const MSG_DONE: usize = 5;
    pub(crate) const ENGINE_FREE: usize = 6;
    pub(crate) const OUT_FREE: usize = 7;
    pub(crate) const COUNT: usize = 8;
}

/// Network state, separate from the workload so both can be borrowed at once. `O` watches it
/// (see [`Observer`]; `()` for none).
pub struct Core<O = ()> {
    /// The observer, called from the hot path (hooks of `()` compile to nothing).
    pub(crate) obs: O,
    pub(crate) graph: PortGraph,
    pub(crate) routing: Routing,
    pub(crate) p: NetworkParams,
    pub(crate) queue: EventQueue<Ev>,
    pub(crate) packets: Slab<Packet, PacketId>,
    pub(crate) error: Option<SimError>,
    /// The switches' agents (their sinks and queued packets), when some hardware uses them.
    pub(crate) agents: Option<Box<crate::hardware::agent::Agents>>,
    /// The in-network collective hardware (see [`crate::hardware`]).
    pub(crate) hardware: crate::hardware::Hardware,
    pub(crate) fabric: Fabric,
    pub(crate) nics: Nics,
    pub(crate) phase: Phase,
    pub(crate) meter: Meter,
    /// Faulty lanes and link protection (`None`: perfect links; see [`crate::faults`]).
    pub(crate) faults: Option<Box<crate::faults::Faults>>,
    /// In a partitioned run, this block's cut links (see [`crate::partition`]).
    pub(crate) cut: Option<Box<crate::partition::cut::Cut>>,
    /// The seam guard, when a test asked for it (see `fabric/guard.rs`).
    #[cfg(feature = "seam-guard")]
    pub(crate) guard: Option<Box<crate::fabric::guard::SeamGuard>>,
}

/// A simulation: network state plus a workload.
pub struct Simulation<W: Workload, O: Observer = ()> {
    pub(crate) core: Core<O>,
    pub(crate) workload: W,
    /// Where a started run stands (`None`: not started).
    pub(crate) running: Option<crate::run::Running>,
}

impl<O: Observer> Core<O> {
    pub(crate) fn total_ports(&self) -> u32 {
        self.graph.total_ports()
    }

    #[inline]
    pub(crate) fn is_pseudo(&self, port: u32) -> bool {
        port >= self.graph.total_ports()
    }

    /// Owning router of router port `port`, and the router's first global port.
    #[inline]
    pub(crate) fn router_of(&self, port: u32) -> (u32, u32) {
        router_of(self.fabric.router_div, &self.graph, port)
    }

    /// First input-VC index of the router owning port `port` (computed for uniform routers, so
    /// the port's record need not be loaded).
    #[inline]
    pub(crate) fn first_vc_of(&self, port: u32) -> u32 {
        match self.fabric.router_div {
            Some(_) => self.router_of(port).1 * self.fabric.vcs,
            None => self.fabric.outs[port as usize].qbase,
        }
    }

    #[inline]
    pub(crate) fn push_q(&mut self, q: InputVcId, pkt: PacketId) {
        self.packets.get_mut(pkt).next = PacketId::NIL;
        let v = &mut self.fabric.vcq[q.index()];
        let t = v.tail;
        v.tail = pkt;
        if t == PacketId::NIL {
            v.head = pkt;
        } else {
            self.packets.get_mut(t).next = pkt;
        }
    }

    /// Reserve memory time for `bytes` of uncached data at `node` (see [`reserve_memory`]).
    pub(crate) fn reserve_memory(&mut self, node: u32, bytes: u32, write: bool) -> u64 {
        let bw = self.p.memory_bandwidth.expect("uncached implies a memory limit");
        reserve_memory(&mut self.nics.mem_free, bw, self.queue.now().ps(), node, bytes, write)
    }

    /// Ranks in the job: one per node, or as the rank map says.
    pub(crate) fn ranks(&self) -> u32 {
        if self.nics.rank_node.is_empty() {
            self.graph.nodes
        } else {
            self.nics.rank_node.len() as u32
        }
    }

    /// The node rank `r` runs on.
    #[inline(always)]
    pub(crate) fn node(&self, r: u32) -> u32 {
        if self.nics.rank_node.is_empty() {
            r
        } else {
            self.nics.rank_node[r as usize]
        }
    }

    pub(crate) fn wake_at(&mut self, node: u32, at: Time) {
        // A block of a partitioned run wakes its own nodes only (its workload is one of the
        // run's copies, see [`crate::partition`]).
        if self.cut.as_deref().is_some_and(|c| !c.owns_node(node)) {
            return;
        }
        let at = at.max(self.queue.now());
        self.queue.schedule(at, Ev::Wake(node));
    }
}

/// Owning router of router port `port`, and the router's first global port: computed with
/// `router_div` (ports per router, when uniform), else read from the graph.
#[inline]
pub(crate) fn router_of(router_div: Option<FastDiv>, graph: &PortGraph, port: u32) -> (u32, u32) {
    match router_div {
        Some(d) => {
            let r = d.div(port);
            (r, r * d.divisor())
        }
        None => {
            let r = graph.owner[port as usize];
            (r.0, graph.port_offset[r.index()])
        }
    }
}

/// Lookahead routing: the hop a packet for `dst` entering router port `port` on VC `vc` will
/// take there, as a global output port and VC, when the routing gives a single one (`None`:
/// route it when it requests). Such a route depends on nothing that can change meanwhile.
#[inline(always)]
pub(crate) fn hop_ahead(
    router_div: Option<FastDiv>,
    graph: &PortGraph,
    routing: &Routing,
    port: u32,
    vc: u8,
    src: u32,
    dst: u32,
) -> Option<(u32, u8)> {
    let (router, base) = router_of(router_div, graph, port);
    routing.route_single(RouterId(router), port - base, vc, NodeId(src), NodeId(dst)).map(|h| (base + h.port, h.vc))
}

/// Reserve memory time for `bytes` of uncached data at `node` (`write`: a receive, else a
/// send's read) and return when the transfer ends. `mem_free[2 * node]` is when the node's reads
/// are done, `mem_free[2 * node + 1]` its writes. Reads and writes are served like a fair DRAM
/// controller: each direction gets half the bandwidth while the other one is busy (reserved past
/// now), all of it otherwise.
pub(crate) fn reserve_memory(mem_free: &mut [u64], bw: Bandwidth, now: u64, node: u32, bytes: u32, write: bool) -> u64 {
    let (me, other) = (2 * node as usize + write as usize, 2 * node as usize + !write as usize);
    let full = bw.serialization(bytes as u64).ps();
    let t = if mem_free[other] > now { 2 * full } else { full };
    // A write cannot start before its data arrives. A send's read is prefetched: it may overlap
    // the previous packet's transmission, but not the previous read.
    let end = if write { now.max(mem_free[me]) + t } else { (mem_free[me] + t).max(now) };
    mem_free[me] = end;
    end
}

impl<W: Workload> Simulation<W> {
    /// Build a simulation. The graph must have `params.engines` attachments per node.
    pub fn new(graph: PortGraph, routing: Routing, params: NetworkParams, workload: W) -> Result<Self, SimError> {
        Simulation::observed(graph, routing, params, workload, ())
    }
}

impl<W: Workload, O: Observer> Simulation<W, O> {
    /// Build a simulation watched by `obs` (see [`Observer`]): [`Builder`](crate::Builder) in one
    /// call.
    pub fn observed(graph: PortGraph, routing: Routing, params: NetworkParams, workload: W, obs: O) -> Result<Self, SimError> {
        crate::Builder::new(graph, routing, params).observer(obs).build(workload)
    }

    pub(crate) fn from_parts(core: Core<O>, workload: W) -> Self {
        Simulation { core, workload, running: None }
    }

    /// Place ranks on nodes: rank `r` runs on node `rank_node[r]` (several ranks may share a
    /// node). Without a map each node runs one rank, its own id. Call before running.
    pub fn with_rank_map(mut self, rank_node: Vec<NodeId>) -> Result<Self, SimError> {
        let nodes = self.core.graph.nodes;
        if rank_node.is_empty() {
            return Err(fabricsim_core::ConfigError::new("ranks", "a rank map needs at least one rank").into());
        }
        if let Some((r, &n)) = rank_node.iter().enumerate().find(|(_, &n)| n.0 >= nodes) {
            return Err(fabricsim_core::ConfigError::new("ranks", format!("rank {r} is placed on node {n}, beyond the {nodes} nodes")).into());
        }
        let c = &mut self.core;
        (c.nics.posted, c.nics.core_free) = (crate::packet::MsgFifos::new(rank_node.len()), vec![0; rank_node.len()]);
        c.nics.rank_node = rank_node.into_iter().map(u32::from).collect();
        Ok(self)
    }

    /// Test mode: same-instant events come out of the event queue in an order drawn from
    /// `seed` instead of their scheduling order (`sim.tie_order = "shuffle"`). Results must not
    /// change (tests check this); the run is slower.
    pub fn with_tie_shuffle(mut self, seed: u64) -> Self {
        self.core.queue.shuffle_ties(seed);
        self
    }

    /// Send every credit return as an event, as the model did before returns could travel
    /// silently. Results should not change, only the event count (tests check this on
    /// credit-bound traffic). One tie can differ: a return held in a slot and turned into an
    /// event later may wake its sender before, not after, another credit event of the same
    /// instant.
    #[doc(hidden)]
    pub fn with_credit_events(mut self) -> Self {
        self.core.fabric.silent_credits = false;
        self
    }

    /// Route every hop when the packet requests it, as the model did before grants looked the
    /// next hop up. Results must not change at all (tests check this).
    #[doc(hidden)]
    pub fn without_lookahead(mut self) -> Self {
        self.core.fabric.lookahead = false;
        self
    }

    /// Prefetch ahead of output releases whatever the network's size (normally only above
    /// [`crate::fabric::warm::WARM_RELEASES_ABOVE`] bytes of input-VC records). Only speed changes.
    #[doc(hidden)]
    pub fn with_release_prefetch(mut self) -> Self {
        self.core.fabric.warm_releases = true;
        self
    }

    /// Check, step by step, that only the link code crosses between routers (see the
    /// network's `fabric/guard.rs`; slow: for tests of small networks). Read the result with
    /// [`seam_guard`](Self::seam_guard).
    #[cfg(feature = "seam-guard")]
    pub fn with_seam_guard(mut self) -> Self {
        self.core.guard = Some(Box::new(crate::fabric::guard::SeamGuard::new(&self.core.graph)));
        self
    }

    /// With the seam guard on: the steps it checked, and every crossing it found outside the
    /// link code.
    #[cfg(feature = "seam-guard")]
    pub fn seam_guard(&self) -> Option<(u64, &[String])> {
        self.core.guard.as_ref().map(|g| (g.steps, g.violations.as_slice()))
    }

    /// The smallest latency of what crosses a link between two routers (a packet's head, a
    /// credit return): how far ahead a part of the network can run without hearing from the
    /// rest (`None`: no such link). A partitioned run needs it positive; a sequential run
    /// accepts links without latency (the zero-load latency tests use them).
    pub fn lookahead(&self) -> Option<Time> {
        let c = &self.core;
        let links = (0..c.graph.total_ports() as usize).filter(|&p| c.graph.kind[p] == fabricsim_topology::PortKind::Network);
        links.map(|p| (c.fabric.outs[p].latency as u64).min(c.fabric.timing.credit_latency(c.fabric.outs[p].class))).min().map(Time)
    }

    /// The lookahead a partitioned run advances by ([`lookahead`](Self::lookahead)), which must
    /// be positive: an error names the first router-to-router link a packet head or credit
    /// crosses without latency (such a run could not advance), or says there is no link to cut.
    pub fn partition_lookahead(&self) -> Result<Time, SimError> {
        let c = &self.core;
        let zero = (0..c.graph.total_ports() as usize).find(|&p| {
            c.graph.kind[p] == fabricsim_topology::PortKind::Network
                && (c.fabric.outs[p].latency == 0 || c.fabric.timing.credit_latency(c.fabric.outs[p].class) == 0)
        });
        if let Some(p) = zero {
            let router = c.graph.owner[p];
            let port = c.graph.local(fabricsim_core::PortId(p as u32));
            let msg = format!(
                "router {router} port {port}: a link without latency leaves a partitioned run no lookahead (a packet or credit could arrive at once)"
            );
            return Err(fabricsim_core::ConfigError::new("topology.link_latency", msg).into());
        }
        self.lookahead().ok_or_else(|| fabricsim_core::ConfigError::new("topology", "no link between routers to cut into partitions").into())
    }

    /// The port graph being simulated.
    pub fn graph(&self) -> &PortGraph {
        &self.core.graph
    }
    /// The network parameters it was built with.
    pub fn params(&self) -> &NetworkParams {
        &self.core.p
    }
    /// The workload driving the run.
    pub fn workload(&self) -> &W {
        &self.workload
    }
    /// The workload driving the run, mutably.
    pub fn workload_mut(&mut self) -> &mut W {
        &mut self.workload
    }
    /// The observer.
    pub fn observer(&self) -> &O {
        &self.core.obs
    }
    /// The observer, to take results out of it.
    pub fn observer_mut(&mut self) -> &mut O {
        &mut self.core.obs
    }
    /// Per-port counters, indexed by global port id.
    ///
    /// They cover the measurement window: what was counted between the window's start and its
    /// end (or the end of the run, if that came first). A transmission is counted when it is
    /// granted, so one that straddles a boundary counts wholly on the side it started.
    pub fn port_counters(&self) -> Vec<PortCounters> {
        let c = &self.core;
        let now = c.fabric.counters_now(c.total_ports());
        let start = if c.meter.counters_at_start.is_empty() { &now } else { &c.meter.counters_at_start };
        let end = if c.meter.counters_at_end.is_empty() { &now } else { &c.meter.counters_at_end };
        end.iter().zip(start).map(|(e, s)| e.since(s)).collect()
    }

    /// The wiring of in-network collective group `id` (Tofu barrier gates), once made.
    pub fn gate_wiring(&self, id: u32) -> Option<&crate::hardware::gates::Wiring> {
        self.core.hardware.get::<crate::hardware::gates::GateUnit>()?.wiring(id)
    }

    /// The switch-barrier tree of in-network collective group `id` (Dawning), once made.
    pub fn barrier_tree(&self, id: u32) -> Option<&crate::hardware::switch_barrier::SwitchTree> {
        self.core.hardware.get::<crate::hardware::switch_barrier::SwitchBarrier>()?.tree(id)
    }

    /// What the switch barrier has done so far (packets, losses, resends, urges).
    pub fn barrier_counts(&self) -> Option<crate::hardware::switch_barrier::BarrierCounts> {
        self.core.hardware.get::<crate::hardware::switch_barrier::SwitchBarrier>().map(|b| b.counts)
    }

    /// The switches Dawning's multicast has chosen as roots so far, with how often (by router id).
    pub fn multicast_roots(&self) -> Vec<(u32, u64)> {
        let mut v: Vec<(u32, u64)> = self
            .core
            .hardware
            .get::<crate::hardware::multicast::Multicast>()
            .map(|m| m.roots.iter().map(|(&r, &n)| (r, n)).collect())
            .unwrap_or_default();
        v.sort_unstable();
        v
    }

    /// What flit multiplexing did so far (`None`: links send whole packets).
    pub fn flit_counts(&self) -> Option<crate::FlitCounts> {
        self.core.fabric.flits.as_deref().map(|f| f.counts())
    }

    /// What the link faults and their protection did so far (`None`: no fault configured).
    pub fn fault_counts(&self) -> Option<crate::faults::FaultCounts> {
        self.core.faults.as_ref().map(|f| f.report())
    }

    /// Whether the link leaving router port `port` is down at `t` (by the scheduled events;
    /// both directions of a link always agree). False without faults.
    pub fn link_down_at(&self, port: fabricsim_core::PortId, t: Time) -> bool {
        self.core.faults.as_ref().is_some_and(|f| f.link_down_at(port.0, t))
    }

    /// The tree of in-network collective group `id`'s class route (Blue Gene/Q), once made.
    pub fn class_tree(&self, id: u32) -> Option<&crate::hardware::class_routes::ClassTree> {
        self.core.hardware.get::<crate::hardware::class_routes::ClassRoutes>()?.class_tree(id)
    }
}

//! The simulation: network state (struct of arrays indexed by global port / node), the event
//! loop, measurement windows and correctness guards.

use crate::channel::ChannelTiming;
use crate::link;
use crate::packet::{Message, Packet, PacketId, Slab, NIL};
use crate::params::NetworkParams;
use crate::records::{InputVc, InputVcId, OutPort, Stall};
use crate::workload::{Api, Rank, Workload};
use fabricsim_core::{Bandwidth, FastDiv, NodeId, RouterId, SimError, Time};
use fabricsim_engine::EventQueue;
use fabricsim_routing::{Candidates, Routing};
use fabricsim_stats::Observer;
use fabricsim_stats::{LatencyHistogram, PortCounters};
use fabricsim_topology::{PortGraph, PortKind};

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
    /// A barrier gate has been processed: an entry of the gate unit's `firing`.
    Gate(u32),
    /// A class-route step: an entry of the class-route unit's `events`.
    Class(u32),
    /// A class-route chunk's head reached its node's collective logic.
    AgentHead(PacketId),
    /// A switch-barrier step: an entry of the barrier unit's `events`.
    SwitchBarrier(u32),
    /// A switch agent's packet, or a multicast copy, has left output `out` (see `crate::agent`).
    AgentFree(u32),
    /// A multicast step: an entry of the multicast unit's `steps`.
    Multicast(u32),
    /// Every copy of a multicast packet has left its switch (see `crate::replicate`).
    CopyDone(PacketId),
}

const _: () = assert!(std::mem::size_of::<Ev>() == 8);

/// The event queue keeps a copy of each lane's front event and fills the slots of empty lanes
/// with this value; it is never handled.
impl Default for Ev {
    fn default() -> Self {
        Ev::Wake(u32::MAX)
    }
}

/// A credit return in flight as an event (see [`crate::records`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct CreditReturn {
    /// The sender the credit returns to, the input VC it frees space in, and how much.
    pub port: u32,
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
    pub const CREDIT: usize = 0;
    pub const INJECT_READY: usize = 1;
    pub const HOP_READY: usize = 2;
    pub const DELIVER: usize = 3;
    pub const MSG_READY: usize = 4;
    pub const MSG_DONE: usize = 5;
    pub const ENGINE_FREE: usize = 6;
    pub const OUT_FREE: usize = 7;
    pub const COUNT: usize = 8;
}

/// Events between checks of rare conditions (errors, the deadlock watchdog).
const RARE_CHECK_EVERY: u64 = 4096;
/// Events between progress reports (a multiple of `RARE_CHECK_EVERY`).
const PROGRESS_EVERY: u64 = 1 << 20;

/// Measurement window and stopping rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLimits {
    /// Messages created before this are warm-up traffic and not measured.
    pub warmup: Time,
    /// Length of the measurement window that follows the warm-up.
    pub measure: Time,
    /// After the window, keep running (traffic continues) until every measured message has
    /// arrived, but at most this long.
    pub drain: Time,
}

impl RunLimits {
    /// The latest a run can go on: warm-up + window + drain (saturating).
    pub fn hard_end(&self) -> Time {
        Time(self.warmup.ps().saturating_add(self.measure.ps()).saturating_add(self.drain.ps()))
    }

    /// Refuse limits that could take the run past the event queue's horizon
    /// ([`fabricsim_engine::MAX_TIME`]); the error names `field`, the key that set them.
    pub fn check(&self, field: &str) -> Result<(), fabricsim_core::ConfigError> {
        let end = self.hard_end().ps();
        if end >= fabricsim_engine::MAX_TIME.ps() {
            return Err(fabricsim_core::ConfigError::new(
                field,
                format!(
                    "the run could last {:.0} s (warm-up + window + drain), beyond the {:.0} s the event queue holds",
                    end as f64 * 1e-12,
                    fabricsim_engine::MAX_TIME.ps() as f64 * 1e-12
                ),
            ));
        }
        Ok(())
    }
}

/// How a run ended and what it measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub sim_time: Time,
    pub events: u64,
    /// Packets handed from NICs to routers (and packets the collective hardware creates in the
    /// switches: switch agents' packets, multicast copies).
    pub packets_injected: u64,
    /// Packets that reached their NIC or switch agent (and multicast packets whose copies have
    /// all left: they end in their copies).
    pub packets_delivered: u64,
    /// Payload bytes delivered (whole run).
    pub bytes_delivered: u64,
    pub messages_delivered: u64,
    /// Router traversals (grants at router outputs, ejection included).
    pub packet_hops: u64,
    /// Latency of measured messages, creation to last byte delivered.
    pub message_latency: LatencyHistogram,
    /// Latency of measured packets.
    pub packet_latency: LatencyHistogram,
    /// Payload bytes delivered inside the measurement window.
    pub window_bytes: u64,
    /// The part of `window_bytes` delivered in the window's first half (a ramp between the two
    /// halves means the run had not reached steady state).
    pub window_bytes_first_half: u64,
    pub window: Time,
    /// Whether every measured message arrived (false: saturated, results biased).
    pub drained: bool,
    /// High-water marks of the packet and message slabs.
    pub peak_packets: usize,
    pub peak_messages: usize,
    /// Delivered packets of an adaptive routing that took the escape sub-network on the way.
    pub packets_escaped: u64,
}

/// Network state, separate from the workload so both can be borrowed at once. `O` watches it
/// (see [`Observer`]; `()` for none).
pub struct Core<O = ()> {
    /// The observer, called from the hot path (hooks of `()` compile to nothing).
    pub(crate) obs: O,
    pub(crate) graph: PortGraph,
    pub(crate) routing: Routing,
    pub(crate) p: NetworkParams,
    pub(crate) timing: ChannelTiming,
    pub(crate) queue: EventQueue<Ev>,
    pub(crate) vcs: u32,
    /// Divides input-VC indices by `vcs` (and engine pseudo-ports by engines per node) without
    /// a hardware divide.
    pub(crate) vcs_div: FastDiv,
    pub(crate) engines_div: FastDiv,
    /// Ports per router when every router has the same number (tori, and the built-in
    /// fat-trees): the owner and first port of a port are then computed, not loaded from memory.
    /// Otherwise the port graph's `owner` and `port_offset` are read.
    pub(crate) router_div: Option<FastDiv>,
    /// Hot state of every sender: router output ports, then NIC engine pseudo-ports
    /// (`total_ports + node * engines + e`).
    pub(crate) outs: Vec<OutPort>,
    /// One bit per sender: whether its request mask is non-empty (a dense copy of `req != 0`,
    /// so a transmission's end can skip arbitration without loading the record).
    pub(crate) requested: Vec<u64>,
    /// With a shared crossbar (`NetworkParams::shared_crossbar`), when each router port's
    /// crossbar input frees (its packet under way has left); empty otherwise.
    pub(crate) in_busy: Vec<u64>,
    /// With a shared crossbar: each port's last VC to take its crossbar input (round-robin).
    pub(crate) in_rr: Vec<u8>,
    /// With a shared crossbar: outputs to arbitrate again at the end of the instant (see
    /// `Core::crossbar`).
    pub(crate) xbar_retry: Vec<u32>,
    /// Credit-stall bookkeeping of every sender, indexed like `outs`.
    pub(crate) stall: Vec<Stall>,
    /// Who feeds each router port's input side: the peer output, or the NIC engine pseudo-port
    /// (`NIL`: none). Read only when a credit return travels as an event (or at once, with no
    /// credit latency), not for one waiting in its buffer's slot.
    pub(crate) upstream: Vec<u32>,
    /// Every input VC, indexed `port * vcs + vc`.
    pub(crate) vcq: Vec<InputVc>,
    pub(crate) packets: Slab<Packet, PacketId>,
    /// Credit returns travelling as events.
    pub(crate) credit_returns: Slab<CreditReturn>,
    pub(crate) messages: Slab<Message>,
    /// Gets in progress (their request and data messages carry the entry as their tag).
    pub(crate) gets: Slab<crate::packet::GetState>,
    pub(crate) nic_head: Vec<u32>,
    pub(crate) nic_tail: Vec<u32>,
    pub(crate) nic_rr: Vec<u32>,
    /// The node of each rank (empty: one rank per node, rank = node).
    pub(crate) rank_node: Vec<u32>,
    /// Per rank: messages posted and still in their sender-side processing, oldest first.
    pub(crate) posted: crate::packet::MsgFifos,
    /// Per node: Get data its NIC posted, still in the NIC's sender-side processing.
    pub(crate) answered: crate::packet::MsgFifos,
    /// Per rank: when its core is done with the software part of the messages it posted.
    pub(crate) core_free: Vec<u64>,
    /// Whether the workload wants local completions.
    pub(crate) notify_sent: bool,
    /// Completions on their way to a workload callback (`Ev::Sent`, `Ev::Polled`).
    pub(crate) notes: Slab<crate::workload::Delivered>,
    /// Completions of the current instant, handed to the workload at its end.
    pub(crate) handover: Vec<crate::delivery::Handover>,
    /// Whether the workload hears completions at all.
    pub(crate) listen: bool,
    /// Messages that reached their node's NIC during the current instant and are dealt to
    /// its engines at its end (when not dealt at once, see `Core::enqueue_message`).
    pub(crate) arrivals: Vec<u32>,
    /// When each node's host link is free again.
    pub(crate) host_free: Vec<u64>,
    /// When each node's memory reads (for sends) and writes (for receives) of uncached data are
    /// done: `mem_free[2 * node]` reads, `mem_free[2 * node + 1]` writes.
    pub(crate) mem_free: Vec<u64>,
    /// Pending NicWake time per node (avoids duplicate wake-ups).
    pub(crate) nic_wake: Vec<u64>,
    /// Per engine (`node * engines + e`): the time of its pending EngineFree, if one is
    /// pending. An engine gets one only while it is busy with messages waiting behind it.
    pub(crate) engine_wake: Vec<u64>,
    /// Messages waiting at each engine (`node * engines + engine`), for the shortest-queue
    /// engine choice.
    pub(crate) engine_queued: Vec<u32>,
    /// Per engine: until when a paced flow holds it (see `Message::pace`).
    pub(crate) paced_until: Vec<u64>,
    /// Per node: messages at its NIC not yet cut into packets (what a source sees of its
    /// backlog: `Nic::queued`).
    pub(crate) queued: Vec<u32>,
    pub(crate) cands: Candidates,
    /// Outputs posted for arbitration at the end of the instant, each once (its bit in
    /// `arb_mark`), and nodes whose NICs inject then (`nic_mark`); see [`crate::phase`].
    pub(crate) arb_due: Vec<u32>,
    /// Head packets that choose among candidate hops at the end of the instant.
    pub(crate) select_due: Vec<u32>,
    pub(crate) arb_mark: Vec<u64>,
    pub(crate) nic_due: Vec<u32>,
    pub(crate) nic_mark: Vec<u64>,
    pub(crate) phase_scratch: Vec<u32>,
    /// Whether anything waits for the end of the instant (a posted output, node or choice, a
    /// message to deal, a completion to hand over).
    pub(crate) due: bool,
    // bookkeeping
    /// Per source node: packets it has created (a packet's id is its source and this count, so
    /// ids do not depend on what other nodes do).
    pub(crate) next_seq: Vec<u32>,
    /// Per source node: which of its packets were delivered (the duplicate guard).
    pub(crate) delivered_bits: Vec<Vec<u64>>,
    pub(crate) last_progress: u64,
    pub(crate) in_network: u64,
    pub(crate) measured_outstanding: u64,
    pub(crate) window_start: u64,
    pub(crate) window_end: u64,
    pub(crate) error: Option<SimError>,
    /// Something the run's stopping rules depend on may have changed (the last measured or the
    /// last live message completed, the workload ran with nothing in flight, the window
    /// closed): the run loop re-checks them only then.
    pub(crate) check_stop: bool,
    /// Whether credit returns nobody waits for may travel without an event (see
    /// [`crate::records`]).
    pub(crate) silent_credits: bool,
    /// With bubble flow control (on the VCs the routing says, `Routing::bubble_vcs`), every
    /// packet in such a VC's buffer is charged a slot, the largest packet's size, whatever its
    /// own: the buffer then holds whole slots, and the free space of a ring cannot fragment into
    /// pieces too small for the packets waiting to move. Other VCs charge packets their size.
    pub(crate) slots: link::Slots,
    /// Largest payload of a packet on a class VC (its buffer may be smaller than others).
    pub(crate) class_payload: u32,
    /// Dedicated class VCs (see `fabricsim_routing::classes`): messages of a priority class
    /// above 0 travel on them when there are any.
    pub(crate) class_vcs: u8,
    /// Whether output releases prefetch ahead (see [`crate::warm`]): only when the input VC
    /// records outgrow the second-level cache.
    pub(crate) warm_releases: bool,
    /// Whether a grant looks the packet's next hop up (when the routing gives a single one)
    /// instead of leaving it to the packet's request at the next router.
    pub(crate) lookahead: bool,
    pub(crate) out: Outcome,
    /// Latencies of measured one-packet messages with no receive overhead, where the message's
    /// latency is its packet's: recorded once here instead of in both of `out`'s histograms,
    /// and added to both when the run returns its outcome.
    pub(crate) single_latency: LatencyHistogram,
    /// Port counters when the measurement window began and ended (empty until then).
    pub(crate) counters_at_start: Vec<PortCounters>,
    pub(crate) counters_at_end: Vec<PortCounters>,
    /// Tofu barrier gates, when the NICs have them.
    pub(crate) gates: Option<Box<crate::gates::GateUnit>>,
    /// Blue Gene/Q class routes, when the routers have them.
    pub(crate) classes: Option<Box<crate::class_routes::ClassRoutes>>,
    /// Dawning's switch barrier, when the switches have it.
    pub(crate) switch_barrier: Option<Box<crate::switch_barrier::SwitchBarrier>>,
    /// The switches' agents (their sinks and queued packets), when some hardware uses them.
    pub(crate) agents: Option<Box<crate::agent::Agents>>,
    /// Adaptive routing: head packets waiting for room on any of their hops (see
    /// [`crate::sleep`]; `None`: other routings, or blocked packets commit to the escape hop).
    pub(crate) sleepers: Option<Box<crate::sleep::Sleepers>>,
    /// Dawning's switch multicast, when the switches have it.
    pub(crate) multicast: Option<Box<crate::multicast::Multicast>>,
    /// Whether the network has any of the collective hardware above (one test per instant).
    pub(crate) hardware: bool,
}

/// A simulation: network state plus a workload.
pub struct Simulation<W: Workload, O: Observer = ()> {
    core: Core<O>,
    workload: W,
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
        router_of(self.router_div, &self.graph, port)
    }

    /// First input-VC index of the router owning port `port` (computed for uniform routers, so
    /// the port's record need not be loaded).
    #[inline]
    pub(crate) fn first_vc_of(&self, port: u32) -> u32 {
        match self.router_div {
            Some(_) => self.router_of(port).1 * self.vcs,
            None => self.outs[port as usize].qbase,
        }
    }

    #[inline]
    pub(crate) fn push_q(&mut self, q: InputVcId, pkt: PacketId) {
        self.packets.get_mut(pkt).next = PacketId::NIL;
        let v = &mut self.vcq[q.index()];
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
        reserve_memory(&mut self.mem_free, bw, self.queue.now().ps(), node, bytes, write)
    }

    /// Ranks in the job: one per node, or as the rank map says.
    pub(crate) fn ranks(&self) -> u32 {
        if self.rank_node.is_empty() {
            self.graph.nodes
        } else {
            self.rank_node.len() as u32
        }
    }

    /// The node rank `r` runs on.
    #[inline(always)]
    pub(crate) fn node(&self, r: u32) -> u32 {
        if self.rank_node.is_empty() {
            r
        } else {
            self.rank_node[r as usize]
        }
    }

    pub(crate) fn wake_at(&mut self, node: u32, at: Time) {
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
    /// Build a simulation watched by `obs` (see [`Observer`]).
    pub fn observed(graph: PortGraph, routing: Routing, params: NetworkParams, workload: W, obs: O) -> Result<Self, SimError> {
        params.validate()?;
        let max = params.format.max_wire();
        let own = routing.own_vcs();
        let class_buffer = params.class_buffer_bytes.unwrap_or(params.buffer_bytes);
        // Bubble VCs: the routing's VC 0, or its class VCs.
        let bubbles = routing.bubble_vcs();
        if bubbles & 1 != 0 && params.buffer_bytes < 2 * max {
            return Err(fabricsim_core::ConfigError::new(
                "router.buffer",
                format!(
                    "{}B per VC cannot hold two {max}B packets, which bubble flow control needs to let a packet enter a ring",
                    params.buffer_bytes
                ),
            )
            .into());
        }
        let class_bubbles = bubbles >> own != 0;
        let share = (0..own).map(|vc| routing.buffer_share(vc)).max().unwrap_or(1) as u32;
        if params.buffer_bytes / share < max {
            return Err(fabricsim_core::ConfigError::new(
                "router.queues",
                format!("{share} queues of {}B each cannot hold one {max}B packet", params.buffer_bytes / share),
            )
            .into());
        }
        // Class messages are cut into packets that fit their VC's buffer.
        let class_payload = match routing.classes() {
            None => params.max_payload(),
            // With bubbles a class VC's buffer holds two of its packets.
            Some(_) => params.format.largest_payload_within(if class_bubbles { class_buffer / 2 } else { class_buffer }).ok_or_else(|| {
                let what = if class_bubbles { "two packets (bubble flow control on its rings)" } else { "a packet" };
                fabricsim_core::ConfigError::new("router.class_buffer", format!("{class_buffer}B cannot hold {what} with a one-byte payload"))
            })?,
        };
        if graph.engines != params.engines {
            return Err(fabricsim_core::ConfigError::new(
                "nic.injection_engines",
                format!("{} engines in the parameters but the port graph was built for {}", params.engines, graph.engines),
            )
            .into());
        }
        if routing.vcs() != params.vcs || routing.engines() != graph.engines {
            return Err(fabricsim_core::ConfigError::new(
                "router.vcs",
                format!(
                    "the routing was built for {} VCs and {} engines per node, the network has {} VCs and {} engines",
                    routing.vcs(),
                    routing.engines(),
                    params.vcs,
                    graph.engines
                ),
            )
            .into());
        }
        let vcs = params.vcs as u32;
        let max_ports = graph.max_ports();
        if vcs as usize > MAX_VCS {
            return Err(fabricsim_core::ConfigError::new("router.vcs", format!("{vcs} exceeds the {MAX_VCS} VCs a port supports")).into());
        }
        if max_ports * vcs > 128 {
            return Err(fabricsim_core::ConfigError::new(
                "router.vcs",
                format!("{} VCs x {} ports per router exceeds the 128 input VCs a router supports", vcs, max_ports),
            )
            .into());
        }
        let tp = graph.total_ports() as usize;
        let pseudo = (graph.nodes * graph.engines) as usize;
        let mut outs = vec![OutPort::default(); tp + pseudo];
        let mut upstream = vec![NIL; tp];
        let mut vcq = vec![InputVc::default(); tp * vcs as usize];
        let mut timing = ChannelTiming::new(&params);
        for (p, o) in outs.iter_mut().enumerate().take(tp) {
            o.class = timing.of_port(&graph, p, &params).ok_or_else(|| {
                fabricsim_core::ConfigError::new("packaging.rack", "more than 250 distinct cable latencies; round the floor layout's lengths")
            })?;
            o.latency = u32::try_from(timing.latency(o.class)).map_err(|_| {
                let field = if graph.cable_m.is_empty() { "topology.link_latency" } else { "packaging.cable_delay" };
                fabricsim_core::ConfigError::new(field, "a link's latency exceeds the 4.29 ms a link may have")
            })?;
            o.qbase = graph.port_offset[graph.owner[p].index()] * vcs;
            o.peer = graph.peer[p];
            if graph.kind[p] == PortKind::Network {
                upstream[p] = graph.peer[p];
            }
        }
        for (i, &gp) in graph.attach.iter().enumerate() {
            upstream[gp.index()] = (tp + i) as u32;
            outs[tp + i].peer = gp.0;
        }
        // Every fed input VC starts with its whole buffer free.
        for (q, v) in vcq.iter_mut().enumerate() {
            let up = upstream[q / vcs as usize];
            if up != NIL {
                v.up_class = outs[up as usize].class;
                let vc = (q % vcs as usize) as u8;
                v.credits = if vc < own { params.buffer_bytes / routing.buffer_share(vc) as u32 } else { class_buffer };
            }
        }
        // Switch agents: a sink output per router, after the engines (see `crate::agent`), for
        // the logic in a fat-tree's switches (the up/down routing's tree).
        let fat_tree = match routing.kind() {
            fabricsim_routing::Kind::UpDown(u) => Some(u.tree().clone()),
            _ => None,
        };
        let switch_logic = params.switch_barrier.is_some() || params.multicast.is_some();
        let agents = match (switch_logic, &fat_tree) {
            (false, _) => None,
            (true, None) => {
                let field = if params.switch_barrier.is_some() { "switch_barrier.enabled" } else { "multicast.enabled" };
                return Err(fabricsim_core::ConfigError::new(field, "this is logic in the switches of a fat-tree (up/down routing)").into());
            }
            (true, Some(_)) => {
                if max_ports * vcs > crate::agent::AGENT_BIT {
                    let msg = format!("{vcs} VCs x {max_ports} ports per router leave no request bit for the switch agents (at most 127 input VCs)");
                    return Err(fabricsim_core::ConfigError::new("router.vcs", msg).into());
                }
                if let Some(b) = params.switch_barrier.as_ref().filter(|_| routing.classes().is_some()) {
                    if b.payload > class_payload {
                        let msg =
                            format!("{} bytes: a barrier packet must fit the {class_payload}-byte payload the class VC's buffer takes", b.payload);
                        return Err(fabricsim_core::ConfigError::new("switch_barrier.payload", msg).into());
                    }
                }
                let sinks = outs.len() as u32;
                for r in 0..graph.routers as usize {
                    let qbase = graph.port_offset[r] * vcs;
                    outs.push(OutPort { class: crate::channel::TERMINAL, latency: 0, qbase, peer: u32::MAX, ..OutPort::default() });
                }
                Some(Box::new(crate::agent::Agents::new(sinks)))
            }
        };
        let hardware = params.gates.is_some() || params.class_routes.is_some() || switch_logic;
        let vcq_bytes = vcq.len() * std::mem::size_of::<InputVc>();
        let stall = vec![Stall::default(); outs.len()];
        let arb_mark = vec![0; outs.len().div_ceil(64)];
        let requested = vec![0; outs.len().div_ceil(64)];
        let in_busy = if params.shared_crossbar { vec![0; tp] } else { Vec::new() };
        let in_rr = vec![0; in_busy.len()];
        let nodes = graph.nodes as usize;
        let core = Core {
            obs,
            outs,
            requested,
            in_busy,
            in_rr,
            xbar_retry: Vec::new(),
            stall,
            upstream,
            vcq,
            packets: Slab::default(),
            credit_returns: Slab::default(),
            messages: Slab::default(),
            gets: Slab::default(),
            nic_head: vec![NIL; nodes * graph.engines as usize],
            nic_tail: vec![NIL; nodes * graph.engines as usize],
            nic_rr: vec![0; nodes],
            rank_node: Vec::new(),
            posted: crate::packet::MsgFifos::new(nodes),
            answered: crate::packet::MsgFifos::new(nodes),
            core_free: vec![0; nodes],
            notify_sent: false,
            notes: Slab::default(),
            handover: Vec::new(),
            listen: true,
            arrivals: Vec::new(),
            host_free: vec![0; nodes],
            mem_free: vec![0; 2 * nodes],
            nic_wake: vec![0; nodes],
            engine_wake: vec![0; nodes * graph.engines as usize],
            engine_queued: vec![0; nodes * graph.engines as usize],
            paced_until: vec![0; nodes * graph.engines as usize],
            queued: vec![0; nodes],
            cands: Candidates::default(),
            arb_due: Vec::new(),
            select_due: Vec::new(),
            arb_mark,
            nic_due: Vec::new(),
            nic_mark: vec![0; nodes.div_ceil(64)],
            phase_scratch: Vec::new(),
            due: false,
            next_seq: vec![0; nodes],
            delivered_bits: vec![Vec::new(); nodes],
            last_progress: 0,
            in_network: 0,
            measured_outstanding: 0,
            window_start: 0,
            window_end: u64::MAX,
            error: None,
            check_stop: true,
            silent_credits: true,
            class_payload,
            class_vcs: routing.classes().map_or(0, |c| c.count()),
            slots: link::Slots {
                size: params.format.max_wire(),
                class_size: params.format.wire(class_payload),
                class_from: own,
                vcs: routing.bubble_vcs(),
            },
            lookahead: true,
            warm_releases: vcq_bytes > crate::warm::WARM_RELEASES_ABOVE,
            counters_at_start: Vec::new(),
            counters_at_end: Vec::new(),
            gates: params.gates.clone().map(|g| Box::new(crate::gates::GateUnit::new(g, nodes as u32))),
            classes: match params.class_routes.clone().map(crate::class_routes::ClassRoutes::new) {
                Some(Ok(c)) => Some(Box::new(c)),
                Some(Err(e)) => return Err(fabricsim_core::ConfigError::new("class_routes.enabled", e).into()),
                None => None,
            },
            switch_barrier: match params.switch_barrier.clone().zip(fat_tree.clone()).map(|(b, t)| crate::switch_barrier::SwitchBarrier::new(*b, t)) {
                Some(Ok(b)) => Some(Box::new(b)),
                Some(Err(e)) => return Err(fabricsim_core::ConfigError::new("switch_barrier.rail", e).into()),
                None => None,
            },
            agents,
            sleepers: routing.waits_when_blocked().then(|| Box::new(crate::sleep::Sleepers::new(graph.routers))),
            multicast: match params.multicast.clone().zip(fat_tree).map(|(m, t)| crate::multicast::Multicast::new(*m, t)) {
                Some(Ok(m)) => Some(Box::new(m)),
                Some(Err(e)) => return Err(fabricsim_core::ConfigError::new("multicast.rail", e).into()),
                None => None,
            },
            hardware,
            single_latency: LatencyHistogram::new(),
            out: Outcome {
                sim_time: Time::ZERO,
                events: 0,
                packets_injected: 0,
                packets_delivered: 0,
                bytes_delivered: 0,
                messages_delivered: 0,
                packet_hops: 0,
                message_latency: LatencyHistogram::new(),
                packet_latency: LatencyHistogram::new(),
                window_bytes: 0,
                window_bytes_first_half: 0,
                window: Time::ZERO,
                drained: true,
                peak_packets: 0,
                peak_messages: 0,
                packets_escaped: 0,
            },
            queue: EventQueue::with_lanes(lane::COUNT),
            timing,
            vcs,
            vcs_div: FastDiv::new(vcs),
            engines_div: FastDiv::new(graph.engines.max(1)),
            router_div: {
                let ppr = graph.port_offset.get(1).copied().unwrap_or(0);
                let uniform = ppr > 0 && graph.port_offset.windows(2).all(|w| w[1] - w[0] == ppr);
                uniform.then(|| FastDiv::new(ppr))
            },
            graph,
            routing,
            p: params,
        };
        Ok(Simulation { core, workload })
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
        (c.posted, c.core_free) = (crate::packet::MsgFifos::new(rank_node.len()), vec![0; rank_node.len()]);
        c.rank_node = rank_node.into_iter().map(u32::from).collect();
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
        self.core.silent_credits = false;
        self
    }

    /// Route every hop when the packet requests it, as the model did before grants looked the
    /// next hop up. Results must not change at all (tests check this).
    #[doc(hidden)]
    pub fn without_lookahead(mut self) -> Self {
        self.core.lookahead = false;
        self
    }

    /// Prefetch ahead of output releases whatever the network's size (normally only above
    /// [`crate::warm::WARM_RELEASES_ABOVE`] bytes of input-VC records). Only speed changes.
    #[doc(hidden)]
    pub fn with_release_prefetch(mut self) -> Self {
        self.core.warm_releases = true;
        self
    }

    pub fn graph(&self) -> &PortGraph {
        &self.core.graph
    }
    pub fn params(&self) -> &NetworkParams {
        &self.core.p
    }
    pub fn workload(&self) -> &W {
        &self.workload
    }
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
        let now = c.counters_now();
        let start = if c.counters_at_start.is_empty() { &now } else { &c.counters_at_start };
        let end = if c.counters_at_end.is_empty() { &now } else { &c.counters_at_end };
        end.iter().zip(start).map(|(e, s)| e.since(s)).collect()
    }

    /// Handle one event.
    #[inline]
    fn dispatch(&mut self, now: u64, ev: Ev) {
        let c = &mut self.core;
        match ev {
            Ev::Ready(pkt) => {
                c.warm_ready();
                c.on_ready(pkt)
            }
            Ev::OutFree { out, bit } => {
                if c.warm_releases {
                    c.warm_out_free();
                }
                let q = InputVcId(c.first_vc_of(out) + bit as u32);
                let bytes = c.vcq[q.index()].bytes;
                c.on_out_free(out, q, bytes);
            }
            Ev::Credit(i) => {
                let r = *c.credit_returns.get(i);
                c.credit_returns.remove(i);
                c.on_credit(r.port, r.q, r.bytes);
            }
            Ev::EngineFree(ps) => {
                let node = c.engines_div.div(ps - c.total_ports());
                c.post_injection(node);
            }
            Ev::Deliver(pkt) => {
                if let Some(d) = c.deliver(pkt) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::EjectDone(pkt) => {
                if c.warm_releases {
                    c.warm_out_free();
                }
                let p = c.packets.get(pkt);
                let (port, q, bytes) = (p.out, p.q, p.wire_bytes);
                c.on_out_free(port, q, bytes);
                if let Some(d) = c.deliver(pkt) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::Wake(node) => {
                c.warm_wake();
                self.workload.wake(Rank(node), &mut Api::new(c));
                // The workload may have finished; that matters only with nothing in flight (or
                // for a workload whose run may end with traffic in flight).
                let c = &mut self.core;
                if (c.in_network == 0 && c.messages.live() == 0 && c.notes.live() == 0) || self.workload.ended() {
                    c.check_stop = true;
                }
            }
            Ev::MsgReady(src) => c.message_ready(src),
            Ev::AnswerReady(node) => c.answer_ready(node),
            Ev::Sent(i) | Ev::Polled(i) => {
                let d = *c.notes.get(i);
                c.notes.remove(i);
                c.hand_over(d, matches!(ev, Ev::Sent(_)), true);
            }
            Ev::MsgDone(m) => {
                if let Some(d) = c.complete(m, true) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::Gate(e) => c.gate_processed(e),
            Ev::Class(e) => c.class_event(e),
            Ev::AgentHead(pkt) => c.class_head(pkt),
            Ev::SwitchBarrier(e) => c.barrier_event(e),
            Ev::AgentFree(out) => c.agent_free(out),
            Ev::Multicast(e) => c.multicast_event(e),
            Ev::CopyDone(pkt) => c.copy_done(pkt),
            Ev::NicWake(node) => {
                // A wake-up replaced by an earlier one is stale: that one already ran.
                if c.nic_wake[node as usize] == now {
                    c.nic_wake[node as usize] = 0;
                    c.post_injection(node);
                }
            }
        }
    }

    /// The end of an instant: its completions reach the workload, in an order that depends on
    /// them only (a workload's reactions, e.g. new posts, then take part in the phase), unless
    /// the receiving core still has to poll them; then the network's phase (see `phase.rs`).
    #[inline(never)]
    fn end_instant(&mut self) {
        if !self.core.handover.is_empty() {
            self.core.queue.end_of_instant();
            let mut list = std::mem::take(&mut self.core.handover);
            list.sort_unstable_by_key(|h| h.key());
            let poll = self.core.p.poll_overhead.ps() > 0;
            for h in &list {
                let c = &mut self.core;
                if poll && !h.polled {
                    c.poll_later(h.d);
                } else if h.sent {
                    self.workload.sent(&h.d, &mut Api::new(c));
                } else if c.listen {
                    self.workload.delivered(&h.d, &mut Api::new(c));
                }
            }
            // Completions the reactions produced at once (none today) wait for the next phase.
            let more = std::mem::take(&mut self.core.handover);
            list.clear();
            list.extend(more);
            self.core.handover = list;
            self.core.check_stop = true;
        }
        // Members whose in-network collective ended, by rank then tag, before the network's
        // phase: what they start next is served in it. Gates fire in the phase, and may end
        // collectives there: hand those over and run the phase again until none is left.
        if !self.core.hardware {
            self.core.end_instant();
        } else {
            self.hardware_end_instant();
        }
        if !self.core.handover.is_empty() {
            self.core.due = true;
        }
    }

    /// [`end_instant`](Self::end_instant)'s phase with collective hardware: ended collectives
    /// first, then the phase, again while the phase ends more.
    #[inline(never)]
    fn hardware_end_instant(&mut self) {
        loop {
            let mut done: Vec<(u32, u64)> = self.core.gates.as_deref_mut().map(|g| std::mem::take(&mut g.done)).unwrap_or_default();
            done.extend(self.core.classes.as_deref_mut().map(|c| std::mem::take(&mut c.done)).unwrap_or_default());
            done.extend(self.core.switch_barrier.as_deref_mut().map(|b| std::mem::take(&mut b.done)).unwrap_or_default());
            done.extend(self.core.multicast.as_deref_mut().map(|m| std::mem::take(&mut m.done)).unwrap_or_default());
            if !done.is_empty() {
                done.sort_unstable();
                for &(rank, tag) in &done {
                    self.workload.collective_done(Rank(rank), tag, &mut Api::new(&mut self.core));
                }
                self.core.check_stop = true;
            }
            self.core.end_instant();
            let more = self.core.gates.as_deref().is_some_and(|g| g.has_work())
                || self.core.classes.as_deref().is_some_and(|c| !c.done.is_empty())
                || self.core.switch_barrier.as_deref().is_some_and(|b| !b.done.is_empty())
                || self.core.multicast.as_deref().is_some_and(|m| !m.done.is_empty());
            if !more {
                break;
            }
        }
    }

    /// The wiring of in-network collective group `id` (Tofu barrier gates), once made.
    pub fn gate_wiring(&self, id: u32) -> Option<&crate::gates::Wiring> {
        self.core.gate_wiring(id)
    }

    /// The switch-barrier tree of in-network collective group `id` (Dawning), once made.
    pub fn barrier_tree(&self, id: u32) -> Option<&crate::switch_barrier::SwitchTree> {
        self.core.barrier_tree(id)
    }

    /// What the switch barrier has done so far (packets, losses, resends, urges).
    pub fn barrier_counts(&self) -> Option<crate::switch_barrier::BarrierCounts> {
        self.core.switch_barrier.as_deref().map(|b| b.counts)
    }

    /// The switches Dawning's multicast has chosen as roots so far, with how often (by router id).
    pub fn multicast_roots(&self) -> Vec<(u32, u64)> {
        let mut v: Vec<(u32, u64)> = self.core.multicast.as_deref().map(|m| m.roots.iter().map(|(&r, &n)| (r, n)).collect()).unwrap_or_default();
        v.sort_unstable();
        v
    }

    /// The tree of in-network collective group `id`'s class route (Blue Gene/Q), once made.
    pub fn class_tree(&self, id: u32) -> Option<&crate::class_routes::ClassTree> {
        self.core.class_tree(id)
    }

    /// Run to completion. `progress` is called now and then with the current simulated time.
    pub fn run(&mut self, limits: RunLimits, mut progress: impl FnMut(Time)) -> Result<Outcome, SimError> {
        let c = &mut self.core;
        c.window_start = limits.warmup.ps();
        c.window_end = limits.warmup.ps().saturating_add(limits.measure.ps());
        let hard_end = limits.hard_end().ps();
        limits.check("sim.duration")?;
        self.core.notify_sent = self.workload.wants_local_completion();
        self.core.listen = self.workload.hears_completions();
        self.workload.start(&mut Api::new(&mut self.core));
        if self.core.due && !self.core.queue.instant_pending() {
            self.end_instant();
        }
        let watchdog = self.core.p.watchdog.ps();
        let mut n = 0u64;
        // The next phase boundary: the window's start and end (port counters are snapshotted
        // there), then the hard end.
        let mut phase_end = self.core.next_phase(hard_end);
        loop {
            let c = &mut self.core;
            let Some((now, ev)) = c.queue.pop() else {
                if c.in_network > 0 || c.messages.live() > 0 {
                    let idle = c.queue.now().ps().saturating_sub(c.last_progress) / 1000;
                    let ports = if c.in_network > 0 { c.stuck_ports() } else { format!("{} messages waiting in NICs", c.messages.live()) };
                    return Err(SimError::Deadlock { buffered: c.in_network, idle_ns: idle, ports });
                }
                break;
            };
            let now = now.ps();
            if now >= phase_end {
                if now > hard_end {
                    c.out.drained = c.measured_outstanding == 0;
                    break;
                }
                c.snapshot_counters(now, false);
                phase_end = c.next_phase(hard_end);
                c.check_stop = true;
            }
            self.dispatch(now, ev);
            let c = &mut self.core;
            n += 1;
            if n.is_multiple_of(RARE_CHECK_EVERY) {
                // Rare conditions are checked every few thousand events (and once more when the
                // loop ends): an error waits in `error` until then, and a deadlock is reported a
                // little after the watchdog expires.
                if c.error.is_some() {
                    break;
                }
                c.check_watchdog(now, watchdog)?;
                if n.is_multiple_of(PROGRESS_EVERY) {
                    progress(Time(now));
                }
            }
            // Once the instant's last event is handled: its phase (completions to the workload,
            // selection, arbitration, injection), then the stopping rules (judged on the whole
            // instant: its remaining events would otherwise count or not depending on their
            // order). A phase may schedule events at the same instant; they come first.
            if (c.due || c.check_stop) && !c.queue.instant_pending() {
                if c.due {
                    self.end_instant();
                }
                let c = &mut self.core;
                if c.check_stop && !c.queue.instant_pending() {
                    c.check_stop = false;
                    // Past the window: stop as soon as every measured message has arrived, or at
                    // once when the workload knows the network is saturated (draining would
                    // only wait on its backlog).
                    if now >= c.window_end && (c.measured_outstanding == 0 || self.workload.saturated()) {
                        break;
                    }
                    let idle = c.in_network == 0 && c.messages.live() == 0 && c.notes.live() == 0;
                    if (idle && self.workload.finished()) || self.workload.ended() {
                        break;
                    }
                }
            }
        }
        if let Some(e) = self.core.error.take() {
            return Err(e);
        }
        // A deadlock the sampled checks above did not reach before the run ended.
        let now = self.core.queue.now().ps();
        self.core.check_watchdog(now, watchdog)?;
        let c = &mut self.core;
        // A run that ends early closes its window (and opens it, if it never began).
        let end = c.queue.now().ps();
        c.snapshot_counters(end, true);
        c.out.drained = c.measured_outstanding == 0;
        let in_flight = c.packets.live() as u64;
        // Two independent counts must agree: packets alive in the slab, and the running
        // injected - delivered balance kept by the event handlers.
        if c.out.packets_injected != c.out.packets_delivered + in_flight || c.in_network != in_flight {
            return Err(SimError::Conservation { injected: c.out.packets_injected, delivered: c.out.packets_delivered, in_flight });
        }
        c.out.sim_time = c.queue.now();
        c.out.events = c.queue.events_processed();
        let end = c.queue.now().ps().min(c.window_end);
        c.out.window = Time(end.saturating_sub(c.window_start));
        c.out.peak_packets = c.packets.capacity_used();
        c.out.peak_messages = c.messages.capacity_used();
        let mut out = c.out.clone();
        out.packet_latency.merge(&c.single_latency);
        out.message_latency.merge(&c.single_latency);
        Ok(out)
    }
}

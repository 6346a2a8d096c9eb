//! The one place a network is checked and built: [`Builder`] takes the port graph, the routing
//! and the parameters, validates every limit once, and returns a runnable [`Simulation`]
//! (build, then run: `Builder::new(..).observer(o).rank_map(m).build(workload)?.run(..)`).
//!
//! Each step is a function of its own: the limits ([`Builder::check`]), the senders and input
//! buffers with their channel timing ([`ports`]), the switch agents ([`agents`]), the in-network
//! units ([`Units`]), and the assembly of the state.

use crate::fabric::channel::ChannelTiming;
use crate::fabric::link;
use crate::fabric::records::{InputVc, OutPort, Stall, POOL, POOL_SHIFT};
use crate::fabric::Fabric;
use crate::meter::Meter;
use crate::nics::Nics;
use crate::packet::{Slab, NIL};
use crate::params::NetworkParams;
use crate::phase::Phase;
use crate::sim::{lane, Core, Simulation, MAX_VCS};
use crate::workload::Workload;
use fabricsim_core::{ConfigError, FastDiv, NodeId, SimError};
use fabricsim_engine::EventQueue;
use fabricsim_routing::{Candidates, Routing};
use fabricsim_stats::Observer;
use fabricsim_topology::{FatTree, PortGraph, PortKind};

/// Builds a [`Simulation`]: the network (graph, routing, parameters), then what watches it, where
/// its ranks run and how same-instant events are ordered, then the workload.
pub struct Builder<O = ()> {
    graph: PortGraph,
    routing: Routing,
    params: NetworkParams,
    obs: O,
    rank_map: Option<Vec<NodeId>>,
    tie_seed: Option<u64>,
}

impl Builder<()> {
    /// A network of `graph` routed by `routing` with `params` (the graph must have
    /// `params.engines` attachments per node), watched by no observer, one rank per node.
    pub fn new(graph: PortGraph, routing: Routing, params: NetworkParams) -> Self {
        Builder { graph, routing, params, obs: (), rank_map: None, tie_seed: None }
    }
}

impl Builder<()> {
    /// Another builder of the same network (one per block of a partitioned run).
    pub(crate) fn copy(&self) -> Self {
        let Builder { graph, routing, params, rank_map, tie_seed, .. } = self;
        Builder { graph: graph.clone(), routing: routing.clone(), params: params.clone(), obs: (), rank_map: rank_map.clone(), tie_seed: *tie_seed }
    }

    pub(crate) fn params(&self) -> &NetworkParams {
        &self.params
    }

    pub(crate) fn graph(&self) -> &PortGraph {
        &self.graph
    }

    /// Whether some dynamic VC's queues share its buffer (`Routing::shared_queue`).
    pub(crate) fn shares_queue_buffers(&self) -> bool {
        self.routing.shared_queue_followers() != 0
    }

    pub(crate) fn has_rank_map(&self) -> bool {
        self.rank_map.is_some()
    }
}

impl<O: Observer> Builder<O> {
    /// Watch the run with `obs` (see [`Observer`]).
    pub fn observer<P: Observer>(self, obs: P) -> Builder<P> {
        let Builder { graph, routing, params, rank_map, tie_seed, .. } = self;
        Builder { graph, routing, params, obs, rank_map, tie_seed }
    }

    /// Place ranks on nodes: rank `r` runs on node `rank_node[r]` (several ranks may share a
    /// node). Without a map each node runs one rank, its own id.
    pub fn rank_map(mut self, rank_node: Vec<NodeId>) -> Self {
        self.rank_map = Some(rank_node);
        self
    }

    /// Test mode: same-instant events come out of the event queue in an order drawn from
    /// `seed` (see [`Simulation::with_tie_shuffle`]).
    pub fn tie_shuffle(mut self, seed: u64) -> Self {
        self.tie_seed = Some(seed);
        self
    }

    /// Check every limit and build the simulation of `workload` on this network.
    pub fn build<W: Workload>(self, workload: W) -> Result<Simulation<W, O>, SimError> {
        let sizes = self.check()?;
        let Builder { graph, routing, params, obs, rank_map, tie_seed } = self;
        let fat_tree = match routing.kind() {
            fabricsim_routing::Kind::UpDown(u) => Some(u.tree().clone()),
            _ => None,
        };
        let mut ports = ports(&graph, &routing, &params, &sizes)?;
        let agents = agents(&graph, &params, &sizes, fat_tree.as_ref(), &mut ports.outs)?;
        let units = Units::new(&graph, &routing, &params, fat_tree, agents)?;
        let faults = crate::faults::Faults::new(&params.faults, &params.link, &graph, routing.torus(), params.seed)?;
        let mut core = assemble(graph, routing, params, obs, sizes, ports, units);
        // (Queues sharing a buffer: a packet picks its queue in the special grant.)
        core.fabric.special = faults.is_some() || core.fabric.queue_followers != 0;
        // Links that can fail: every hop routes at its router, around the links known down.
        core.fabric.detours = faults.as_deref().is_some_and(|f| f.links_can_fail());
        core.fabric.lookahead &= !core.fabric.detours;
        if core.p.flit_bytes > 0 {
            if faults.is_some() {
                let msg = "flit multiplexing cannot be combined with faulty links yet: leave one of them out";
                return Err(fabricsim_core::ConfigError::new("router.flit_size", msg).into());
            }
            if core.fabric.queue_followers != 0 {
                // (The flit code looks for a suspended packet in the VC it was sent to, not in
                // the queue of a shared buffer it joined.)
                let msg = "flit multiplexing cannot be combined with router.queue_buffer = \"shared\" yet: leave one of them out";
                return Err(fabricsim_core::ConfigError::new("router.flit_size", msg).into());
            }
            core.fabric.flits = Some(Box::new(crate::fabric::flits::Flits::new(core.p.flit_bytes, core.fabric.outs.len())));
            core.fabric.special = true;
            core.fabric.flits_on = true;
        }
        core.faults = faults;
        let mut sim = Simulation::from_parts(core, workload);
        if let Some(map) = rank_map {
            sim = sim.with_rank_map(map)?;
        }
        if let Some(seed) = tie_seed {
            sim = sim.with_tie_shuffle(seed);
        }
        Ok(sim)
    }

    /// Every limit of the network, checked once: the parameters themselves, buffers that hold
    /// the packets their flow control needs, class packets that fit their VCs, and a routing
    /// and a graph built for these parameters.
    fn check(&self) -> Result<Sizes, SimError> {
        let (graph, routing, params) = (&self.graph, &self.routing, &self.params);
        let (own, class_buffer, class_payload) = graph_free_checks(routing, params)?;
        if graph.engines != params.engines {
            let msg = format!("{} engines in the parameters but the port graph was built for {}", params.engines, graph.engines);
            return Err(ConfigError::new("nic.injection_engines", msg).into());
        }
        if routing.vcs() != params.vcs || routing.engines() != graph.engines {
            let msg = format!(
                "the routing was built for {} VCs and {} engines per node, the network has {} VCs and {} engines",
                routing.vcs(),
                routing.engines(),
                params.vcs,
                graph.engines
            );
            return Err(ConfigError::new("router.vcs", msg).into());
        }
        let vcs = params.vcs as u32;
        let max_ports = graph.max_ports();
        if vcs as usize > MAX_VCS {
            return Err(ConfigError::new("router.vcs", format!("{vcs} exceeds the {MAX_VCS} VCs a port supports")).into());
        }
        if max_ports * vcs > 128 {
            let msg = format!("{} VCs x {} ports per router exceeds the 128 input VCs a router supports", vcs, max_ports);
            return Err(ConfigError::new("router.vcs", msg).into());
        }
        Ok(Sizes { vcs, own, class_buffer, class_payload, max_ports })
    }
}

/// The checks that need no port graph: the parameters' own limits, the buffers the routing's
/// VCs need, and the in-network hardware against the routing's topology. A plan runs them
/// before anything is built; [`Builder::build`] runs them again with the rest.
pub fn check_parts(routing: &Routing, params: &NetworkParams) -> Result<(), SimError> {
    graph_free_checks(routing, params).map(|_| ())
}

/// [`check_parts`], giving the routing's own VCs, the class VCs' buffer and their largest payload.
fn graph_free_checks(routing: &Routing, params: &NetworkParams) -> Result<(u8, u32, u32), SimError> {
    params.validate()?;
    let max = params.format.max_wire();
    let own = routing.own_vcs();
    let class_buffer = params.class_buffer_bytes.unwrap_or(params.buffer_bytes);
    // Bubble VCs: the routing's VC 0, or its class VCs.
    let bubbles = routing.bubble_vcs();
    if bubbles & 1 != 0 && params.buffer_bytes < 2 * max {
        let msg =
            format!("{}B per VC cannot hold two {max}B packets, which bubble flow control needs to let a packet enter a ring", params.buffer_bytes);
        return Err(ConfigError::new("router.buffer", msg).into());
    }
    let class_bubbles = bubbles >> own != 0;
    let share = (0..own).map(|vc| routing.buffer_share(vc)).max().unwrap_or(1) as u32;
    if params.buffer_bytes / share < max {
        let msg = format!("{share} queues of {}B each cannot hold one {max}B packet", params.buffer_bytes / share);
        return Err(ConfigError::new("router.queues", msg).into());
    }
    // Class messages are cut into packets that fit their VC's buffer.
    let class_payload = match routing.classes() {
        None => params.max_payload(),
        // With bubbles a class VC's buffer holds two of its packets.
        Some(_) => params.format.largest_payload_within(if class_bubbles { class_buffer / 2 } else { class_buffer }).ok_or_else(|| {
            let what = if class_bubbles { "two packets (bubble flow control on its rings)" } else { "a packet" };
            ConfigError::new("router.class_buffer", format!("{class_buffer}B cannot hold {what} with a one-byte payload"))
        })?,
    };
    crate::hardware::limits::check_on(&params.hardware, routing, routing.classes().is_some().then_some(class_payload))?;
    Ok((own, class_buffer, class_payload))
}

/// What the checks derived and the construction needs.
struct Sizes {
    vcs: u32,
    /// VCs the routing uses itself (class VCs come after them).
    own: u8,
    class_buffer: u32,
    /// Largest payload of a packet on a class VC.
    class_payload: u32,
    max_ports: u32,
}

/// The senders (router outputs, then NIC engine pseudo-ports), who feeds each router port, and
/// every input VC with its sender's credit (the whole buffer), with the channel timing they were
/// classed by.
struct Ports {
    outs: Vec<OutPort>,
    upstream: Vec<u32>,
    vcq: Vec<InputVc>,
    timing: ChannelTiming,
}

fn ports(graph: &PortGraph, routing: &Routing, params: &NetworkParams, sizes: &Sizes) -> Result<Ports, SimError> {
    let vcs = sizes.vcs;
    let tp = graph.total_ports() as usize;
    let pseudo = (graph.nodes * graph.engines) as usize;
    let mut outs = fabricsim_core::huge_pages::filled(tp + pseudo, OutPort::default());
    let mut upstream = vec![NIL; tp];
    let mut vcq = fabricsim_core::huge_pages::filled(tp * vcs as usize, InputVc::default());
    let mut timing = ChannelTiming::new(params);
    for (p, o) in outs.iter_mut().enumerate().take(tp) {
        o.class = timing
            .of_port(graph, p, params)
            .ok_or_else(|| ConfigError::new("packaging.rack", "more than 250 distinct cable latencies; round the floor layout's lengths"))?;
        let field = if graph.cable_m.is_empty() { "topology.link_latency" } else { "packaging.cable_delay" };
        o.latency =
            u32::try_from(timing.latency(o.class)).map_err(|_| ConfigError::new(field, "a link's latency exceeds the 4.29 ms a link may have"))?;
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
    // The sender of every fed input VC starts with its whole buffer free.
    for (q, v) in vcq.iter_mut().enumerate() {
        let up = upstream[q / vcs as usize];
        if up != NIL {
            v.up_class = outs[up as usize].class;
            let vc = (q % vcs as usize) as u8;
            v.credit.free = if vc < sizes.own { params.buffer_bytes / routing.buffer_share(vc) as u32 } else { sizes.class_buffer };
        }
        // Queues sharing a buffer: the first holds the credit, the others point back to it.
        match routing.shared_queue((q % vcs as usize) as u8) {
            Some(0) => v.flags |= POOL,
            Some(i) => (v.flags, v.credit.free) = (v.flags | i << POOL_SHIFT, 0),
            None => {}
        }
    }
    Ok(Ports { outs, upstream, vcq, timing })
}

/// Switch agents: a sink output per router, after the engines (see `crate::hardware::agent`), for the
/// logic in a fat-tree's switches (the up/down routing's tree); `None` without such logic.
fn agents(
    graph: &PortGraph,
    params: &NetworkParams,
    sizes: &Sizes,
    fat_tree: Option<&FatTree>,
    outs: &mut Vec<OutPort>,
) -> Result<Option<Box<crate::hardware::agent::Agents>>, SimError> {
    let h = &params.hardware;
    // (`check_on` has refused switch logic off a fat-tree.)
    if (h.switch_barrier().is_none() && h.multicast().is_none()) || fat_tree.is_none() {
        return Ok(None);
    }
    let (vcs, max_ports) = (sizes.vcs, sizes.max_ports);
    if max_ports * vcs > crate::hardware::agent::AGENT_BIT {
        let msg = format!("{vcs} VCs x {max_ports} ports per router leave no request bit for the switch agents (at most 127 input VCs)");
        return Err(ConfigError::new("router.vcs", msg).into());
    }
    let sinks = outs.len() as u32;
    for r in 0..graph.routers as usize {
        let qbase = graph.port_offset[r] * vcs;
        outs.push(OutPort { class: crate::fabric::channel::TERMINAL, latency: 0, qbase, peer: u32::MAX, ..OutPort::default() });
    }
    Ok(Some(Box::new(crate::hardware::agent::Agents::new(sinks))))
}

/// What the fabric carries besides routers and NICs: the switch agents, the adaptive routing's
/// sleepers and the in-network hardware.
pub(crate) struct Units {
    agents: Option<Box<crate::hardware::agent::Agents>>,
    sleepers: Option<Box<crate::fabric::sleep::Sleepers>>,
    hardware: crate::hardware::Hardware,
}

impl Units {
    fn new(
        graph: &PortGraph,
        routing: &Routing,
        params: &NetworkParams,
        fat_tree: Option<FatTree>,
        agents: Option<Box<crate::hardware::agent::Agents>>,
    ) -> Result<Self, SimError> {
        Ok(Units {
            hardware: crate::hardware::Hardware::build(graph, params, routing.torus().cloned(), fat_tree)?,
            agents,
            sleepers: routing.waits_when_blocked().then(|| Box::new(crate::fabric::sleep::Sleepers::new(graph.routers))),
        })
    }
}

/// The network's state, from the checked parts.
fn assemble<O: Observer>(graph: PortGraph, routing: Routing, params: NetworkParams, obs: O, sizes: Sizes, ports: Ports, units: Units) -> Core<O> {
    let Ports { outs, upstream, vcq, timing } = ports;
    let senders = outs.len();
    let vcs = sizes.vcs;
    let tp = graph.total_ports() as usize;
    let vcq_bytes = vcq.len() * std::mem::size_of::<InputVc>();
    let stall = vec![Stall::default(); outs.len()];
    let outs_len = outs.len();
    let requested = vec![0; outs.len().div_ceil(64)];
    let in_busy = if params.shared_crossbar { vec![0; tp] } else { Vec::new() };
    let in_rr = vec![0; in_busy.len()];
    let nodes = graph.nodes as usize;
    Core {
        obs,
        packets: Slab::default(),
        error: None,
        agents: units.agents,
        hardware: units.hardware,
        queue: EventQueue::with_lanes(lane::COUNT),
        fabric: Fabric {
            outs,
            requested,
            in_busy,
            in_rr,
            xbar_retry: Vec::new(),
            stall,
            upstream,
            vcq,
            credit_returns: Slab::default(),
            cands: Candidates::default(),
            silent_credits: true,
            class_payload: sizes.class_payload,
            class_vcs: routing.classes().map_or(0, |c| c.count()),
            transit_run: if params.transit_ratio > 0 { vec![0; senders] } else { Vec::new() },
            queue_followers: routing.shared_queue_followers(),
            slots: link::Slots {
                size: params.format.max_wire(),
                class_size: params.format.wire(sizes.class_payload),
                class_from: sizes.own,
                vcs: routing.bubble_vcs(),
            },
            lookahead: true,
            special: false,
            detours: false,
            flits: None,
            flits_on: false,
            warm_releases: vcq_bytes > crate::fabric::warm::WARM_RELEASES_ABOVE,
            sleepers: units.sleepers,
            crossings: Default::default(),
            timing,
            vcs,
            vcs_div: FastDiv::new(vcs),
            router_div: {
                let ppr = graph.port_offset.get(1).copied().unwrap_or(0);
                let uniform = ppr > 0 && graph.port_offset.windows(2).all(|w| w[1] - w[0] == ppr);
                uniform.then(|| FastDiv::new(ppr))
            },
        },
        nics: Nics::new(&graph),
        phase: Phase::new(outs_len, nodes),
        meter: Meter::new(),
        faults: None,
        cut: None,
        #[cfg(feature = "seam-guard")]
        guard: None,
        graph,
        routing,
        p: params,
    }
}

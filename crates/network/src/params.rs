//! Parameters of the network model, with their meaning and checks.

use crate::format::PacketFormat;
use fabricsim_core::{Bandwidth, ConfigError, Time};

/// Everything the network model needs besides the topology and routing.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkParams {
    /// Router-to-router link bandwidth (one direction).
    pub link_bandwidth: Bandwidth,
    /// Router-to-router link latency (wire + SerDes), one direction.
    pub link_latency: Time,
    /// Latency of links the packaging marks optical (`PortGraph::optical`); `None`: as others.
    pub optical_latency: Option<Time>,
    /// Latency of loopback links (`PortGraph::loopback`: a ring closed inside its package
    /// through the package's edge hardware); `None`: as others.
    pub loopback_latency: Option<Time>,
    /// Router pipeline delay, paid when a packet arrives at a router over a network link.
    pub router_delay: Time,
    /// Bandwidth of each NIC engine's path into and out of its router.
    pub terminal_bandwidth: Bandwidth,
    /// Latency of the NIC-router links: 0 when the NIC sits on the router chip (torus), a cable
    /// otherwise (fat-tree).
    pub terminal_latency: Time,
    /// Router pipeline delay for packets arriving from a NIC. 0 on a direct network (folded into
    /// `nic_latency`), `router_delay` on a fat-tree.
    pub terminal_router_delay: Time,
    /// Time from an engine starting a packet to its head leaving the NIC.
    pub nic_latency: Time,
    /// Injection (and reception) engines per node. For a fat-tree this is the rail count.
    pub engines: u32,
    /// Virtual channels per port.
    pub vcs: u8,
    /// Propagation delay per metre of cable (links the port graph gives a length,
    /// `PortGraph::cable_m`), on top of `optical_latency`.
    pub cable_delay: Time,
    /// Input buffer per VC, bytes.
    pub buffer_bytes: u32,
    /// Input buffer per dedicated class VC (`fabricsim_routing::Routing::with_class_vcs`), bytes;
    /// `None`: `buffer_bytes`. Class messages are cut into packets that fit it.
    pub class_buffer_bytes: Option<u32>,
    /// How payload becomes bytes on the wire.
    pub format: PacketFormat,
    /// Per-message cost at the sender before its first packet may leave (descriptor fetch and
    /// processing, software posting). Messages are processed in a pipeline: each waits this long.
    pub tx_overhead: Time,
    /// Per-message cost at the receiver after its last byte arrives (memory write, completion
    /// notice, software polling) before the message counts as delivered.
    pub rx_overhead: Time,
    /// Host-to-NIC bandwidth per node (PCIe, HyperTransport, CPU-NIC bus): every payload byte a
    /// node sends crosses it. `None`: not a limit.
    pub host_bandwidth: Option<Bandwidth>,
    /// Extra time the host link is held per packet, not overlapped with the next packet (a
    /// per-packet read round trip, e.g. APEnet+ reading GPU memory over PCIe).
    pub host_packet_overhead: Time,
    /// Memory bandwidth the NIC gets per node for messages larger than `cache_bytes` (their data
    /// streams from and to main memory); shared by sends (reads) and receives (writes).
    pub memory_bandwidth: Option<Bandwidth>,
    /// Messages up to this size are served from cache, without the memory limit.
    pub cache_bytes: u64,
    /// Deadlock watchdog: error if packets are buffered and nothing moves for this long.
    pub watchdog: Time,
    /// Software cost of posting a message, on the posting rank's core: messages a rank posts pay
    /// it one after another (the NIC's own per-message cost, `tx_overhead`, overlaps).
    pub software_overhead: Time,
    /// Software cost of taking one completion, on the receiving rank's core (the same core
    /// that posts): completions are polled one at a time, and a workload hears of each once
    /// its core has polled it.
    pub poll_overhead: Time,
    /// How a packet chooses among candidate hops.
    pub selection: fabricsim_routing::Selection,
    /// Which engine (on a multi-rail fat-tree: which rail) a message without a chosen engine
    /// goes to.
    pub engine_choice: EngineChoice,
    /// Messages each engine interleaves packet by packet (1: one message at a time, all its
    /// packets before the next). Blue Gene/Q's message unit assigns a descriptor to an idle
    /// injection engine for every packet, so the packets of the messages posted to several
    /// injection FIFOs leave interleaved.
    pub interleave: u32,
    /// One crossbar input per router port, shared by its VCs (a port sends one packet at a
    /// time), instead of one per VC (parallel switching: each VC of a port may send to a
    /// different output at once).
    pub shared_crossbar: bool,
    /// Grants a router output gives in a row to packets cutting through (from network ports)
    /// while packets from injection ports of the same priority wait, before it grants one of
    /// those (Blue Gene/Q programs this ratio); 0: no preference, one round-robin over all.
    pub transit_ratio: u32,
    /// Flit size of the links' VC multiplexing, bytes (0: a link sends whole packets): a packet
    /// of a higher priority may take a link at the next flit boundary of the lower-priority
    /// packet it is sending (see the network crate's `fabric::flits`).
    pub flit_bytes: u32,
    /// The in-network collective hardware (Tofu's barrier gates, Blue Gene/Q's class routes,
    /// Dawning's switch barrier and multicast), or none.
    pub hardware: crate::hardware::HardwareSpec,
    /// Seed of the hardware's random draws (lost switch-barrier packets, multicast roots) and
    /// of the links' error processes.
    pub seed: u64,
    /// Faulty lanes and scheduled failures (`[faults]`; none by default: see [`crate::faults`]).
    pub faults: crate::faults::FaultSpec,
    /// Lanes per link and their protection (`[link]`; matters only with faults).
    pub link: crate::faults::LinkSpec,
}

/// How a NIC deals messages to its engines (`nic.engine_choice`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineChoice {
    /// In turn (as Tofu's communication layer deals messages to its TNIs).
    #[default]
    RoundRobin,
    /// Static striping by pair: engine `(source rank + destination rank) mod engines`, so one
    /// pair's messages always share a rail while a node still sends and receives on
    /// all its rails. (Striping by destination alone would deliver all of a node's traffic on
    /// one rail, a quarter of its reception bandwidth on four rails.)
    Pair,
    /// The engine with the fewest messages waiting (adaptive rail choice); ties in turn.
    ShortestQueue,
}

/// The scenario's defaults: 5 GB/s links of 20 ns, a 40 ns router pipeline, a 100 ns NIC with
/// one engine, 2 VCs of 4 KiB each, 512-byte packets without header, no per-message costs, no
/// collective hardware, a 100 us deadlock watchdog.
impl Default for NetworkParams {
    fn default() -> Self {
        NetworkParams {
            link_bandwidth: Bandwidth(5_000_000_000),
            link_latency: Time::from_ns(20),
            optical_latency: None,
            loopback_latency: None,
            router_delay: Time::from_ns(40),
            terminal_bandwidth: Bandwidth(5_000_000_000),
            terminal_latency: Time::ZERO,
            terminal_router_delay: Time::ZERO,
            nic_latency: Time::from_ns(100),
            engines: 1,
            vcs: 2,
            cable_delay: Time::ZERO,
            buffer_bytes: 4096,
            class_buffer_bytes: None,
            format: PacketFormat::simple(512, 0),
            tx_overhead: Time::ZERO,
            rx_overhead: Time::ZERO,
            host_bandwidth: None,
            host_packet_overhead: Time::ZERO,
            memory_bandwidth: None,
            cache_bytes: 0,
            watchdog: Time::from_us(100),
            software_overhead: Time::ZERO,
            poll_overhead: Time::ZERO,
            selection: Default::default(),
            engine_choice: Default::default(),
            interleave: 1,
            shared_crossbar: false,
            transit_ratio: 0,
            flit_bytes: 0,
            hardware: Default::default(),
            seed: 1,
            faults: Default::default(),
            link: Default::default(),
        }
    }
}

impl NetworkParams {
    /// Check the parameters' own limits (engines, packet format, a buffer that holds a packet,
    /// barrier gates, the watchdog).
    pub fn validate(&self) -> Result<(), ConfigError> {
        // (Each engine is an ejection candidate: well within the candidate set.)
        let max = 16;
        if self.engines == 0 || self.engines > max {
            return Err(ConfigError::new("nic.injection_engines", format!("{} must be between 1 and {max}", self.engines)));
        }
        if self.interleave == 0 || self.interleave > 1024 {
            return Err(ConfigError::new("nic.interleave", format!("{} must be between 1 and 1024", self.interleave)));
        }
        self.format.validate()?;
        let max = self.format.max_wire();
        if self.buffer_bytes < max {
            return Err(ConfigError::new(
                "router.buffer",
                format!("{}B per VC cannot hold one {}B packet; virtual cut-through needs room for a whole packet", self.buffer_bytes, max),
            ));
        }
        crate::hardware::limits::check(&self.hardware, self.engines)?;
        self.faults.validate(&self.link)?;
        if self.watchdog == Time::ZERO {
            return Err(ConfigError::new("sim.watchdog", "must be positive"));
        }
        Ok(())
    }

    /// Latency of network port `port`'s link in `graph`, ps: a cable (`PortGraph::cable_m`)
    /// costs the optical latency plus `cable_delay` per metre, another link leaving its
    /// package the optical latency, a link inside one the link latency.
    pub fn link_latency_of(&self, graph: &fabricsim_topology::PortGraph, port: usize) -> u64 {
        let optical = self.optical_latency.unwrap_or(self.link_latency).ps();
        match (graph.cable_m.get(port), graph.optical.get(port), graph.loopback.get(port)) {
            (Some(&m), _, _) if m > 0.0 => optical + (m as f64 * self.cable_delay.ps() as f64).round() as u64,
            (_, Some(true), _) => optical,
            (_, _, Some(true)) => self.loopback_latency.unwrap_or(self.link_latency).ps(),
            _ => self.link_latency.ps(),
        }
    }

    /// Largest payload a packet carries.
    pub fn max_payload(&self) -> u32 {
        self.format.max_payload
    }
}

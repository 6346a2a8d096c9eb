//! `[nic]`: injection engines, per-message costs and where the data lives.

use super::EngineChoice;
use fabricsim_core::{Bandwidth, Bytes, Time};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NicSpec {
    /// Injection/reception engines per node. Default 1 (fat-tree: one per rail).
    pub injection_engines: Option<u32>,
    /// Per-packet time from engine start to the packet's head leaving the NIC. Default 100ns.
    pub latency: Time,
    /// Bandwidth of each engine's path to the router. Default: the link bandwidth.
    pub bandwidth: Option<Bandwidth>,
    /// Per-message sender cost in the NIC before the first packet (descriptor processing);
    /// it overlaps across messages. Default 0.
    pub tx_overhead: Time,
    /// Per-message receiver cost after the last byte (completion). Default 0.
    pub rx_overhead: Time,
    /// Fetching a descriptor from main memory; skipped with `direct_descriptor`. Default 0.
    pub descriptor_fetch: Time,
    /// Descriptors handed to the NIC directly (Tofu's direct descriptor). Default false.
    pub direct_descriptor: bool,
    /// Writing received data to main memory; skipped with `cache_injection`. Default 0.
    pub memory_write: Time,
    /// Received data goes straight into the cache (Tofu2 cache injection). Default false.
    pub cache_injection: bool,
    /// Extra cost when both processes run on far NUMA domains (TofuD far CMG). Default 0.
    pub far_cmg_penalty: Time,
    /// `"near"` (default) or `"far"`: where initiator and target processes run.
    pub cmg: Cmg,
    /// Software cost of a message (posting and completion polling), charged once per message
    /// on the posting rank's core: a rank that posts several messages pays it for each, one
    /// after another. Default 0 (hardware-only figures).
    pub software_overhead: Time,
    /// Software cost of taking one completion on the receiving rank's core (which also posts):
    /// completions are polled one at a time. Default 0.
    pub poll_overhead: Time,
    /// Host-to-NIC bandwidth per node (PCIe, HyperTransport, CPU-NIC bus). Default: no limit.
    pub host_bandwidth: Option<Bandwidth>,
    /// Memory bandwidth for data larger than `cache_size` (sends and receives share it).
    pub memory_bandwidth: Option<Bandwidth>,
    /// Cache size below which messages do not touch main memory. Default 32MiB.
    pub cache_size: Bytes,
    /// `"host"` (default) or `"gpu"`: where sent data lives.
    pub source: DataSource,
    /// Extra per-message sender cost when the source is GPU memory. Default 0.
    pub gpu_tx_overhead: Time,
    /// Per-packet GPU read cost, not overlapped with the next packet. Default 0.
    pub gpu_packet_overhead: Time,
    /// Open-loop sources: messages a node's NIC may hold waiting to be sent. A source that
    /// finds the queue full does not send (counted as refused: back-pressure, as a real NIC's
    /// descriptor queue gives), which keeps a saturated run's memory bounded. 0: no limit.
    /// Default 64.
    pub queue_limit: u32,
    /// Which engine (on a multi-rail fat-tree, which rail) a message goes to: `"round_robin"`
    /// (default), `"pair"` ((source + destination rank) mod engines: static striping, one
    /// pair on one rail) or `"shortest_queue"` (the engine with the fewest messages waiting).
    pub engine_choice: EngineChoice,
    /// Messages each engine interleaves packet by packet: 1 (default) sends a message's packets
    /// one after another before the next message; k > 1 takes the next packet in turn from
    /// the first k messages of the engine's queue (of its highest class), as Blue Gene/Q's
    /// message unit picks a descriptor for every packet. Messages routed deterministically are
    /// never overtaken: one at the head of the queue finishes first.
    pub interleave: u32,
}

impl Default for NicSpec {
    fn default() -> Self {
        NicSpec {
            injection_engines: None,
            latency: Time::from_ns(100),
            bandwidth: None,
            tx_overhead: Time::ZERO,
            rx_overhead: Time::ZERO,
            descriptor_fetch: Time::ZERO,
            direct_descriptor: false,
            memory_write: Time::ZERO,
            cache_injection: false,
            far_cmg_penalty: Time::ZERO,
            cmg: Cmg::Near,
            software_overhead: Time::ZERO,
            poll_overhead: Time::ZERO,
            host_bandwidth: None,
            memory_bandwidth: None,
            cache_size: Bytes(32 * 1024 * 1024),
            source: DataSource::Host,
            gpu_tx_overhead: Time::ZERO,
            gpu_packet_overhead: Time::ZERO,
            queue_limit: 64,
            engine_choice: EngineChoice::RoundRobin,
            interleave: 1,
        }
    }
}

/// `nic.cmg`: where the initiator and target processes of a message run, relative to the NIC.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Cmg {
    /// Near the NIC: no extra cost.
    #[default]
    Near,
    /// On far NUMA domains (TofuD's far CMG): `nic.far_cmg_penalty`, half at each end.
    Far,
}

/// `nic.source`: where a message's data lives.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// Host memory.
    #[default]
    Host,
    /// GPU memory: `nic.gpu_tx_overhead` per message and `nic.gpu_packet_overhead` per packet.
    Gpu,
}

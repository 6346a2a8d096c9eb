//! The network interfaces: messages posted by ranks, injection engines, delivery.

pub(crate) mod delivery;
pub(crate) mod inject;

use crate::packet::{Message, Slab, NIL};
use fabricsim_core::FastDiv;

/// The network interfaces: message queues, injection engines, host and memory timing, Gets, and the ranks placed on nodes.
/// An injection engine's queue and timing (32 bytes: two per cache line).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct Engine {
    /// Its queue of messages (`NIL`: empty), oldest first, linked through `Message::next`.
    pub(crate) head: u32,
    pub(crate) tail: u32,
    /// Messages waiting in it, for the shortest-queue engine choice.
    pub(crate) queued: u32,
    /// The time of its pending EngineFree, if one is pending. An engine gets one only while it
    /// is busy with messages waiting behind it.
    pub(crate) wake: u64,
    /// Until when a paced flow holds it (see `Message::pace`).
    pub(crate) paced_until: u64,
}

impl Default for Engine {
    fn default() -> Self {
        Engine { head: NIL, tail: NIL, queued: 0, wake: 0, paced_until: 0 }
    }
}

const _: () = assert!(std::mem::size_of::<Engine>() == 32);

/// A node's NIC: what an injection reads and writes of the node (32 bytes).
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct NodeNic {
    /// Packets it has created (a packet's id is its source and this count, so ids do not depend
    /// on what other nodes do).
    pub(crate) next_seq: u32,
    /// Messages at the NIC not yet cut into packets (what a source sees of its backlog:
    /// `Nic::queued`).
    pub(crate) queued: u32,
    /// The engine the round-robin choice deals to next.
    pub(crate) rr: u32,
    /// Pending NicWake time (0: none; avoids duplicate wake-ups).
    pub(crate) wake: u64,
    /// When the node's host link is free again.
    pub(crate) host_free: u64,
}

const _: () = assert!(std::mem::size_of::<NodeNic>() == 32);

pub(crate) struct Nics {
    pub(crate) engines_div: FastDiv,
    pub(crate) messages: Slab<Message>,
    /// Gets in progress (their request and data messages carry the entry as their tag).
    pub(crate) gets: Slab<crate::packet::GetState>,
    /// Per engine (`node * engines + e`): its message queue and timing, in one record (an
    /// injection reads and writes them together).
    pub(crate) engines: Vec<Engine>,
    /// Per node: its NIC's counters and timing, in one record.
    pub(crate) node: Vec<NodeNic>,
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
    /// Whether the workload hears completions at all.
    pub(crate) listen: bool,
    /// Messages that reached their node's NIC during the current instant and are dealt to
    /// its engines at its end (when not dealt at once, see `Core::enqueue_message`).
    pub(crate) arrivals: Vec<u32>,
    /// When each node's memory reads (for sends) and writes (for receives) of uncached data are
    /// done: `mem_free[2 * node]` reads, `mem_free[2 * node + 1]` writes.
    pub(crate) mem_free: Vec<u64>,
    /// Per source node: which of its packets were delivered (the duplicate guard).
    pub(crate) delivered_bits: Vec<Vec<u64>>,
}

impl Nics {
    /// The NICs of `graph`'s nodes, idle, one rank per node.
    pub(crate) fn new(graph: &fabricsim_topology::PortGraph) -> Self {
        let nodes = graph.nodes as usize;
        let engines = nodes * graph.engines as usize;
        Nics {
            messages: Slab::default(),
            gets: Slab::default(),
            engines: vec![Engine::default(); engines],
            node: vec![NodeNic::default(); nodes],
            rank_node: Vec::new(),
            posted: crate::packet::MsgFifos::new(nodes),
            answered: crate::packet::MsgFifos::new(nodes),
            core_free: vec![0; nodes],
            notify_sent: false,
            notes: Slab::default(),
            listen: true,
            arrivals: Vec::new(),
            mem_free: vec![0; 2 * nodes],
            delivered_bits: vec![Vec::new(); nodes],
            engines_div: FastDiv::new(graph.engines.max(1)),
        }
    }
}

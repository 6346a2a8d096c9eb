//! The network interfaces: messages posted by ranks, injection engines, delivery.

pub(crate) mod delivery;
pub(crate) mod inject;

use crate::packet::{Message, Slab, NIL};
use fabricsim_core::FastDiv;

/// The network interfaces: message queues, injection engines, host and memory timing, Gets, and the ranks placed on nodes.
pub(crate) struct Nics {
    pub(crate) engines_div: FastDiv,
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
    /// Per source node: packets it has created (a packet's id is its source and this count, so
    /// ids do not depend on what other nodes do).
    pub(crate) next_seq: Vec<u32>,
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
            nic_head: vec![NIL; engines],
            nic_tail: vec![NIL; engines],
            nic_rr: vec![0; nodes],
            rank_node: Vec::new(),
            posted: crate::packet::MsgFifos::new(nodes),
            answered: crate::packet::MsgFifos::new(nodes),
            core_free: vec![0; nodes],
            notify_sent: false,
            notes: Slab::default(),
            listen: true,
            arrivals: Vec::new(),
            host_free: vec![0; nodes],
            mem_free: vec![0; 2 * nodes],
            nic_wake: vec![0; nodes],
            engine_wake: vec![0; engines],
            engine_queued: vec![0; engines],
            paced_until: vec![0; engines],
            queued: vec![0; nodes],
            next_seq: vec![0; nodes],
            delivered_bits: vec![Vec::new(); nodes],
            engines_div: FastDiv::new(graph.engines.max(1)),
        }
    }
}

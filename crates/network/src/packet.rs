//! Packets and messages live in slabs: flat vectors with free lists, addressed by `u32` handles
//! so the hot path never allocates once the slabs have grown to the working set.

use crate::fabric::records::InputVcId;

/// Sentinel for "no packet / no message".
pub const NIL: u32 = u32::MAX;

/// One 64-byte cache line (aligned, so a packet never straddles two).
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct Packet {
    /// Its id: the source node and the count of packets the source created before it (never
    /// reused; for duplicate-delivery detection and to spread selection over equal candidates).
    pub seq: u32,
    /// Source node id.
    pub src: u32,
    /// Handle of its message in the NICs' message slab.
    pub msg: u32,
    /// Destination node id.
    pub dst: u32,
    /// Size on the wire in bytes ([`PacketFormat::wire`](crate::PacketFormat::wire) of its
    /// payload): what links serialise.
    pub wire_bytes: u32,
    /// Payload bytes of its message that it carries.
    pub payload: u32,
    /// When its head has passed the pipeline of the router it is in: from then on it may
    /// request an output. Whether a head-ready event is scheduled for that time depends on
    /// what it finds in its input VC (see `Core::grant`); without one, the release of the
    /// packet ahead requests for it, or schedules the event then (`Core::after_release`).
    pub ready_at: u64,
    /// When its tail has fully arrived in the buffer it occupies.
    pub tail: u64,
    /// Next packet in the same queue (input VC buffer).
    pub next: PacketId,
    /// Global input-VC index (`port * vcs + vc`) of the buffer it occupies.
    pub q: InputVcId,
    /// Global output port of its next hop (with [`Packet::out_vc`]) once known: chosen when it
    /// requests, or looked ahead when the routing gives a single hop (`NIL`: not yet known).
    pub out: u32,
    /// VC on `out` (meaningful when `out` is set).
    pub out_vc: u8,
    /// Priority class (higher is granted first), its message's.
    pub prio: u8,
    /// Whether a head-ready event is scheduled for it (see [`Packet::ready_at`]).
    pub armed: bool,
    /// Local output port forced on the first hop ([`NO_HINT`]: none).
    pub hint: u8,
    /// Whether its data streams from/to main memory (message larger than the cache).
    pub uncached: bool,
    /// Routing-class selector of its header (see [`fabricsim_routing::Header`]).
    pub zone: u8,
    /// Whether it has entered the escape sub-network of an adaptive routing.
    pub escaped: bool,
    /// For the collective logic of the router it ends at (see `crate::hardware::class_routes`): the
    /// ejection grant tells the logic its head has come.
    pub agent: bool,
}

/// `Message::engine`: no engine chosen.
pub const ANY_ENGINE: u8 = u8::MAX;

/// No first-hop hint.
pub const NO_HINT: u8 = fabricsim_routing::NO_HINT;

/// One 64-byte cache line (aligned, so a message never straddles two).
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub struct Message {
    /// Source rank (see the rank map).
    pub src: u32,
    /// Destination rank (for a multicast copy reaching a NIC, its node: see [`MULTICAST`]).
    pub dst: u32,
    /// Payload bytes (at least 1).
    pub bytes: u64,
    /// Bytes already cut into packets.
    pub packetized: u64,
    /// Payload bytes delivered so far.
    pub delivered: u64,
    /// When it was posted (ps); its latency runs from here.
    pub created: u64,
    /// The workload's tag; for the NIC's and the hardware's own operations, the entry it
    /// belongs to (see [`Message::op`]).
    pub tag: u64,
    /// Next message in the source NIC's queue.
    pub next: u32,
    /// Priority class (higher first), for its place in the NIC's queue and for its packets.
    pub prio: u8,
    /// Whether it counts in the run's statistics: posted inside the measurement window, and not
    /// the collective hardware's own (see [`hardware_op`]).
    pub measured: bool,
    /// Local output port forced on the first hop ([`NO_HINT`]: none).
    pub hint: u8,
    /// Whether its data streams from/to main memory (a memory bandwidth is modelled and it is
    /// larger than the cache).
    pub uncached: bool,
    /// [`PUT`], [`GET_REQUEST`] or [`GET_RESPONSE`] (a Get's request and data carry the Get's
    /// entry in `Core::gets` as their tag).
    pub op: u8,
    /// Engine chosen by the sender ([`ANY_ENGINE`]: dealt round-robin).
    pub engine: u8,
    /// Injection rate cap as picoseconds per KiB of wire bytes (0: none).
    pub pace: u32,
    /// Routing selector (`fabricsim_nic::Message::route`), copied into its packets' `zone`.
    pub route: u8,
}

/// `Message::op`: a Put (the workload's message).
pub const PUT: u8 = 0;
/// `Message::op`: the request of a Get, to the target's NIC.
pub const GET_REQUEST: u8 = 1;
/// `Message::op`: the data of a Get, from the target's NIC back to the initiator.
pub const GET_RESPONSE: u8 = 2;
/// `Message::op`: a barrier gate's signal to a gate on another node (its tag: the signal's
/// entry in the gate unit); sent and received by the gate hardware, with no per-message costs.
pub const GATE_SIGNAL: u8 = 3;
/// `Message::op`: a chunk of a class-route collective to the next node's collective logic (its
/// tag: the step in the class-route unit); its packets are `agent` packets.
pub const CLASS_CHUNK: u8 = 4;

/// `Message::op`: a packet of Dawning's switch barrier between two elements of a barrier tree
/// (its tag: the packet's entry in the barrier unit); sent and received by barrier logic.
pub const SWITCH_BARRIER: u8 = 5;

/// `Message::op`: a multicast packet or one of its copies (its tag: the broadcast's entry in the
/// multicast unit; a copy reaching a NIC names its node as the message's `dst`).
pub const MULTICAST: u8 = 6;

/// Whether operation `op` is the collective hardware's own (a gate signal, a class-route chunk):
/// sent and received by the hardware, with no per-message costs, and not traffic the run
/// measures.
#[inline]
pub fn hardware_op(op: u8) -> bool {
    op >= GATE_SIGNAL
}

/// A Get in progress (`Core::gets`).
#[derive(Debug, Clone, Copy)]
pub struct GetState {
    /// Rank that posted the Get and receives the data.
    pub initiator: u32,
    /// Rank whose data is read (its NIC answers the request).
    pub target: u32,
    /// Bytes requested.
    pub bytes: u64,
    /// The workload's tag, handed back with the Get's completion.
    pub tag: u64,
    /// When the Get was posted (ps); its latency runs from here.
    pub created: u64,
    /// Priority class of its request and of its data.
    pub class: u8,
}

/// FIFOs of messages, one per owner (a rank or a node): lists through `Message::next`.
#[derive(Debug, Clone)]
pub struct MsgFifos {
    head: Vec<u32>,
    tail: Vec<u32>,
}

impl MsgFifos {
    /// An empty FIFO for each of `owners` owners (ids `0..owners`).
    pub fn new(owners: usize) -> Self {
        MsgFifos { head: vec![NIL; owners], tail: vec![NIL; owners] }
    }
    /// Append message `m` to `owner`'s FIFO.
    pub fn push(&mut self, messages: &mut Slab<Message>, owner: u32, m: u32) {
        let t = self.tail[owner as usize];
        if t == NIL {
            self.head[owner as usize] = m;
        } else {
            messages.get_mut(t).next = m;
        }
        self.tail[owner as usize] = m;
    }
    /// Take the front of `owner`'s FIFO (which must not be empty).
    pub fn pop(&mut self, messages: &mut Slab<Message>, owner: u32) -> u32 {
        let m = self.head[owner as usize];
        let next = messages.get(m).next;
        self.head[owner as usize] = next;
        if next == NIL {
            self.tail[owner as usize] = NIL;
        }
        messages.get_mut(m).next = NIL;
        m
    }
}

fabricsim_core::id_type!(
    /// A packet in flight: its slot in the network's packet slab (reused once it is delivered;
    /// not the packet's identity, which is its source node and `seq`).
    PacketId
);

impl PacketId {
    /// No packet (an empty queue's head, the end of a queue).
    pub const NIL: PacketId = PacketId(u32::MAX);
}

/// A vector of `T` with a free list, addressed by handles of type `K` (a `u32` newtype, or `u32`
/// for slabs whose handles stay inside one module).
#[derive(Debug)]
pub struct Slab<T, K = u32> {
    items: Vec<T>,
    free: Vec<u32>,
    handle: std::marker::PhantomData<K>,
}

impl<T: Copy, K> Default for Slab<T, K> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new(), handle: std::marker::PhantomData }
    }
}

impl<T: Copy, K: Copy + From<u32> + Into<u32>> Slab<T, K> {
    /// Store `v` in a freed slot (the last one freed) or a new one; returns its handle.
    #[inline]
    pub fn insert(&mut self, v: T) -> K {
        if let Some(h) = self.free.pop() {
            self.items[h as usize] = v;
            K::from(h)
        } else {
            if self.items.len() == self.items.capacity() {
                fabricsim_core::huge_pages::reserve(&mut self.items, 1);
            }
            self.items.push(v);
            K::from((self.items.len() - 1) as u32)
        }
    }
    /// Free the slot of `h` for reuse. `h` must be live (not checked); its contents stay until
    /// the slot is reused.
    #[inline]
    pub fn remove(&mut self, h: K) {
        self.free.push(h.into());
    }
    /// The item at `h`, which must be live (a freed slot gives stale contents; not checked).
    #[inline]
    pub fn get(&self, h: K) -> &T {
        &self.items[h.into() as usize]
    }
    /// The item at `h`, mutably; `h` must be live (not checked).
    #[inline]
    pub fn get_mut(&mut self, h: K) -> &mut T {
        &mut self.items[h.into() as usize]
    }
    /// Every slot, live or free, indexed by handle (hot paths bind this once instead of going
    /// through the slab on each access).
    #[inline]
    pub fn slots_mut(&mut self) -> &mut [T] {
        &mut self.items
    }
    /// Every slot, live or free, indexed by handle.
    #[inline]
    pub fn slots(&self) -> &[T] {
        &self.items
    }
    /// The slot the next insert will fill, if it reuses a freed one.
    #[inline]
    pub fn next_slot(&self) -> Option<&T> {
        self.free.last().and_then(|&h| self.items.get(h as usize))
    }
    /// Items currently in use.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
    /// Slots ever allocated (the high-water mark).
    pub fn capacity_used(&self) -> usize {
        self.items.len()
    }
}

const _: () = assert!(std::mem::size_of::<Packet>() == 64 && std::mem::size_of::<Message>() == 64);

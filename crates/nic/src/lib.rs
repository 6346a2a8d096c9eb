//! The NIC as traffic sees it: the interface between whatever creates traffic (a [`Workload`])
//! and the network that carries it.
//!
//! The network crate depends on this one, not the other way round, so a workload is written and
//! tested without a network: [`mock::MockNic`] records what it posts and lets a test deliver
//! messages and fire timers by hand.
//!
//! * **Ranks.** Traffic is addressed by rank. A rank map places ranks on nodes (identity by
//!   default; several ranks per node allowed); timers are per rank.
//! * **Messages** ([`Message`]) have an operation: a [`Op::Put`] writes `bytes` from the source
//!   rank into the destination; a [`Op::Get`] asks the destination for `bytes`, which the
//!   destination's NIC sends back by itself (its workload is not involved). A class (priority:
//!   higher classes win arbitration) and a tag come back in every completion.
//! * **Completions.** [`Workload::sent`]: the last packet of a message has left the sender's NIC
//!   (its buffer may be reused: local completion). [`Workload::delivered`]: the message has fully
//!   arrived at its destination rank (for a Get: the data at the initiator), which is also the
//!   remote completion of a Put.

pub mod mock;

use fabricsim_core::{Bandwidth, NodeId, Time};

fabricsim_core::id_type!(
    /// A process: the unit traffic is addressed to. Ranks sit on nodes through a rank map.
    Rank
);

/// No first-hop hint.
pub const NO_HINT: u8 = u8::MAX;

/// Payload of a Get's request: one descriptor (as BG/Q's remote get, whose payload is
/// descriptors), which the target's NIC turns into the data transfer back.
pub const GET_REQUEST_BYTES: u64 = 64;

/// What a message does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Op {
    /// Write `bytes` from `src` into `dst`.
    #[default]
    Put,
    /// Read `bytes` of `dst` into `src`: a small request travels to `dst`, whose NIC sends the
    /// data back.
    Get,
}

/// A message to post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// The rank that posts it (a Get's initiator).
    pub src: Rank,
    /// The other rank (a Put's target, a Get's data source).
    pub dst: Rank,
    /// Payload size in bytes (for a Get, the data read back; the request is
    /// [`GET_REQUEST_BYTES`]).
    pub bytes: u64,
    /// Put or Get.
    pub op: Op,
    /// Priority class: an output grants a waiting packet of a higher class first.
    pub class: u8,
    /// Comes back in the completions.
    pub tag: u64,
    /// Local network port forced for the first hop ([`NO_HINT`]: none).
    pub hint: u8,
    /// Injection rate cap of this flow: the engine sending it starts its packets no closer
    /// than their wire size at this rate (`None`: as fast as the engine goes).
    pub rate: Option<Bandwidth>,
    /// Injection engine of the sending node that sends it (taken modulo the node's engine
    /// count; `None`: the NIC deals messages to its engines round-robin).
    pub engine: Option<u8>,
    /// How an adaptive routing routes its packets: [`ROUTE_DEFAULT`] (the routing's own way: zone
    /// table entry 0 if it has zones), a zone table entry, or [`ROUTE_DETERMINISTIC`] (the
    /// deterministic sub-network only, on one injection VC and, with several engines, one engine
    /// per pair: a pair's messages arrive in order). Ignored by
    /// deterministic routings.
    pub route: u8,
}

/// `Message::route`: the routing's default.
pub const ROUTE_DEFAULT: u8 = 0;
/// `Message::route`: deterministic routing on the deterministic (escape) VCs.
pub const ROUTE_DETERMINISTIC: u8 = 0x80;
/// `Message::route`: the bits of a zone table entry (the one above them is the network's: it
/// marks messages of a priority class on a dedicated class VC).
pub const ROUTE_ZONE: u8 = 0x3f;

impl Message {
    /// A Put of `bytes` from `src` to `dst`, class 0, tag 0, no hint.
    pub fn put(src: Rank, dst: Rank, bytes: u64) -> Self {
        Message { src, dst, bytes, op: Op::Put, class: 0, tag: 0, hint: NO_HINT, rate: None, engine: None, route: ROUTE_DEFAULT }
    }
    /// A Get by `src` of `bytes` from `dst`.
    pub fn get(src: Rank, dst: Rank, bytes: u64) -> Self {
        Message { op: Op::Get, ..Message::put(src, dst, bytes) }
    }
    /// With tag `tag` (see [`Message::tag`]).
    pub fn tag(self, tag: u64) -> Self {
        Message { tag, ..self }
    }
    /// In priority class `class` (see [`Message::class`]).
    pub fn class(self, class: u8) -> Self {
        Message { class, ..self }
    }
    /// Forced onto local network port `port` of the source's router for its first hop (see
    /// [`Message::hint`]).
    pub fn hint(self, port: u8) -> Self {
        Message { hint: port, ..self }
    }
    /// Send it on a chosen engine (see [`Message::engine`]).
    pub fn engine(self, engine: Option<u8>) -> Self {
        Message { engine, ..self }
    }
    /// Route it deterministically (see [`Message::route`]).
    pub fn deterministic(self) -> Self {
        Message { route: ROUTE_DETERMINISTIC, ..self }
    }
    /// Route it dynamically by entry `zone` (0..=63) of the routing's zone table (see
    /// [`Message::route`]); the selector's higher bits are not the caller's to set.
    pub fn zone(self, zone: u8) -> Self {
        Message { route: zone & ROUTE_ZONE, ..self }
    }
    /// Cap the flow's injection rate (see [`Message::rate`]).
    pub fn rate(self, rate: Option<Bandwidth>) -> Self {
        Message { rate, ..self }
    }
}

/// A message that completed (locally or at its destination).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    /// The rank that posted it.
    pub src: Rank,
    /// The other rank.
    pub dst: Rank,
    /// The message's payload size in bytes.
    pub bytes: u64,
    /// Put or Get.
    pub op: Op,
    /// The tag it was posted with.
    pub tag: u64,
    /// When it was posted.
    pub created: Time,
    /// When it completed: the data's last byte arrived (at `dst` for a Put, at `src` for a Get),
    /// or for a local completion, its last packet left the sender.
    pub delivered: Time,
}

/// What an in-network collective does (the hardware that offloads it: Tofu's barrier gates,
/// Blue Gene/Q's class routes, Dawning's switch barrier).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HwKind {
    /// No member is done before every member has started it; no data.
    Barrier,
    /// The root's data reaches every member.
    Broadcast,
    /// The members' values are combined at the root.
    Reduce,
    /// The members' values are combined and the result reaches every member.
    Allreduce,
}

/// How an in-network reduction combines its members' values, element by element: integers
/// (as `u64` bits, signed for min and max), bitwise operations, or IEEE doubles (as their
/// bits). `None`: nothing to combine (a barrier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HwOp {
    /// Nothing to combine (barriers, broadcasts).
    #[default]
    None,
    /// Integer sum, wrapping on overflow.
    Sum,
    /// Minimum of signed integers.
    Min,
    /// Maximum of signed integers.
    Max,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise exclusive or.
    Xor,
    /// Sum of doubles.
    FloatSum,
    /// Minimum of doubles (`f64::min`: a NaN gives way to a number).
    FloatMin,
    /// Maximum of doubles (`f64::max`: a NaN gives way to a number).
    FloatMax,
}

impl HwOp {
    /// Combine `b` into `a`, element by element.
    pub fn combine(self, a: &mut [u64; 8], b: &[u64; 8]) {
        for (x, &y) in a.iter_mut().zip(b) {
            let f = |v: u64| f64::from_bits(v);
            *x = match self {
                HwOp::None => *x,
                HwOp::Sum => x.wrapping_add(y),
                HwOp::Min => (*x as i64).min(y as i64) as u64,
                HwOp::Max => (*x as i64).max(y as i64) as u64,
                HwOp::And => *x & y,
                HwOp::Or => *x | y,
                HwOp::Xor => *x ^ y,
                HwOp::FloatSum => (f(*x) + f(y)).to_bits(),
                HwOp::FloatMin => f(*x).min(f(y)).to_bits(),
                HwOp::FloatMax => f(*x).max(f(y)).to_bits(),
            };
        }
    }
    /// Whether the hardware treats the values as floating point.
    pub fn is_float(self) -> bool {
        matches!(self, HwOp::FloatSum | HwOp::FloatMin | HwOp::FloatMax)
    }
    /// Whether counting a contribution twice changes the result (sums and xor).
    pub fn counts_twice(self) -> bool {
        matches!(self, HwOp::Sum | HwOp::Xor | HwOp::FloatSum)
    }
}

/// An in-network collective started by one rank: every member of `group` starts it with the
/// same `tag`; each member hears [`Workload::collective_done`] when its part is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HwCollective {
    /// What the collective does.
    pub kind: HwKind,
    /// Which set of ranks and which hardware resources (a barrier channel, a class route): a
    /// group made by [`Nic::collective_group`].
    pub group: u32,
    /// Data each member contributes (0 for a barrier): `bytes / 8` elements, rounded up.
    pub bytes: u64,
    /// The same at every member of one collective; comes back in
    /// [`Workload::collective_done`].
    pub tag: u64,
    /// How values combine (reductions).
    pub op: HwOp,
    /// This member's contribution: the first `bytes / 8` elements.
    pub value: [u64; 8],
}

impl HwCollective {
    /// A collective with no values to combine.
    pub fn new(kind: HwKind, group: u32, bytes: u64, tag: u64) -> Self {
        HwCollective { kind, group, bytes, tag, op: HwOp::None, value: [0; 8] }
    }
    /// With a reduction of `value` by `op`.
    pub fn reducing(self, op: HwOp, value: [u64; 8]) -> Self {
        HwCollective { op, value, ..self }
    }
}

/// A set of ranks that will run in-network collectives together (an MPI communicator): the
/// hardware resources are taken when it is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HwGroup {
    /// The maker's id for the group, which collectives name in [`HwCollective::group`].
    pub id: u32,
    /// The members, in order.
    pub members: Vec<Rank>,
    /// Whether the group will sum or xor (a wiring that may count a contribution twice is then
    /// out).
    pub sums: bool,
    /// Where the hardware has a root (a class route's tree): this member (`None`: the
    /// hardware's default).
    pub root: Option<Rank>,
}

/// The NIC side a workload talks to (implemented by the network, and by [`mock::MockNic`]).
pub trait Nic {
    /// Current simulated time.
    fn now(&self) -> Time;
    /// Ranks in the job.
    fn ranks(&self) -> u32;
    /// The node rank `r` runs on.
    fn node_of(&self, r: Rank) -> NodeId;
    /// Post a message at its source rank.
    fn post(&mut self, m: Message);
    /// Call [`Workload::wake`] for `rank` at `at` (not before now).
    fn wake_at(&mut self, rank: Rank, at: Time);
    /// Messages waiting at the NIC of `rank`'s node, not yet cut into packets (0 if the NIC
    /// does not say).
    fn queued(&self, _rank: Rank) -> u32 {
        0
    }
    /// Start an in-network collective at `rank`, or say why this network cannot.
    fn collective_start(&mut self, _rank: Rank, c: HwCollective) -> Result<(), String> {
        Err(format!("this network has no in-network collective hardware (a {:?} was started)", c.kind))
    }
    /// Make a group for in-network collectives (taking its hardware resources), or say why
    /// this network cannot.
    fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        Err(format!("this network has no in-network collective hardware (group {} was made)", g.id))
    }
    /// The reduced value `rank` received from its group's last in-network reduction.
    fn collective_value(&self, _rank: Rank, _group: u32) -> Option<[u64; 8]> {
        None
    }
}

/// What a workload may do: a thin handle on the NIC, with shorthands.
pub struct Api<'a> {
    nic: &'a mut dyn Nic,
}

impl<'a> Api<'a> {
    /// A handle on `nic`.
    pub fn new(nic: &'a mut dyn Nic) -> Self {
        Api { nic }
    }
    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Time {
        self.nic.now()
    }
    /// Ranks in the job (nodes, with the identity rank map).
    pub fn nodes(&self) -> u32 {
        self.nic.ranks()
    }
    /// The node rank `r` runs on.
    pub fn node_of(&self, r: Rank) -> NodeId {
        self.nic.node_of(r)
    }
    /// Post a message.
    #[inline]
    pub fn post(&mut self, m: Message) {
        self.nic.post(m)
    }
    /// A Put of `bytes` from `src` to `dst`; `tag` comes back on completion.
    #[inline]
    pub fn send(&mut self, src: Rank, dst: Rank, bytes: u64, tag: u64) {
        self.nic.post(Message::put(src, dst, bytes).tag(tag))
    }
    /// Like [`send`](Self::send), in priority class `prio`.
    #[inline]
    pub fn send_prio(&mut self, src: Rank, dst: Rank, bytes: u64, tag: u64, prio: u8) {
        self.nic.post(Message::put(src, dst, bytes).tag(tag).class(prio))
    }
    /// Like [`send`](Self::send), leaving on local network port `port` of the source's router.
    #[inline]
    pub fn send_via(&mut self, src: Rank, port: u8, dst: Rank, bytes: u64, tag: u64) {
        self.nic.post(Message::put(src, dst, bytes).tag(tag).hint(port))
    }
    /// Call [`Workload::wake`] for `rank` at `at` (not before now).
    #[inline]
    pub fn wake_at(&mut self, rank: Rank, at: Time) {
        self.nic.wake_at(rank, at)
    }
    /// Messages waiting at the NIC of `rank`'s node (see [`Nic::queued`]).
    pub fn queued(&self, rank: Rank) -> u32 {
        self.nic.queued(rank)
    }
    /// Start an in-network collective at `rank` (see [`Nic::collective_start`]).
    pub fn collective_start(&mut self, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.nic.collective_start(rank, c)
    }
    /// Make a group for in-network collectives (see [`Nic::collective_group`]).
    pub fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        self.nic.collective_group(g)
    }
    /// The value `rank` received from `group`'s last in-network reduction.
    pub fn collective_value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        self.nic.collective_value(rank, group)
    }
}

/// A traffic source.
pub trait Workload {
    /// Called once at time zero.
    fn start(&mut self, api: &mut Api);
    /// A timer set with [`Api::wake_at`] fired for `rank`.
    fn wake(&mut self, _rank: Rank, _api: &mut Api) {}
    /// A message completed at its destination (a Get: its data at the initiator). The
    /// completions of one instant come once every event of the instant has been handled, in
    /// an order that depends on nothing but the completions (receiving rank, then source,
    /// destination, posting time, tag...), so a workload's reactions do not depend on the
    /// order of simultaneous events.
    fn delivered(&mut self, _msg: &Delivered, _api: &mut Api) {}
    /// A Put's last packet left the sender's NIC (local completion: its buffer may be reused).
    /// Called only if [`wants_local_completion`](Self::wants_local_completion) says so.
    fn sent(&mut self, _msg: &Delivered, _api: &mut Api) {}
    /// An in-network collective this rank started (tag `tag`) is over for it.
    fn collective_done(&mut self, _rank: Rank, _tag: u64, _api: &mut Api) {}
    /// Whether to call [`sent`](Self::sent) (it costs an event per message).
    fn wants_local_completion(&self) -> bool {
        false
    }
    /// Whether the run may end now although traffic is still in flight: a closed workload
    /// measured beside background traffic, done with its own part.
    fn ended(&self) -> bool {
        false
    }
    /// Whether [`delivered`](Self::delivered) does anything (open-loop traffic ignores
    /// completions; the network then skips handing them over).
    fn hears_completions(&self) -> bool {
        true
    }
    /// Open-loop traffic that knows the network is saturated (its sources were back-pressured)
    /// returns true: the run then ends at the end of its window instead of draining.
    fn saturated(&self) -> bool {
        false
    }
    /// A closed workload (a benchmark with a fixed amount of work) returns true once it needs
    /// nothing more; open-loop traffic never finishes by itself.
    fn finished(&self) -> bool {
        false
    }
    /// Whether copies of it can drive the blocks of a partitioned run, one copy per block, each
    /// woken for its block's nodes only: it sends only from a node being woken, hears no
    /// completions, and its copies' reports add up. Open-loop sources can.
    fn partitionable(&self) -> bool {
        false
    }
}

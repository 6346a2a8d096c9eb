//! The per-port and per-buffer records the hop path reads and writes, laid out so a hop touches
//! few cache lines: a sender's record is one line, an input buffer's record half of one.
//!
//! **Credits belong to the sender.** A sender (a router output, a NIC engine) has a [`Credit`]
//! record per downstream VC: its free credit there and the link's credit return in flight to
//! it. Only the sender reads or spends it ([`Core::credit`](crate::sim::Core), and
//! `link::forward` as its packet leaves); the buffer that frees space returns it through the link (`crate::fabric::link`), the one
//! piece of code that writes on the other side of a link. *Where* the record is stored is a
//! question of speed alone: it sits in the input VC record it counts (`InputVc::credit`),
//! because forwarding a packet writes that record anyway (the packet joins its queue), and a
//! freeing buffer then returns credit into a line it has at hand. Stored in an array of the
//! senders' own, a hop touched two more lines: +28% L1 data misses and +2.4% instructions on
//! the 8x8x8 benchmark (BENCHMARKS.md, session 15). A partitioned run will have to keep the
//! credit of a link cut by a partition border with the sender instead.
//!
//! **Credit returns in flight.** A freed buffer's credit reaches its sender a credit latency
//! later. Unless the sender waits for it, the return needs no event: it sits in the credit
//! record's `pend_*` slot (the link's credit in flight) and [`Credit::absorb`] adds it to
//! `free` the next time the sender reads it in an event that comes after the return would
//! have (the slot keeps the return's place in the event order, so an event at the same instant
//! that runs before credit events does not see it). A sender that finds too little credit
//! marks the record ([`WAITING`]): later returns to it travel as events, and a return already
//! in the slot becomes an event at its arrival time, so a blocked sender wakes exactly when it
//! would with an event per return. A second return while the slot holds one that has not
//! arrived also travels as an event.
//!
//! The slot holds the return's arrival *time*, not an event-queue key: [`credit_seen`] says up
//! to which arrival time the current event sees returns (returns arriving at the current
//! instant count for events after the instant's credit events, and in the arbitration phase).

use crate::fabric::channel;
use crate::packet::{PacketId, NIL};
use crate::sim::lane;
use fabricsim_engine::EventQueue;
use fabricsim_stats::PortCounters;

/// One sender (a router output port, or a NIC engine pseudo-port): everything a hop reads or
/// writes of it, in one 64-byte line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct OutPort {
    /// Requests: bit `local_port * vcs + vc` of each input VC whose head packet wants this
    /// output, as two 64-bit words (see [`OutPort::requests`]): a bit is set and cleared in
    /// its word alone, cheaper than shifting a 128-bit mask.
    pub req: [u64; 2],
    /// When the current transmission ends.
    pub busy_until: u64,
    /// What it has sent: bytes, packets, and busy time (credit-stall time is kept apart, in
    /// [`Stall`], as only stalls touch it).
    pub bytes: u64,
    pub packets: u64,
    pub busy_ps: u64,
    /// First input-VC index of the owning router (`port_offset[router] * vcs`).
    pub qbase: u32,
    /// The router port whose input VCs this sender feeds: the port at
    /// the other end of the link, or for an engine the router port it is attached to. Ejection
    /// ports feed a NIC, which takes everything: theirs holds the port graph's peer entry (the
    /// node).
    pub peer: u32,
    /// Last granted request bit (round-robin pointer).
    pub rr: u8,
    /// Channel class ([`crate::fabric::channel`]): its timing, and whether it ejects into a NIC.
    pub class: u8,
    /// Stalled for credits since [`Stall::since`].
    pub stalled: bool,
    /// Latency of its channel (head leaving to head arriving), ps: its class's, kept here
    /// because the grant has this record at hand (cables differ link by link).
    pub latency: u32,
}

const _: () = assert!(std::mem::size_of::<OutPort>() == 64);

impl OutPort {
    /// Whether some input VC requests this output.
    #[inline]
    pub(crate) fn requested(&self) -> bool {
        self.req[0] | self.req[1] != 0
    }

    /// The request mask as one value (bit `i`: input VC `i` of the router).
    #[inline]
    pub(crate) fn requests(&self) -> u128 {
        (self.req[1] as u128) << 64 | self.req[0] as u128
    }

    /// Add request bit `bit` (below 128); returns the new mask (computed in registers, not read
    /// back from memory).
    #[inline]
    pub(crate) fn add_request(&mut self, bit: u32) -> u128 {
        let mut r = self.req;
        r[(bit >> 6) as usize & 1] |= 1 << (bit & 63);
        self.req = r;
        (r[1] as u128) << 64 | r[0] as u128
    }

    /// Remove request bit `bit`; returns whether the mask was exactly that bit (so it is empty
    /// now). A direct grant calls this with the bit not set: the mask is then unchanged and the
    /// answer is no.
    #[inline]
    pub(crate) fn take_request(&mut self, bit: u32) -> bool {
        let (w, m) = ((bit >> 6) as usize & 1, 1u64 << (bit & 63));
        // Both words are read before the store (reading back a word just cleared in memory
        // would wait on store forwarding).
        let last = (self.req[w] ^ m) | self.req[w ^ 1] == 0;
        self.req[w] &= !m;
        last
    }
}

impl Default for OutPort {
    fn default() -> Self {
        OutPort {
            req: [0; 2],
            busy_until: 0,
            bytes: 0,
            packets: 0,
            busy_ps: 0,
            qbase: 0,
            peer: NIL,
            rr: 0,
            class: channel::ENGINE,
            stalled: false,
            latency: 0,
        }
    }
}

/// Credit-stall bookkeeping of a sender (cold: touched when a stall starts or ends).
#[derive(Debug, Clone, Copy, Default)]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct Stall {
    pub since: u64,
    pub total_ps: u64,
}

/// The port counters of a sender.
pub(crate) fn counters(o: &OutPort, s: &Stall) -> PortCounters {
    PortCounters { bytes: o.bytes, packets: o.packets, busy_ps: o.busy_ps, stall_ps: s.total_ps }
}

/// `InputVc::flags`: the head packet is being sent (the VC's next packet must wait).
pub(crate) const BUSY: u8 = 1;
/// `InputVc::flags`: the first of the queues of a dynamic VC that share its buffer (Blue
/// Gene/Q's virtual output queuing; `fabricsim_routing::Routing::shared_queue`): hops name it,
/// its credit is the whole buffer's, and a packet sent to it is filed in the queue with the
/// fewest packets ([`crate::fabric::link::pool_queue`]).
pub(crate) const POOL: u8 = 2;
/// `InputVc::flags`, bits 5-7: for a queue after the first of a shared buffer, how many VCs
/// before it the first is (its freed space goes back to the first's credit). 0 elsewhere.
pub(crate) const POOL_SHIFT: u8 = 5;
/// `InputVc::flags`: the head's request is a bubble hop (it needs room for one more packet).
pub(crate) const BUBBLE: u8 = 4;
/// `InputVc::flags`: the head's request is an adaptive hop (it chooses again rather than wait
/// for credit on it).
pub(crate) const ADAPTIVE: u8 = 8;
/// `InputVc::flags`: the sender feeding it is in another block of a partitioned run (its credit
/// returns cross to that block; see [`crate::partition`]).
pub(crate) const FROM_OTHER_BLOCK: u8 = 16;

fabricsim_core::id_type!(
    /// An input VC buffer: `port * vcs + vc` over the global ports of the port graph (the
    /// input side of `port`). Indexes the network's flat array of [`InputVc`] records.
    InputVcId
);

/// One input VC buffer: its packet queue (an intrusive list through the packet slab), what the
/// head asked for (so arbitration needs no packet lookup), and, stored beside them, the credit
/// of the sender that feeds it (the sender's state: see the module doc). 32 bytes.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct InputVc {
    pub head: PacketId,
    pub tail: PacketId,
    /// Wire size of the head's request (and, while the head is being sent, of that packet).
    pub bytes: u32,
    /// VC the head asked for on its output.
    pub out_vc: u8,
    pub prio: u8,
    /// [`BUSY`], [`POOL`], [`BUBBLE`], [`ADAPTIVE`], [`FROM_OTHER_BLOCK`], and the queue's
    /// place in a shared buffer (bits [`POOL_SHIFT`] and up).
    pub flags: u8,
    /// Channel class of the sender feeding this VC (its credits travel back with that
    /// class's credit latency).
    pub up_class: u8,
    /// The feeding sender's credit on this VC.
    pub credit: Credit,
}

const _: () = assert!(std::mem::size_of::<InputVc>() == 32);

impl Default for InputVc {
    fn default() -> Self {
        InputVc {
            head: PacketId::NIL,
            tail: PacketId::NIL,
            bytes: 0,
            out_vc: 0,
            prio: 0,
            flags: 0,
            up_class: channel::NONE,
            credit: Credit::default(),
        }
    }
}

impl InputVc {
    #[inline]
    pub(crate) fn busy(&self) -> bool {
        self.flags & BUSY != 0
    }

    /// How many VCs before this one the first queue of its shared buffer is (0: it is the
    /// first, or shares nothing).
    #[inline(always)]
    pub(crate) fn pool_offset(&self) -> u32 {
        (self.flags >> POOL_SHIFT) as u32
    }

    /// Credit the head's request needs downstream: what it is charged there (its size, or a
    /// slot on a slotted VC, see `Core::slots`), plus, for a bubble hop, the room of one more
    /// largest packet of that VC, which it must leave for any packet after it.
    #[inline(always)]
    pub(crate) fn need(&self, slots: crate::fabric::link::Slots) -> u32 {
        crate::fabric::link::slot_charge(slots, self.out_vc, self.bytes) + if self.flags & BUBBLE != 0 { slots.of(self.out_vc) } else { 0 }
    }
}

/// `Credit::pend_at` with no return in flight.
pub(crate) const NO_RETURN: u64 = u64::MAX;
/// `Credit::pend_at` while the sender waits for credit: returns travel as events (the slot is
/// then empty). Later than any time a return can arrive, so never absorbed.
pub(crate) const WAITING: u64 = u64::MAX - 1;

/// A sender's credit on one VC of the input buffer it feeds, and the link's credit return in
/// flight to it. 16 bytes, stored in that input VC's record (`InputVc::credit`).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(16))]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
pub(crate) struct Credit {
    /// Free bytes of the downstream buffer as the sender sees them.
    pub free: u32,
    /// Bytes of the return in flight.
    pub pend_bytes: u32,
    /// Arrival time (ps) of the return in flight; [`NO_RETURN`], or [`WAITING`].
    pub pend_at: u64,
}

const _: () = assert!(std::mem::size_of::<Credit>() == 16);

impl Default for Credit {
    fn default() -> Self {
        Credit { free: 0, pend_bytes: 0, pend_at: NO_RETURN }
    }
}

impl Credit {
    /// Add the credit return in flight if it arrives at or before `seen` (see [`credit_seen`]).
    #[inline]
    pub(crate) fn absorb(&mut self, seen: u64) {
        // Branch-free: whether the return has arrived is data-dependent and unpredictable.
        let arrived = ((self.pend_at <= seen) as u64).wrapping_neg(); // all ones if arrived
        self.free += self.pend_bytes & arrived as u32;
        self.pend_at |= arrived;
    }

    /// The free credit counting a return that arrives at or before `seen` (read-only).
    pub(crate) fn free_at(&self, seen: u64) -> u32 {
        let pending = if self.pend_at <= seen { self.pend_bytes } else { 0 };
        self.free.saturating_add(pending)
    }

    /// Whether the sender waits for credit here.
    #[inline]
    pub(crate) fn waiting(&self) -> bool {
        self.pend_at == WAITING
    }
}

/// The latest arrival time of a credit return that the event being handled sees: the current
/// time for events that come after the instant's credit events (and for the arbitration phase),
/// the time before it for those that come earlier (workload timers).
#[inline(always)]
pub(crate) fn credit_seen<E: Copy + Default>(q: &EventQueue<E>) -> u64 {
    let now = q.now();
    let before_credits = q.current_key() < EventQueue::<E>::lane_key(now, lane::CREDIT);
    now.ps().saturating_sub(before_credits as u64)
}

#[cfg(test)]
mod tests {
    use super::{credit_seen, Credit};
    use crate::sim::lane;
    use fabricsim_core::Time;
    use fabricsim_engine::EventQueue;

    #[test]
    fn a_return_in_flight_is_seen_only_by_events_that_come_after_it() {
        // A credit return arrives at t. A workload timer at t runs before credit events of that
        // instant and must not see it; a packet head arriving at t runs after them and must.
        let t = Time(1000);
        let mut q: EventQueue<&str> = EventQueue::with_lanes(lane::COUNT);
        q.schedule_on(lane::HOP_READY, t, "head");
        q.schedule(t, "timer");
        q.schedule(Time(10), "earlier");
        let mut v = Credit { free: 100, pend_at: t.ps(), pend_bytes: 256 };
        assert_eq!(q.pop(), Some((Time(10), "earlier")));
        v.absorb(credit_seen(&q));
        assert_eq!((v.free, v.free_at(credit_seen(&q))), (100, 100));
        assert_eq!(q.pop(), Some((t, "timer")));
        v.absorb(credit_seen(&q));
        assert_eq!(v.free, 100, "a timer at the arrival instant comes before the credit");
        assert_eq!(q.pop(), Some((t, "head")));
        assert_eq!(v.free_at(credit_seen(&q)), 356);
        v.absorb(credit_seen(&q));
        assert_eq!((v.free, v.pend_at), (356, u64::MAX), "absorbed once, slot emptied");
        v.absorb(credit_seen(&q));
        assert_eq!(v.free, 356);
    }
}

//! The per-port and per-buffer records the hop path reads and writes, laid out so a hop touches
//! few cache lines: a sender's record is one line, and an input buffer's record holds the
//! credits its sender spends on it.
//!
//! **Credits live at the receiving buffer.** A sender's free credit on a VC is the `credits`
//! field of the input VC it feeds. Forwarding a packet already touches that record (the packet
//! joins its queue), and a buffer that frees space returns the credit in its own record, so
//! neither step reads the sender's record on the other side of the link.
//!
//! **Credit returns in flight.** A freed buffer's credit reaches its sender a credit latency
//! later. Unless the sender waits for it, the return needs no event: it sits in the buffer's
//! `pend_*` slot and [`InputVc::absorb`] adds it to `credits` the next time they are read at or
//! after its arrival. A sender that finds too little credit marks the buffer (`WAITER`): later
//! returns to it travel as events, and a return already in the slot becomes an event at its
//! arrival time, so a blocked sender wakes exactly when it would with an event per return. A
//! second return while the slot holds one that has not arrived also travels as an event.

use crate::channel;
use crate::packet::NIL;
use fabricsim_stats::PortCounters;

/// One sender (a router output port, or a NIC engine pseudo-port): everything a hop reads or
/// writes of it, in one 64-byte line.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct OutPort {
    /// Requests: bit `local_port * vcs + vc` of each input VC whose head packet wants this output.
    pub req: u128,
    /// When the current transmission ends.
    pub busy_until: u64,
    /// What it has sent: bytes, packets, and busy time (credit-stall time is kept apart, in
    /// [`Stall`], as only stalls touch it).
    pub bytes: u64,
    pub packets: u64,
    pub busy_ps: u64,
    /// First input-VC index of the owning router (`port_offset[router] * vcs`).
    pub qbase: u32,
    /// The router port whose input VCs this sender feeds (and holds its credits): the port at
    /// the other end of the link, or for an engine the router port it is attached to. Ejection
    /// ports feed a NIC, which takes everything (no credits).
    pub peer: u32,
    /// Last granted request bit (round-robin pointer).
    pub rr: u8,
    /// Channel class ([`crate::channel`]): its timing, and whether it ejects into a NIC.
    pub class: u8,
    /// Stalled for credits since [`Stall::since`].
    pub stalled: bool,
}

const _: () = assert!(std::mem::size_of::<OutPort>() == 64);

impl Default for OutPort {
    fn default() -> Self {
        OutPort { req: 0, busy_until: 0, bytes: 0, packets: 0, busy_ps: 0, qbase: 0, peer: NIL, rr: 0, class: channel::ENGINE, stalled: false }
    }
}

/// Credit-stall bookkeeping of a sender (cold: touched when a stall starts or ends).
#[derive(Debug, Clone, Copy, Default)]
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
/// `InputVc::flags`: the sender waits for credit on this VC (returns travel as events).
pub(crate) const WAITER: u8 = 2;

/// One input VC buffer: its packet queue (an intrusive list through the packet slab), what the
/// head asked for (so arbitration needs no packet lookup), and its sender's credits. 32 bytes.
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct InputVc {
    pub head: u32,
    pub tail: u32,
    /// Wire size of the head's request (and, while the head is being sent, of that packet).
    pub bytes: u32,
    /// Free bytes of this buffer as its sender sees them.
    pub credits: u32,
    /// Arrival time at the sender of a credit return in flight (`u64::MAX`: none), its bytes.
    pub pend_at: u64,
    pub pend_bytes: u32,
    /// VC the head asked for on its output.
    pub out_vc: u8,
    pub prio: u8,
    /// [`BUSY`], [`WAITER`].
    pub flags: u8,
    /// Channel class of the sender feeding this VC (its credits travel back with that
    /// class's credit latency).
    pub up_class: u8,
}

const _: () = assert!(std::mem::size_of::<InputVc>() == 32);

impl Default for InputVc {
    fn default() -> Self {
        InputVc { head: NIL, tail: NIL, bytes: 0, credits: 0, pend_at: u64::MAX, pend_bytes: 0, out_vc: 0, prio: 0, flags: 0, up_class: channel::NONE }
    }
}

impl InputVc {
    #[inline]
    pub(crate) fn busy(&self) -> bool {
        self.flags & BUSY != 0
    }

    /// Add the credit return in flight if it has arrived at the sender by `now`.
    #[inline]
    pub(crate) fn absorb(&mut self, now: u64) {
        // Branch-free: whether the return has arrived is data-dependent and unpredictable.
        let arrived = ((self.pend_at <= now) as u64).wrapping_neg(); // all ones if arrived
        self.credits += self.pend_bytes & arrived as u32;
        self.pend_at |= arrived;
    }

    /// The sender's free credit at `now`, counting a return that has arrived (read-only).
    pub(crate) fn credits_at(&self, now: u64) -> u32 {
        let pending = if self.pend_at <= now { self.pend_bytes } else { 0 };
        self.credits.saturating_add(pending)
    }
}

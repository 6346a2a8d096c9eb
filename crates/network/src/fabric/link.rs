//! The link seam: the only two ways a router's state reaches the router at the other end of a
//! link. [`forward`] hands a packet to the downstream input buffer (and spends the sender's
//! credit for it); [`Core::return_credit`] sends freed buffer space back to the sender's credit
//! record (see [`crate::fabric::records`]). A partitioned run puts a partition boundary exactly here:
//! both become messages that take effect a link latency later, and nothing else crosses.

use crate::fabric::records::{credit_seen, InputVc, InputVcId, NO_RETURN, POOL};
use crate::packet::{Packet, PacketId};
use crate::sim::{lane, Core, Ev};
use fabricsim_core::Time;
use fabricsim_engine::EventQueue;
use fabricsim_stats::Observer;

/// Packet `pkt` (already off its input VC; `charge`: the credit it takes there) crosses a link into input VC
/// `ds_q` of the next router (and joins `join`: `ds_q`, or a queue of `ds_q`'s shared buffer,
/// see [`pool_queue`]): its tail arrives at `tail`, its head is through that router's
/// pipeline at `ready`. `back_to_back`: the sending output started it the instant its previous
/// transmission ended.
///
/// A head-ready event is scheduled only where the packet may find itself first in an idle VC.
/// Behind a queued packet it would find nothing to do (that packet leaves a serialisation time
/// later at the earliest), and so it would right behind one still leaving if this one came
/// back-to-back on the link: the release of the packet ahead then requests for it, or schedules
/// its event if it is not ready yet (`Core::after_release`). 12% fewer events on the uniform
/// benchmark (BENCHMARKS.md, session 7).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn forward(
    crossings: &mut Crossings,
    vcq: &mut [InputVc],
    packets: &mut [Packet],
    queue: &mut EventQueue<Ev>,
    pkt: PacketId,
    ds_q: InputVcId,
    join: InputVcId,
    charge: u32,
    tail: u64,
    ready: u64,
    back_to_back: bool,
) {
    vcq[ds_q.index()].credit.free -= charge;
    arrive(crossings, vcq, packets, queue, pkt, join, tail, ready, back_to_back);
}

/// The input VC a packet sent to input VC `q` joins: `q`, or if `q` is the first queue of a
/// shared buffer ([`POOL`]), the queue of that buffer with the fewest packets.
#[inline(always)]
pub(crate) fn pool_queue(vcq: &[InputVc], packets: &[Packet], q: InputVcId) -> InputVcId {
    if vcq[q.index()].flags & POOL != 0 {
        fewest_packets(vcq, packets, q)
    } else {
        q
    }
}

/// The downstream half of [`forward`]: packet `pkt` joins input VC `ds_q` (the sender has
/// spent its credit). A partitioned run calls it alone for a packet that crossed a cut link,
/// when the window after the one it left in starts: its head arrives no earlier, and the VC
/// is then as it would have found it (only packets ahead of it on the same link enter it).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn arrive(
    crossings: &mut Crossings,
    vcq: &mut [InputVc],
    packets: &mut [Packet],
    queue: &mut EventQueue<Ev>,
    pkt: PacketId,
    ds_q: InputVcId,
    tail: u64,
    ready: u64,
    back_to_back: bool,
) {
    crossings.packet(ds_q);
    let d = &mut vcq[ds_q.index()];
    let first = d.tail == PacketId::NIL && (!d.busy() || !back_to_back);
    let p = &mut packets[pkt.index()];
    (p.next, p.q, p.tail, p.ready_at, p.armed) = (PacketId::NIL, ds_q, tail, ready, first);
    if d.tail == PacketId::NIL {
        d.head = pkt;
    } else {
        let t = d.tail;
        packets[t.index()].next = pkt;
    }
    vcq[ds_q.index()].tail = pkt;
    if first {
        queue.schedule_on(lane::HOP_READY, Time(ready), Ev::Ready(pkt));
    }
}

/// The queue a packet sent to the shared buffer whose first queue is `first` is filed in: the
/// one holding the fewest packets (waiting, or still being sent on), the first of equals.
/// Packets join and leave a queue only as they arrive and as their tails leave (a grant takes
/// the head off the list but leaves the queue busy, which counts it), and an instant's
/// departures all come before its arrivals (the releases are events, arrivals come from the
/// instant's arbitration, or from its last event), so the choice does not depend on the order
/// of same-instant events.
#[cold]
#[inline(never)]
pub(crate) fn fewest_packets(vcq: &[InputVc], packets: &[Packet], first: InputVcId) -> InputVcId {
    let mut best = (u32::MAX, first);
    let mut q = first.0;
    loop {
        let v = &vcq[q as usize];
        let mut n = v.busy() as u32;
        let mut p = v.head;
        while p != PacketId::NIL && n < best.0 {
            n += 1;
            p = packets[p.index()].next;
        }
        if n < best.0 {
            best = (n, InputVcId(q));
        }
        q += 1;
        match vcq.get(q as usize) {
            Some(next) if next.pool_offset() == q - first.0 => {}
            _ => return best.1,
        }
    }
}

/// Packet `pkt`'s tail, on its way over a link into input VC `ds_q`, arrives later, at
/// `tail` (its transmission was suspended for a packet of a higher priority, see
/// `crate::fabric::flits`): where the packet still waits in that VC, its record says so. (Where
/// it has already gone on, its transmission there ends late enough; the caller checked.)
#[inline(never)]
pub(crate) fn tail_later(crossings: &mut Crossings, packets: &mut [Packet], pkt: PacketId, ds_q: InputVcId, tail: u64) {
    let p = &mut packets[pkt.index()];
    if p.q == ds_q {
        crossings.packet(ds_q);
        p.tail = p.tail.max(tail);
    }
}

impl<O: Observer> Core<O> {
    /// Credit a packet of `size` wire bytes takes in a buffer of VC `vc` (see `Core::slots`).
    #[inline(always)]
    pub(crate) fn charge(&self, vc: u8, size: u32) -> u32 {
        slot_charge(self.fabric.slots, vc, size)
    }

    /// `bytes` of input VC `q` are free again (at `now`): return them to the VC's sender a
    /// credit latency later. Unless the sender waits for credit (or `silent` is off), the
    /// return needs no event: it waits in the sender's credit slot, in flight on the link, until
    /// read (see `records.rs`).
    #[inline(always)]
    pub(crate) fn return_credit(&mut self, q: InputVcId, bytes: u32, now: u64, silent: bool) {
        // A queue of a shared buffer frees the buffer's space: its first queue holds the credit.
        let q = if self.fabric.queue_followers != 0 { InputVcId(q.0 - self.fabric.vcq[q.index()].pool_offset()) } else { q };
        if self.cut_credit(q, bytes, now, silent) {
            return;
        }
        self.fabric.crossings.credit(q);
        self.credit_back(q, bytes, now, silent);
    }

    /// The sender's side of [`return_credit`](Self::return_credit): `bytes` of input VC `q`
    /// freed at `now` reach it a credit latency later (in a partitioned run, called when the
    /// return has crossed to the sender's block).
    #[inline(always)]
    pub(crate) fn credit_back(&mut self, q: InputVcId, bytes: u32, now: u64, silent: bool) {
        let v = &mut self.fabric.vcq[q.index()];
        let delay = self.fabric.timing.credit_latency(v.up_class);
        if silent && delay > 0 {
            let c = &mut v.credit;
            if !c.waiting() {
                c.absorb(credit_seen(&self.queue));
                if c.pend_at == NO_RETURN {
                    c.pend_at = now + delay;
                    c.pend_bytes = bytes;
                    return;
                }
            }
        }
        if delay == 0 {
            self.on_credit(q, bytes);
        } else {
            self.credit_event(now + delay, q, bytes);
        }
    }
}

/// What the link code handed across during a step: the input VCs a packet went to, and those
/// whose sender got credit back (the seam guard's record, `fabric/guard.rs`; nothing is kept
/// without the `seam-guard` feature).
#[derive(Debug, Default)]
pub(crate) struct Crossings {
    #[cfg(feature = "seam-guard")]
    pub(crate) packets_to: Vec<u32>,
    #[cfg(feature = "seam-guard")]
    pub(crate) credit_for: Vec<u32>,
}

impl Crossings {
    /// A packet was handed to input VC `q` of the next router.
    #[inline(always)]
    pub(crate) fn packet(&mut self, _q: InputVcId) {
        #[cfg(feature = "seam-guard")]
        self.packets_to.push(_q.0);
    }

    /// Credit of input VC `q` went back to its sender.
    #[inline(always)]
    pub(crate) fn credit(&mut self, _q: InputVcId) {
        #[cfg(feature = "seam-guard")]
        self.credit_for.push(_q.0);
    }

    /// Forget the last step's crossings.
    #[cfg(feature = "seam-guard")]
    pub(crate) fn clear(&mut self) {
        self.packets_to.clear();
        self.credit_for.clear();
    }
}

impl<O: Observer> Core<O> {
    /// Step `f`, which belongs to the router `home` names: with the `seam-guard` feature the
    /// guard checks that it changes no other router's state but through this file's crossings
    /// (`what` names the step in a report); without it, just `f`.
    #[inline(always)]
    pub(crate) fn guarded(&mut self, _home: impl FnOnce(&Self) -> u32, _what: impl Fn() -> String, f: impl FnOnce(&mut Self)) {
        #[cfg(feature = "seam-guard")]
        let step = {
            let home = _home(self);
            self.guard_begin(Some(home))
        };
        f(self);
        #[cfg(feature = "seam-guard")]
        self.guard_end(step, &_what);
    }
}

/// Which VCs' buffers hold whole slots (see `Core::slots`), and how large: the largest packet
/// that travels on them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Slots {
    /// Bytes per slot on VCs below `class_from`: the largest packet.
    pub size: u32,
    /// Bytes per slot on the class VCs (`class_from` and up), whose packets may be cut smaller.
    pub class_size: u32,
    pub class_from: u8,
    /// One bit per VC whose buffers hold slots (0: none).
    pub vcs: u32,
}

impl Slots {
    /// The largest packet on VC `vc`: its slot, and the room a bubble hop onto it leaves.
    #[inline(always)]
    pub(crate) fn of(&self, vc: u8) -> u32 {
        if vc < self.class_from {
            self.size
        } else {
            self.class_size
        }
    }
}

/// Credit a packet of `size` bytes takes in a VC-`vc` buffer: a slot on a slotted VC, its
/// size elsewhere.
#[inline(always)]
pub(crate) fn slot_charge(slots: Slots, vc: u8, size: u32) -> u32 {
    if slots.vcs >> vc & 1 != 0 {
        slots.of(vc)
    } else {
        size
    }
}

#[cfg(test)]
mod tests {
    use super::fewest_packets;
    use crate::fabric::records::{InputVc, InputVcId, BUSY, POOL, POOL_SHIFT};
    use crate::packet::{Packet, PacketId};

    /// Input VCs 0-4 of a port: VC 0 alone, VCs 1-3 the queues of one shared buffer, VC 4 alone;
    /// `lens[q]` packets queued in VC `q`, `busy[q]`: its head is being sent on.
    fn port(lens: [u32; 5], busy: [bool; 5]) -> (Vec<InputVc>, Vec<Packet>) {
        let mut packets: Vec<Packet> = Vec::new();
        let vcq = (0..5)
            .map(|q| {
                let mut v = InputVc { flags: if busy[q] { BUSY } else { 0 }, ..InputVc::default() };
                v.flags |= match q {
                    1 => POOL,
                    2 | 3 => ((q - 1) as u8) << POOL_SHIFT,
                    _ => 0,
                };
                for _ in 0..lens[q] {
                    let id = PacketId(packets.len() as u32);
                    packets.push(Packet {
                        seq: 0,
                        src: 0,
                        msg: 0,
                        dst: 0,
                        wire_bytes: 256,
                        payload: 256,
                        ready_at: 0,
                        tail: 0,
                        next: PacketId::NIL,
                        q: InputVcId(q as u32),
                        out: 0,
                        out_vc: 0,
                        prio: 0,
                        armed: false,
                        hint: 0,
                        uncached: false,
                        zone: 0,
                        escaped: false,
                        agent: false,
                    });
                    if v.head == PacketId::NIL {
                        v.head = id;
                    } else {
                        packets[v.tail.index()].next = id;
                    }
                    v.tail = id;
                }
                v
            })
            .collect();
        (vcq, packets)
    }

    #[test]
    fn a_packet_joins_the_queue_of_its_shared_buffer_with_fewest_packets() {
        let pick = |lens, busy| {
            let (vcq, packets) = port(lens, busy);
            fewest_packets(&vcq, &packets, InputVcId(1)).0
        };
        assert_eq!(pick([0, 2, 0, 1, 0], [false; 5]), 2, "the emptiest queue, not the VCs around the buffer");
        assert_eq!(pick([0, 1, 1, 1, 9], [false; 5]), 1, "equals: the first");
        assert_eq!(pick([0, 1, 1, 2, 0], [false, false, true, false, false]), 1, "a packet still leaving counts");
        assert_eq!(pick([5, 3, 2, 0, 0], [false; 5]), 3, "the last queue of the buffer");
    }
}

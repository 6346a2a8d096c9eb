//! The receiving side of a NIC: a packet's tail arrives (duplicate check, latency records), and
//! a message whose bytes have all arrived completes.

use crate::packet::{hardware_op, PacketId, GET_REQUEST, GET_RESPONSE, NO_HINT};
use crate::sim::{lane, Core, Ev};
use crate::workload::Delivered;
use fabricsim_core::{NodeId, SimError, Time};
use fabricsim_nic::{Op, Rank};
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// Packet `pkt`'s tail has reached its destination NIC: count it (once), record its latency,
    /// and complete its message if this was the message's last byte (after the receive
    /// overhead, if any). Returns the completed message.
    pub(crate) fn deliver(&mut self, pkt: PacketId) -> Option<Delivered> {
        let now = self.queue.now().ps();
        let p = *self.packets.get(pkt);
        let bits = &mut self.nics.delivered_bits[p.src as usize];
        let word = (p.seq / 64) as usize;
        if word >= bits.len() {
            bits.resize(word + 1 + word / 2, 0);
        }
        let bit = 1u64 << (p.seq % 64);
        if bits[word] & bit != 0 {
            // Leave the books as they are: the run stops at its next check with this error.
            self.error.get_or_insert(SimError::DuplicateDelivery { src: p.src, packet: p.seq });
            return None;
        }
        bits[word] |= bit;
        self.packets.remove(pkt);
        // Wrapping: a block of a partitioned run counts the packets it delivers, not only those it
        // injected (the run adds the blocks' balances up).
        self.meter.in_network = self.meter.in_network.wrapping_sub(1);
        self.meter.last_progress = now;
        self.meter.out.packets_delivered += 1;
        // (Packets routed deterministically by request never had a choice: not counted.)
        let chose = p.zone & (fabricsim_routing::adaptive::DETERMINISTIC | fabricsim_routing::classes::CLASS_VC) == 0;
        self.meter.out.packets_escaped += (p.escaped && chose) as u64;
        self.meter.out.bytes_delivered += p.payload as u64;
        if now >= self.meter.window_start && now < self.meter.window_end {
            self.meter.out.window_bytes += p.payload as u64;
            if now < self.meter.window_start + (self.meter.window_end - self.meter.window_start) / 2 {
                self.meter.out.window_bytes_first_half += p.payload as u64;
            }
        }
        let m = self.nics.messages.get_mut(p.msg);
        m.delivered += p.payload as u64;
        self.obs.on_deliver(Time(now), NodeId(p.dst), p.payload, Time(now - m.created));
        let measured = m.measured;
        let rx = if hardware_op(m.op) { 0 } else { self.p.rx_overhead.ps() };
        // A message of one packet with no receive overhead completes now: its latency and its
        // packet's are the same value, recorded once (see `Core::single_latency`).
        let single = m.delivered == p.payload as u64 && m.delivered >= m.bytes && rx == 0;
        if measured {
            let h = if single { &mut self.meter.single_latency } else { &mut self.meter.out.packet_latency };
            h.record(Time(now - m.created));
        }
        if m.delivered < m.bytes {
            return None;
        }
        if self.faults.is_some() && self.drop_if_lost(p.msg) {
            return None;
        }
        if rx > 0 {
            self.queue.schedule_on(lane::MSG_DONE, Time(now + rx), Ev::MsgDone(p.msg));
            return None;
        }
        self.complete(p.msg, !single)
    }

    /// A message is done at the receiver: record it (unless `record` is false: its latency is
    /// already in `single_latency`) and free it. A Put completes to its workload; a Get's
    /// request is answered by the target's NIC (the data is posted back); a Get's data
    /// completes the Get to the initiator's workload.
    pub(crate) fn complete(&mut self, msg: u32, record: bool) -> Option<Delivered> {
        let now = self.queue.now().ps();
        let m = *self.nics.messages.get(msg);
        let measured = m.measured;
        self.nics.messages.remove(msg);
        if self.cut.is_some() {
            self.cut_complete(&m);
        }
        self.meter.out.messages_delivered += 1;
        if measured {
            self.meter.measured_outstanding = self.meter.measured_outstanding.wrapping_sub(1);
            if record {
                self.meter.out.message_latency.record(Time(now - m.created));
            }
        }
        match m.op {
            GET_REQUEST => {
                let g = *self.nics.gets.get(m.tag as u32);
                self.send(g.target, g.initiator, g.bytes, m.tag, NO_HINT, g.class, GET_RESPONSE, (0, crate::packet::ANY_ENGINE, 0));
                None
            }
            // The hardware's own messages: back to the unit that sent them.
            op if hardware_op(op) => {
                self.unit_message(op, m.tag, m.dst, m.bytes);
                None
            }
            GET_RESPONSE => {
                let g = *self.nics.gets.get(m.tag as u32);
                self.nics.gets.remove(m.tag as u32);
                let d = Delivered {
                    src: Rank(g.initiator),
                    dst: Rank(g.target),
                    bytes: g.bytes,
                    op: Op::Get,
                    tag: g.tag,
                    created: Time(g.created),
                    delivered: Time(now),
                };
                Some(d)
            }
            _ => {
                let d = Delivered {
                    src: Rank(m.src),
                    dst: Rank(m.dst),
                    bytes: m.bytes,
                    op: Op::Put,
                    tag: m.tag,
                    created: Time(m.created),
                    delivered: Time(now),
                };
                Some(d)
            }
        }
    }

    /// Completion `d` (`sent`: a local one) goes to the workload at the end of the instant
    /// (see `Simulation::end_instant`); `polled`: its core has already taken it.
    #[inline]
    pub(crate) fn hand_over(&mut self, d: Delivered, sent: bool, polled: bool) {
        // A workload that does not listen still has its core poll (and pay for) completions.
        if self.nics.listen || sent || self.p.poll_overhead.ps() > 0 {
            self.phase.handover.push(Handover { d, sent, polled });
            self.phase.due = true;
        }
    }

    /// The receiving rank's core takes completion `d` after its earlier work and one polling
    /// cost (one completion at a time); the workload hears of it then.
    pub(crate) fn poll_later(&mut self, d: Delivered) {
        let rank = if d.op == Op::Get { d.src } else { d.dst };
        let core = &mut self.nics.core_free[rank.index()];
        *core = (*core).max(self.queue.now().ps()) + self.p.poll_overhead.ps();
        let at = *core;
        let note = self.nics.notes.insert(d);
        self.queue.schedule(Time(at), Ev::Polled(note));
    }
}

/// A completion on its way to the workload.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Handover {
    pub d: Delivered,
    /// A local completion (the last packet left the sender).
    pub sent: bool,
    /// The receiving core has taken it (its polling cost is paid).
    pub polled: bool,
}

impl Handover {
    /// The order completions of one instant reach the workload: by the rank that hears of
    /// it, then by everything else they carry (two with equal keys are alike).
    pub(crate) fn key(&self) -> (Rank, bool, Rank, Rank, Time, u64, u64, bool, Time) {
        let d = &self.d;
        let rank = if self.sent || d.op == Op::Get { d.src } else { d.dst };
        (rank, self.sent, d.src, d.dst, d.created, d.tag, d.bytes, d.op == Op::Get, d.delivered)
    }
}

//! Flit multiplexing of a link's VCs (`NetworkParams::flit_bytes`): a packet of a higher
//! priority may take the link in the middle of a lower-priority packet's transmission, at its
//! next flit boundary, instead of waiting for its tail.
//!
//! Without it (the default), an output sends whole packets: once granted, a packet holds the
//! link until its tail has left, so a top-priority packet (a Dawning barrier packet on its own
//! VC) waits out the rest of a 1 KB unicast packet on each link of its way. Routers that
//! multiplex their VCs on a link at flit granularity let it in sooner.
//!
//! **What is modelled.** An output sending packet P (the *low* transmission) may be taken,
//! at a boundary of P's flits, by a packet Q whose class is higher than P's: a VC request of a
//! higher priority, or the switch's own agent packet (the highest). Q crosses the link as any
//! packet does, starting at the boundary; P is suspended for Q's wire time and resumes where it
//! stopped: its tail leaves, and arrives at the next router, that much later, and the output
//! frees that much later. Q itself is never suspended, and packets of equal priority still
//! take turns packet by packet (the link's throughput is the same either way; the latency of
//! equal-priority packets interleaved flit by flit is not modelled).
//!
//! **Cut-through downstream.** P's head may already have gone on from the next router. Its
//! transmission there must not end before its (later) tail arrives; the router pipeline leaves
//! some slack, enough for a short packet to slip in. Where the delay would overrun that slack
//! (P already under way downstream and ending too early for the later tail), Q is not let in
//! and waits for P's tail as it would without flits; these are counted (`refused` in the
//! run's `flits` object). The same holds where the next router has taken P otherwise (a
//! switch copying a multicast packet). What a switch sends itself (its agent's packets,
//! multicast copies) is never suspended.
//!
//! **Order independence.** A preemption is decided in the end-of-instant phase, at the flit
//! boundary, among every request of that instant, by the same arbitration as an idle output
//! (priority, then round-robin); a request for a busy output schedules that decision at the
//! boundary.
//!
//! Not combined with faulty links or partitioned runs (refused by name). Engine pseudo-ports
//! (a NIC pushing a packet into its router) send whole packets.

use crate::fabric::channel;
use crate::fabric::records::InputVcId;
use crate::packet::PacketId;
use crate::sim::{lane, Core, Ev};
use fabricsim_core::Time;
use fabricsim_stats::Observer;
use std::collections::HashMap;

/// The priority of a switch agent's packet (above every message class).
pub(crate) const AGENT_PRIO: u8 = u8::MAX;

/// Per output: the transmission that may be suspended, and the one that suspended it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LinkShare {
    /// The packet whose transmission ends at the output's `busy_until` (NIL: none that may be
    /// suspended, e.g. an agent's packet), its priority and request bit.
    low: PacketId,
    low_prio: u8,
    low_bit: u8,
    /// When the low packet's tail leaves (the output's `busy_until` while it is current).
    low_end: u64,
    /// The packet that suspended it (NIL: none), and when its tail leaves.
    high: PacketId,
    high_end: u64,
    /// Origin of the low packet's flit boundaries: when it (re)started sending.
    grid: u64,
    /// Whether a suspension of the low packet was refused already (counted once).
    refused: bool,
}

impl Default for LinkShare {
    fn default() -> Self {
        LinkShare { low: PacketId::NIL, low_prio: 0, low_bit: 0, low_end: 0, high: PacketId::NIL, high_end: 0, grid: 0, refused: false }
    }
}

/// The state of flit multiplexing (present only when it is on).
#[derive(Debug)]
pub(crate) struct Flits {
    /// Flit size, bytes.
    bytes: u32,
    share: Vec<LinkShare>,
    /// Outputs whose suspension is decided at the end of this instant.
    due: Vec<u32>,
    /// Whether the arbitration under way may suspend its output's transmission.
    preempting: bool,
    /// Packets whose arrival at a NIC (delivery, or release of an on-chip ejection) was
    /// postponed, and its new time.
    late: HashMap<PacketId, u64>,
    /// Transmissions suspended, and suspensions refused for lack of slack downstream.
    preemptions: u64,
    refused: u64,
}

impl Flits {
    /// Flits of `bytes` on `senders` outputs.
    pub(crate) fn new(bytes: u32, senders: usize) -> Self {
        Flits {
            bytes,
            share: vec![LinkShare::default(); senders],
            due: Vec::new(),
            preempting: false,
            late: HashMap::new(),
            preemptions: 0,
            refused: 0,
        }
    }
}

/// What flit multiplexing did in a run (the report's `flits` object).
#[derive(Debug, Clone, Copy, Default, serde::Serialize, PartialEq, Eq)]
pub struct FlitCounts {
    /// Flit size, bytes.
    pub flit_bytes: u32,
    /// Transmissions suspended at a flit boundary for a packet of a higher priority.
    pub preemptions: u64,
    /// Suspensions not made because the later tail would have overrun the packet's
    /// transmission already under way at the next router (the higher priority then waited
    /// for the tail).
    pub refused: u64,
}

impl Flits {
    /// The counts so far.
    pub(crate) fn counts(&self) -> FlitCounts {
        FlitCounts { flit_bytes: self.bytes, preemptions: self.preemptions, refused: self.refused }
    }
}

/// The first flit boundary at or after `t` of a transmission whose flits start at `grid`.
fn boundary(grid: u64, flit_ps: u64, t: u64) -> u64 {
    if t <= grid || flit_ps == 0 {
        return t.max(grid);
    }
    grid + (t - grid).div_ceil(flit_ps) * flit_ps
}

impl<O: Observer> Core<O> {
    /// Output `out` grants request bit `bit` (input VC `q`) with flits on: a normal grant on an
    /// idle output (its packet becomes the one that may be suspended), or, during a
    /// preemption, the packet that suspends the current one.
    #[inline(never)]
    pub(crate) fn grant_flit(&mut self, out: u32, bit: u32, q: InputVcId) {
        let now = self.queue.now().ps();
        let f = self.fabric.flits.as_deref().unwrap();
        let pkt = self.fabric.vcq[q.index()].head;
        let prio = self.fabric.vcq[q.index()].prio;
        if !f.preempting {
            self.grant_with::<true>(out, bit, q);
            let end = self.fabric.outs[out as usize].busy_until;
            let f = self.fabric.flits.as_deref_mut().unwrap();
            f.share[out as usize] = LinkShare { low: pkt, low_prio: prio, low_bit: bit as u8, low_end: end, grid: now, ..LinkShare::default() };
            return;
        }
        let p = *self.packets.get(pkt);
        let class = self.fabric.outs[out as usize].class;
        let end = (now + self.fabric.timing.serialization(class, p.wire_bytes)).max(p.tail);
        if !self.room_to_suspend(out, end - now) {
            return;
        }
        let old_end = self.fabric.outs[out as usize].busy_until;
        self.grant_with::<true>(out, bit, q);
        // Its hold on the link as the grant set it (an uncached packet into a NIC also waits
        // for the node's memory).
        let end = self.fabric.outs[out as usize].busy_until;
        self.suspended(out, old_end, pkt, end);
    }

    /// Packet `pkt` of the switch's agent takes output `out` now until `end`, suspending the
    /// low transmission (see [`Core::preempt`]).
    fn agent_preempts(&mut self, out: u32) -> bool {
        let now = self.queue.now().ps();
        let Some(wire) = self.agent_front_wire(out) else { return false };
        let class = self.fabric.outs[out as usize].class;
        let end = now + self.fabric.timing.serialization(class, wire);
        if !self.room_to_suspend(out, end - now) {
            return false;
        }
        let old_end = self.fabric.outs[out as usize].busy_until;
        // The agent's launch marks the output as sending something never suspended: the
        // suspended packet's record is kept.
        let saved = self.fabric.flits.as_deref().unwrap().share[out as usize];
        if !self.agent_grant(out) {
            return false;
        }
        self.fabric.flits.as_deref_mut().unwrap().share[out as usize] = saved;
        self.suspended(out, old_end, PacketId::NIL, end);
        true
    }

    /// Whether the low transmission on `out` may be suspended for `shift`: its packet's tail
    /// then reaches the next router `shift` later. Allowed where the packet still waits in its
    /// buffer there (its record then says when the tail comes), or is sent on from there by a
    /// grant ending no earlier than that tail; refused where the next router already took it
    /// otherwise (a switch copying a multicast packet, an agent's sink) or sends it on too
    /// early. Refusals are counted once per packet and output.
    fn room_to_suspend(&mut self, out: u32, shift: u64) -> bool {
        let now = self.queue.now().ps();
        let f = self.fabric.flits.as_deref().unwrap();
        let s = f.share[out as usize];
        let o = self.fabric.outs[out as usize];
        let ok = o.class == channel::TERMINAL || {
            let tail = s.low_end + shift + o.latency as u64;
            let (router, base) = self.router_of(o.peer);
            let last = self.graph.port_offset[router as usize + 1];
            let sent_on = (base..last).find_map(|o2| {
                let s2 = f.share[o2 as usize];
                let busy = self.fabric.outs[o2 as usize].busy_until;
                if s2.high == s.low && s2.high_end > now {
                    Some(false)
                } else if s2.low == s.low && s2.low_end == busy && busy > now {
                    Some(s2.low_end >= tail)
                } else {
                    None
                }
            });
            sent_on.unwrap_or_else(|| {
                let ds_q = o.peer * self.fabric.vcs + self.fabric.vcq[(o.qbase + s.low_bit as u32) as usize].out_vc as u32;
                self.queued_in(ds_q, s.low)
            })
        };
        if !ok && !s.refused {
            let f = self.fabric.flits.as_deref_mut().unwrap();
            f.refused += 1;
            f.share[out as usize].refused = true;
        }
        ok
    }

    /// Whether packet `pkt` waits in input VC `q`'s queue.
    fn queued_in(&self, q: u32, pkt: PacketId) -> bool {
        let mut p = self.fabric.vcq[q as usize].head;
        while p != PacketId::NIL {
            if p == pkt {
                return true;
            }
            p = self.packets.get(p).next;
        }
        false
    }

    /// Output `out`'s low transmission (which ended at `old_end`) was suspended at `now` for
    /// packet `high`, whose tail leaves at `high_end`: everything of the low packet moves later.
    fn suspended(&mut self, out: u32, old_end: u64, high: PacketId, high_end: u64) {
        let now = self.queue.now().ps();
        let shift = high_end - now;
        let o = &mut self.fabric.outs[out as usize];
        o.busy_until = old_end + shift;
        let (lat, class, peer) = (o.latency as u64, o.class, o.peer);
        let f = self.fabric.flits.as_deref_mut().unwrap();
        f.preemptions += 1;
        let s = &mut f.share[out as usize];
        (s.low_end, s.high, s.high_end, s.grid) = (old_end + shift, high, high_end, high_end);
        let (low, low_end, low_bit) = (s.low, s.low_end, s.low_bit);
        if class == channel::TERMINAL {
            // The NIC takes it later: its delivery (or on-chip release) waits.
            f.late.insert(low, low_end + lat);
        } else {
            let ds_q = InputVcId(peer * self.fabric.vcs + self.fabric.vcq[(self.first_vc_of(out) + low_bit as u32) as usize].out_vc as u32);
            crate::fabric::link::tail_later(&mut self.fabric.crossings, self.packets.slots_mut(), low, ds_q, low_end + lat);
        }
        if !self.fabric.in_busy.is_empty() {
            // The low packet's crossbar input carries it until its tail has left.
            let (port, _) = self.fabric.vcs_div.div_rem(self.first_vc_of(out) + low_bit as u32);
            let b = &mut self.fabric.in_busy[port as usize];
            *b = (*b).max(low_end);
        }
        self.meter.last_progress = self.meter.last_progress.max(low_end + lat);
    }

    /// A request of priority `prio` for busy output `out`: if it may suspend the transmission
    /// there, the decision is taken at the next flit boundary.
    #[inline(never)]
    pub(crate) fn flit_request(&mut self, out: u32, prio: u8) {
        let now = self.queue.now().ps();
        let Some(f) = self.fabric.flits.as_deref() else { return };
        let s = f.share[out as usize];
        let o = &self.fabric.outs[out as usize];
        if s.low == PacketId::NIL || s.low_end != o.busy_until || o.busy_until <= now || prio <= s.low_prio {
            return;
        }
        let at = now.max(s.high_end);
        let b = boundary(s.grid, self.flit_ps(out), at);
        if b < s.low_end {
            if b == now {
                self.flit_due(out);
            } else {
                self.queue.schedule(Time(b), Ev::FlitSlot(out));
            }
        }
    }

    /// What output `out` sends next is not to be suspended (an agent's or a multicast packet).
    pub(crate) fn flit_forget(&mut self, out: u32) {
        if let Some(f) = self.fabric.flits.as_deref_mut() {
            f.share[out as usize].low = PacketId::NIL;
        }
    }

    /// Decide at the end of this instant whether `out`'s transmission is suspended.
    pub(crate) fn flit_due(&mut self, out: u32) {
        if let Some(f) = self.fabric.flits.as_deref_mut() {
            f.due.push(out);
            self.phase.due = true;
        }
    }

    /// Serialisation time of one flit on `out`.
    fn flit_ps(&mut self, out: u32) -> u64 {
        let bytes = self.fabric.flits.as_deref().unwrap().bytes;
        self.fabric.timing.serialization(self.fabric.outs[out as usize].class, bytes)
    }

    /// The phase's part: every output due decides, in ascending order.
    pub(crate) fn flit_phase(&mut self) {
        let Some(f) = self.fabric.flits.as_deref_mut() else { return };
        if f.due.is_empty() {
            return;
        }
        let mut due = std::mem::take(&mut f.due);
        due.sort_unstable();
        due.dedup();
        for &out in &due {
            self.guarded(|c| c.sender_router(out), || format!("the flit arbitration of output {out}"), |c| c.preempt(out));
        }
        due.clear();
        let f = self.fabric.flits.as_deref_mut().unwrap();
        due.append(&mut f.due);
        f.due = due;
    }

    /// At a flit boundary of `out`'s low transmission: the highest requests above its priority
    /// (the agent's packets first) may suspend it.
    fn preempt(&mut self, out: u32) {
        let now = self.queue.now().ps();
        let s = self.fabric.flits.as_deref().unwrap().share[out as usize];
        let o = self.fabric.outs[out as usize];
        if s.low == PacketId::NIL || s.low_end != o.busy_until || o.busy_until <= now || !o.requested() {
            return;
        }
        if s.high_end > now {
            // A suspension runs: the requests are looked at again when it ends.
            self.queue.schedule(Time(s.high_end), Ev::FlitSlot(out));
            return;
        }
        let b = boundary(s.grid, self.flit_ps(out), now);
        if b != now {
            if b < s.low_end {
                self.queue.schedule(Time(b), Ev::FlitSlot(out));
            }
            return;
        }
        let mut mask = o.requests();
        if mask & crate::hardware::agent::AGENT_MASK != 0 {
            if s.low_prio < AGENT_PRIO && self.agent_preempts(out) {
                return;
            }
            mask &= !crate::hardware::agent::AGENT_MASK;
        }
        // The requests above the low packet's priority that could go now: with credit for
        // their VC downstream and their crossbar input free (the others are looked at again
        // when credit comes or the input frees; they never stall the busy output).
        let mut high = 0u128;
        let mut m = mask;
        let slots = self.fabric.slots;
        while m != 0 {
            let bit = m.trailing_zeros();
            m &= m - 1;
            let q = InputVcId(o.qbase + bit);
            let v = self.fabric.vcq[q.index()];
            if v.prio > s.low_prio && self.credit(out, v.out_vc) >= v.need(slots) && self.input_free(q, now) {
                high |= 1 << bit;
            }
        }
        if high != 0 {
            self.fabric.flits.as_deref_mut().unwrap().preempting = true;
            self.arbitrate_requests(out, high);
            self.fabric.flits.as_deref_mut().unwrap().preempting = false;
        }
    }

    /// An output-free event for `out` (request bit `bit`) in a run with flits or cut links (the
    /// copy of the plain handler that checks for flits): a stale event (its packet was
    /// suspended and now ends later) moves there; after a release, what still waits may suspend
    /// the transmission that resumes.
    #[inline(never)]
    pub(crate) fn out_free_special(&mut self, out: u32, bit: u8) {
        if self.flit_stale_release(out, bit) {
            return;
        }
        let q = InputVcId(self.first_vc_of(out) + bit as u32);
        let bytes = self.fabric.vcq[q.index()].bytes;
        self.on_out_free(out, q, bytes);
        self.flit_released(out);
    }

    /// An output-free event for `out` (request bit `bit`) with flits on: `true` if it is stale
    /// (its packet was suspended and now ends later: the event is moved there).
    fn flit_stale_release(&mut self, out: u32, bit: u8) -> bool {
        let now = self.queue.now().ps();
        let Some(f) = self.fabric.flits.as_deref() else { return false };
        let s = f.share[out as usize];
        if s.low != PacketId::NIL && s.low_bit == bit && s.low_end > now && s.low_end == self.fabric.outs[out as usize].busy_until {
            self.queue.schedule_on(lane::OUT_FREE, Time(s.low_end), Ev::OutFree { out, bit });
            return true;
        }
        false
    }

    /// After a release on `out` with flits on: if a transmission is still under way there (a
    /// suspended one resumes), the requests left may suspend it again.
    #[inline(never)]
    pub(crate) fn flit_released(&mut self, out: u32) {
        let o = &self.fabric.outs[out as usize];
        if self.fabric.flits.is_some() && o.busy_until > self.queue.now().ps() && o.requested() {
            self.flit_due(out);
        }
    }

    /// A packet reaching its NIC (`Deliver` / `EjectDone`) with flits on: `true` if it was
    /// postponed by a suspension (the event is moved to its new time).
    #[inline(never)]
    pub(crate) fn flit_late(&mut self, pkt: PacketId, ev: Ev) -> bool {
        let now = self.queue.now().ps();
        let Some(f) = self.fabric.flits.as_deref_mut() else { return false };
        match f.late.get(&pkt) {
            Some(&t) if t > now => {
                let l = if matches!(ev, Ev::Deliver(_)) { lane::DELIVER } else { lane::OUT_FREE };
                self.queue.schedule_on(l, Time(t), ev);
                true
            }
            Some(_) => {
                f.late.remove(&pkt);
                false
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::boundary;

    #[test]
    fn boundaries_fall_on_the_flit_grid() {
        assert_eq!(boundary(100, 10, 100), 100);
        assert_eq!(boundary(100, 10, 101), 110);
        assert_eq!(boundary(100, 10, 110), 110);
        assert_eq!(boundary(100, 10, 50), 100);
        assert_eq!(boundary(100, 0, 123), 123);
    }
}

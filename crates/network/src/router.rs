//! Router behaviour: a ready head packet picks an output (routing + selection), outputs
//! arbitrate among requesting input VCs, grants move packets one hop, and finished
//! transmissions return credits upstream.

use crate::channel;
use crate::packet::{NIL, NO_HINT};
use crate::sim::{lane, Core, Ev};
use fabricsim_core::Time;
use fabricsim_topology::PortKind;

impl Core {
    pub(crate) fn on_ready(&mut self, pkt: u32) {
        let p = self.packets.get_mut(pkt);
        p.ready = true;
        let q = p.q;
        let v = &self.vcq[q as usize];
        if v.head == pkt && !v.busy {
            self.request(pkt);
        }
    }

    /// Route the head packet of its input VC, choose a candidate, and post a request.
    pub(crate) fn request(&mut self, pkt: u32) {
        let now = self.queue.now().ps();
        let (q, dst, size, seq) = {
            let p = self.packets.get(pkt);
            (p.q, p.dst, p.wire_bytes, p.seq)
        };
        let (in_port, in_vc) = self.vcs_div.div_rem(q);
        let in_vc = in_vc as u8;
        let (router, base) = self.router_of(in_port);
        let local_in = in_port - base;
        let (hint, prio) = {
            let p = self.packets.get(pkt);
            (p.hint, p.prio)
        };
        self.cands.clear();
        if hint != NO_HINT && self.graph.kind[in_port as usize] == PortKind::Terminal {
            self.routing.route_via(router, hint as u32, dst, &mut self.cands);
        }
        if self.cands.is_empty() {
            // No hint, or a hint that is not a network port: route normally.
            self.routing.route(router, local_in, in_vc, dst, &mut self.cands);
        }
        let hops = self.cands.as_slice();
        debug_assert!(!hops.is_empty(), "routing returned no candidate");
        // Selection: prefer an idle output with room; then most free credit; rotate the start by
        // packet id so equivalent ports (e.g. several reception engines) share the load.
        let n = hops.len();
        let h = if n == 1 {
            hops[0]
        } else {
            let start = (seq % n as u64) as usize;
            let mut best = (0u8, 0u32, hops[start]);
            for k in 0..n {
                let h = hops[(start + k) % n];
                let o = &self.outs[(base + h.port) as usize];
                let cred = o.credits[h.vc as usize];
                let score = ((cred >= size) as u8) * 2 + (o.busy_until <= now) as u8;
                if k == 0 || (score, cred) > (best.0, best.1) {
                    best = (score, cred, h);
                }
            }
            best.2
        };
        let out = base + h.port;
        let p = self.packets.get_mut(pkt);
        p.out = out;
        p.out_vc = h.vc;
        let bit = local_in * self.vcs + in_vc as u32;
        let v = &mut self.vcq[q as usize];
        (v.bytes, v.out_vc, v.prio) = (size, h.vc, prio);
        let o = &self.outs[out as usize];
        if o.req == 0 && o.busy_until <= now && (o.class == channel::TERMINAL || o.credits[h.vc as usize] >= size) {
            // The only requester of an idle output with room: arbitration would grant it.
            self.grant(out, bit, q);
            return;
        }
        self.outs[out as usize].req |= 1u128 << bit;
        self.arbitrate(out);
    }

    /// Grant output `out` to one requesting input VC, if it is idle and someone fits.
    pub(crate) fn arbitrate(&mut self, out: u32) {
        let now = self.queue.now().ps();
        if self.outs[out as usize].busy_until > now {
            return;
        }
        let mask = self.outs[out as usize].req;
        if mask == 0 {
            return;
        }
        let (qbase, terminal) = (self.outs[out as usize].qbase, self.outs[out as usize].class == channel::TERMINAL);
        // Highest priority class first, round-robin after the last grant within it.
        let mut best: Option<(u8, u32)> = None;
        let start = (self.outs[out as usize].rr as u32 + 1) % 128;
        let rotated = mask.rotate_right(start);
        let mut m = rotated;
        while m != 0 {
            let k = m.trailing_zeros();
            m &= m - 1;
            let bit = (k + start) % 128;
            let p = &self.vcq[(qbase + bit) as usize];
            if !terminal && self.outs[out as usize].credits[p.out_vc as usize] < p.bytes {
                continue;
            }
            if best.is_none_or(|(bp, _)| p.prio > bp) {
                best = Some((p.prio, bit));
            }
        }
        match best {
            Some((_, bit)) => self.grant(out, bit, qbase + bit),
            None => {
                let o = &mut self.outs[out as usize];
                if o.stall_since == u64::MAX {
                    o.stall_since = now;
                }
            }
        }
    }

    fn grant(&mut self, out: u32, bit: u32, q: u32) {
        let now = self.queue.now().ps();
        self.outs[out as usize].req &= !(1u128 << bit);
        self.outs[out as usize].rr = bit as u8;
        let pkt = self.pop_q(q);
        self.vcq[q as usize].busy = true;
        let (size, tail, out_vc, payload, uncached, dst) = {
            let p = self.packets.get(pkt);
            (p.wire_bytes, p.tail, p.out_vc, p.payload, p.uncached, p.dst)
        };
        let class = self.outs[out as usize].class;
        let ser = self.timing.serialization(class, size);
        let mut finish = (now + ser).max(tail);
        let terminal = class == channel::TERMINAL;
        if terminal && uncached {
            // Uncached data is written to main memory: the node's memory paces reception.
            finish = finish.max(self.reserve_memory(dst, payload, true));
        }
        let o = &mut self.outs[out as usize];
        let c = &mut o.counters;
        c.bytes += size as u64;
        c.packets += 1;
        c.busy_ps += finish - now;
        if o.stall_since != u64::MAX {
            c.stall_ps += now - o.stall_since;
            o.stall_since = u64::MAX;
        }
        o.busy_until = finish;
        // Progress runs until this transmission ends: a long step is not a deadlock.
        self.last_progress = self.last_progress.max(finish);
        self.out.packet_hops += 1;
        let lat = self.timing.latency(class);
        if terminal {
            if lat == 0 {
                // On-chip NIC: the tail arrives as the port frees; one event does both.
                self.queue.schedule_on(lane::OUT_FREE, Time(finish), Ev::EjectDone { port: out, q, pkt });
                return;
            }
            self.last_progress = self.last_progress.max(finish + lat);
            self.queue.schedule_on(lane::DELIVER, Time(finish + lat), Ev::Deliver(pkt));
        } else {
            self.outs[out as usize].credits[out_vc as usize] -= size;
            let ds_port = self.outs[out as usize].peer;
            let ds_q = ds_port * self.vcs + out_vc as u32;
            self.push_q(ds_q, pkt);
            let p = self.packets.get_mut(pkt);
            p.q = ds_q;
            p.ready = false;
            p.out = NIL;
            p.hops = p.hops.wrapping_add(1);
            p.tail = finish + lat;
            let ready = now + lat + self.p.router_delay.ps();
            self.last_progress = self.last_progress.max(ready);
            self.queue.schedule_on(lane::HOP_READY, Time(ready), Ev::Ready(pkt));
        }
        self.queue.schedule_on(lane::OUT_FREE, Time(finish), Ev::OutFree { port: out, q, bytes: size });
    }

    pub(crate) fn on_out_free(&mut self, out: u32, q: u32, bytes: u32) {
        self.vcq[q as usize].busy = false;
        // The packet's tail has left input VC `q`: return its space upstream.
        let (in_port, vc) = self.vcs_div.div_rem(q);
        let vc = vc as u8;
        let up = self.outs[in_port as usize].upstream;
        let delay = self.timing.credit_latency(self.vcq[q as usize].up_class);
        if delay == 0 {
            self.on_credit(up, vc, bytes);
        } else {
            let at = self.queue.now() + Time(delay);
            self.queue.schedule_on(lane::CREDIT, at, Ev::Credit { port: up, vc, bytes });
        }
        let h = self.vcq[q as usize].head;
        if h != NIL && self.packets.get(h).ready {
            self.request(h);
        }
        self.arbitrate(out);
    }

    pub(crate) fn on_credit(&mut self, port: u32, vc: u8, bytes: u32) {
        self.outs[port as usize].credits[vc as usize] += bytes;
        if self.is_pseudo(port) {
            let node = self.engines_div.div(port - self.total_ports());
            self.try_inject(node);
        } else if self.outs[port as usize].req != 0 {
            self.arbitrate(port);
        }
    }
}

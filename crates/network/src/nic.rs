//! Network interface: a FIFO of messages per node, cut into packets on demand and pushed into
//! the router by the node's injection engines.

use crate::packet::{Message, Packet, NIL};
use crate::sim::{lane, Core, Ev};
use fabricsim_core::{NodeId, Time};

impl Core {
    /// Queue a message at `src`'s NIC.
    pub(crate) fn send(&mut self, src: NodeId, dst: NodeId, bytes: u64, tag: u64) {
        let now = self.queue.now().ps();
        let measured = now >= self.window_start && now < self.window_end;
        let bytes = bytes.max(1);
        let m = self.messages.insert(Message {
            src,
            dst,
            bytes,
            packetized: 0,
            delivered: 0,
            created: now,
            tag,
            next: NIL,
            prio: 0,
            measured,
        });
        if measured {
            self.measured_outstanding += 1;
        }
        let t = self.nic_tail[src as usize];
        if t == NIL {
            self.nic_head[src as usize] = m;
        } else {
            self.messages.get_mut(t).next = m;
        }
        self.nic_tail[src as usize] = m;
        self.try_inject(src);
    }

    /// Start as many packets as idle engines with credit allow.
    pub(crate) fn try_inject(&mut self, node: NodeId) {
        let now = self.queue.now().ps();
        let e_count = self.graph.engines;
        let tp = self.total_ports();
        let vc = self.routing.injection_vc() as u32;
        loop {
            let m = self.nic_head[node as usize];
            if m == NIL {
                return;
            }
            let msg = *self.messages.get(m);
            let payload = (msg.bytes - msg.packetized).min(self.p.max_payload() as u64) as u32;
            let wire = payload + self.p.header_bytes;
            let rr = self.nic_rr[node as usize];
            let mut engine = None;
            for k in 0..e_count {
                let e = (rr + k) % e_count;
                let ps = tp + node * e_count + e;
                if self.outs[ps as usize].busy_until <= now && self.outs[ps as usize].credits[vc as usize] >= wire {
                    engine = Some((e, ps));
                    break;
                }
            }
            let Some((e, ps)) = engine else { return };
            self.nic_rr[node as usize] = (e + 1) % e_count;
            // Cut the packet.
            let mm = self.messages.get_mut(m);
            mm.packetized += payload as u64;
            if mm.packetized >= mm.bytes {
                self.nic_head[node as usize] = mm.next;
                if mm.next == NIL {
                    self.nic_tail[node as usize] = NIL;
                }
            }
            let ser = self.serialization(ps, wire);
            let lat = self.channel_latency(ps);
            let seq = self.next_seq;
            self.next_seq += 1;
            let attach = self.graph.attach[(node * e_count + e) as usize];
            let q = attach * self.vcs + vc;
            let pkt = self.packets.insert(Packet {
                seq,
                msg: m,
                src: node,
                dst: msg.dst,
                wire_bytes: wire,
                payload,
                created: msg.created,
                tail: now + lat + ser,
                next: NIL,
                q,
                out: NIL,
                out_vc: 0,
                prio: msg.prio,
                ready: false,
                hops: 0,
            });
            self.push_q(q, pkt);
            self.outs[ps as usize].credits[vc as usize] -= wire;
            self.outs[ps as usize].busy_until = now + ser;
            self.in_network += 1;
            self.out.packets_injected += 1;
            self.last_progress = now;
            self.queue.schedule_on(lane::INJECT_READY, Time(now + lat + self.p.terminal_router_delay.ps()), Ev::Ready(pkt));
            self.queue.schedule_on(lane::ENGINE_FREE, Time(now + ser), Ev::EngineFree(ps));
        }
    }
}

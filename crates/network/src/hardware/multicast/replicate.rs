//! Multicast packets in the switches (see [`crate::hardware::multicast`]): a hop with one output is a
//! unicast hop; a hop with several copies the packet to all of them.
//!
//! The packet stays in its input buffer, read once (FIFO buffers), until every copy has left.
//! It waits on each of its outputs with the switch-agent request bit ([`crate::hardware::agent`]), and
//! outranks the outputs' unicast requests.
//!
//! With the Global Resource Bulletin (`grb`), it takes its outputs off the bulletin all at once,
//! and only when none of them is taken by another multicast packet: a multicast either has all
//! its outputs or none, so multicasts never wait on each other in a cycle. A taken output grants
//! no unicast packet; it finishes the one it is sending, and when every output of the multicast
//! is idle and has credit, the copies leave together. The outputs return to the bulletin when
//! the copies have left (their tails out), and a multicast that needs one of them again can
//! only then request it: its copies follow `grant_delay` after (request, arbitration, removal
//! from the bulletin, the read from its input queue), where a unicast packet's arbitration
//! overlaps the transmission before it. (A multicast that waited for all its outputs to be idle
//! at one instant, without taking them, would rarely find them so under unicast load: at 60%
//! load it starved for milliseconds.)
//!
//! Without it, the packet takes each output as that output frees and holds it (idle) until it
//! has them all: two multicasts that each hold an output the other wants then wait forever.

use crate::fabric::channel;
use crate::hardware::multicast::{Multicast, MCAST_HINT};
use crate::packet::{Message, Packet, PacketId, NIL};
use crate::sim::{lane, Core, Ev};
use fabricsim_core::Time;
use fabricsim_stats::Observer;
use fabricsim_topology::PortKind;

/// A multicast packet waiting for its outputs.
#[derive(Debug, Clone)]
pub(crate) struct CopyWait {
    pkt: PacketId,
    outs: Vec<u32>,
    /// Outputs it holds (without the bulletin), by index in `outs` (fewer than 128).
    held: u128,
}

/// Held outputs are busy until the packet has them all.
const HELD: u64 = u64::MAX;

impl<O: Observer> Core<O> {
    /// Multicast packet `pkt`, head of its input VC, has passed its switch's pipeline: it asks
    /// for its outputs (the tree's children going down; the up port toward the root going up).
    #[cold]
    #[inline(never)]
    pub(crate) fn request_multicast(&mut self, pkt: PacketId) {
        let p = *self.packets.get(pkt);
        let (in_port, in_vc) = self.fabric.vcs_div.div_rem(p.q.0);
        let (router, base) = self.router_of(in_port);
        let unit = self.hardware.get::<Multicast>().expect("a multicast packet without multicast");
        let f = unit.fat_tree();
        let (_, level, _) = f.locate(fabricsim_core::RouterId(router));
        let from_above = in_port - base >= f.children()[level - 1];
        let cast = &unit.casts[&(self.nics.messages.get(p.msg).tag as u32)];
        let outs: Vec<u32> = if router == cast.root.0 || from_above { cast.down[&router].clone() } else { vec![cast.up[&router]] };
        if let [out] = outs[..] {
            self.name_receiver(pkt, out);
            let pk = self.packets.get_mut(pkt);
            (pk.out, pk.out_vc) = (out, in_vc as u8);
            return self.post_request(pkt, out, in_vc as u8, false, 0);
        }
        let agents = self.agents.as_deref_mut().unwrap();
        let w = agents.next_copy;
        agents.next_copy = w.wrapping_add(1);
        agents.copies.insert(w, CopyWait { pkt, outs: outs.clone(), held: 0 });
        for &out in &outs {
            agents.copy_waits.entry(out).or_default().push(w);
        }
        for &out in &outs {
            self.claim_output(out);
        }
    }

    /// A multicast packet (or copy) leaves on `out`: if that is a NIC's link, it names that node
    /// and its message a member rank there, the node's first (where the broadcast's bytes are
    /// counted; an original sent whole to its one other node names it already).
    fn name_receiver(&mut self, pkt: PacketId, out: u32) {
        if self.graph.kind[out as usize] == PortKind::Terminal {
            let node = self.graph.peer[out as usize];
            let msg = self.packets.get(pkt).msg;
            let rank = self
                .hardware
                .get::<Multicast>()
                .and_then(|m| m.rank_on(self.nics.messages.get(msg).tag as u32, node))
                .expect("a multicast copy for a node without a member");
            self.packets.get_mut(pkt).dst = node;
            self.nics.messages.get_mut(msg).dst = rank;
        }
    }

    /// Output `out` (idle, agent bit set) serves the multicast packets waiting for it: the first
    /// that can go (by input VC, round-robin after the output's last grant). Returns whether
    /// the output was taken (sent on, or held).
    pub(crate) fn grant_copies(&mut self, out: u32) -> bool {
        let Some(list) = self.agents.as_deref().unwrap().copy_waits.get(&out) else { return false };
        let now = self.queue.now().ps();
        let (rr, qbase) = (self.fabric.outs[out as usize].rr as u32, self.fabric.outs[out as usize].qbase);
        let mut order: Vec<(u32, u32)> =
            list.iter().map(|&w| (self.packets.get(self.agents.as_deref().unwrap().copies[&w].pkt).q.0 - qbase, w)).collect();
        order.sort_unstable_by_key(|&(bit, _)| (bit + 128 - rr - 1) % 128);
        let (grb, gap) = {
            let p = &self.hardware.get::<Multicast>().unwrap().p;
            (p.grb, p.grant_delay.ps())
        };
        for (bit, w) in order {
            let c = self.agents.as_deref().unwrap().copies[&w].clone();
            let p = *self.packets.get(c.pkt);
            let (vc, wire) = ((p.q.0 % self.fabric.vcs) as u8, p.wire_bytes);
            // Credit for the packet (an output without it calls again when its credit returns).
            let credit = |core: &mut Self, o: u32| {
                let x = core.fabric.outs[o as usize];
                if x.class == channel::TERMINAL || core.credit(o, vc) >= core.charge(vc, wire) {
                    return true;
                }
                core.obs.on_credit_wait(fabricsim_core::PortId(o), vc, Time(now));
                core.wait_for_credit(o, vc);
                false
            };
            let ready = |core: &mut Self, o: u32| core.fabric.outs[o as usize].busy_until <= now && credit(core, o);
            if grb {
                let agents = self.agents.as_deref_mut().unwrap();
                // An output is back on the bulletin once the last multicast's copy has left it.
                let back = |agents: &crate::hardware::agent::Agents, o: &u32| agents.bulletin_back.get(o).copied().unwrap_or(0);
                match agents.reserved.get(&out) {
                    // Taken by another multicast: this one waits for it to go.
                    Some(&other) if other != w => continue,
                    Some(_) => {}
                    None => {
                        // All its outputs on the bulletin, and credit on each.
                        if c.outs.iter().any(|o| agents.reserved.contains_key(o) || back(agents, o) > now) {
                            continue;
                        }
                        let mut all = true;
                        for &o in &c.outs {
                            all &= credit(self, o);
                        }
                        if !all {
                            continue;
                        }
                        let agents = self.agents.as_deref_mut().unwrap();
                        for &o in &c.outs {
                            agents.reserved.insert(o, w);
                        }
                        self.fabric.outs[out as usize].rr = bit as u8;
                    }
                }
                // The copies leave a grant round trip after the outputs came back.
                let agents = self.agents.as_deref().unwrap();
                let granted = c.outs.iter().filter_map(|o| agents.bulletin_back.get(o)).all(|&b| b + gap <= now);
                let mut all = granted;
                for &o in &c.outs {
                    all &= ready(self, o);
                }
                if all {
                    self.copy_out(w);
                }
                // Taken: it sends now, or stays idle for this multicast.
                return true;
            } else if ready(self, out) {
                let i = c.outs.iter().position(|&o| o == out).unwrap();
                let held = c.held | 1u128 << i;
                self.agents.as_deref_mut().unwrap().copies.get_mut(&w).unwrap().held = held;
                self.fabric.outs[out as usize].rr = bit as u8;
                self.fabric.outs[out as usize].busy_until = HELD;
                self.drop_wait(out, w);
                if held.count_ones() as usize == c.outs.len() {
                    self.copy_out(w);
                }
                return true;
            }
        }
        false
    }

    /// Waiter `w` no longer waits at output `out`; the output's agent bit goes when nothing waits.
    fn drop_wait(&mut self, out: u32, w: u32) {
        let agents = self.agents.as_deref_mut().unwrap();
        let list = agents.copy_waits.get_mut(&out).unwrap();
        list.retain(|&x| x != w);
        if list.is_empty() {
            agents.copy_waits.remove(&out);
            self.release_output(out);
        }
    }

    /// Waiter `w` has its outputs: the packet leaves its input VC and a copy goes out on each.
    fn copy_out(&mut self, w: u32) {
        let now = self.queue.now().ps();
        let agents = self.agents.as_deref_mut().unwrap();
        let c = agents.copies.remove(&w).unwrap();
        agents.reserved.retain(|_, x| *x != w);
        for &out in &c.outs {
            if self.agents.as_deref().unwrap().copy_waits.get(&out).is_some_and(|l| l.contains(&w)) {
                self.drop_wait(out, w);
            }
        }
        let p = *self.packets.get(c.pkt);
        self.take_head(p.q, c.pkt);
        let vc = (p.q.0 % self.fabric.vcs) as u8;
        let (extra, gap) = {
            let p = &self.hardware.get::<Multicast>().unwrap().p;
            (p.copy_delay.ps(), if p.grb { p.grant_delay.ps() } else { 0 })
        };
        let m = *self.nics.messages.get(p.msg);
        let mut end = now;
        for &out in &c.outs {
            let o = self.fabric.outs[out as usize];
            let finish = (now + self.fabric.timing.serialization(o.class, p.wire_bytes)).max(p.tail);
            end = end.max(finish);
            let msg = self.nics.messages.insert(Message { bytes: p.payload as u64, packetized: p.payload as u64, delivered: 0, next: NIL, ..m });
            let seq = self.next_packet_seq(p.src);
            let copy = self.packets.insert(Packet { seq, msg, next: PacketId::NIL, out: NIL, out_vc: vc, armed: false, hint: MCAST_HINT, ..p });
            self.name_receiver(copy, out);
            self.launch(out, copy, vc, finish, extra);
            if gap > 0 {
                // Back on the bulletin at `finish`; a multicast waiting for it then may send
                // a grant round trip later (the output arbitrates again then).
                self.agents.as_deref_mut().unwrap().bulletin_back.insert(out, finish);
                self.queue.schedule(Time(finish + gap), Ev::AgentFree(out));
            }
        }
        // The original's buffer frees when the last copy has left.
        self.packets.get_mut(c.pkt).out = c.outs[0];
        self.queue.schedule_on(lane::OUT_FREE, Time(end), Ev::CopyDone(c.pkt));
    }

    /// Every copy of multicast packet `pkt` has left: its buffer frees and it is gone (counted
    /// as delivered: it has left the network into the copies).
    #[cold]
    #[inline(never)]
    pub(crate) fn copy_done(&mut self, pkt: PacketId) {
        let p = *self.packets.get(pkt);
        self.on_out_free(p.out, p.q, p.wire_bytes);
        self.packets.remove(pkt);
        self.meter.in_network -= 1;
        self.meter.out.packets_delivered += 1;
        let m = self.nics.messages.get_mut(p.msg);
        m.delivered += p.payload as u64;
        if m.delivered >= m.bytes {
            self.nics.messages.remove(p.msg);
        }
    }
}

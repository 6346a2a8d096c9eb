//! Switch agents: the logic a switch chip keeps beside its crossbar (Dawning's barrier logic),
//! an endpoint of the switch itself.
//!
//! **Receiving.** A packet for the agent carries [`SINK_HINT`] in its header. When its head has
//! passed the switch's pipeline, the agent takes it from its input buffer (through the switch's
//! *sink*, an extra output per router after the NIC engines' pseudo-ports, which never
//! arbitrates: the agent reads all its ports at once), and it is delivered (as a message of the
//! collective hardware) when its tail is in.
//!
//! **Sending.** The agent sends on one of its switch's real outputs, one link to the next switch
//! or to a NIC. Its packets wait in a queue per output and claim the output with a request bit
//! of their own ([`AGENT_BIT`], beyond the router's input VCs); an output grants that bit before
//! any input VC (the agent's traffic has the highest output priority), once it is idle and the
//! packet's VC downstream has room. The packet then crosses the link as any packet does, its
//! credit spent and returned in the same records.
//!
//! Why this shape: the agent's packets need exactly what a packet needs on a link (the output's
//! time, priority against other traffic, credit of the VC they travel on), and an arrival at a
//! switch ends like an ejection (the same release of its buffer, the same delivery). Nothing on
//! the hot path changes but one test of the arbiter's request mask and one of the hint of a
//! packet that chooses its hop.

use crate::fabric::channel;
use crate::fabric::link;
use crate::fabric::records::InputVcId;
use crate::packet::{Message, Packet, PacketId, NIL};
use crate::sim::{lane, Core, Ev};
use fabricsim_core::Time;
use fabricsim_stats::Observer;
use std::collections::{HashMap, VecDeque};

/// A packet's first-hop hint that sends it to the agent of the switch it reaches.
pub(crate) const SINK_HINT: u8 = 0xFE;

/// The request bit an agent's pending packets claim an output with (routers with agents have
/// fewer than 128 input VCs).
pub(crate) const AGENT_BIT: u32 = 127;
pub(crate) const AGENT_MASK: u128 = 1 << AGENT_BIT;

/// A packet an agent sends.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AgentSend {
    /// Tag of its message (what it is, for the hardware that receives it).
    pub tag: u64,
    pub op: u8,
    /// Nodes it is counted for: `src` numbers it (its sequence), `dst` is where records put it.
    pub src: u32,
    pub dst: u32,
    pub payload: u32,
    pub prio: u8,
    /// Routing selector of its header (the class VC bits, when it travels on a class VC).
    pub zone: u8,
}

/// The agents' state: their sinks, their packets waiting for an output, and the multicast
/// packets waiting for theirs (see [`crate::hardware::multicast::replicate`]).
#[derive(Debug, Default)]
pub(crate) struct Agents {
    /// Output index of router 0's sink (router `r`'s is `sinks + r`).
    pub sinks: u32,
    waiting: HashMap<u32, VecDeque<AgentSend>>,
    pub(crate) copies: HashMap<u32, crate::hardware::multicast::replicate::CopyWait>,
    pub(crate) next_copy: u32,
    /// Per output: the multicast packets waiting for it.
    pub(crate) copy_waits: HashMap<u32, Vec<u32>>,
    /// Outputs a multicast packet has reserved (taken off the Global Resource Bulletin).
    pub(crate) reserved: HashMap<u32, u32>,
    /// Per output: when the last multicast's copy there has left (the output is back on the
    /// bulletin then; the next multicast's copy follows a grant round trip later).
    pub(crate) bulletin_back: HashMap<u32, u64>,
}

impl Agents {
    pub(crate) fn new(sinks: u32) -> Self {
        Agents { sinks, ..Default::default() }
    }

    /// Whether agent packets wait for output `out`.
    pub(crate) fn sends_wait(&self, out: u32) -> bool {
        self.waiting.contains_key(&out)
    }
}

impl<O: Observer> Core<O> {
    /// Queue agent packet `s` on global output `out` (of the agent's switch) and claim the output.
    pub(crate) fn agent_send(&mut self, out: u32, s: AgentSend) {
        let a = self.agents.as_deref_mut().expect("agent send without agents");
        a.waiting.entry(out).or_default().push_back(s);
        self.claim_output(out);
    }

    /// Something of the switch's own (an agent packet, a multicast packet) waits for output
    /// `out`: set its agent bit, and arbitrate it at the end of the instant if it is idle.
    pub(crate) fn claim_output(&mut self, out: u32) {
        let o = &mut self.fabric.outs[out as usize];
        o.add_request(AGENT_BIT);
        self.fabric.requested[out as usize / 64] |= 1 << (out % 64);
        if o.busy_until <= self.queue.now().ps() {
            self.post_arbitration(out);
        } else if self.fabric.flits_on {
            self.flit_request(out, crate::fabric::flits::AGENT_PRIO);
        }
    }

    /// Output `out`'s agent bit goes once neither agent packets nor multicast packets wait for it.
    pub(crate) fn release_output(&mut self, out: u32) {
        let a = self.agents.as_deref().unwrap();
        if !a.waiting.contains_key(&out) && !a.copy_waits.contains_key(&out) && self.fabric.outs[out as usize].take_request(AGENT_BIT) {
            self.fabric.requested[out as usize / 64] &= !(1 << (out % 64));
        }
    }

    /// Packet `pkt`, head of input VC `q`, leaves the queue: the VC stays busy until it is gone
    /// (as in `Core::grant`).
    pub(crate) fn take_head(&mut self, q: InputVcId, pkt: PacketId) {
        let next = self.packets.get(pkt).next;
        let v = &mut self.fabric.vcq[q.index()];
        debug_assert!(v.head == pkt && !v.busy());
        v.head = next;
        if next == PacketId::NIL {
            v.tail = PacketId::NIL;
        }
        v.flags |= crate::fabric::records::BUSY;
    }

    /// Send `pkt`, a packet the switch made, on output `out` (VC `vc`) now, its tail leaving at
    /// `finish`; `extra`: time the switch adds before it reaches the next router or NIC. The
    /// output's counters and credit are kept as for any hop, and it arbitrates again at `finish`.
    pub(crate) fn launch(&mut self, out: u32, pkt: PacketId, vc: u8, finish: u64, extra: u64) {
        // With flits: what the switch sends itself is never suspended.
        self.flit_forget(out);
        let now = self.queue.now().ps();
        let wire = self.packets.get(pkt).wire_bytes;
        self.meter.in_network += 1;
        self.meter.out.packets_injected += 1;
        self.meter.out.packet_hops += 1;
        self.close_stall(out, now);
        let o = &mut self.fabric.outs[out as usize];
        o.busy_until = finish;
        o.bytes += wire as u64;
        o.packets += 1;
        o.busy_ps += finish - now;
        let (lat, class, peer) = (o.latency as u64, o.class, o.peer);
        self.obs.on_hop(fabricsim_core::PortId(out), Time(now), Time(finish), wire);
        if class == channel::TERMINAL {
            self.meter.last_progress = self.meter.last_progress.max(finish + lat + extra);
            self.queue.schedule_on(lane::DELIVER, Time(finish + lat + extra), Ev::Deliver(pkt));
        } else {
            let ds_q = InputVcId(peer * self.fabric.vcs + vc as u32);
            let ready = now + lat + self.p.router_delay.ps() + extra;
            self.meter.last_progress = self.meter.last_progress.max(ready.max(finish));
            let charge = self.charge(vc, wire);
            link::forward(
                &mut self.fabric.crossings,
                &mut self.fabric.vcq,
                self.packets.slots_mut(),
                &mut self.queue,
                pkt,
                ds_q,
                ds_q,
                charge,
                finish + lat,
                ready,
                false,
            );
        }
        self.queue.schedule(Time(finish), Ev::AgentFree(out));
    }

    /// The next packet number of node `src` (a packet's identity is its source and number).
    pub(crate) fn next_packet_seq(&mut self, src: u32) -> u32 {
        let seq = self.nics.node[src as usize].next_seq;
        self.nics.node[src as usize].next_seq = seq.wrapping_add(1);
        seq
    }

    /// Packet `pkt` (with [`SINK_HINT`]), head of its input VC, has passed its switch's
    /// pipeline: the agent takes it. The agent reads every input port at once (its packets are
    /// a few bytes of state, not a stream through one crossbar output), so nothing arbitrates:
    /// the packet leaves its buffer as its tail comes in, and is delivered then.
    #[cold]
    #[inline(never)]
    pub(crate) fn request_sink(&mut self, pkt: PacketId) {
        let now = self.queue.now().ps();
        let p = *self.packets.get(pkt);
        let (in_port, _) = self.fabric.vcs_div.div_rem(p.q.0);
        let (router, _) = self.router_of(in_port);
        let sink = self.agents.as_deref().expect("a sink packet without agents").sinks + router;
        self.take_head(p.q, pkt);
        self.packets.get_mut(pkt).out = sink;
        let done = now.max(p.tail);
        self.meter.last_progress = self.meter.last_progress.max(done);
        self.queue.schedule_on(lane::OUT_FREE, Time(done), Ev::EjectDone(pkt));
    }

    /// Output `out` is idle and its agent bit is set: the agent's packets go first, then the
    /// multicast packets waiting for it. Returns whether the output was taken.
    #[cold]
    #[inline(never)]
    pub(crate) fn agent_claims(&mut self, out: u32) -> bool {
        if self.agents.as_deref().unwrap().sends_wait(out) && self.agent_grant(out) {
            return true;
        }
        self.hardware.get::<crate::hardware::multicast::Multicast>().is_some() && self.grant_copies(out)
    }

    /// Send the agent's oldest packet for output `out` if its VC downstream has room. Returns
    /// whether it went.
    pub(crate) fn agent_grant(&mut self, out: u32) -> bool {
        let now = self.queue.now().ps();
        let s = *self.agents.as_deref().unwrap().waiting[&out].front().unwrap();
        let wire = self.p.format.wire(s.payload);
        let o = self.fabric.outs[out as usize];
        let terminal = o.class == channel::TERMINAL;
        let vc = self.agent_vc(out, s.zone);
        if !terminal && self.credit(out, vc) < self.charge(vc, wire) {
            self.obs.on_credit_wait(fabricsim_core::PortId(out), vc, Time(now));
            self.wait_for_credit(out, vc);
            return false;
        }
        let a = self.agents.as_deref_mut().unwrap();
        let list = a.waiting.get_mut(&out).unwrap();
        list.pop_front();
        if list.is_empty() {
            a.waiting.remove(&out);
            self.release_output(out);
        }
        let m = self.nics.messages.insert(Message {
            src: 0,
            dst: 0,
            bytes: s.payload as u64,
            packetized: s.payload as u64,
            delivered: 0,
            created: now,
            tag: s.tag,
            next: NIL,
            prio: s.prio,
            measured: false,
            hint: SINK_HINT,
            uncached: false,
            op: s.op,
            engine: 0,
            pace: 0,
            route: s.zone,
        });
        let seq = self.next_packet_seq(s.src);
        let finish = now + self.fabric.timing.serialization(o.class, wire);
        let pkt = self.packets.insert(Packet {
            seq,
            src: s.src,
            msg: m,
            dst: s.dst,
            wire_bytes: wire,
            payload: s.payload,
            ready_at: 0,
            tail: 0,
            next: PacketId::NIL,
            q: InputVcId(0),
            out: NIL,
            out_vc: vc,
            prio: s.prio,
            armed: false,
            hint: SINK_HINT,
            uncached: false,
            zone: s.zone,
            escaped: false,
            agent: false,
        });
        self.launch(out, pkt, vc, finish, 0);
        true
    }

    /// The VC an agent's packet with routing selector `zone` takes on `out`: its class VC, or
    /// else the routing's VC with the most room (the first of equals).
    fn agent_vc(&mut self, out: u32, zone: u8) -> u8 {
        let vcs = self.routing.injection_vcs(zone);
        if self.fabric.outs[out as usize].class == channel::TERMINAL || vcs.len() == 1 {
            return vcs.start;
        }
        let mut best = vcs.start;
        for vc in vcs {
            if self.credit(out, vc) > self.credit(out, best) {
                best = vc;
            }
        }
        best
    }

    /// Output `out` sends at `now`: a credit stall it was in ends (as in `Core::grant`).
    pub(crate) fn close_stall(&mut self, out: u32, now: u64) {
        let o = &mut self.fabric.outs[out as usize];
        if o.stalled {
            o.stalled = false;
            let s = &mut self.fabric.stall[out as usize];
            s.total_ps += now - s.since;
            self.obs.on_credit_stall(fabricsim_core::PortId(out), Time(s.since), Time(now));
        }
    }

    /// An agent's transmission on `out` ended: the output arbitrates again if anyone waits.
    #[cold]
    #[inline(never)]
    pub(crate) fn agent_free(&mut self, out: u32) {
        if self.fabric.outs[out as usize].requested() {
            self.post_arbitration(out);
            self.flit_released(out);
        }
    }

    /// The wire size of the agent's next packet for output `out`, if one waits.
    pub(crate) fn agent_front_wire(&self, out: u32) -> Option<u32> {
        let a = self.agents.as_deref()?;
        let s = a.waiting.get(&out)?.front()?;
        Some(self.p.format.wire(s.payload))
    }
}

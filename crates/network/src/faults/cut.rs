//! Routing around the links the routers know are down, in a run whose links can fail: the
//! packets that find no live way on (their pair is cut off) are stopped and counted, and when
//! the routers learn of a failure the packets waiting for the dead link route again.
//!
//! Such a run routes every hop at the router (no lookahead): the knowledge may change between
//! the hop a packet is sent on and the next.

use crate::fabric::records::InputVcId;
use crate::packet::PacketId;
use crate::sim::{lane, Core, Ev};
use fabricsim_core::{RouterId, Time};
use fabricsim_routing::Header;
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// The candidates (in `fabric.cands`) of a packet with header `hdr` that entered `router`
    /// on local port `in_port`, VC `in_vc`, around the links the routers know are down now;
    /// `false`: none is left. Candidates other than the routing's without failures count as a
    /// reroute.
    pub(crate) fn route_around(&mut self, router: u32, in_port: u32, in_vc: u8, hdr: &Header) -> bool {
        let now = self.queue.now().ps();
        let router = RouterId(router);
        let f = self.faults.as_deref_mut().expect("routing around dead links implies faults");
        f.refresh_known(now);
        self.routing.route(router, in_port, in_vc, hdr, &mut self.fabric.cands);
        if !f.known().any() {
            return true;
        }
        let plain = self.fabric.cands;
        let (known, graph) = (f.known(), &self.graph);
        let dead = |r: RouterId, l: u32| known.down(graph.port(r, l).0);
        let found = self.routing.route_around(router, in_port, in_vc, hdr, &dead, &mut self.fabric.cands);
        if found && plain.as_slice() != self.fabric.cands.as_slice() {
            f.counts.reroutes += 1;
        }
        found
    }

    /// Packet `pkt`, at the head of its input VC, has no live way on: it leaves the network
    /// here (its buffer space goes back to its sender), counted with its pair; its message is
    /// dropped once every byte of it is accounted for, never completed to the workload.
    #[cold]
    #[inline(never)]
    pub(crate) fn stop_cut_off(&mut self, pkt: PacketId) {
        let now = self.queue.now().ps();
        let p = *self.packets.get(pkt);
        let q = p.q;
        let v = &mut self.fabric.vcq[q.index()];
        debug_assert_eq!(v.head, pkt, "a packet is stopped at the head of its input VC");
        v.head = p.next;
        if p.next == PacketId::NIL {
            v.tail = PacketId::NIL;
        }
        let vc = self.fabric.vcs_div.div_rem(q.0).1 as u8;
        let bytes = self.charge(vc, p.wire_bytes);
        let silent = self.fabric.silent_credits;
        self.return_credit(q, bytes, now.max(p.tail), silent);
        self.count_cut(pkt);
        // The next packet asks when its head is through the pipeline (now, if it already is),
        // unless its own head-ready event is still to come.
        let next = self.fabric.vcq[q.index()].head;
        if next != PacketId::NIL {
            let head = self.packets.get(next);
            if head.ready_at <= now || !head.armed {
                let t = head.ready_at.max(now);
                self.ready_at(q, t);
            }
        }
    }

    /// Packet `pkt`, off its input VC, leaves the network: counted with its pair, its message
    /// dropped once every byte of it is accounted for. Also for a packet granted a link that
    /// then failed for good before its frame got through (see `Sent::caught`).
    #[cold]
    pub(crate) fn count_cut(&mut self, pkt: PacketId) {
        let now = self.queue.now().ps();
        let p = *self.packets.get(pkt);
        self.packets.remove(pkt);
        self.meter.in_network -= 1;
        self.meter.last_progress = self.meter.last_progress.max(now);
        if let Some(f) = self.faults.as_deref_mut() {
            f.counts.packets_cut += 1;
            f.cut.entry((p.src, p.dst)).or_insert((0, now)).0 += 1;
            f.cut_messages.insert(p.msg);
        }
        let m = self.nics.messages.get_mut(p.msg);
        m.delivered += p.payload as u64;
        if m.delivered >= m.bytes {
            self.drop_if_lost(p.msg);
        }
    }

    /// The next moment the routers' knowledge of failures changes, after `after` (`None`: the
    /// first, at the start of a run), gets its event.
    pub(crate) fn schedule_faults_known(&mut self, after: Option<u64>) {
        let Some(f) = self.faults.as_deref() else { return };
        if let Some(t) = f.known().next_after(after) {
            self.queue.schedule_on(lane::CREDIT, Time(t), Ev::FaultsKnown);
        }
    }

    /// The routers' knowledge of failures changes now: every request waiting for a link now
    /// known to be down is withdrawn and its packet routes again (around it), and packets
    /// asleep on it wake to choose again.
    pub(crate) fn faults_known(&mut self) {
        let now = self.queue.now().ps();
        let Some(f) = self.faults.as_deref_mut() else { return };
        f.refresh_known(now);
        let dead: Vec<u32> = f.known().down_ports().collect();
        for out in dead {
            let o = &self.fabric.outs[out as usize];
            let (mut mask, qbase) = (o.requests() & !crate::hardware::agent::AGENT_MASK, o.qbase);
            while mask != 0 {
                let bit = mask.trailing_zeros();
                mask &= mask - 1;
                self.choose_again(out, bit, InputVcId(qbase + bit));
            }
            if self.fabric.sleepers.is_some() {
                self.wake_sleepers(out);
            }
        }
        self.schedule_faults_known(Some(now));
    }

    /// Output `out` is about to be granted to input VC `q` (request bit `bit`) while its link
    /// is down with nothing scheduled to bring it back: the frame cannot leave. Once the
    /// routers know, the packet routes again at once; until then the output is held (the
    /// sender's link layer keeps trying), and [`faults_known`](Self::faults_known) reroutes
    /// its requests when they learn. Whether the grant was stopped. A multicast copy or a
    /// switch agent's packet keeps its hardware's link (it is not routed): it goes, and is
    /// caught by the failure.
    #[cold]
    #[inline(never)]
    pub(crate) fn stop_at_dead_link(&mut self, out: u32, bit: u32, q: InputVcId) -> bool {
        let now = self.queue.now().ps();
        let head = self.packets.get(self.fabric.vcq[q.index()].head);
        if head.agent || (head.hint >= crate::hardware::multicast::MCAST_HINT && head.hint != crate::packet::NO_HINT) {
            return false;
        }
        let Some(known_at) = self.faults.as_deref().and_then(|f| f.down_for_good(out, now)) else { return false };
        if now >= known_at {
            self.choose_again(out, bit, q);
        } else {
            let o = &mut self.fabric.outs[out as usize];
            o.add_request(bit);
            o.busy_until = o.busy_until.max(known_at);
            self.fabric.requested[out as usize / 64] |= 1 << (out % 64);
        }
        true
    }
}

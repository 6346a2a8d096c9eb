//! Router behaviour: a ready head packet picks an output (routing + selection), outputs
//! arbitrate among requesting input VCs, grants move packets one hop, and finished
//! transmissions return credits upstream (see [`crate::fabric::records`] for where credits live).
//!
//! These handlers run once or more per hop. The longest, `grant`, binds the arrays it touches to
//! local slices first: indexing a local slice keeps its address and length in registers, where
//! going through `self` on every access makes the compiler reload both (and re-check the bound)
//! after each store.

use crate::fabric::channel;
use crate::fabric::link;
use crate::fabric::records::{credit_seen, InputVcId, OutPort, Stall, ADAPTIVE, BUBBLE, BUSY, NO_RETURN, WAITING};
use crate::fabric::vc_pick;
use crate::fabric::Fabric;
use crate::meter::Meter;
use crate::nics::Nics;
use crate::packet::{PacketId, NIL, NO_HINT};
use crate::sim::{hop_ahead, lane, reserve_memory, Core, CreditReturn, Ev};
use fabricsim_core::{NodeId, PortId, RouterId, Time};
use fabricsim_routing::{Header, Hop, Selection};
use fabricsim_stats::Observer;
use fabricsim_topology::PortKind;

impl<O: Observer> Core<O> {
    #[inline(always)]
    pub(crate) fn on_ready(&mut self, pkt: PacketId) {
        let q = self.packets.get(pkt).q;
        let v = &self.fabric.vcq[q.index()];
        if v.head == pkt && !v.busy() {
            self.request(pkt, true);
        }
    }

    /// Free credit of sender `out` on `vc` now (unlimited for an ejection port), absorbing a
    /// return that has arrived.
    #[inline(always)]
    pub(crate) fn credit(&mut self, out: u32, vc: u8) -> u32 {
        let o = &self.fabric.outs[out as usize];
        if o.class == channel::TERMINAL {
            return u32::MAX;
        }
        let seen = credit_seen(&self.queue);
        let c = &mut self.fabric.vcq[(o.peer * self.fabric.vcs + vc as u32) as usize].credit;
        c.absorb(seen);
        c.free
    }

    /// The head packet of its input VC asks for its output: looked ahead, or routed now when
    /// the routing gives a single hop; with several candidates, the choice among them waits
    /// for the end of the instant (see [`crate::phase`]), where it sees what the instant's other
    /// requests claimed.
    ///
    /// `alone`: the caller does nothing after this request (a head-ready event), so when it is
    /// also the instant's last event and nothing else waits for the phase, the phase would run
    /// right after it with this request alone: an idle, unrequested output with room is then
    /// granted at once, exactly as the phase would, without posting it.
    #[inline(always)]
    pub(crate) fn request(&mut self, pkt: PacketId, alone: bool) {
        let p = self.packets.get(pkt);
        let (ahead, ahead_vc) = (p.out, p.out_vc);
        let (out, vc) = if ahead != NIL {
            // Looked ahead when it was sent here (see `grant`).
            (ahead, ahead_vc)
        } else {
            match self.route_here(pkt) {
                Some(hop) => hop,
                None => return self.post_selection(pkt),
            }
        };
        self.post_request(pkt, out, vc, alone, 0);
    }

    /// Packet `pkt`, head of its input VC, requests output `out` on `vc`: its request bit is
    /// set, and an idle output is posted for arbitration at the end of the instant (a busy one
    /// arbitrates when it frees). Never granted here: another request of the same instant may
    /// come later.
    #[inline(always)]
    /// `kind`: [`BUBBLE`] and [`ADAPTIVE`] as the chosen hop is.
    pub(crate) fn post_request(&mut self, pkt: PacketId, out: u32, vc: u8, alone: bool, kind: u8) {
        let now = self.queue.now().ps();
        let p = self.packets.get(pkt);
        let (q, size, prio) = (p.q, p.wire_bytes, p.prio);
        let v = &mut self.fabric.vcq[q.index()];
        (v.bytes, v.out_vc, v.prio) = (size, vc, prio);
        v.flags = (v.flags & !(BUBBLE | ADAPTIVE)) | kind;
        let need = v.need(self.fabric.slots);
        let o = &self.fabric.outs[out as usize];
        // The request bit is the input VC's index within the router.
        let bit = q.0 - o.qbase;
        if alone
            && !o.requested()
            && o.busy_until <= now
            && !self.phase.due
            && !self.queue.instant_pending()
            && self.credit(out, vc) >= need
            && self.input_free(q, now)
        {
            // What the phase would do (see `request`).
            self.grant(out, bit, q);
            return;
        }
        let o = &mut self.fabric.outs[out as usize];
        o.add_request(bit);
        let idle = o.busy_until <= now;
        self.fabric.requested[out as usize / 64] |= 1 << (out % 64);
        if idle {
            self.post_arbitration(out);
        } else if self.fabric.flits_on {
            // With flits, a higher priority may take the busy link at a flit boundary.
            self.flit_request(out, prio);
        }
    }

    /// Route packet `pkt` (no hop looked ahead: a packet just injected) when the routing gives
    /// it a single hop and its header asks nothing special (no hint forcing its first hop, zone
    /// 0), recording the global output port and VC; `None`: it has a choice to make (see
    /// [`Core::select`]).
    #[inline(never)]
    fn route_here(&mut self, pkt: PacketId) -> Option<(u32, u8)> {
        let p = self.packets.get(pkt);
        let (q, src, dst, hint, zone) = (p.q, p.src, p.dst, p.hint, p.zone);
        let (in_port, in_vc) = self.fabric.vcs_div.div_rem(q.0);
        if (hint != NO_HINT && self.graph.kind[in_port as usize] == PortKind::Terminal) || zone != 0 || self.fabric.detours {
            return None;
        }
        let (router, base) = self.router_of(in_port);
        let h = self.routing.route_single(RouterId(router), in_port - base, in_vc as u8, NodeId(src), NodeId(dst))?;
        let out = base + h.port;
        let p = self.packets.get_mut(pkt);
        (p.out, p.out_vc) = (out, h.vc);
        Some((out, h.vc))
    }

    /// End of the instant: packet `pkt` is routed (its header: destination, hint, zone, escape
    /// state), chooses among its candidates by the selection policy, then requests. Run in
    /// ascending order of input VC, so each choice sees the requests of the choices before it.
    pub(crate) fn select(&mut self, pkt: PacketId) {
        let p = self.packets.get(pkt);
        if p.hint >= crate::hardware::multicast::MCAST_HINT && p.hint != crate::packet::NO_HINT {
            return if p.hint == crate::hardware::agent::SINK_HINT { self.request_sink(pkt) } else { self.request_multicast(pkt) };
        }
        let hdr = Header { src: NodeId(p.src), dst: NodeId(p.dst), hint: p.hint, zone: p.zone, escaped: p.escaped };
        let (q, size, id) = (p.q, p.wire_bytes, (p.src as u64) << 32 | p.seq as u64);
        let (in_port, in_vc) = self.fabric.vcs_div.div_rem(q.0);
        let (router, base) = self.router_of(in_port);
        if !self.fabric.detours {
            self.routing.route(RouterId(router), in_port - base, in_vc as u8, &hdr, &mut self.fabric.cands);
        } else if !self.route_around(router, in_port - base, in_vc as u8, &hdr) {
            return self.stop_cut_off(pkt);
        }
        let (h, take) = self.choose(router, base, size, id);
        if !take && self.fabric.sleepers.is_some() && self.sleep(pkt, q, router, base) {
            return;
        }
        let out = base + h.port;
        // (An ejection is the escape routing's hop too: it does not count as escaping.)
        // (A packet that may leave the escape sub-network is on it while its last hop was.)
        let terminal = self.fabric.outs[out as usize].class == channel::TERMINAL;
        let on_escape = h.escape && self.routing.is_adaptive() && !terminal;
        let escaped = if terminal || !self.routing.leaves_escape() { hdr.escaped || on_escape } else { on_escape };
        let p = self.packets.get_mut(pkt);
        (p.out, p.out_vc, p.escaped) = (out, h.vc, escaped);
        let kind = if h.bubble { BUBBLE } else { 0 } | if !h.escape && self.routing.is_adaptive() { ADAPTIVE } else { 0 };
        self.post_request(pkt, out, h.vc, false, kind);
    }

    /// The VC a packet of `wire` bytes, id `id` and routing selector `zone` enters its first router on, from NIC
    /// engine `engine` (a pseudo-port): chosen among the routing's injection VCs by the
    /// selection policy, as any hop is (most free credit by default), so extra VCs give a
    /// router's injection port several queues; `None` when none has room for it.
    pub(crate) fn injection_vc(&mut self, engine: u32, wire: u32, id: u64, zone: u8) -> Option<u8> {
        let vcs = self.routing.injection_vcs(zone);
        let n = vcs.len() as u32;
        if n == 1 {
            return (self.credit(engine, vcs.start) >= self.charge(vcs.start, wire)).then_some(vcs.start);
        }
        // `choose` over the VCs as candidates of one output, none of them a bubble hop, all of
        // them safe to wait for, specialised: the engine's own state scores them all alike, so
        // what counts is room (then, by credit, the most), from a start rotating with the id.
        let followers = self.fabric.queue_followers;
        let start = rotation_start(self.p.selection, id, 0, vc_pick::candidates(&vcs, followers));
        let by_credit = self.p.selection == Selection::Credit;
        vc_pick::pick(vcs, followers, start, by_credit, |vc| {
            let cred = self.credit(engine, vc);
            (cred >= self.charge(vc, wire)).then_some(cred)
        })
    }

    /// Selection among the candidate hops in `self.fabric.cands` at `router` (first global port
    /// `base`) for a packet of `size` wire bytes and id `id` (see [`fabricsim_routing::Selection`]).
    /// Every policy prefers a candidate with room downstream, and an adaptive one with room
    /// over an escape one. Also returns whether to take the hop now: it has room, or it is the
    /// only candidate (then it is waited for, whatever its credit: nothing else could come
    /// free first).
    fn choose(&mut self, router: u32, base: u32, size: u32, id: u64) -> (Hop, bool) {
        // Hops are read one at a time (copying the whole set would move its full capacity).
        let n = self.fabric.cands.len();
        debug_assert!(n > 0, "routing returned no candidate");
        if n == 1 {
            return (self.fabric.cands.as_slice()[0], true);
        }
        self.choose_among(router, base, size, id)
    }

    /// [`choose`](Self::choose) among two or more candidates (none onto a link the routers
    /// know is down: routing left those out, see `crate::faults::cut`).
    #[inline(always)]
    fn choose_among(&mut self, router: u32, base: u32, size: u32, id: u64) -> (Hop, bool) {
        let n = self.fabric.cands.len();
        let now = self.queue.now().ps();
        let start = rotation_start(self.p.selection, id, router, n as u32) as usize;
        let (selection, slot) = (self.p.selection, self.fabric.slots);
        let mut best = (0u8, 0u32, self.fabric.cands.as_slice()[start], false);
        let mut i = start;
        for k in 0..n {
            let h = self.fabric.cands.as_slice()[i];
            i = if i + 1 == n { 0 } else { i + 1 };
            let out = base + h.port;
            let cred = self.credit(out, h.vc);
            let o = &self.fabric.outs[out as usize];
            let fits = cred >= crate::fabric::link::slot_charge(slot, h.vc, size) + if h.bubble { slot.of(h.vc) } else { 0 };
            let score = match selection {
                // Room, adaptive (or, without room, escape: the one hop safe to wait for), then
                // a free output (idle, not requested yet), then credit.
                Selection::Credit => (fits as u8) * 4 + (fits != h.escape) as u8 * 2 + (o.busy_until <= now && !o.requested()) as u8,
                Selection::First | Selection::Random => (fits as u8) * 2 + (fits != h.escape) as u8,
            };
            let cred = if selection == Selection::Credit { cred } else { 0 };
            if k == 0 || (score, cred) > (best.0, best.1) {
                best = (score, cred, h, fits);
            }
        }
        (best.2, best.3)
    }

    /// Grant output `out` to one requesting input VC, if it is idle and someone fits.
    #[inline]
    pub(crate) fn arbitrate(&mut self, out: u32) {
        // Most calls find the output busy or unrequested: that check stays inline.
        let o = &self.fabric.outs[out as usize];
        if o.busy_until <= self.queue.now().ps() && o.requested() {
            let mask = o.requests();
            // (A switch agent's claim is never the single requester's fast path.)
            if mask.is_power_of_two() && mask != crate::hardware::agent::AGENT_MASK {
                // One requester (the usual case): granted if it fits, no round-robin to turn.
                let (bit, qbase) = (mask.trailing_zeros(), o.qbase);
                let v = self.fabric.vcq[(qbase + bit) as usize];
                if self.credit(out, v.out_vc) >= v.need(self.fabric.slots) && self.input_free(InputVcId(qbase + bit), self.queue.now().ps()) {
                    return self.grant(out, bit, InputVcId(qbase + bit));
                }
            }
            self.arbitrate_requests(out, mask);
        }
    }

    /// Arbitration proper, for an idle output with requests `mask` (its request mask).
    #[inline(never)]
    pub(crate) fn arbitrate_requests(&mut self, out: u32, mut mask: u128) {
        if mask & crate::hardware::agent::AGENT_MASK != 0 {
            // A switch agent's packet goes first (the highest output priority).
            if self.agent_claims(out) {
                return;
            }
            mask &= !crate::hardware::agent::AGENT_MASK;
            if mask == 0 {
                return;
            }
        }
        let now = self.queue.now().ps();
        let slot = self.fabric.slots;
        let seen = credit_seen(&self.queue);
        let o = &self.fabric.outs[out as usize];
        let (qbase, terminal, rr, ds_base) = (o.qbase, o.class == channel::TERMINAL, o.rr, o.peer.wrapping_mul(self.fabric.vcs));
        // Highest priority class first, round-robin after the last grant within it. With a
        // transit ratio, requests from injection ports are ranked apart (`best_inj`).
        let mut best: Option<(u8, u32)> = None;
        let mut best_inj: Option<(u8, u32)> = None;
        let ratio = !self.fabric.transit_run.is_empty();
        // Requesters with credit that wait for their port's shared crossbar input.
        let mut held = 0u128;
        let start = (rr as u32 + 1) % 128;
        let mut m = mask.rotate_right(start);
        while m != 0 {
            let k = m.trailing_zeros();
            m &= m - 1;
            let bit = (k + start) % 128;
            let p = self.fabric.vcq[(qbase + bit) as usize];
            if !terminal {
                let c = &mut self.fabric.vcq[ds_base.wrapping_add(p.out_vc as u32) as usize].credit;
                c.absorb(seen);
                if c.free < p.need(slot) {
                    continue;
                }
            }
            if !self.fabric.in_busy.is_empty() {
                if let Err(first) = self.crossbar(InputVcId(qbase + bit), now) {
                    // Its port's crossbar input is busy (it asks again when that frees), or
                    // another of the port's VCs goes first there.
                    held |= 1 << bit;
                    if let Some(other) = first {
                        self.retry_crossbar(out, other);
                    }
                    continue;
                }
            }
            let slot =
                if ratio && self.graph.kind[self.fabric.vcs_div.div(qbase + bit) as usize] == PortKind::Terminal { &mut best_inj } else { &mut best };
            if slot.is_none_or(|(bp, _)| p.prio > bp) {
                *slot = Some((p.prio, bit));
            }
        }
        if ratio {
            best = self.transit_or_injection(out, best, best_inj);
        }
        match best {
            Some((_, bit)) => self.grant(out, bit, InputVcId(qbase + bit)),
            None => {
                // Every requester lacks credit (an ejection port never does). An adaptive
                // request is withdrawn and its packet chooses again (waiting for an adaptive
                // channel could deadlock; the escape hop is always safe to wait for); the others
                // wait for credit.
                let mut m = mask;
                let mut waiting = false;
                while m != 0 {
                    let bit = m.trailing_zeros();
                    m &= m - 1;
                    let v = self.fabric.vcq[(qbase + bit) as usize];
                    if held >> bit & 1 != 0 {
                        continue; // waits for its crossbar input, not for credit
                    }
                    if v.flags & ADAPTIVE != 0 {
                        self.choose_again(out, bit, InputVcId(qbase + bit));
                    } else {
                        waiting = true;
                        self.obs.on_credit_wait(PortId(out), v.out_vc, Time(now));
                        self.wait_for_credit(out, v.out_vc);
                    }
                }
                let o = &mut self.fabric.outs[out as usize];
                if waiting && !o.stalled {
                    o.stalled = true;
                    self.fabric.stall[out as usize].since = now;
                }
            }
        }
    }

    /// With a transit ratio `r` (`NetworkParams::transit_ratio`): output `out`'s choice between
    /// its best request from a network port (`transit`) and its best from an injection port
    /// (`inject`), each `(priority, bit)`. A higher priority wins; at equal priorities a
    /// transit request wins `r` grants in a row while injection requests wait, then an
    /// injection request wins one (Blue Gene/Q's programmable ratio of grants to packets
    /// cutting through to grants to injection FIFOs). A grant made while no injection request
    /// can go (none waits, or those waiting lack credit or their crossbar input) starts the run
    /// again: the ratio counts grants between requests that compete for the output.
    #[inline(never)]
    fn transit_or_injection(&mut self, out: u32, transit: Option<(u8, u32)>, inject: Option<(u8, u32)>) -> Option<(u8, u32)> {
        let (Some(t), Some(i)) = (transit, inject) else {
            if inject.is_none() {
                // No injection request waits: a run of transit grants counts only while one does.
                self.fabric.transit_run[out as usize] = 0;
            }
            return transit.or(inject);
        };
        if t.0 != i.0 {
            return Some(if t.0 > i.0 { t } else { i });
        }
        let run = &mut self.fabric.transit_run[out as usize];
        if *run < self.p.transit_ratio {
            *run += 1;
            Some(t)
        } else {
            *run = 0;
            Some(i)
        }
    }

    /// Withdraw the adaptive request of input VC `q` (request bit `bit`) for output `out`, which
    /// lacks credit: its head packet routes and chooses again, in a later phase of this instant
    /// (by then seeing no hop with room, it sleeps until one has room, see `crate::fabric::sleep`; or,
    /// with `Routing::committing`, takes the escape hop and waits there).
    #[inline(never)]
    pub(crate) fn choose_again(&mut self, out: u32, bit: u32, q: InputVcId) {
        let o = &mut self.fabric.outs[out as usize];
        if o.take_request(bit) {
            self.fabric.requested[out as usize / 64] &= !(1 << (out % 64));
        }
        let v = &mut self.fabric.vcq[q.index()];
        v.flags &= !ADAPTIVE;
        let pkt = v.head;
        self.packets.get_mut(pkt).out = NIL;
        self.ready_again(q);
    }

    /// The head packet of input VC `q`, which requests nothing, routes and chooses again in a
    /// later phase of this instant.
    pub(crate) fn ready_again(&mut self, q: InputVcId) {
        self.ready_at(q, self.queue.now().ps());
    }

    /// The head packet of input VC `q` gets its head-ready event at `t` (on the injection or
    /// the hop lane, as its VC is fed).
    pub(crate) fn ready_at(&mut self, q: InputVcId, t: u64) {
        let v = &self.fabric.vcq[q.index()];
        let l = if v.up_class == channel::ENGINE { lane::INJECT_READY } else { lane::HOP_READY };
        self.queue.schedule_on(l, Time(t), Ev::Ready(v.head));
    }

    /// Send the head packet of input VC `q` (request bit `bit`) on output `out`: the copy of
    /// [`grant_with`](Self::grant_with) built for faulty links and cut links (a partitioned
    /// run) when the run has either, else the one without their tests (+1.3% instructions per
    /// hop when the faults' test was always in, BENCHMARKS.md session 18).
    #[inline(always)]
    fn grant(&mut self, out: u32, bit: u32, q: InputVcId) {
        if self.fabric.special {
            if self.fabric.flits.is_some() {
                return self.grant_flit(out, bit, q);
            }
            if self.fabric.detours && self.stop_at_dead_link(out, bit, q) {
                return;
            }
            self.grant_with::<true>(out, bit, q)
        } else {
            self.grant_with::<false>(out, bit, q)
        }
    }

    /// [`grant`](Self::grant); `SPECIAL`: the run has faulty links or cut links.
    ///
    /// The handlers that lead here (`on_ready`, `request`, `on_out_free`, `after_release`) are
    /// inlined into the event loop; this one is not: inlined into its three callers it spills
    /// registers (BENCHMARKS.md, session 6: +61 M instructions on the 50 us run, 7% slower).
    #[inline(never)]
    pub(crate) fn grant_with<const SPECIAL: bool>(&mut self, out: u32, bit: u32, q: InputVcId) {
        let Core {
            obs,
            packets,
            queue,
            p: params,
            routing,
            graph,
            fabric: Fabric { outs, stall, vcq, timing, vcs, requested, router_div, lookahead, slots, in_busy, in_rr, vcs_div, crossings, .. },
            nics: Nics { mem_free, messages, .. },
            meter: Meter { last_progress, out: outcome, .. },
            faults,
            cut,
            error,
            ..
        } = self;
        let (outs, vcq, packets) = (&mut outs[..], &mut vcq[..], packets.slots_mut());
        let now = queue.now().ps();
        // Take the packet off its input VC, which stays busy until the tail has left.
        let v = &mut vcq[q.index()];
        let pkt = v.head;
        let p = &mut packets[pkt.index()];
        v.head = p.next;
        if p.next == PacketId::NIL {
            v.tail = PacketId::NIL;
        }
        v.flags |= BUSY;
        let out_vc = v.out_vc;
        let o = &mut outs[out as usize];
        if o.take_request(bit) {
            requested[out as usize / 64] &= !(1 << (out % 64));
        }
        o.rr = bit as u8;
        let class = o.class;
        let size = p.wire_bytes;
        let mut finish = (now + timing.serialization(class, size)).max(p.tail);
        let shared = !in_busy.is_empty();
        let terminal = class == channel::TERMINAL;
        // `uncached` first: it is nearly always false, so the branch predicts well, where
        // `terminal` (one grant in every few) does not.
        if p.uncached && terminal {
            // Uncached data is written to main memory: the node's memory paces reception.
            let bw = params.memory_bandwidth.expect("uncached implies a memory limit");
            finish = finish.max(reserve_memory(mem_free, bw, now, p.dst, p.payload, true));
        }
        // Faulty links (`faults` is `None` unless faults are configured): the frame's attempts
        // decide when it leaves (`sent_at`), when the output frees, and whether it is lost.
        let (mut sent_at, mut lost, mut caught) = (now, false, false);
        if let (true, Some(f)) = (SPECIAL, faults) {
            if !terminal {
                let ser = timing.serialization(class, size);
                let protectable = !p.agent && !crate::packet::hardware_op(messages.get(p.msg).op);
                let frame = crate::faults::Frame { out, rev: o.peer, now, size, ser, lat: o.latency as u64, tail: p.tail, protectable };
                let s = crate::faults::hop(f, error, frame);
                (sent_at, finish, lost, caught) = (s.start, s.finish, s.lost, s.caught);
            }
        }
        if shared {
            // The port's crossbar input carries this packet until its tail has left.
            let (port, vc) = vcs_div.div_rem(q.0);
            (in_busy[port as usize], in_rr[port as usize]) = (finish, vc as u8);
        }
        // Nothing without an observer that meters queues (`()`'s hook is empty).
        obs.on_queue_wait(PortId(out), out_vc, Time(p.ready_at), Time(now), size);
        count_hop(obs, o, &mut stall[out as usize], out, now, finish, size);
        let back_to_back = o.busy_until == now;
        o.busy_until = finish;
        outcome.packet_hops += 1;
        let lat = o.latency as u64;
        // Progress runs until this transmission (and the head's next step) ends: a long step is
        // not a deadlock.
        if terminal {
            if p.agent {
                agent_head(queue, now, pkt);
            }
            if lat == 0 {
                // On-chip NIC: the tail arrives as the port frees; one event does both.
                *last_progress = (*last_progress).max(finish);
                queue.schedule_on(lane::OUT_FREE, Time(finish), Ev::EjectDone(pkt));
                return;
            }
            *last_progress = (*last_progress).max(finish + lat);
            queue.schedule_on(lane::DELIVER, Time(finish + lat), Ev::Deliver(pkt));
        } else if lost {
            *last_progress = (*last_progress).max(finish);
        } else {
            let ds_q = InputVcId(o.peer * *vcs + out_vc as u32);
            // Lookahead routing: when the routing gives a single hop, the next router's output is
            // known now (it depends on nothing that can change before the packet gets there),
            // and is computed while the packet's record is at hand.
            let ahead = if *lookahead && p.zone == 0 { hop_ahead(*router_div, graph, routing, o.peer, out_vc, p.src, p.dst) } else { None };
            (p.out, p.out_vc) = ahead.unwrap_or((NIL, p.out_vc));
            let ready = sent_at + lat + params.router_delay.ps();
            *last_progress = (*last_progress).max(finish).max(ready);
            let charge = link::slot_charge(*slots, out_vc, size);
            let b2b = back_to_back && sent_at == now;
            if SPECIAL && cut.as_deref().is_some_and(|c| c.layout.is_cut(out)) {
                // To a router of another block: the sender spends its credit here, the packet
                // joins the downstream buffer there.
                vcq[ds_q.index()].credit.free -= charge;
                queue.schedule_on(lane::OUT_FREE, Time(finish), Ev::OutFree { out, bit: bit as u8 });
                return self.cut_send(out, pkt, ds_q, finish + lat, ready, b2b);
            }
            // (Queues sharing a buffer make a run special: the packet picks its queue there.)
            let join = if SPECIAL { link::pool_queue(vcq, packets, ds_q) } else { ds_q };
            link::forward(crossings, vcq, packets, queue, pkt, ds_q, join, charge, finish + lat, ready, b2b);
        }
        queue.schedule_on(lane::OUT_FREE, Time(finish), Ev::OutFree { out, bit: bit as u8 });
        if SPECIAL && lost {
            if caught {
                self.count_cut(pkt);
            } else {
                self.lose_packet(pkt);
            }
        }
    }

    #[inline(always)]
    pub(crate) fn on_out_free(&mut self, out: u32, q: InputVcId, bytes: u32) {
        let now = self.queue.now().ps();
        let silent = self.fabric.silent_credits;
        self.fabric.vcq[q.index()].flags &= !BUSY;
        // The packet's tail has left input VC `q`: return its space to the sender.
        // What the packet was charged in `q` (a slot, on a VC with bubbles).
        let bytes = if self.fabric.slots.vcs != 0 { self.charge(self.fabric.vcs_div.div_rem(q.0).1 as u8, bytes) } else { bytes };
        self.return_credit(q, bytes, now, silent);
        if !self.fabric.in_busy.is_empty() {
            self.crossbar_input_freed(q);
        }
        self.after_release(out, q);
    }

    /// After input VC `q` released output `out`: the VC's next packet may request, and the
    /// output may grant another.
    ///
    /// The next packet requests now if its head is through the pipeline; if not, and no
    /// head-ready event is scheduled for it (`armed`, see `grant`), its event is scheduled now
    /// for that time. A release is an output-free event, which comes after head-ready events of
    /// the same instant, so "through the pipeline" is `ready_at <= now`, exactly when the
    /// packet's own event would have come first.
    ///
    /// When this release is the instant's last event and nothing waits for the phase, the
    /// phase would run next with at most these two outputs (the next packet's and `out`), which
    /// share nothing but, for ejection ports of one node, its memory: without a memory limit,
    /// and unless the next packet's request posts something (a choice of hops, an output with
    /// other requests), both are decided at once, as the phase would.
    #[inline(always)]
    fn after_release(&mut self, out: u32, q: InputVcId) {
        let alone = !self.phase.due && self.p.memory_bandwidth.is_none() && !self.queue.instant_pending();
        let head = self.fabric.vcq[q.index()].head;
        if head != PacketId::NIL {
            let h = self.packets.get(head);
            let ready_at = h.ready_at;
            if ready_at <= self.queue.now().ps() {
                self.request(head, alone);
            } else if !h.armed {
                let l = if self.fabric.vcq[q.index()].up_class == channel::ENGINE { lane::INJECT_READY } else { lane::HOP_READY };
                self.queue.schedule_on(l, Time(ready_at), Ev::Ready(head));
            }
        }
        // Most outputs have no other requester when they free: the dense flag array answers
        // that without loading the output's record.
        if self.fabric.requested[out as usize / 64] & (1 << (out % 64)) != 0 {
            // Still alone only if the next packet's request posted nothing (a choice of hops
            // would be made in the phase, before this arbitration, and read its credit).
            if alone && !self.phase.due {
                self.arbitrate(out);
            } else {
                self.post_arbitration(out);
            }
        }
    }

    /// Sender `port` lacks credit on `vc`: later returns to it travel as events, and one in
    /// flight in its slot becomes an event at its arrival time.
    pub(crate) fn wait_for_credit(&mut self, port: u32, vc: u8) {
        let q = InputVcId(self.fabric.outs[port as usize].peer * self.fabric.vcs + vc as u32);
        let c = &mut self.fabric.vcq[q.index()].credit;
        let (at, bytes) = (c.pend_at, c.pend_bytes);
        c.pend_at = WAITING;
        if at != NO_RETURN && at != WAITING {
            self.credit_event(at, q, bytes);
        }
    }

    /// Send `bytes` of credit on input VC `q` back to its sender as an event arriving `at`.
    pub(crate) fn credit_event(&mut self, at: u64, q: InputVcId, bytes: u32) {
        let i = self.fabric.credit_returns.insert(CreditReturn { q, bytes });
        self.queue.schedule_on(lane::CREDIT, Time(at), Ev::Credit(i));
    }

    /// Credits on input VC `q` reach its sender, which tries again if it waits for them. (A
    /// sender that does not wait for credit decides at its next request or release; arbitrating
    /// here too could only reorder decisions taken at the same instant.)
    pub(crate) fn on_credit(&mut self, q: InputVcId, bytes: u32) {
        let c = &mut self.fabric.vcq[q.index()].credit;
        c.free += bytes;
        if !c.waiting() {
            return;
        }
        c.pend_at = NO_RETURN;
        let (ds_port, vc) = self.fabric.vcs_div.div_rem(q.0);
        let port = self.fabric.upstream[ds_port as usize];
        if self.is_pseudo(port) {
            let node = self.nics.engines_div.div(port - self.total_ports());
            self.post_injection(node);
        } else {
            // Ends a credit wait of the output on this VC (see `Observer::on_credit_wait`).
            self.obs.on_credit_back(PortId(port), vc as u8, self.queue.now());
            self.post_arbitration(port);
            if self.fabric.sleepers.is_some() {
                self.wake_sleepers(port);
            }
            if self.fabric.flits_on {
                // A request waiting for this credit may suspend the busy output's packet.
                self.flit_released(port);
            }
        }
    }
}

/// A class-route chunk's head reaches the router's collective logic (see `crate::hardware::class_routes`):
/// out of the grant's way, which is hot and sensitive to its size.
#[cold]
#[inline(never)]
fn agent_head(queue: &mut fabricsim_engine::EventQueue<Ev>, now: u64, pkt: PacketId) {
    queue.schedule(Time(now), Ev::AgentHead(pkt));
}

/// Output `out`'s counters and observer take a transmission of `size` bytes from `now` to
/// `finish`; a credit stall the output was in ends now.
#[inline(always)]
fn count_hop<O: Observer>(obs: &mut O, o: &mut OutPort, stall: &mut Stall, out: u32, now: u64, finish: u64, size: u32) {
    o.bytes += size as u64;
    o.packets += 1;
    o.busy_ps += finish - now;
    if o.stalled {
        o.stalled = false;
        stall.total_ps += now - stall.since;
        obs.on_credit_stall(PortId(out), Time(stall.since), Time(now));
    }
    obs.on_hop(PortId(out), Time(now), Time(finish), size);
}

/// Where a search over `n` candidates at `router` starts for the packet with id `id`: rotating
/// with the id (equivalent outputs share the load), a hash of the id and router for random
/// selection, or the first.
#[inline(always)]
fn rotation_start(selection: Selection, id: u64, router: u32, n: u32) -> u32 {
    match selection {
        Selection::First => 0,
        Selection::Credit => (id as u32).wrapping_add((id >> 32) as u32) % n,
        Selection::Random => (fabricsim_core::rng::mix(id ^ (router as u64) << 40) % n as u64) as u32,
    }
}

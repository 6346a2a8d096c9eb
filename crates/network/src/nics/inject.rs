//! Network interface: a FIFO of messages per node, cut into packets on demand and pushed into
//! the router by the node's injection engines.

use crate::fabric::channel;
use crate::fabric::link::pool_queue;
use crate::fabric::records::InputVcId;
use crate::packet::{hardware_op, GetState, Message, Packet, PacketId, ANY_ENGINE, CLASS_CHUNK, GET_REQUEST, GET_RESPONSE, NIL, NO_HINT, PUT};
use crate::params::EngineChoice;
use crate::sim::{hop_ahead, lane, Core, Ev};
use fabricsim_core::{prefetch, NodeId, Time};
use fabricsim_nic::Rank;
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// Post a Get by rank `initiator` of `bytes` from rank `target`: its request goes out now;
    /// the target's NIC answers it (see `Core::complete`).
    pub(crate) fn post_get(&mut self, initiator: u32, target: u32, bytes: u64, tag: u64, hint: u8, class: u8) {
        let created = self.queue.now().ps();
        let g = self.nics.gets.insert(GetState { initiator, target, bytes, tag, created, class });
        self.send(initiator, target, fabricsim_nic::GET_REQUEST_BYTES, g as u64, hint, class, GET_REQUEST, (0, ANY_ENGINE, 0));
    }

    /// Post a message (operation `op`) from rank `src` to rank `dst`; `hint` forces the first
    /// hop's output port; `(pace, engine, route)`: its injection rate cap (picoseconds per KiB,
    /// 0: none), chosen engine ([`ANY_ENGINE`]: none) and routing selector.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn send(&mut self, src: u32, dst: u32, bytes: u64, tag: u64, hint: u8, prio: u8, op: u8, (pace, engine, route): (u32, u8, u8)) {
        let now = self.queue.now().ps();
        // The hardware's own signals (barrier gates, class-route chunks) are not traffic the
        // run measures.
        let measured = now >= self.meter.window_start && now < self.meter.window_end && !hardware_op(op);
        let bytes = bytes.max(1);
        let uncached = self.p.memory_bandwidth.is_some() && bytes > self.p.cache_bytes;
        // Class messages, deterministic, keep to their pair's engine (see `deal`).
        let route = self.class_route(prio, route);
        let m = self.nics.messages.insert(Message {
            src,
            dst,
            bytes,
            packetized: 0,
            delivered: 0,
            created: now,
            tag,
            next: NIL,
            prio,
            measured,
            hint,
            uncached,
            op,
            engine,
            pace,
            route,
        });
        if measured {
            self.meter.measured_outstanding += 1;
        }
        // Sender-side costs: the posting rank's core runs the software part, one message after
        // another (a rank that posts twenty messages pays twenty in a row); the NIC's part
        // (descriptor handling, its memory reads) overlaps across messages. A Get's data is
        // posted by the target's NIC: no software part.
        let (host, nic) = match op {
            _ if hardware_op(op) => (0, 0),
            GET_RESPONSE => (0, self.p.tx_overhead.ps()),
            _ => (self.p.software_overhead.ps(), self.p.tx_overhead.ps()),
        };
        if host == 0 && nic == 0 {
            return self.enqueue_message(self.node(src), m);
        }
        // Each owner's messages become ready in the order they were posted (the software part is
        // served in order, the NIC part is the same for all): a FIFO per owner, and an event
        // that takes its front (the events of one owner at one instant are then alike, whatever
        // order they come in).
        if op == GET_RESPONSE {
            let node = self.node(src);
            self.nics.answered.push(&mut self.nics.messages, node, m);
            self.queue.schedule_on(lane::MSG_READY, Time(now + nic), Ev::AnswerReady(node));
        } else {
            let start = if host > 0 {
                let core = &mut self.nics.core_free[src as usize];
                *core = (*core).max(now) + host;
                *core
            } else {
                now
            };
            self.nics.posted.push(&mut self.nics.messages, src, m);
            self.queue.schedule_on(lane::MSG_READY, Time(start + nic), Ev::MsgReady(src));
        }
    }

    /// The routing selector of a message of priority class `prio` with selector `route`: its
    /// class VC when the routers have them (the highest classes share the last one), keeping the
    /// deterministic bit; otherwise `route` without the class bits.
    #[inline]
    pub(crate) fn class_route(&self, prio: u8, route: u8) -> u8 {
        if prio > 0 && self.fabric.class_vcs > 0 {
            fabricsim_nic::ROUTE_DETERMINISTIC | fabricsim_routing::classes::CLASS_VC | (prio - 1).min(self.fabric.class_vcs - 1)
        } else {
            route & !fabricsim_routing::classes::CLASS_VC
        }
    }

    /// The oldest message posted by rank `src` has finished its sender-side processing.
    pub(crate) fn message_ready(&mut self, src: u32) {
        let m = self.nics.posted.pop(&mut self.nics.messages, src);
        self.enqueue_message(self.node(src), m);
    }

    /// The oldest Get data posted by `node`'s NIC is ready to go.
    pub(crate) fn answer_ready(&mut self, node: u32) {
        let m = self.nics.answered.pop(&mut self.nics.messages, node);
        self.enqueue_message(node, m);
    }

    /// A message whose sender-side processing is done reaches its node's NIC. It is dealt to
    /// an engine at the end of the instant, with the instant's other arrivals in an order that
    /// depends on them only (see `Core::deal_arrivals`), or at once where that provably makes
    /// no difference: the instant's last event, nothing else waiting for the phase, one engine
    /// and one rank per node (the phase would then deal this message alone and inject it).
    pub(crate) fn enqueue_message(&mut self, src: u32, m: u32) {
        self.nics.node[src as usize].queued += 1;
        if self.graph.engines == 1 && self.nics.rank_node.is_empty() && !self.phase.due && !self.queue.instant_pending() {
            // As from the phase: every credit return of the instant counts. Later sends of the
            // same handler find the engine as the phase would have left it.
            self.queue.end_of_instant();
            self.deal(src, m);
            self.try_inject(src);
        } else {
            self.nics.arrivals.push(m);
            self.phase.due = true;
        }
    }

    /// Deal message `m` to one of `node`'s engines, as `nic.engine_choice` says (by default
    /// round-robin, as Tofu's communication layer deals messages to TNIs). A message that chose
    /// its engine goes there, and leaves the round-robin as it was.
    fn deal(&mut self, node: u32, m: u32) {
        let e_count = self.graph.engines;
        let msg = self.nics.messages.get(m);
        let (chosen, pair, route) = (msg.engine, msg.src.wrapping_add(msg.dst), msg.route);
        let base = (node * e_count) as usize;
        let e = if chosen != ANY_ENGINE {
            chosen as u32 % e_count
        } else {
            let start = self.nics.node[node as usize].rr;
            // A deterministic message keeps to its pair's engine, so a pair's messages stay in
            // order whatever the choice for the others.
            let choice = if route & fabricsim_nic::ROUTE_DETERMINISTIC != 0 { EngineChoice::Pair } else { self.p.engine_choice };
            let e = match choice {
                EngineChoice::RoundRobin => start,
                EngineChoice::Pair => pair % e_count,
                EngineChoice::ShortestQueue => {
                    let q = &self.nics.engines[base..base + e_count as usize];
                    (0..e_count).map(|k| (start + k) % e_count).min_by_key(|&e| q[e as usize].queued).unwrap_or(start)
                }
            };
            if choice != EngineChoice::Pair {
                self.nics.node[node as usize].rr = if e + 1 == e_count { 0 } else { e + 1 };
            }
            e
        };
        let qi = base + e as usize;
        self.nics.engines[qi].queued += 1;
        let t = self.nics.engines[qi].tail;
        let prio = self.nics.messages.get(m).prio;
        if t == NIL {
            self.nics.engines[qi].head = m;
        } else if prio > self.nics.messages.get(t).prio {
            return self.queue_ahead(qi, m, prio);
        } else {
            self.nics.messages.get_mut(t).next = m;
        }
        self.nics.engines[qi].tail = m;
    }

    /// Queue message `m` of class `prio` on engine queue `qi` ahead of every message of a lower
    /// class, behind those of its class and above: the engine picks its next packet by class,
    /// as Blue Gene/Q's message unit arbitrates descriptors per packet (system, high priority,
    /// normal). A message under way resumes after it.
    #[inline(never)]
    fn queue_ahead(&mut self, qi: usize, m: u32, prio: u8) {
        let (mut prev, mut cur) = (NIL, self.nics.engines[qi].head);
        while cur != NIL && self.nics.messages.get(cur).prio >= prio {
            (prev, cur) = (cur, self.nics.messages.get(cur).next);
        }
        self.nics.messages.get_mut(m).next = cur;
        if prev == NIL {
            self.nics.engines[qi].head = m;
        } else {
            self.nics.messages.get_mut(prev).next = m;
        }
    }

    /// End of the instant: deal the messages that reached NICs, by node, then posts before Get
    /// data, then by posting rank (a stable sort: a rank's messages keep their order), and let
    /// those nodes inject.
    pub(crate) fn deal_arrivals(&mut self) {
        let mut list = std::mem::take(&mut self.nics.arrivals);
        // A rank's posts keep their order (equal keys, stable sort); Get data (several may leave
        // one target in an instant) is told apart by the Get it answers.
        let key = |c: &Self, m: u32| {
            let msg = c.nics.messages.get(m);
            let get = (msg.op == GET_RESPONSE).then(|| {
                let g = c.nics.gets.get(msg.tag as u32);
                (g.initiator, g.created, g.tag, g.bytes)
            });
            (c.node(msg.src), msg.op == GET_RESPONSE, msg.src, get)
        };
        list.sort_by_key(|&m| key(self, m));
        for &m in &list {
            let node = self.node(self.nics.messages.get(m).src);
            self.deal(node, m);
            self.post_injection(node);
        }
        list.clear();
        self.nics.arrivals = list;
    }

    /// Start packets on every idle engine that has a message and credit.
    pub(crate) fn try_inject(&mut self, node: u32) {
        for e in 0..self.graph.engines {
            self.try_inject_engine(node, e);
        }
    }

    /// Start one packet on engine `e` of `node` if it is idle, has a message and has credit.
    /// Whether engine `qi` (pseudo-port `ps`) is still sending, or held by a paced flow: if so it
    /// is woken when it frees (one wake-up per busy period, and only for an engine with something
    /// to send: most packets find their engine's queue empty when they leave it).
    #[inline(always)]
    fn engine_busy(&mut self, ps: u32, qi: usize, now: u64) -> bool {
        // A paced flow holds its engine for its packets' wire size at the flow's rate.
        let busy_until = self.fabric.outs[ps as usize].busy_until.max(self.nics.engines[qi].paced_until);
        if busy_until <= now {
            return false;
        }
        if self.nics.engines[qi].wake != busy_until {
            self.nics.engines[qi].wake = busy_until;
            self.queue.schedule_on(lane::ENGINE_FREE, Time(busy_until), Ev::EngineFree(ps));
        }
        true
    }

    /// Whether the node's host link is still busy: if so the NIC is woken when it frees (at most
    /// one pending wake-up per node; an earlier one may replace it).
    #[inline(always)]
    fn host_busy(&mut self, node: u32, now: u64) -> bool {
        let blocked_until = self.nics.node[node as usize].host_free;
        if blocked_until <= now {
            return false;
        }
        let pending = self.nics.node[node as usize].wake;
        if pending == 0 || blocked_until < pending {
            self.nics.node[node as usize].wake = blocked_until;
            self.queue.schedule(Time(blocked_until), Ev::NicWake(node));
        }
        true
    }

    /// Cut `payload` bytes off message `m` at the head of engine `qi`; when that was its last
    /// packet, the message leaves the engine's queue. Returns whether it was.
    #[inline(always)]
    fn cut_packet(&mut self, m: u32, node: u32, qi: usize, payload: u32) -> bool {
        let mm = self.nics.messages.get_mut(m);
        mm.packetized += payload as u64;
        let last = mm.packetized >= mm.bytes;
        if !last && self.p.interleave > 1 {
            self.take_turns(qi, m);
        } else if last {
            self.nics.node[node as usize].queued -= 1;
            self.nics.engines[qi].queued -= 1;
            let next = mm.next;
            self.nics.engines[qi].head = next;
            if next == NIL {
                self.nics.engines[qi].tail = NIL;
            } else if let Some(n) = self.nics.messages.slots().get(next as usize) {
                // The engine's next message was queued long ago (a backlog under saturation):
                // ask for its record now, a packet time before the engine reads it.
                prefetch(n);
            }
        }
        last
    }

    /// Interleaving (`NetworkParams::interleave`): message `m`, the head of engine `qi`'s queue,
    /// has sent a packet and goes behind the next messages of its class in the window of the
    /// first `interleave`, so the engine's next packet comes from the next of them. A message
    /// routed deterministically keeps the head until it is done: a pair's such messages stay
    /// in order.
    #[inline(never)]
    fn take_turns(&mut self, qi: usize, m: u32) {
        let head = self.nics.messages.get(m);
        if head.route & fabricsim_nic::ROUTE_DETERMINISTIC != 0 {
            return;
        }
        let prio = head.prio;
        let (mut last, mut k) = (m, 1);
        loop {
            let next = self.nics.messages.get(last).next;
            if next == NIL || k == self.p.interleave || self.nics.messages.get(next).prio != prio {
                break;
            }
            (last, k) = (next, k + 1);
        }
        if last == m {
            return;
        }
        let (second, after) = (self.nics.messages.get(m).next, self.nics.messages.get(last).next);
        self.nics.engines[qi].head = second;
        self.nics.messages.get_mut(m).next = after;
        self.nics.messages.get_mut(last).next = m;
        if after == NIL {
            self.nics.engines[qi].tail = m;
        }
    }

    /// A Put's local completion: its last packet has left the engine at `at`, the end of its
    /// serialisation.
    fn note_sent(&mut self, msg: &Message, at: u64) {
        let d = fabricsim_nic::Delivered {
            src: Rank(msg.src),
            dst: Rank(msg.dst),
            bytes: msg.bytes,
            op: fabricsim_nic::Op::Put,
            tag: msg.tag,
            created: Time(msg.created),
            delivered: Time(at),
        };
        let note = self.nics.notes.insert(d);
        self.queue.schedule_on(lane::ENGINE_FREE, Time(at), Ev::Sent(note));
    }

    /// Lookahead routing (see `grant`): the first router's output and VC for a packet of `msg`
    /// entering on `vc`, when the routing gives a single hop for its header (no hint, routing
    /// selector 0); `(NIL, 0)` otherwise.
    #[inline(always)]
    fn first_hop_ahead(&self, msg: &Message, qi: usize, vc: u8, node: u32, dst: u32) -> (u32, u8) {
        if self.fabric.lookahead && msg.hint == NO_HINT && msg.route == 0 {
            let port = self.graph.attach[qi].0;
            if let Some(hop) = hop_ahead(self.fabric.router_div, &self.graph, &self.routing, port, vc, node, dst) {
                return hop;
            }
        }
        (NIL, 0)
    }

    /// The node's host link carries `payload` bytes from `now` (and its per-packet overhead).
    #[inline(always)]
    fn hold_host(&mut self, node: u32, now: u64, payload: u32) {
        let bytes = self.p.host_bandwidth.map_or(0, |bw| bw.serialization(payload as u64).ps());
        self.nics.node[node as usize].host_free = now + bytes + self.p.host_packet_overhead.ps();
    }

    /// Engine `qi` (pseudo-port `ps`) sends a packet of `wire` bytes from `start` to `end`; a
    /// paced flow (`pace`, see `Message::pace`) holds it longer. Returns when it is free again.
    #[inline(always)]
    fn hold_engine(&mut self, ps: u32, qi: usize, start: u64, end: u64, wire: u32, pace: u32) -> u64 {
        self.fabric.outs[ps as usize].busy_until = end;
        if pace == 0 {
            return end;
        }
        self.nics.engines[qi].paced_until = start + (wire as u64 * pace as u64).div_ceil(1024);
        end.max(self.nics.engines[qi].paced_until)
    }

    /// The payload and wire size of the next packet cut from `msg` (a class-VC message's packets
    /// may be smaller: its buffers are).
    #[inline(always)]
    fn next_packet_size(&self, msg: &Message) -> (u32, u32) {
        let cap = if msg.route & fabricsim_routing::classes::CLASS_VC != 0 { self.fabric.class_payload } else { self.p.max_payload() };
        let payload = (msg.bytes - msg.packetized).min(cap as u64) as u32;
        (payload, self.p.format.wire(payload))
    }

    /// The router input VC an engine's packet enters (see `injection_vc`); when none has room
    /// the engine waits for a credit return to any of them, which will call again.
    #[inline(always)]
    fn injection_vc_or_wait(&mut self, ps: u32, wire: u32, key: u64, route: u8) -> Option<u8> {
        let vc = self.injection_vc(ps, wire, key, route);
        if vc.is_none() {
            for vc in self.routing.injection_vcs(route) {
                self.wait_for_credit(ps, vc);
            }
        }
        vc
    }

    fn try_inject_engine(&mut self, node: u32, e: u32) {
        let now = self.queue.now().ps();
        let e_count = self.graph.engines;
        let qi = (node * e_count + e) as usize;
        let m = self.nics.engines[qi].head;
        if m == NIL {
            return;
        }
        let ps = self.total_ports() + node * e_count + e;
        let msg = *self.nics.messages.get(m);
        let dst = self.node(msg.dst);
        let (payload, wire) = self.next_packet_size(&msg);
        if self.engine_busy(ps, qi, now) {
            return;
        }
        // The router input VC the packet enters, chosen like any hop (see `injection_vc`).
        let seq = self.nics.node[node as usize].next_seq;
        let Some(vc) = self.injection_vc_or_wait(ps, wire, (node as u64) << 32 | seq as u64, msg.route) else {
            return;
        };
        let vc = vc as u32;
        let q = InputVcId(self.graph.attach[qi].0 * self.fabric.vcs + vc);
        // Shared node resources: the host link, and main memory for uncached data.
        let host_limited = self.p.host_bandwidth.is_some() || self.p.host_packet_overhead.ps() > 0;
        if host_limited && self.host_busy(node, now) {
            return;
        }
        let last = self.cut_packet(m, node, qi, payload);
        if host_limited {
            self.hold_host(node, now, payload);
        }
        // Uncached data must first be read from memory: the packet starts once its data is read.
        let start = if msg.uncached { self.reserve_memory(node, payload, false) } else { now };
        let ser = self.fabric.timing.serialization(channel::ENGINE, wire);
        if last && self.nics.notify_sent && msg.op == PUT {
            self.note_sent(&msg, start + ser);
        }
        // A class-route chunk leaves the router's collective logic: no NIC in the way.
        let lat = if msg.op == CLASS_CHUNK { 0 } else { self.fabric.timing.latency(channel::ENGINE) };
        self.nics.node[node as usize].next_seq = seq.wrapping_add(1);
        // Lookahead routing (see `grant`): the first router's output, when the routing gives a
        // single hop for its header (no hint, routing selector 0).
        let (out, out_vc) = self.first_hop_ahead(&msg, qi, vc as u8, node, dst);
        let ready = start + lat + self.p.terminal_router_delay.ps();
        // Behind a queued packet the head-ready event would find nothing to do: the release of
        // the packet ahead will see to this one (see `Core::grant`).
        // The queue it joins: `q`, or the one of `q`'s shared buffer with the fewest packets.
        let join = if self.fabric.queue_followers != 0 { pool_queue(&self.fabric.vcq, self.packets.slots(), q) } else { q };
        let first = self.fabric.vcq[join.index()].tail == PacketId::NIL;
        let pkt = self.packets.insert(Packet {
            seq,
            src: node,
            msg: m,
            dst,
            wire_bytes: wire,
            payload,
            ready_at: ready,
            armed: first,
            tail: start + lat + ser,
            next: PacketId::NIL,
            q: join,
            out,
            out_vc,
            prio: msg.prio,
            hint: msg.hint,
            uncached: msg.uncached,
            zone: msg.route,
            escaped: false,
            agent: msg.op == CLASS_CHUNK,
        });
        self.push_q(join, pkt);
        self.obs.on_inject(Time(start), NodeId(node), wire);
        self.fabric.vcq[q.index()].credit.free -= self.charge(vc as u8, wire);
        let free_at = self.hold_engine(ps, qi, start, start + ser, wire, msg.pace);
        self.meter.injected(ready.max(start + ser));
        if first {
            self.queue.schedule_on(lane::INJECT_READY, Time(ready), Ev::Ready(pkt));
        }
        if self.nics.engines[qi].head != NIL {
            self.nics.engines[qi].wake = free_at;
            self.queue.schedule_on(lane::ENGINE_FREE, Time(free_at), Ev::EngineFree(ps));
        }
    }
}

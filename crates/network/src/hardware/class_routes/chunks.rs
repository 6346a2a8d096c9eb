//! A collective's chunks through the class route: each member's contribution streamed in,
//! combined going up, turned round at the root, passed on going down, and each member told
//! when its part is in.

use super::{ClassRoutes, Entry, RoundInfo, Step, DOWN_CLASS, UP_CLASS};
use crate::hardware::{Context, HwMessage};
use fabricsim_nic::{HwCollective, HwKind, HwOp, Rank};

impl ClassRoutes {
    /// Payload of a chunk: one packet's (on the class VCs, where the routers have them).
    fn class_chunk(cx: &dyn Context) -> u64 {
        cx.class_payload().min(cx.params().max_payload()).max(1) as u64
    }

    /// Member `rank` starts collective `c`: its contribution streams into its node's logic.
    pub(super) fn class_start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        let chunk_cap = Self::class_chunk(cx);
        let ser = cx.params().terminal_bandwidth.serialization(cx.params().format.wire(chunk_cap as u32) as u64).ps();
        // The message unit handles the collective's descriptor and reads the data first.
        let now = cx.now() + cx.params().tx_overhead.ps();
        let cr = &mut *self;
        let ri = *cr.index.get(&c.group).ok_or_else(|| format!("group {} was not made (collective_group)", c.group))?;
        let r = &mut cr.routes[ri as usize];
        let i = *r.node_of.get(&rank.0).ok_or_else(|| format!("rank {} is not a member of group {}", rank.0, c.group))?;
        let round = r.started[i as usize];
        let op = if c.kind == HwKind::Barrier { HwOp::None } else { c.op };
        let info = RoundInfo { kind: c.kind, op, bytes: c.bytes, chunks: c.bytes.div_ceil(chunk_cap).max(1) as u32 };
        match r.rounds.get(&round) {
            Some(&other) if other != info => {
                return Err(format!(
                    "rank {} starts {:?} of {} bytes on group {}, which its other members run as {:?} of {} bytes",
                    rank.0, c.kind, c.bytes, c.group, other.kind, other.bytes
                ))
            }
            _ => {
                r.rounds.insert(round, info);
            }
        }
        r.started[i as usize] += 1;
        r.tags[i as usize].push_back(c.tag);
        if r.early[i as usize] > 0 {
            r.early[i as usize] -= 1;
            let e = cr.events.insert(Entry { route: ri, round, node: i, chunk: 0, step: Step::Done, value: [0; 8] });
            cx.schedule(now, e);
            return Ok(());
        }
        if c.kind == HwKind::Broadcast {
            // Only the root's data moves: it starts down the tree.
            if i as usize == r.tree.root {
                for k in 0..info.chunks {
                    let e = cr.events.insert(Entry { route: ri, round, node: i, chunk: k, step: Step::Send { up: false }, value: c.value });
                    cx.schedule(now + k as u64 * ser, e);
                }
            }
            return Ok(());
        }
        // The local contribution's chunks enter the logic at the engine's rate, each scheduling
        // the next.
        cr.chunk_time = ser;
        let e = cr.events.insert(Entry { route: ri, round, node: i, chunk: 0, step: Step::Local, value: c.value });
        cx.schedule(now, e);
        Ok(())
    }

    /// An `Ev::Class` event.
    #[cold]
    #[inline(never)]
    pub(super) fn class_event(&mut self, cx: &mut dyn Context, e: u32) {
        let now = cx.now();
        let cr = &mut *self;
        let x = *cr.events.get(e);
        cr.events.remove(e);
        let r = &mut cr.routes[x.route as usize];
        if let Step::Done = x.step {
            let i = x.node as usize;
            match r.tags[i].pop_front() {
                Some(tag) => {
                    cr.done.push((r.ranks[i], tag));
                    cx.phase_due();
                }
                // A broadcast's data came before the member started: it ends when it starts.
                None => r.early[i] += 1,
            }
            return;
        }
        let info = r.rounds[&x.round];
        let float = info.op.is_float();
        match x.step {
            Step::Done => unreachable!(),
            Step::Local => {
                self.local_chunk(cx, x, info);
            }
            Step::LocalIn | Step::Arrive { up: true, .. } => {
                self.combine_up(cx, x, info);
            }
            Step::Arrive { up: false, .. } => {
                let delay = cr.p.logic_delay(info.kind, float, false).ps();
                let ne = cr.events.insert(Entry { step: Step::Send { up: false }, ..x });
                cx.schedule(now + delay, ne);
            }
            Step::Send { up } => {
                self.pass_on(cx, x, info, up);
            }
        }
    }

    /// Chunk `x` of a node's own contribution starts into its logic (at the engine's rate,
    /// each chunk scheduling the next): it counts as an input once the rest of it comes in
    /// no later than a link would stream it.
    fn local_chunk(&mut self, cx: &mut dyn Context, x: Entry, info: RoundInfo) {
        let now = cx.now();
        if x.chunk + 1 < info.chunks {
            let next = self.events.insert(Entry { chunk: x.chunk + 1, ..x });
            cx.schedule(now + self.chunk_time, next);
        }
        let bytes = Self::chunk_bytes(cx, info, x.chunk);
        let wire = cx.params().format.wire(bytes as u32) as u64;
        let (engine, link) = (cx.params().terminal_bandwidth.serialization(wire).ps(), cx.params().link_bandwidth.serialization(wire).ps());
        let e = self.events.insert(Entry { step: Step::LocalIn, ..x });
        cx.schedule(now + engine.saturating_sub(link), e);
    }

    /// Payload bytes of chunk `chunk` of a round.
    fn chunk_bytes(cx: &dyn Context, info: RoundInfo, chunk: u32) -> u64 {
        let cap = Self::class_chunk(cx);
        info.bytes.saturating_sub(chunk as u64 * cap).min(cap)
    }

    /// Time for chunk `chunk` of a round to stream over a link: its tail comes that long
    /// after its head.
    fn chunk_tail(cx: &dyn Context, info: RoundInfo, chunk: u32) -> u64 {
        let wire = cx.params().format.wire(Self::chunk_bytes(cx, info, chunk) as u32) as u64;
        cx.params().link_bandwidth.serialization(wire).ps()
    }

    /// A node's own chunk, or a child's chunk going up, enters its logic: once every input of
    /// the chunk is in, they combine (in a fixed order of the inputs) and the result goes on up.
    fn combine_up(&mut self, cx: &mut dyn Context, x: Entry, info: RoundInfo) {
        let (now, float) = (cx.now(), info.op.is_float());
        let cr = &mut *self;
        let r = &mut cr.routes[x.route as usize];
        let input = match x.step {
            Step::Arrive { from, .. } => 1 + r.tree.children[x.node as usize].iter().position(|&c| c as u32 == from).unwrap() as u32,
            _ => 0,
        };
        let need = r.tree.children[x.node as usize].len() as u32 + 1;
        let slot = r.pending.entry((x.round, x.node, x.chunk)).or_default();
        slot.count += 1;
        if x.chunk == 0 && info.op != HwOp::None {
            slot.values.push((input, x.value));
        }
        if slot.count < need {
            return;
        }
        let mut values = r.pending.remove(&(x.round, x.node, x.chunk)).unwrap().values;
        // Combine in a fixed order of the inputs, whatever order they came in.
        values.sort_unstable_by_key(|v| v.0);
        let mut value = values.first().map_or([0; 8], |v| v.1);
        for v in values.iter().skip(1) {
            info.op.combine(&mut value, &v.1);
        }
        // Combining costs its delay where signals come in over links (a leaf only passes
        // its own data on): once per hop.
        let delay = if need == 1 { 0 } else { cr.p.logic_delay(info.kind, float, true).ps() };
        let ne = cr.events.insert(Entry { step: Step::Send { up: true }, value, ..x });
        cx.schedule(now + delay, ne);
    }

    /// A node passes chunk `x` on: up to its parent, or (the root, or going down) to its
    /// children and its own node.
    fn pass_on(&mut self, cx: &mut dyn Context, x: Entry, info: RoundInfo, up: bool) {
        let cr = &mut *self;
        let r = &mut cr.routes[x.route as usize];
        let i = x.node as usize;
        let last = x.chunk + 1 == info.chunks;
        if up && i != r.tree.root {
            let p = r.tree.parent[i];
            cr.sends.push((x, p as u32, true));
            cx.phase_due();
            if last && info.kind == HwKind::Reduce {
                // Its part has gone up once the last chunk's tail has left.
                let tail = Self::chunk_tail(cx, info, x.chunk);
                self.class_done(cx, x.route, x.node, tail);
            }
            return;
        }
        // The values travel in the first chunk: the result is its.
        if x.chunk == 0 {
            r.results[i] = x.value;
        }
        if up && info.kind == HwKind::Reduce {
            // The root has the result once the last chunk's tail is out of the logic.
            if last {
                let tail = Self::chunk_tail(cx, info, x.chunk);
                self.class_done(cx, x.route, x.node, tail);
            }
            return;
        }
        // Going down (or turning at the root): to each child, and to the own node.
        for c in 0..r.tree.children[i].len() {
            let to = cr.routes[x.route as usize].tree.children[i][c] as u32;
            cr.sends.push((x, to, false));
        }
        cx.phase_due();
        let r = &mut cr.routes[x.route as usize];
        r.received[i] += 1;
        if r.received[i] == info.chunks {
            r.received[i] = 0;
            // The logic passes each chunk on as its head comes (cut-through); the member has
            // the data when the last chunk's tail is in.
            let tail = Self::chunk_tail(cx, info, x.chunk);
            self.class_done(cx, x.route, x.node, tail);
        }
    }

    /// End of an instant: the chunks that left their nodes' logic this instant go to the NICs,
    /// in an order that depends on them only (route, round, chunk, node, destination).
    pub(super) fn flush_class_sends(&mut self, cx: &mut dyn Context) {
        let mut sends = std::mem::take(&mut self.sends);
        sends.sort_unstable_by_key(|(x, to, up)| (x.route, x.round, x.chunk, x.node, *to, *up));
        for &(x, to, up) in &sends {
            self.class_send(cx, x, to, up);
        }
        sends.clear();
        self.sends = sends;
    }

    /// Send chunk `x` from its node to tree node `to` (up: to the parent).
    fn class_send(&mut self, cx: &mut dyn Context, x: Entry, to: u32, up: bool) {
        let cr = &mut *self;
        let r = &cr.routes[x.route as usize];
        let info = r.rounds[&x.round];
        let bytes = Self::chunk_bytes(cx, info, x.chunk);
        let (src, dst) = (r.ranks[x.node as usize], r.ranks[to as usize]);
        let engine = r.engine_to[x.node as usize][&(to as usize)];
        let sig = cr.events.insert(Entry { node: to, step: Step::Arrive { up, from: x.node }, ..x });
        let class = if up { UP_CLASS } else { DOWN_CLASS };
        cx.send(HwMessage {
            src,
            dst,
            bytes,
            tag: sig as u64,
            hint: crate::packet::NO_HINT,
            class,
            op: crate::packet::CLASS_CHUNK,
            engine,
            route: fabricsim_nic::ROUTE_DETERMINISTIC,
        });
    }

    /// Tree node `node` of route `route` is done with its oldest collective, once its data is
    /// in (`tail` from now) and its message unit has finished with it (the receive overhead).
    fn class_done(&mut self, cx: &mut dyn Context, route: u32, node: u32, tail: u64) {
        let at = cx.now() + tail + cx.params().rx_overhead.ps();
        let cr = &mut *self;
        let e = cr.events.insert(Entry { route, round: 0, node, chunk: 0, step: Step::Done, value: [0; 8] });
        cx.schedule(at, e);
    }
}

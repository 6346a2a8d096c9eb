//! The barrier protocol's steps at the end of an instant: packets taken in, arrives acked and
//! passed up, dones passed down, resends and urges on their timers, and the packets sent.

use super::{ElemState, Entry, Kind, Send, Step, SwitchBarrier, BARRIER_CLASS};
use crate::hardware::agent::{AgentSend, SINK_HINT};
use crate::hardware::switch_tree::At;
use crate::hardware::{Context, HwMessage};
use crate::packet::SWITCH_BARRIER;

impl SwitchBarrier {
    /// End of an instant: the steps due, in their order (see [`Entry::order`]), then the packets
    /// they send.
    pub(super) fn barrier_phase(&mut self, cx: &mut dyn Context) {
        let mut due = std::mem::take(&mut self.due);
        due.sort_unstable_by_key(Entry::order);
        for &x in &due {
            self.barrier_step(cx, x);
        }
        due.clear();
        if self.due.is_empty() {
            self.due = due;
        }
        self.flush_barrier_sends(cx);
    }

    fn barrier_step(&mut self, cx: &mut dyn Context, x: Entry) {
        let now = cx.now();
        let unit = &mut *self;
        let (gi, ei) = (x.group as usize, x.elem as usize);
        match x.step {
            Step::Packet { kind, from, corrupt } => {
                if corrupt {
                    unit.counts.lost += 1;
                    return;
                }
                let delay = match unit.groups[gi].tree.elements[ei].at {
                    At::Switch(_) => unit.p.delay.ps(),
                    At::Node(_) => 0,
                };
                if delay == 0 {
                    return self.barrier_process(cx, x, kind, from);
                }
                let ne = unit.events.insert(Entry { step: Step::Process { kind, from }, ..x });
                cx.schedule(now + delay, ne);
            }
            Step::Process { kind, from } => self.barrier_process(cx, x, kind, from),
            Step::Start => {
                let g = &mut unit.groups[gi];
                let st = &mut g.state[ei];
                if x.round != st.round {
                    // A start of a later round (the node's other members are still in this one).
                    debug_assert!(x.round > st.round, "a start of a round already over");
                    st.ahead.push(x.round);
                    return;
                }
                st.local += 1;
                if st.local == g.ranks[ei].len() as u32 {
                    st.got |= 1;
                    self.barrier_check(cx, x.group, x.elem);
                }
            }
            Step::Retry { attempt } | Step::Urge { attempt } => {
                // A timer of this round's arrive: resend it if its ack has not come, urge the
                // parent if the done has not; and set the timer again.
                let retry = matches!(x.step, Step::Retry { .. });
                let st = &mut unit.groups[gi].state[ei];
                let due = st.round == x.round && st.sent && if retry { !st.acked && st.attempts == attempt + 1 } else { st.urges == attempt };
                if !due {
                    return;
                }
                let (kind, after, next) = if retry {
                    (st.attempts, unit.counts.resent) = (st.attempts + 1, unit.counts.resent + 1);
                    (Kind::Arrive, unit.p.retry_timeout, Step::Retry { attempt: attempt + 1 })
                } else {
                    (st.urges, unit.counts.urges) = (st.urges + 1, unit.counts.urges + 1);
                    (Kind::Urge, unit.p.urge_timeout, Step::Urge { attempt: attempt + 1 })
                };
                let parent = unit.groups[gi].tree.elements[ei].parent as u32;
                unit.sends.push(Send { group: x.group, round: x.round, from: x.elem, to: parent, kind });
                let ne = unit.events.insert(Entry { step: next, ..x });
                cx.schedule(now + after.ps(), ne);
                cx.phase_due();
            }
            Step::Finish { rank } => {
                let g = &mut unit.groups[gi];
                let tag = g.tags.get_mut(&rank).and_then(|t| t.pop_front()).expect("a barrier finished that its member did not start");
                unit.done.push((rank, tag));
                cx.phase_due();
            }
        }
    }

    /// Element `x.elem`'s logic takes in a `kind` packet of round `x.round` from element `from`.
    fn barrier_process(&mut self, cx: &mut dyn Context, x: Entry, kind: Kind, from: u32) {
        let unit = &mut *self;
        let g = &mut unit.groups[x.group as usize];
        let ei = x.elem as usize;
        let reply = |to, kind| Send { group: x.group, round: x.round, from: x.elem, to, kind };
        match kind {
            Kind::Arrive => {
                // Acked whether new or repeated (its first ack may have been lost).
                unit.sends.push(reply(from, Kind::Ack));
                cx.phase_due();
                let st = &mut g.state[ei];
                if x.round == st.round {
                    let child = g.tree.elements[ei].children.iter().position(|&(c, _)| c as u32 == from).expect("arrive from a non-child");
                    st.got |= 1u128 << child;
                    self.barrier_check(cx, x.group, x.elem);
                }
            }
            Kind::Ack => {
                let st = &mut g.state[ei];
                if x.round == st.round && st.sent {
                    st.acked = true;
                }
            }
            Kind::Done => {
                if x.round == g.state[ei].round {
                    self.barrier_complete(cx, x.group, x.elem);
                }
            }
            Kind::Urge => {
                // Answered only once the round's done has gone down from here.
                if x.round < g.state[ei].round {
                    unit.sends.push(reply(from, Kind::Done));
                    cx.phase_due();
                }
            }
        }
    }

    /// Element `elem` has what it waits for, if every input is in: the root completes the round,
    /// any other element sends its arrive up (and sets its timers).
    fn barrier_check(&mut self, cx: &mut dyn Context, group: u32, elem: u32) {
        let now = cx.now();
        let unit = &mut *self;
        let g = &mut unit.groups[group as usize];
        let e = &g.tree.elements[elem as usize];
        let need = if e.children.is_empty() { 1 } else { u128::MAX >> (128 - e.children.len()) };
        let st = &mut g.state[elem as usize];
        if st.got & need != need || st.sent {
            return;
        }
        if elem as usize == g.tree.root {
            return self.barrier_complete(cx, group, elem);
        }
        (st.sent, st.attempts) = (true, 1);
        let round = st.round;
        unit.sends.push(Send { group, round, from: elem, to: e.parent as u32, kind: Kind::Arrive });
        cx.phase_due();
        for (step, after) in [(Step::Retry { attempt: 0 }, unit.p.retry_timeout), (Step::Urge { attempt: 0 }, unit.p.urge_timeout)] {
            let ne = unit.events.insert(Entry { group, elem, round, step });
            cx.schedule(now + after.ps(), ne);
        }
    }

    /// Element `elem` completes its round: done goes to its children; a member's NIC tells its
    /// member once it has finished (the receive overhead).
    fn barrier_complete(&mut self, cx: &mut dyn Context, group: u32, elem: u32) {
        let at = cx.now() + cx.params().rx_overhead.ps();
        let unit = &mut *self;
        let g = &mut unit.groups[group as usize];
        let st = &mut g.state[elem as usize];
        let round = st.round;
        // Starts already made for the next round count in it.
        let mut ahead = std::mem::take(&mut st.ahead);
        let local = ahead.iter().filter(|&&r| r == round + 1).count() as u32;
        ahead.retain(|&r| r != round + 1);
        let all = local > 0 && local == g.ranks[elem as usize].len() as u32;
        *st = ElemState { round: round + 1, local, ahead, got: u128::from(all), ..Default::default() };
        for &(c, _) in &g.tree.elements[elem as usize].children {
            unit.sends.push(Send { group, round, from: elem, to: c as u32, kind: Kind::Done });
        }
        cx.phase_due();
        if let At::Node(_) = g.tree.elements[elem as usize].at {
            for &rank in &g.ranks[elem as usize] {
                let e = unit.events.insert(Entry { group, elem, round, step: Step::Finish { rank } });
                cx.schedule(at, e);
            }
            if all {
                self.barrier_check(cx, group, elem);
            }
        }
    }

    /// The barrier packets that left their elements this instant go out, in an order that
    /// depends on them only.
    fn flush_barrier_sends(&mut self, cx: &mut dyn Context) {
        let mut sends = std::mem::take(&mut self.sends);
        sends.sort_unstable();
        for &s in &sends {
            self.barrier_send(cx, s);
        }
        sends.clear();
        self.sends = sends;
    }

    fn barrier_send(&mut self, cx: &mut dyn Context, s: Send) {
        let deterministic = fabricsim_nic::ROUTE_DETERMINISTIC;
        // The class VC the NICs put the barrier class on.
        let zone = cx.class_route(BARRIER_CLASS, deterministic);
        let unit = &mut *self;
        unit.counts.packets += 1;
        let st = &mut unit.groups[s.group as usize].state[s.from as usize];
        st.packets += 1;
        let n = st.packets as u64;
        let p = &unit.p;
        let key = (s.group as u64) << 40 ^ (s.round as u64) << 24 ^ (s.from as u64) << 12 ^ s.to as u64 ^ (s.kind as u64) << 62;
        let corrupt =
            p.drop > 0.0 && (fabricsim_core::rng::mix(unit.seed ^ fabricsim_core::rng::mix(key ^ n << 20)) as f64) < p.drop * u64::MAX as f64;
        let payload = p.payload.0 as u32;
        let g = &unit.groups[s.group as usize];
        let (from, to) = (&g.tree.elements[s.from as usize], &g.tree.elements[s.to as usize]);
        let dst = match to.at {
            At::Node(v) => v.0,
            At::Switch(_) => g.anchor,
        };
        let out = if from.parent == s.to as usize { from.up_port } else { from.children.iter().find(|&&(c, _)| c as u32 == s.to).unwrap().1 };
        let (at, rank, anchor) = (from.at, g.ranks[s.from as usize].first().copied().unwrap_or(0), g.anchor);
        let tag = unit.events.insert(Entry { group: s.group, elem: s.to, round: s.round, step: Step::Packet { kind: s.kind, from: s.from, corrupt } })
            as u64;
        match at {
            // The NIC's barrier logic sends on the plane's engine.
            At::Node(_) => {
                let engine = self.p.rail as u8;
                let (hint, class, op, route) = (SINK_HINT, BARRIER_CLASS, SWITCH_BARRIER, deterministic);
                cx.send(HwMessage { src: rank, dst: rank, bytes: payload as u64, tag, hint, class, op, engine, route });
            }
            At::Switch(_) => {
                let send = AgentSend { tag, op: SWITCH_BARRIER, src: anchor, dst, payload, prio: BARRIER_CLASS, zone };
                cx.agent_send(out, send);
            }
        }
    }
}

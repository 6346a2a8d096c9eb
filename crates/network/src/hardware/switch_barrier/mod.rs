//! Dawning 5000's switch barrier: arrivals reduced up a tree of switches, completion sent down.
//!
//! A group ([`fabricsim_nic::HwGroup`]) gets a [`SwitchTree`] over its members' nodes on one plane
//! of the fat-tree, rooted at a switch (the path is twice the leaf-to-root distance, not the
//! leaf-to-leaf distance plus that, as a tree rooted at a node would need). When every member on
//! a node has started a barrier, the node's NIC barrier logic sends an *arrive* packet to its
//! leaf switch. A
//! switch's barrier logic (an agent, see `crate::hardware::agent`) answers each arrive with an *ack*,
//! and once every child has arrived sends one arrive to its parent; the root, once all its
//! children have arrived, sends *done* to each child, and each switch passes done on to its
//! children, down to the members' NICs. Every packet is a real packet on a real link: it waits
//! for the output behind the transmission in progress, outranks every other packet there, and
//! travels on the dedicated class VC when the switches have one (`router.class_vcs`), or else
//! shares the unicast VCs (and their queues).
//!
//! Reliability, as the paper argues for each direction:
//! * up, request-response: an element that sent an arrive resends it every `retry_timeout`
//!   until its ack comes (a switch acks a repeated arrive again, and counts it once);
//! * down, timeout-urge: an element that sent an arrive and has had no done after
//!   `urge_timeout` sends an *urge* to its parent, and again every `urge_timeout`; a parent
//!   that has passed that round's done on answers an urge with the done again (it keeps no
//!   other state for the distribution).
//!
//! Packets are lost with probability `drop` (a link error that the CRC catches: the packet
//! takes its link, then the receiver throws it away), drawn from the run's seed and the
//! packet's identity, so a run is reproducible whatever order its events tie in.

use super::{Context, HwMessage, Unit};
use crate::hardware::agent::{AgentSend, SINK_HINT};
pub use crate::hardware::switch_tree::{At, SwitchTree};
use crate::packet::SWITCH_BARRIER;
use fabricsim_core::{Bytes, Time};
use fabricsim_nic::{HwCollective, HwGroup, HwKind, Rank};
use std::collections::{HashMap, VecDeque};

/// Dawning's barrier logic in the switches and NICs (`[hardware.barrier]` of `type =
/// "dawning_switch"` in a scenario). The paper gives no timing for the logic or the timeouts:
/// the defaults are assumptions (no logic time beyond the switch's pipeline; timeouts that a
/// loaded Dawning network's packets stay within).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchBarrierParams {
    /// The plane the barrier trees use.
    pub rail: u32,
    /// A switch's barrier logic time for a packet, after the switch's pipeline.
    pub delay: Time,
    /// Payload of a barrier packet: 1 to 1024 bytes. Default 8B.
    pub payload: Bytes,
    /// Time after which an unacknowledged arrive is sent again.
    pub retry_timeout: Time,
    /// Time after which an element still waiting for done urges its parent (and again).
    pub urge_timeout: Time,
    /// Probability that a barrier packet is lost on its link (to study the recovery), below 1.
    pub drop: f64,
}

impl Default for SwitchBarrierParams {
    fn default() -> Self {
        SwitchBarrierParams {
            rail: 0,
            delay: Time::ZERO,
            payload: Bytes(8),
            retry_timeout: Time::from_us(10),
            urge_timeout: Time::from_us(40),
            drop: 0.0,
        }
    }
}

/// Priority class of barrier packets: above every other (the barrier VC's output priority).
pub const BARRIER_CLASS: u8 = 5;

/// What a barrier packet says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Arrive,
    Ack,
    Done,
    Urge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// A packet from element `from` reached this element (lost: `corrupt`).
    Packet {
        kind: Kind,
        from: u32,
        corrupt: bool,
    },
    /// The element's logic has taken it in.
    Process {
        kind: Kind,
        from: u32,
    },
    /// Timers of an arrive sent (its `attempt`-th resend, `attempt`-th urge).
    Retry {
        attempt: u32,
    },
    Urge {
        attempt: u32,
    },
    /// A member's start (of the entry's round, its own count) reaches its NIC's barrier logic.
    Start,
    /// The NIC has finished: member `rank` hears the barrier is over.
    Finish {
        rank: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    group: u32,
    elem: u32,
    round: u32,
    step: Step,
}

impl Entry {
    /// The order an instant's steps are taken in: what packets say (arrivals, dones) before
    /// what timers decide (a done that comes as an urge timer expires cancels the urge), then
    /// by group, element and round.
    fn order(&self) -> (bool, Entry) {
        (matches!(self.step, Step::Retry { .. } | Step::Urge { .. }), *self)
    }
}

/// One element's state in its current round.
#[derive(Debug, Clone, Default)]
struct ElemState {
    /// Rounds it has completed (its current round).
    round: u32,
    /// Inputs arrived: bit `i` for child `i`, bit 0 for the node's members all started (a
    /// switch has fewer than 128 ports).
    got: u128,
    /// Its arrive has gone up; its ack has come; transmissions and urges so far.
    sent: bool,
    acked: bool,
    attempts: u32,
    urges: u32,
    /// Packets it has sent this round (their losses are drawn from it).
    packets: u32,
    /// A node's members that started this round, and the rounds of starts made for later ones.
    local: u32,
    ahead: Vec<u32>,
}

struct Group {
    tree: SwitchTree,
    /// Per element: the member ranks on a node element (none on switches).
    ranks: Vec<Vec<u32>>,
    elem_of: HashMap<u32, u32>,
    state: Vec<ElemState>,
    /// Per member: barriers started, and the tags of those not over yet (oldest first).
    started: HashMap<u32, u32>,
    tags: HashMap<u32, VecDeque<u64>>,
    /// A member node (packets are numbered and counted at a node).
    anchor: u32,
}

/// Barrier packets that left their element this instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Send {
    group: u32,
    round: u32,
    from: u32,
    to: u32,
    kind: Kind,
}

/// Counts of what the barrier hardware did (for tests and reports).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BarrierCounts {
    /// Barrier packets sent (arrives, acks, dones and urges, resends included).
    pub packets: u64,
    /// Barrier packets lost on their link (see [`SwitchBarrierParams::drop`]).
    pub lost: u64,
    /// Arrives sent again for want of an ack.
    pub resent: u64,
    /// Urges sent.
    pub urges: u64,
}

/// The barrier logic of every switch and NIC, and the groups' trees.
pub(crate) struct SwitchBarrier {
    p: SwitchBarrierParams,
    /// Seed of the losses.
    seed: u64,
    tree: fabricsim_topology::FatTree,
    groups: Vec<Group>,
    index: HashMap<u32, u32>,
    events: crate::packet::Slab<Entry>,
    sends: Vec<Send>,
    /// Steps due this instant, taken in the phase (see [`Entry::order`]).
    due: Vec<Entry>,
    pub(crate) counts: BarrierCounts,
    /// Members whose barrier ended this instant: (rank, tag).
    pub(crate) done: Vec<(u32, u64)>,
}

impl SwitchBarrier {
    /// The logic of fat-tree `tree`'s switches, its losses drawn from `seed`.
    pub(crate) fn new(p: SwitchBarrierParams, tree: fabricsim_topology::FatTree, seed: u64) -> Result<Self, String> {
        if p.rail >= tree.rails() {
            return Err(format!("rail {} of a {}-rail network", p.rail, tree.rails()));
        }
        Ok(SwitchBarrier {
            p,
            seed,
            tree,
            groups: Vec::new(),
            index: HashMap::new(),
            events: Default::default(),
            sends: Vec::new(),
            due: Vec::new(),
            counts: BarrierCounts::default(),
            done: Vec::new(),
        })
    }

    /// Whether steps wait to be taken or packets to be sent at the end of the instant.
    pub(crate) fn has_work(&self) -> bool {
        !self.sends.is_empty() || !self.due.is_empty()
    }
}

impl SwitchBarrier {
    /// Make group `g`'s barrier tree (its `root`, a rank, does not apply: the root is a switch).
    fn make_group(&mut self, cx: &mut dyn Context, g: &HwGroup, of_rank: &[u32]) -> Result<(), String> {
        // The NIC's barrier logic gathers its node's members first: the tree is over nodes.
        let mut nodes = of_rank.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        let (unit, graph) = (self, cx.graph());
        if unit.index.contains_key(&g.id) {
            return Err(format!("group {} exists already", g.id));
        }
        let tree = SwitchTree::build(&unit.tree, graph, unit.p.rail, &nodes, g.id).map_err(|e| format!("group {}: {e}", g.id))?;
        let mut ranks = vec![Vec::new(); tree.elements.len()];
        let mut elem_of = HashMap::new();
        let elem_on: HashMap<u32, usize> =
            tree.elements.iter().enumerate().filter_map(|(i, e)| if let At::Node(n) = e.at { Some((n.0, i)) } else { None }).collect();
        for (r, n) in g.members.iter().zip(of_rank) {
            let i = elem_on[n];
            ranks[i].push(r.0);
            elem_of.insert(r.0, i as u32);
        }
        let n = tree.elements.len();
        unit.index.insert(g.id, unit.groups.len() as u32);
        let group =
            Group { tree, ranks, elem_of, state: vec![ElemState::default(); n], started: HashMap::new(), tags: HashMap::new(), anchor: nodes[0] };
        unit.groups.push(group);
        Ok(())
    }

    /// The barrier tree of group `id` (for reports and tests).
    pub(crate) fn tree(&self, id: u32) -> Option<&SwitchTree> {
        let u = self;
        Some(&u.groups[*u.index.get(&id)? as usize].tree)
    }

    /// Member `rank` starts barrier `c`: its NIC's barrier logic hears of it once the NIC has
    /// handled the request (the send overhead).
    fn start_member(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        let at = cx.now() + cx.params().tx_overhead.ps();
        let unit = self;
        if c.kind != HwKind::Barrier {
            return Err(format!("the switch barrier does barriers, not a {:?}", c.kind));
        }
        let gi = *unit.index.get(&c.group).ok_or_else(|| format!("group {} was not made (collective_group)", c.group))?;
        let g = &mut unit.groups[gi as usize];
        let elem = *g.elem_of.get(&rank.0).ok_or_else(|| format!("rank {} is not a member of group {}", rank.0, c.group))?;
        g.tags.entry(rank.0).or_default().push_back(c.tag);
        let k = g.started.entry(rank.0).or_default();
        let round = *k;
        *k += 1;
        let e = unit.events.insert(Entry { group: gi, elem, round, step: Step::Start });
        cx.schedule(at, e);
        Ok(())
    }

    /// An `Ev::SwitchBarrier` event, or a barrier packet delivered to its element (its message's
    /// tag): the entry's step is taken in the phase, with the instant's others.
    fn event(&mut self, cx: &mut dyn Context, e: u32) {
        let unit = self;
        let x = *unit.events.get(e);
        unit.events.remove(e);
        unit.due.push(x);
        cx.phase_due();
    }

    /// End of an instant: the steps due, in their order (see [`Entry::order`]), then the packets
    /// they send.
    fn barrier_phase(&mut self, cx: &mut dyn Context) {
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

impl Unit for SwitchBarrier {
    fn runs(&self, kind: HwKind) -> bool {
        kind == HwKind::Barrier
    }
    fn group(&mut self, cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        self.make_group(cx, g, nodes)
    }
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.start_member(cx, rank, c)
    }
    fn on_event(&mut self, cx: &mut dyn Context, e: u32) {
        self.event(cx, e);
    }
    /// A barrier packet delivered to its element (its tag): its step.
    fn on_message(&mut self, cx: &mut dyn Context, tag: u64, _dst: u32, _bytes: u64) {
        self.event(cx, tag as u32);
    }
    fn phase_due(&self) -> bool {
        self.has_work()
    }
    fn phase(&mut self, cx: &mut dyn Context) {
        self.barrier_phase(cx);
    }
    fn done(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.done
    }
    fn ops(&self) -> &'static [u8] {
        &[SWITCH_BARRIER]
    }
}

#[cfg(test)]
mod tests;

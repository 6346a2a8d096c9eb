//! Tofu barrier: barrier channels (BCH) and barrier gates (BG) in the network interfaces.
//!
//! Each node's first [`GateParams::tnis`] TNIs have `channels` BCHs and `gates` BGs each. A group
//! ([`fabricsim_nic::HwGroup`], an MPI communicator) takes one BCH per member (a node's members
//! spread over its TNIs, the least used first) and the BGs its wiring needs ([`wiring`]); running
//! out is an error naming the resource. When a member starts a collective, its BCH fires its
//! start-and-end gate; gates signal gates; the member's end gate tells it the collective is
//! over.
//!
//! Timing (the mechanism TofuD's measurements show): each TNI processes its gates one at a time.
//! A start costs `channel_serial` of the TNI's time, then `channel_overlap` more before its
//! signals leave (that part overlaps with the next gate the TNI processes); a relay costs
//! `relay`. An end tells its member at once. A signal between gates of one node is immediate;
//! between nodes it is a packet through the network, sent by the gate's TNI at the system
//! priority class, on the deterministic route (a pair's signals stay in order), with no
//! per-message overheads (the gate hardware sends it), its payload the values it carries.
//! Gates are served and fire, within an instant, in the order of their group, gate and round,
//! not in the order their events happened to be handled.

mod params;
pub mod wiring;

use super::{Context, HwMessage, Unit};
use fabricsim_nic::{HwCollective, HwGroup, HwKind, HwOp, Rank};
pub use params::GateParams;
use std::collections::HashMap;
pub use wiring::{GateAlgorithm, Role, Wiring};

/// Priority class of gate signals in the network (above normal traffic).
pub const SIGNAL_CLASS: u8 = 2;

/// A group's gates, as built, and where they are.
struct Group {
    wiring: Wiring,
    /// Per wiring TNI: its global id (`node * tnis + t`) and a member rank on its node (signals
    /// are addressed by rank).
    tni_global: Vec<u32>,
    tni_rank: Vec<u32>,
    /// The members' ranks, and the member index of each.
    members: Vec<u32>,
    member_of: HashMap<u32, u32>,
    /// Per gate: signals arrived on each input; per start gate, rounds started.
    arrived: Vec<[u32; 2]>,
    rounds: Vec<u32>,
    /// Values that arrived before the other input's: (gate, input, round) -> value.
    waiting: HashMap<(u32, u8, u32), [u64; 8]>,
    /// Per member: tags of the collectives it started and that are not over, oldest first.
    tags: Vec<std::collections::VecDeque<u64>>,
    /// How each round combines and how many elements it carries (the first member to start a
    /// round says; the others must agree), and each member's last result.
    ops: HashMap<u32, (HwOp, u8)>,
    results: Vec<[u64; 8]>,
}

/// A gate whose inputs are all in: to be served by its TNI (round `round`, carrying `value`).
#[derive(Debug, Clone, Copy)]
struct Ready {
    group: u32,
    gate: u32,
    round: u32,
    value: [u64; 8],
}

/// The barrier hardware of every node, and the groups using it.
pub(crate) struct GateUnit {
    p: GateParams,
    /// Per global TNI: BCHs and BGs taken, and when its gate processing is free again (ps).
    used: Vec<(u32, u32)>,
    free_at: Vec<u64>,
    groups: Vec<Group>,
    index: HashMap<u32, u32>,
    ready: Vec<Ready>,
    /// Gates being processed (`Ev::Gate`), and signals travelling as messages (their tag).
    firing: crate::packet::Slab<Ready>,
    /// Gates processed this instant, to fire at its end in an order that depends on them only.
    fire_due: Vec<Ready>,
    signals: crate::packet::Slab<(u32, u32, u8, [u64; 8])>,
    /// Members whose collective ended this instant: (rank, tag).
    pub(crate) done: Vec<(u32, u64)>,
}

impl GateUnit {
    pub(crate) fn new(p: GateParams, nodes: u32) -> Self {
        let tnis = (nodes * p.tnis) as usize;
        GateUnit {
            p,
            used: vec![(0, 0); tnis],
            free_at: vec![0; tnis],
            groups: Vec::new(),
            index: HashMap::new(),
            ready: Vec::new(),
            firing: Default::default(),
            fire_due: Vec::new(),
            signals: Default::default(),
            done: Vec::new(),
        }
    }

    pub(crate) fn has_work(&self) -> bool {
        !self.ready.is_empty() || !self.done.is_empty() || !self.fire_due.is_empty()
    }
}

impl GateUnit {
    /// Make group `g` (its members on `nodes`): give each member a BCH (a node's members on its
    /// TNIs in turn, the least used TNI first), wire the gates, and take them.
    fn make_group(&mut self, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        let unit = self;
        if unit.index.contains_key(&g.id) {
            return Err(format!("group {} exists already", g.id));
        }
        let tnis = unit.p.tnis;
        let mut member_of = HashMap::new();
        let mut taken: HashMap<u32, u32> = HashMap::new();
        let mut points = Vec::with_capacity(nodes.len());
        // A member rank on each TNI used (signals are addressed by rank).
        let mut rank_on: HashMap<u32, u32> = HashMap::new();
        for (m, (&node, r)) in nodes.iter().zip(&g.members).enumerate() {
            member_of.insert(r.0, m as u32);
            let t = (0..tnis).min_by_key(|&t| unit.used[(node * tnis + t) as usize].0 + taken.get(&(node * tnis + t)).unwrap_or(&0)).unwrap();
            *taken.entry(node * tnis + t).or_default() += 1;
            rank_on.entry(node * tnis + t).or_insert(r.0);
            points.push(node * tnis + t);
        }
        let share = wiring::Share { tnis_per_node: tnis, gates_per_channel: unit.p.gates / unit.p.channels };
        let wiring = Wiring::build(&points, unit.p.algorithm, g.sums, Some(share)).map_err(|e| format!("hardware.algorithm: {e}"))?;
        let (channels, gates) = (wiring.channels_per_tni(), wiring.gates_per_tni());
        for (i, &t) in wiring.tnis.iter().enumerate() {
            let (c, b) = unit.used[t as usize];
            let (node, tni) = (t / tnis, t % tnis);
            for (what, need, used, has) in [("channels", channels[i], c, unit.p.channels), ("gates", gates[i], b, unit.p.gates)] {
                if used + need > has {
                    return Err(format!(
                        "hardware.{what}: group {} needs {need} barrier {what} on node {node} TNI {tni}, which has {} of {has} left",
                        g.id,
                        has - used
                    ));
                }
            }
        }
        for (i, &t) in wiring.tnis.iter().enumerate() {
            unit.used[t as usize].0 += channels[i];
            unit.used[t as usize].1 += gates[i];
        }
        let tni_rank = wiring.tnis.iter().map(|&t| rank_on[&t]).collect();
        let n = wiring.gates.len();
        unit.index.insert(g.id, unit.groups.len() as u32);
        unit.groups.push(Group {
            tni_global: wiring.tnis.clone(),
            tni_rank,
            members: g.members.iter().map(|r| r.0).collect(),
            member_of,
            arrived: vec![[0; 2]; n],
            rounds: vec![0; n],
            waiting: HashMap::new(),
            tags: vec![Default::default(); g.members.len()],
            ops: HashMap::new(),
            results: vec![[0; 8]; g.members.len()],
            wiring,
        });
        Ok(())
    }

    /// The wiring of group `id` (for reports and tests).
    pub(crate) fn wiring(&self, id: u32) -> Option<&Wiring> {
        Some(&self.groups[*self.index.get(&id)? as usize].wiring)
    }

    fn result(&self, rank: Rank, id: u32) -> Option<[u64; 8]> {
        let u = self;
        let g = &u.groups[*u.index.get(&id)? as usize];
        g.member_of.get(&rank.0).map(|&m| g.results[m as usize])
    }

    /// Member `rank` starts collective `c`: its BCH fires its start gate.
    fn start_member(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        let unit = self;
        if !matches!(c.kind, HwKind::Barrier | HwKind::Allreduce) {
            return Err(format!("the barrier gates do barriers and allreduces, not a {:?}", c.kind));
        }
        let elements = c.bytes.div_ceil(8);
        let (max, what) = if c.op.is_float() { (unit.p.float_elements, "floating-point") } else { (unit.p.int_elements, "integer") };
        if c.kind == HwKind::Allreduce && (c.op == HwOp::None || elements == 0 || elements > max as u64) {
            return Err(format!(
                "bytes: an allreduce through the barrier gates takes 1 to {max} {what} elements of 8 bytes and an operation ({} bytes, {:?} given)",
                c.bytes, c.op
            ));
        }
        let gi = *unit.index.get(&c.group).ok_or_else(|| format!("group {} was not made (collective_group)", c.group))?;
        let g = &mut unit.groups[gi as usize];
        let m = *g.member_of.get(&rank.0).ok_or_else(|| format!("rank {} is not a member of group {}", rank.0, c.group))?;
        let op = if c.kind == HwKind::Barrier { HwOp::None } else { c.op };
        if op.counts_twice() && !g.wiring.exact {
            return Err(format!("group {} is wired by dissemination, which can count a contribution twice: it cannot sum", c.group));
        }
        let gate = g.wiring.starts[m as usize];
        let round = g.rounds[gate as usize];
        match g.ops.get(&round) {
            Some(&(o, e)) if (o, e) != (op, elements as u8) => {
                return Err(format!(
                    "rank {} starts a {:?} of {} elements on group {}, whose other members run {:?} of {e}",
                    rank.0, op, elements, c.group, o
                ))
            }
            _ => {
                g.ops.insert(round, (op, elements as u8));
            }
        }
        g.tags[m as usize].push_back(c.tag);
        g.rounds[gate as usize] += 1;
        let mut value = [0; 8];
        value[..elements.min(8) as usize].copy_from_slice(&c.value[..elements.min(8) as usize]);
        unit.ready.push(Ready { group: gi, gate, round, value });
        cx.phase_due();
        Ok(())
    }

    /// A signal with `value` arrives at input `slot` of gate `gate` of group `gi`.
    fn arrive(&mut self, cx: &mut dyn Context, gi: u32, gate: u32, slot: u8, value: [u64; 8]) {
        let unit = self;
        let g = &mut unit.groups[gi as usize];
        let need = g.wiring.gates[gate as usize].need;
        let a = &mut g.arrived[gate as usize];
        a[slot as usize] += 1;
        let round = a[slot as usize] - 1;
        let other = (need == 2).then(|| a[1 - slot as usize]);
        let op = g.ops[&round].0;
        match other {
            Some(o) if o <= round => {
                if op != HwOp::None {
                    g.waiting.insert((gate, slot, round), value);
                }
            }
            _ => {
                let mut v = value;
                if let (Some(_), Some(w)) = (other, g.waiting.remove(&(gate, 1 - slot, round))) {
                    op.combine(&mut v, &w);
                }
                unit.ready.push(Ready { group: gi, gate, round, value: v });
                cx.phase_due();
            }
        }
    }

    /// End of an instant: the gates whose inputs are in join their TNIs' queues, in an order
    /// that depends on them only.
    fn serve(&mut self, cx: &mut dyn Context) {
        let now = cx.now();
        // Gates processed this instant fire first, in order of group, gate and round: their
        // signals reach the NICs in that order.
        let mut fired = std::mem::take(&mut self.fire_due);
        fired.sort_unstable_by_key(|r| (r.group, r.gate, r.round));
        for r in fired.drain(..) {
            self.fire(cx, r);
        }
        self.fire_due = fired;
        let unit = &mut *self;
        let mut ready = std::mem::take(&mut unit.ready);
        ready.sort_unstable_by_key(|r| (r.group, r.gate, r.round));
        for r in ready.drain(..) {
            let g = &unit.groups[r.group as usize];
            let gate = g.wiring.gates[r.gate as usize];
            let tni = g.tni_global[gate.tni as usize] as usize;
            let (hold, after) = match gate.role {
                Role::Start => (unit.p.channel_serial.ps(), unit.p.channel_overlap.ps()),
                Role::Relay => (unit.p.relay.ps(), 0),
                Role::End => (0, 0),
            };
            let at = if hold > 0 {
                let start = unit.free_at[tni].max(now);
                unit.free_at[tni] = start + hold;
                start + hold + after
            } else {
                now + after
            };
            let e = unit.firing.insert(r);
            cx.schedule(at, e);
        }
        self.ready = ready;
    }

    /// A gate has been processed: it fires at the end of the instant (see `serve`).
    fn processed(&mut self, cx: &mut dyn Context, e: u32) {
        let r = *self.firing.get(e);
        self.firing.remove(e);
        self.fire_due.push(r);
        cx.phase_due();
    }

    /// A gate fires: it signals its outputs, or (an end) tells its member.
    fn fire(&mut self, cx: &mut dyn Context, r: Ready) {
        let unit = &mut *self;
        let g = &mut unit.groups[r.group as usize];
        let gate = g.wiring.gates[r.gate as usize];
        if gate.role == Role::End {
            let m = gate.member as usize;
            g.results[m] = r.value;
            let tag = g.tags[m].pop_front().expect("an end fires after its start");
            unit.done.push((g.members[m], tag));
            cx.phase_due();
            return;
        }
        let bytes = 8 * g.ops[&r.round].1.max(1) as u64;
        let tnis = unit.p.tnis;
        let from = g.tni_global[gate.tni as usize];
        let src = g.tni_rank[gate.tni as usize];
        let mut sends = Vec::new();
        for (to, slot) in gate.outs.into_iter().filter(|o| o.0 != wiring::NONE) {
            let dest_tni = g.wiring.gates[to as usize].tni as usize;
            if g.tni_global[dest_tni] / tnis == from / tnis {
                sends.push((to, slot, None));
            } else {
                sends.push((to, slot, Some(g.tni_rank[dest_tni])));
            }
        }
        for (to, slot, remote) in sends {
            match remote {
                None => self.arrive(cx, r.group, to, slot, r.value),
                Some(dst) => {
                    let sig = self.signals.insert((r.group, to, slot, r.value));
                    cx.send(HwMessage {
                        src,
                        dst,
                        bytes,
                        tag: sig as u64,
                        hint: crate::packet::NO_HINT,
                        class: SIGNAL_CLASS,
                        op: crate::packet::GATE_SIGNAL,
                        engine: (from % tnis) as u8,
                        route: fabricsim_nic::ROUTE_DETERMINISTIC,
                    });
                }
            }
        }
    }

    /// A gate signal that crossed the network (message tag `sig`) arrived.
    fn signal_arrived(&mut self, cx: &mut dyn Context, sig: u32) {
        let (gi, gate, slot, value) = *self.signals.get(sig);
        self.signals.remove(sig);
        self.arrive(cx, gi, gate, slot, value);
    }
}

impl Unit for GateUnit {
    fn runs(&self, kind: HwKind) -> bool {
        matches!(kind, HwKind::Barrier | HwKind::Allreduce)
    }
    fn group(&mut self, _cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        self.make_group(g, nodes)
    }
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.start_member(cx, rank, c)
    }
    fn value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        self.result(rank, group)
    }
    fn on_event(&mut self, cx: &mut dyn Context, e: u32) {
        self.processed(cx, e);
    }
    fn on_message(&mut self, cx: &mut dyn Context, tag: u64, _dst: u32, _bytes: u64) {
        self.signal_arrived(cx, tag as u32);
    }
    fn phase_due(&self) -> bool {
        self.has_work()
    }
    fn phase(&mut self, cx: &mut dyn Context) {
        self.serve(cx);
    }
    fn done(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.done
    }
    fn ends_more(&mut self) -> bool {
        self.has_work()
    }
    fn ops(&self) -> &'static [u8] {
        &[crate::packet::GATE_SIGNAL]
    }
}

#[cfg(test)]
mod tests;

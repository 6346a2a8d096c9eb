//! How a group's barrier gates are wired (Tofu barrier): which gate signals which.
//!
//! A barrier gate (BG) waits for a signal on each of its inputs (at most two), then signals its
//! outputs (at most two). A member of the group has a barrier channel (BCH) whose
//! start-and-end gate is modelled as two gates here: a [`Role::Start`] that its BCH fires and
//! an [`Role::End`] that tells the member the collective is over; together they use one BG.
//! Every other gate is a [`Role::Relay`]. A gate that combines two signals also combines
//! their values, so the same wiring does a barrier and a one-element allreduce.
//!
//! Algorithms (all built from the members' TNIs, `points`):
//! * [`GateAlgorithm::Tree`]: a reduce-broadcast tree over the members (a binary heap in
//!   member order). A member with `c` children uses `1 + 2c` gates: its start-and-end gate,
//!   `c` relays combining its children's signals on the way up and `c` fanning the result out on
//!   the way down (five for an inner member).
//! * [`GateAlgorithm::RecursiveDoubling`]: the members of one TNI are combined by a balanced
//!   binary tree of relays and fanned out by another; the TNIs' results are exchanged by
//!   recursive doubling (`log2 P - 1` relays per TNI for `P` TNIs, the start-and-end gate or the
//!   TNI's combining tree serving as the first stage and the receiving gate as the last). For
//!   `P` not a power of two, the TNIs with the fewest members are folded into others first
//!   (each joins one other TNI's tree as a child), so every contribution is counted once.
//! * [`GateAlgorithm::Dissemination`]: as recursive doubling, but `P` TNIs exchange in
//!   `ceil(log2 P)` rounds, round `r` with the TNI `2^r` before: no fold, one round fewer
//!   for some `P`, but for `P` not a power of two a contribution can arrive twice, so it is
//!   for barriers and idempotent reductions (min, max, and, or) only.
//! * [`GateAlgorithm::Auto`]: recursive doubling or (for groups that never sum) dissemination,
//!   whichever has fewer stages, then fewer gates on the busiest TNI.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// No gate.
pub const NONE: u32 = u32::MAX;

/// What a gate is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A member's start-and-end gate, start side: fired by its BCH.
    Start,
    /// Combines and forwards.
    Relay,
    /// A member's start-and-end gate, end side: the collective is over for the member.
    End,
}

/// One gate of a wiring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gate {
    /// What the gate is for.
    pub role: Role,
    /// The member whose BCH it belongs to (start and end gates; [`NONE`] for relays).
    pub member: u32,
    /// Which of the wiring's TNIs ([`Wiring::tnis`]) holds it.
    pub tni: u32,
    /// Signals it waits for (0 for a start gate: its BCH fires it).
    pub need: u8,
    /// Gates it signals, with the input each arrives on ([`NONE`]: unused).
    pub outs: [(u32, u8); 2],
}

/// How gates are shared out: a TNI holding `c` of a group's channels may use `c *
/// gates_per_channel` of its gates (the hardware's ratio, TofuD's 48 per 16: so any mix of
/// groups that takes every channel fits), relays beyond that going to another TNI of the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// TNIs per node (caller's TNI ids are `node * tnis_per_node + t`).
    pub tnis_per_node: u32,
    /// Gates a TNI may use for each of the group's channels it holds.
    pub gates_per_channel: u32,
}

/// How a group's gates are wired (`hardware.algorithm`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateAlgorithm {
    /// Recursive doubling or (for groups that never sum) dissemination, whichever has fewer
    /// stages, then fewer gates on the busiest TNI.
    #[default]
    Auto,
    /// A reduce-broadcast tree over the members.
    Tree,
    /// Per-TNI combining trees, then recursive doubling between the TNIs (each contribution
    /// counted once).
    RecursiveDoubling,
    /// Per-TNI combining trees, then `ceil(log2 P)` dissemination rounds between the `P` TNIs;
    /// may count a contribution twice, so barriers and idempotent reductions only.
    Dissemination,
}

/// A group's gates and how they connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wiring {
    /// The gates, indexed by gate id (the ids [`Gate::outs`], `starts` and `ends` hold).
    pub gates: Vec<Gate>,
    /// The TNIs the gates sit on, as the caller numbered them (ascending).
    pub tnis: Vec<u32>,
    /// Each member's start gate (by member index).
    pub starts: Vec<u32>,
    /// Each member's end gate (by member index).
    pub ends: Vec<u32>,
    /// Whether every member's contribution reaches every end exactly once (false: at least
    /// once, see [`GateAlgorithm::Dissemination`]).
    pub exact: bool,
    /// What was built (never [`GateAlgorithm::Auto`]).
    pub algorithm: GateAlgorithm,
}

impl Wiring {
    /// Wire a group whose member `i` has its BCH on TNI `points[i]` (any numbering of TNIs;
    /// members of one TNI share its gates). `sums`: the group will sum or xor, so a wiring that
    /// may count a contribution twice is refused. With `share`, relays are then spread over
    /// the TNIs (see [`Share`]).
    pub fn build(points: &[u32], algorithm: GateAlgorithm, sums: bool, share: Option<Share>) -> Result<Wiring, String> {
        if points.is_empty() {
            return Err("a group needs at least one member".into());
        }
        let exchanges: &[Exchange] = match algorithm {
            GateAlgorithm::Tree => {
                let mut w = Builder::new(points).tree()?;
                if let Some(s) = share {
                    w.spread(s);
                }
                return Ok(w);
            }
            GateAlgorithm::RecursiveDoubling => &[Exchange::FoldTnis, Exchange::FoldChannels],
            GateAlgorithm::Dissemination => &[Exchange::Dissemination],
            GateAlgorithm::Auto if sums => &[Exchange::FoldTnis, Exchange::FoldChannels],
            GateAlgorithm::Auto => &[Exchange::FoldTnis, Exchange::FoldChannels, Exchange::Dissemination],
        };
        let mut best: Option<Wiring> = None;
        for &x in exchanges {
            let mut w = Builder::new(points).hybrid(x)?;
            if let Some(s) = share {
                w.spread(s);
            }
            let key = |w: &Wiring| (w.stages(), w.max_gates_per_tni(), w.gates.len());
            if best.as_ref().is_none_or(|b| key(&w) < key(b)) {
                best = Some(w);
            }
        }
        let w = best.expect("at least one way to exchange");
        if sums && !w.exact {
            return Err(format!(
                "dissemination over {} TNIs can count a contribution twice, so it cannot sum; use recursive_doubling or tree",
                w.tnis.len()
            ));
        }
        Ok(w)
    }

    /// Move relays from TNIs that use more than their share of gates to a TNI of the same node
    /// that a relay's signals come from or go to and that has room (the one with most; the
    /// earliest relay first). A relay's place changes which TNI processes it, not the wiring.
    pub fn spread(&mut self, s: Share) {
        let channels = self.channels_per_tni();
        let mut used = self.gates_per_tni();
        let room = |t: usize, used: &[u32]| (channels[t] * s.gates_per_channel) as i64 - used[t] as i64;
        let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); self.gates.len()];
        for (g, gate) in self.gates.iter().enumerate() {
            for (to, _) in gate.outs.into_iter().filter(|o| o.0 != NONE) {
                neighbours[g].push(to);
                neighbours[to as usize].push(g as u32);
            }
        }
        let node = |t: u32| self.tnis[t as usize] / s.tnis_per_node.max(1);
        for (g, near) in neighbours.iter().enumerate() {
            let t = self.gates[g].tni;
            if self.gates[g].role != Role::Relay || room(t as usize, &used) >= 0 {
                continue;
            }
            let best = near
                .iter()
                .map(|&n| self.gates[n as usize].tni)
                .filter(|&n| n != t && node(n) == node(t) && room(n as usize, &used) > 0)
                .max_by_key(|&n| (room(n as usize, &used), std::cmp::Reverse(n)));
            if let Some(n) = best {
                self.gates[g].tni = n;
                used[t as usize] -= 1;
                used[n as usize] += 1;
            }
        }
    }

    /// Barrier channels (members) on each of [`tnis`](Self::tnis).
    pub fn channels_per_tni(&self) -> Vec<u32> {
        let mut n = vec![0; self.tnis.len()];
        for g in self.gates.iter().filter(|g| g.role == Role::Start) {
            n[g.tni as usize] += 1;
        }
        n
    }

    /// Barrier gates used on each TNI: relays plus one start-and-end gate per member.
    pub fn gates_per_tni(&self) -> Vec<u32> {
        let mut n = vec![0; self.tnis.len()];
        for g in self.gates.iter().filter(|g| g.role != Role::End) {
            n[g.tni as usize] += 1;
        }
        n
    }

    /// The most barrier gates any one TNI uses (see [`gates_per_tni`](Self::gates_per_tni)).
    pub fn max_gates_per_tni(&self) -> u32 {
        self.gates_per_tni().into_iter().max().unwrap_or(0)
    }

    /// Communication stages: the most gate-to-gate signals on a path from a start to an end.
    pub fn stages(&self) -> u32 {
        let order = self.topological_order().expect("a wiring is acyclic");
        let mut depth = vec![0u32; self.gates.len()];
        for &g in &order {
            for (to, _) in self.outs(g) {
                depth[to as usize] = depth[to as usize].max(depth[g as usize] + 1);
            }
        }
        self.ends.iter().map(|&e| depth[e as usize]).max().unwrap_or(0)
    }

    /// The gates `g` signals.
    pub fn outs(&self, g: u32) -> impl Iterator<Item = (u32, u8)> + '_ {
        self.gates[g as usize].outs.into_iter().filter(|&(to, _)| to != NONE)
    }

    /// The gates in an order where every gate comes after those that signal it (`None`: a
    /// cycle, which a built wiring never has).
    pub fn topological_order(&self) -> Option<Vec<u32>> {
        let mut waiting: Vec<u8> = self.gates.iter().map(|g| g.need).collect();
        let mut ready: Vec<u32> = (0..self.gates.len() as u32).filter(|&g| waiting[g as usize] == 0).collect();
        let mut order = Vec::with_capacity(self.gates.len());
        while let Some(g) = ready.pop() {
            order.push(g);
            for (to, _) in self.outs(g) {
                waiting[to as usize] -= 1;
                if waiting[to as usize] == 0 {
                    ready.push(to);
                }
            }
        }
        (order.len() == self.gates.len()).then_some(order)
    }
}

/// Wiring under construction: the gates, and the members grouped by TNI.
struct Builder {
    gates: Vec<Gate>,
    tnis: Vec<u32>,
    /// Per TNI (index into `tnis`): its members, in member order.
    members: Vec<Vec<u32>>,
    starts: Vec<u32>,
    ends: Vec<u32>,
}

impl Builder {
    fn new(points: &[u32]) -> Self {
        let mut tnis = points.to_vec();
        tnis.sort_unstable();
        tnis.dedup();
        let mut b = Builder { gates: Vec::new(), members: vec![Vec::new(); tnis.len()], tnis, starts: Vec::new(), ends: Vec::new() };
        for (m, p) in points.iter().enumerate() {
            let t = b.tnis.binary_search(p).unwrap() as u32;
            b.members[t as usize].push(m as u32);
            let s = b.gate(Role::Start, m as u32, t);
            b.starts.push(s);
        }
        for (m, &s) in b.starts.clone().iter().enumerate() {
            let e = b.gate(Role::End, m as u32, b.gates[s as usize].tni);
            b.ends.push(e);
        }
        b
    }

    fn gate(&mut self, role: Role, member: u32, tni: u32) -> u32 {
        self.gates.push(Gate { role, member, tni, need: 0, outs: [(NONE, 0); 2] });
        self.gates.len() as u32 - 1
    }

    fn relay(&mut self, tni: u32) -> u32 {
        self.gate(Role::Relay, NONE, tni)
    }

    /// `from` signals `to` (each end has room: the algorithms below never exceed two).
    fn link(&mut self, from: u32, to: u32) {
        let slot = self.gates[to as usize].need;
        let outs = &mut self.gates[from as usize].outs;
        let free = outs.iter().position(|o| o.0 == NONE).expect("a gate signals at most two others");
        assert!(slot < 2, "a gate waits for at most two others");
        outs[free] = (to, slot);
        self.gates[to as usize].need += 1;
    }

    /// Relays on `tni` combining `sources` pairwise, oldest first (a balanced tree): the gate
    /// whose signal carries them all.
    fn combine(&mut self, tni: u32, sources: &[u32]) -> u32 {
        let mut q: VecDeque<u32> = sources.iter().copied().collect();
        while q.len() > 1 {
            let (a, b) = (q.pop_front().unwrap(), q.pop_front().unwrap());
            let r = self.relay(tni);
            self.link(a, r);
            self.link(b, r);
            q.push_back(r);
        }
        q[0]
    }

    /// Signal every gate of `dests` from `src`, through relays on `src`'s TNI where it has
    /// more than two.
    fn fan_out(&mut self, src: u32, dests: &[u32]) {
        if dests.len() <= 2 {
            for &d in dests {
                self.link(src, d);
            }
            return;
        }
        let tni = self.gates[src as usize].tni;
        let (left, right) = dests.split_at(dests.len().div_ceil(2));
        for half in [left, right] {
            if half.len() == 1 {
                self.link(src, half[0]);
            } else {
                let r = self.relay(tni);
                self.link(src, r);
                self.fan_out(r, half);
            }
        }
    }

    /// The gate on `tni` that receives the final signals and passes them to `dests`: the one
    /// destination itself, or a relay fanning out to them.
    fn receiver(&mut self, tni: u32, dests: &[u32]) -> u32 {
        if let [one] = dests {
            return *one;
        }
        let r = self.relay(tni);
        self.fan_out(r, dests);
        r
    }

    fn ends_of(&self, t: usize) -> Vec<u32> {
        self.members[t].iter().map(|&m| self.ends[m as usize]).collect()
    }

    fn finish(self, algorithm: GateAlgorithm, exact: bool) -> Result<Wiring, String> {
        Ok(Wiring { gates: self.gates, tnis: self.tnis, starts: self.starts, ends: self.ends, exact, algorithm })
    }

    /// A lone member: start, one relay, end (the smallest loop the gates make).
    fn single(mut self, algorithm: GateAlgorithm) -> Result<Wiring, String> {
        let r = self.relay(0);
        let (s, e) = (self.starts[0], self.ends[0]);
        self.link(s, r);
        self.link(r, e);
        self.finish(algorithm, true)
    }

    /// Reduce-broadcast tree over the members (see [`GateAlgorithm::Tree`]).
    fn tree(mut self) -> Result<Wiring, String> {
        let n = self.starts.len();
        if n == 1 {
            return self.single(GateAlgorithm::Tree);
        }
        let children = |m: usize| (2 * m + 1..(2 * m + 3).min(n)).collect::<Vec<_>>();
        let tni_of = |b: &Self, m: usize| b.gates[b.starts[m] as usize].tni;
        // Up: each member's start, then one relay per child (children first: higher indices).
        let mut up = vec![NONE; n];
        for m in (0..n).rev() {
            let mut src = self.starts[m];
            for c in children(m) {
                let r = self.relay(tni_of(&self, m));
                self.link(src, r);
                self.link(up[c], r);
                src = r;
            }
            up[m] = src;
        }
        // Down: each member's receiver fans out to its children's receivers and its own end;
        // the root's last up relay turns the signal round.
        let mut rcv = vec![NONE; n];
        for m in (0..n).rev() {
            let mut dests: Vec<u32> = children(m).iter().map(|&c| rcv[c]).collect();
            dests.push(self.ends[m]);
            if m == 0 {
                self.fan_out(up[0], &dests);
            } else {
                rcv[m] = self.receiver(tni_of(&self, m), &dests);
            }
        }
        self.finish(GateAlgorithm::Tree, true)
    }

    /// Trees inside each TNI, then an exchange between the TNIs (see [`Exchange`]).
    fn hybrid(mut self, exchange: Exchange) -> Result<Wiring, String> {
        let algorithm = if exchange == Exchange::Dissemination { GateAlgorithm::Dissemination } else { GateAlgorithm::RecursiveDoubling };
        let p = self.tnis.len();
        if self.starts.len() == 1 {
            return self.single(algorithm);
        }
        if exchange == Exchange::Dissemination || p.is_power_of_two() {
            let mut up: Vec<u32> = (0..p).map(|t| self.tni_root(t, &[])).collect();
            if p == 1 {
                let ends = self.ends_of(0);
                self.fan_out(up[0], &ends);
                return self.finish(algorithm, true);
            }
            if exchange != Exchange::Dissemination {
                let tnis: Vec<usize> = (0..p).collect();
                let dests: Vec<Vec<u32>> = (0..p).map(|t| self.ends_of(t)).collect();
                self.doubling(&tnis, up, dests);
                return self.finish(algorithm, true);
            }
            let rounds = p.next_power_of_two().trailing_zeros() as usize;
            for r in 0..rounds {
                let dist = 1usize << r;
                let next: Vec<u32> = (0..p)
                    .map(|t| {
                        if r + 1 == rounds {
                            let ends = self.ends_of(t);
                            self.receiver(t as u32, &ends)
                        } else {
                            self.relay(t as u32)
                        }
                    })
                    .collect();
                for t in 0..p {
                    self.link(up[t], next[t]);
                    self.link(up[(t + p - dist % p) % p], next[t]);
                }
                up = next;
            }
            return self.finish(algorithm, p.is_power_of_two());
        }
        // Fold: the TNIs beyond the largest power of two, fewest members first (the later TNI
        // of a tie), join the others, those with fewest members first.
        let q = 1usize << (usize::BITS - 1 - p.leading_zeros());
        let mut by_size: Vec<usize> = (0..p).collect();
        by_size.sort_by_key(|&t| (self.members[t].len(), std::cmp::Reverse(t)));
        let extras: Vec<usize> = by_size[..p - q].to_vec();
        let mut cores: Vec<usize> = by_size[p - q..].to_vec();
        cores.sort_by_key(|&t| (self.members[t].len(), t));
        // What each core combines besides its own starts, and signals besides its own ends.
        let mut more_in: Vec<Vec<u32>> = vec![Vec::new(); p];
        let mut more_out: Vec<Vec<u32>> = vec![Vec::new(); p];
        if exchange == Exchange::FoldTnis {
            for (&e, &c) in extras.iter().zip(&cores) {
                let up = self.tni_root(e, &[]);
                let ends = self.ends_of(e);
                let rcv = self.receiver(e as u32, &ends);
                more_in[c].push(up);
                more_out[c].push(rcv);
            }
        } else {
            let members: Vec<u32> = extras.iter().flat_map(|&e| self.members[e].clone()).collect();
            for (i, m) in members.into_iter().enumerate() {
                let c = cores[i % q];
                more_in[c].push(self.starts[m as usize]);
                more_out[c].push(self.ends[m as usize]);
            }
        }
        cores.sort_unstable();
        let up: Vec<u32> = cores.iter().map(|&c| self.tni_root(c, &more_in[c].clone())).collect();
        let dests: Vec<Vec<u32>> = cores.iter().map(|&c| self.ends_of(c).into_iter().chain(more_out[c].iter().copied()).collect()).collect();
        self.doubling(&cores, up, dests);
        self.finish(algorithm, true)
    }

    /// The gate whose signal carries TNI `t`'s starts and `more` (relays on `t` combining them).
    fn tni_root(&mut self, t: usize, more: &[u32]) -> u32 {
        let s: Vec<u32> = self.members[t].iter().map(|&m| self.starts[m as usize]).chain(more.iter().copied()).collect();
        self.combine(t as u32, &s)
    }

    /// Recursive doubling between TNIs `tnis` (a power of two of them) whose combined signals
    /// are `up`; each ends by signalling its `dests`.
    fn doubling(&mut self, tnis: &[usize], up: Vec<u32>, dests: Vec<Vec<u32>>) {
        let q = tnis.len();
        let k = q.trailing_zeros() as usize;
        let mut cur = up;
        for s in 0..k {
            let next: Vec<u32> =
                (0..q).map(|i| if s + 1 < k { self.relay(tnis[i] as u32) } else { self.receiver(tnis[i] as u32, &dests[i]) }).collect();
            for i in 0..q {
                self.link(cur[i], next[i]);
                self.link(cur[i ^ (1 << s)], next[i]);
            }
            cur = next;
        }
    }
}

/// How the TNIs of a [`GateAlgorithm::RecursiveDoubling`] or
/// [`GateAlgorithm::Dissemination`] wiring exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exchange {
    /// Recursive doubling; TNIs beyond a power of two join others whole (their tree's result).
    FoldTnis,
    /// Recursive doubling; their channels join the other TNIs' trees one by one.
    FoldChannels,
    Dissemination,
}

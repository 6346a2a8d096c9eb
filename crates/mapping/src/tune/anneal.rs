//! Simulated annealing over rank orders (RMATT-style): start from a map, propose moves, accept
//! every move that lowers the energy and a worsening one of `delta` with probability
//! `exp(-delta / T)`, the temperature `T` falling geometrically from `T0` to `T0 / 1000` over the
//! iterations. `T0` is the mean worsening of 256 random swaps (a random rank to a random slot) tried on the
//! start: hot enough to leave a good start's basin early on, which measured better on NAS CG than
//! a start from the smaller worsening of targeted moves.
//!
//! The energy is the [`Objective`]: hop-bytes here, or the link loads of
//! [`super::anneal_links`]. Ranks sit in slots, `per_node` to a node (slot `s` on node
//! `s / per_node`); ranks on the same node exchange their bytes without a link.
//!
//! Moves: nine in ten swap a random rank with the rank in another slot (or move it there when
//! the slot is free): half the time a random slot, half the time a slot on a node one link from
//! the node of one of its partners (a targeted move); one in ten swaps two blocks of up to `block`
//! consecutive ranks. A move's cost changes only through the flows of the ranks it moves, so
//! it is priced in O(degree) (times the path length for link loads), never O(flows).
//!
//! The answer depends only on the seed and the iteration count; a time budget stops early
//! (then the answer depends on the machine's speed: give `iterations` for reproducible maps).

use super::Mapped;
use crate::{cost, Pattern};
use fabricsim_core::{ConfigError, NodeId, RngStreams};
use fabricsim_topology::Topology;
use rand::Rng;
use std::time::{Duration, Instant};

pub(super) const FREE: u32 = u32::MAX;

/// What annealing minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Objective {
    /// Hop-bytes: every flow's bytes times the hops between its ranks' nodes.
    #[default]
    HopBytes,
    /// The busiest link's bytes under the machine's own routing, with the sum of squared link
    /// loads as a smooth second term (see [`super::anneal_links`]).
    MaxLink,
}

impl Objective {
    /// Both objectives.
    pub const ALL: [Objective; 2] = [Objective::HopBytes, Objective::MaxLink];

    /// The name `--objective` takes.
    pub fn name(self) -> &'static str {
        match self {
            Objective::HopBytes => "hop-bytes",
            Objective::MaxLink => "max-link",
        }
    }

    /// The objective named `s`; errors name `field` and the value.
    pub fn parse(s: &str, field: &str) -> Result<Objective, ConfigError> {
        Objective::ALL
            .into_iter()
            .find(|o| o.name() == s.trim())
            .ok_or_else(|| ConfigError::new(field, format!("'{s}' is not an objective (hop-bytes, max-link)")))
    }
}

/// Annealing options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seed of the move stream.
    pub seed: u64,
    /// Moves to propose (0: 2,000 per rank for hop-bytes, 200 per rank for max-link).
    pub iterations: u64,
    /// Stop early after this long.
    pub budget: Option<Duration>,
    /// Largest block of a block move (below 2: no block moves).
    pub block: u32,
    /// Ranks a node holds (at least 1).
    pub per_node: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { seed: 1, iterations: 0, budget: None, block: 8, per_node: 1 }
    }
}

/// Ranks in slots: each rank's slot and each slot's rank.
pub(super) struct Slots {
    /// Slot of every rank.
    pub(super) slot_of: Vec<u32>,
    /// Rank in every slot (`FREE` when none).
    pub(super) rank_at: Vec<u32>,
    /// Slots per node.
    pub(super) per_node: u32,
}

impl Slots {
    /// Slots for `start` (node of every rank, at most `per_node` ranks a node), ranks taking
    /// their node's slots in rank order.
    pub(super) fn new(start: &[NodeId], nodes: u32, per_node: u32) -> Slots {
        let per_node = per_node.max(1);
        let mut rank_at = vec![FREE; (nodes * per_node) as usize];
        let mut used = vec![0u32; nodes as usize];
        let slot_of = start
            .iter()
            .enumerate()
            .map(|(r, n)| {
                let s = n.0 * per_node + used[n.index()];
                used[n.index()] += 1;
                rank_at[s as usize] = r as u32;
                s
            })
            .collect();
        Slots { slot_of, rank_at, per_node }
    }

    /// The node of slot `s`.
    #[inline]
    pub(super) fn node(&self, s: u32) -> u32 {
        s / self.per_node
    }

    /// The node of every rank.
    pub(super) fn map(&self) -> Vec<NodeId> {
        self.slot_of.iter().map(|&s| NodeId(self.node(s))).collect()
    }

    /// Move rank `a` to slot `n`, swapping with its rank, if any; the rank swapped.
    pub(super) fn swap(&mut self, a: u32, n: u32) -> u32 {
        let na = self.slot_of[a as usize];
        let b = self.rank_at[n as usize];
        self.slot_of[a as usize] = n;
        self.rank_at[n as usize] = a;
        self.rank_at[na as usize] = b;
        if b != FREE {
            self.slot_of[b as usize] = na;
        }
        b
    }
}

/// An energy the annealing loop lowers: moves are applied at once and taken back on rejection.
pub(super) trait Energy {
    /// The ranks' slots.
    fn slots(&self) -> &Slots;
    /// Each rank's partners (for targeted moves).
    fn partners(&self, a: u32) -> &[(u32, u64)];
    /// Move rank `a` to slot `n` (swapping with its rank) and return the energy's change.
    fn apply(&mut self, a: u32, n: u32) -> f64;
    /// Keep every move applied since the last call.
    fn commit(&mut self);
    /// Take back every move applied since the last commit.
    fn revert(&mut self);
}

/// Hop-bytes as an energy.
struct HopBytes<'a> {
    topo: &'a Topology,
    nb: crate::pattern::Neighbours,
    s: Slots,
    undo: Vec<(u32, u32)>,
}

impl HopBytes<'_> {
    /// Change in hop-bytes if rank `a` moved to slot `n` (swapping with its rank, if any).
    fn delta(&self, a: u32, n: u32) -> i64 {
        let (na, b) = (self.s.slot_of[a as usize], self.s.rank_at[n as usize]);
        let (from, to) = (self.s.node(na), self.s.node(n));
        if from == to {
            return 0;
        }
        let d = |x: u32, y: u32| self.topo.distance(NodeId(x), NodeId(y)) as i64;
        let mut delta = 0i64;
        for &(x, w) in self.nb.of(a) {
            if x != b {
                let nx = self.s.node(self.s.slot_of[x as usize]);
                delta += w as i64 * (d(to, nx) - d(from, nx));
            }
        }
        if b != FREE {
            for &(x, w) in self.nb.of(b) {
                if x != a {
                    let nx = self.s.node(self.s.slot_of[x as usize]);
                    delta += w as i64 * (d(from, nx) - d(to, nx));
                }
            }
        }
        delta
    }
}

impl Energy for HopBytes<'_> {
    fn slots(&self) -> &Slots {
        &self.s
    }
    fn partners(&self, a: u32) -> &[(u32, u64)] {
        self.nb.of(a)
    }
    fn apply(&mut self, a: u32, n: u32) -> f64 {
        let d = self.delta(a, n);
        self.undo.push((a, self.s.slot_of[a as usize]));
        self.s.swap(a, n);
        d as f64
    }
    fn commit(&mut self) {
        self.undo.clear();
    }
    fn revert(&mut self) {
        while let Some((a, n)) = self.undo.pop() {
            self.s.swap(a, n);
        }
    }
}

/// Anneal hop-bytes from `start` (node of every rank, at most `opts.per_node` ranks a node).
pub fn anneal(topo: &Topology, pattern: &Pattern, start: &[NodeId], opts: &Options) -> Mapped {
    let mut e = HopBytes { topo, nb: pattern.neighbours(), s: Slots::new(start, topo.nodes(), opts.per_node), undo: Vec::new() };
    let start_cost = cost::hop_bytes(topo, pattern, start);
    let iterations = if opts.iterations == 0 { 2000 * pattern.ranks() as u64 } else { opts.iterations };
    let (change, detail) = run(&mut e, topo, iterations, 1.0, opts);
    if change < 0.0 {
        let map = e.s.map();
        Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail }
    } else {
        Mapped { map: start.to_vec(), hop_bytes: start_cost, detail }
    }
}

/// The annealing loop over `e` for `iterations` moves (or `opts.budget`), the first temperature
/// `t0_scale` times the mean worsening of random swaps: the energy's change from the start and
/// a line saying what was done.
pub(super) fn run(e: &mut impl Energy, topo: &Topology, iterations: u64, t0_scale: f64, opts: &Options) -> (f64, String) {
    let began = Instant::now();
    let ranks = e.slots().slot_of.len() as u32;
    let slots = e.slots().rank_at.len() as u32;
    let mut rng = RngStreams::new(opts.seed).stream(7, 0);
    let (mut sum, mut count) = (0f64, 0u32);
    for _ in 0..256 {
        let d = e.apply(rng.gen_range(0..ranks), rng.gen_range(0..slots));
        e.revert();
        if d > 0.0 {
            sum += d;
            count += 1;
        }
    }
    let t0 = if count == 0 { 1.0 } else { t0_scale * sum / count as f64 };
    let cool = (1e-3f64).ln() / iterations.max(1) as f64;
    let mut near = Vec::with_capacity(16);
    let (mut current, mut accepted, mut done) = (0f64, 0u64, 0u64);
    for i in 0..iterations {
        if i % 4096 == 0 && opts.budget.is_some_and(|b| began.elapsed() >= b) {
            break;
        }
        done += 1;
        let temp = t0 * (cool * i as f64).exp();
        // Block moves need two disjoint blocks of at least two ranks.
        let block = if opts.block >= 2 && ranks >= 4 && rng.gen_range(0..10) == 0 { rng.gen_range(2..=opts.block.min(ranks / 2)) } else { 1 };
        let delta = if block <= 1 {
            let a = rng.gen_range(0..ranks);
            let n = target(e, topo, a, &mut rng, &mut near);
            e.apply(a, n)
        } else {
            let (a, c) = (rng.gen_range(0..=ranks - block), rng.gen_range(0..=ranks - block));
            if a.abs_diff(c) < block {
                continue;
            }
            let mut d = 0.0;
            for k in 0..block {
                let ny = e.slots().slot_of[(c + k) as usize];
                d += e.apply(a + k, ny);
            }
            d
        };
        if delta <= 0.0 || rng.gen::<f64>() < (-delta / temp).exp() {
            e.commit();
            current += delta;
            accepted += 1;
        } else {
            e.revert();
        }
    }
    (current, format!("{done} moves, {accepted} accepted, seed {}", opts.seed))
}

/// A slot to move rank `a` to: a random slot, or one on a node one link from a partner's node.
fn target(e: &impl Energy, topo: &Topology, a: u32, rng: &mut impl Rng, near: &mut Vec<NodeId>) -> u32 {
    let s = e.slots();
    let slots = s.rank_at.len() as u32;
    let partners = e.partners(a);
    if partners.is_empty() || rng.gen::<bool>() {
        return rng.gen_range(0..slots);
    }
    let (x, _) = partners[rng.gen_range(0..partners.len())];
    let nx = NodeId(s.node(s.slot_of[x as usize]));
    near.clear();
    if let Topology::Torus(t) = topo {
        for ax in 0..t.dims() {
            for d in [1, -1] {
                if let Some(m) = t.step(nx, ax, d) {
                    near.push(m);
                }
            }
        }
    }
    if near.is_empty() {
        return rng.gen_range(0..slots);
    }
    let node = near[rng.gen_range(0..near.len())].0;
    if s.per_node > 1 {
        node * s.per_node + rng.gen_range(0..s.per_node)
    } else {
        node
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_topology::Torus;

    #[test]
    fn annealing_a_shuffled_ring_finds_a_cheaper_map_and_repeats_for_a_seed() {
        let topo = Topology::Torus(Torus::new(vec![16], None, None).unwrap());
        let p = crate::generate::simple::ring(16, 10);
        let start: Vec<NodeId> = (0..16).map(|r| NodeId((r * 5) % 16)).collect();
        let before = cost::hop_bytes(&topo, &p, &start);
        let opts = Options { seed: 3, iterations: 20_000, budget: None, block: 4, per_node: 1 };
        let a = anneal(&topo, &p, &start, &opts);
        assert_eq!(a.hop_bytes, cost::hop_bytes(&topo, &p, &a.map), "the incremental cost is the true cost");
        assert!(a.hop_bytes < before, "{} vs {before}", a.hop_bytes);
        assert_eq!(a.hop_bytes, 160, "a ring on a ring: one hop per message");
        assert_eq!(anneal(&topo, &p, &start, &opts).map, a.map, "same seed, same map");
        // Too few ranks for block moves: swaps only, no panic.
        let two = crate::generate::simple::ring(3, 10);
        let start: Vec<NodeId> = (0..3).map(|r| NodeId(r * 5)).collect();
        let a = anneal(&topo, &two, &start, &Options { seed: 1, iterations: 1000, budget: None, block: 8, per_node: 1 });
        assert_eq!(a.hop_bytes, cost::hop_bytes(&topo, &two, &a.map));
    }
}

//! Simulated annealing over rank orders (RMATT-style): start from a map, propose moves, accept
//! every move that lowers hop-bytes and a worsening one of `delta` with probability
//! `exp(-delta / T)`, the temperature `T` falling geometrically from `T0` to `T0 / 1000` over the
//! iterations. `T0` is the mean worsening of 256 random swaps (a random rank to a random node) tried on the
//! start: hot enough to leave a good start's basin early on, which measured better on NAS CG than
//! a start from the smaller worsening of targeted moves.
//!
//! Moves: nine in ten swap a random rank with the rank on another node (or move it there when
//! the node is free): half the time a random node, half the time a node one link from the node
//! of one of its partners (a targeted move); one in ten swaps two blocks of up to `block`
//! consecutive ranks. A move's cost changes only through the flows of the ranks it moves, so
//! it is priced in O(degree), never O(flows).
//!
//! The answer depends only on the seed and the iteration count; a time budget stops early
//! (then the answer depends on the machine's speed: give `iterations` for reproducible maps).

use super::Mapped;
use crate::{cost, Pattern};
use fabricsim_core::{NodeId, RngStreams};
use fabricsim_topology::Topology;
use rand::Rng;
use std::time::{Duration, Instant};

const FREE: u32 = u32::MAX;

/// Annealing options.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seed of the move stream.
    pub seed: u64,
    /// Moves to propose (0: 2,000 per rank).
    pub iterations: u64,
    /// Stop early after this long.
    pub budget: Option<Duration>,
    /// Largest block of a block move (below 2: no block moves).
    pub block: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options { seed: 1, iterations: 0, budget: None, block: 8 }
    }
}

/// The annealing state: each rank's node and each node's rank.
struct State<'a> {
    topo: &'a Topology,
    nb: crate::pattern::Neighbours,
    node_of: Vec<u32>,
    rank_at: Vec<u32>,
}

impl State<'_> {
    /// Change in hop-bytes if rank `a` moved to node `n` (swapping with its rank, if any).
    fn delta(&self, a: u32, n: u32) -> i64 {
        let na = self.node_of[a as usize];
        if na == n {
            return 0;
        }
        let b = self.rank_at[n as usize];
        let d = |x: u32, y: u32| self.topo.distance(NodeId(x), NodeId(y)) as i64;
        let mut delta = 0i64;
        for &(x, w) in self.nb.of(a) {
            if x != b {
                let nx = self.node_of[x as usize];
                delta += w as i64 * (d(n, nx) - d(na, nx));
            }
        }
        if b != FREE {
            for &(x, w) in self.nb.of(b) {
                if x != a {
                    let nx = self.node_of[x as usize];
                    delta += w as i64 * (d(na, nx) - d(n, nx));
                }
            }
        }
        delta
    }

    /// Move rank `a` to node `n`, swapping with its rank, if any.
    fn apply(&mut self, a: u32, n: u32) {
        let na = self.node_of[a as usize];
        let b = self.rank_at[n as usize];
        self.node_of[a as usize] = n;
        self.rank_at[n as usize] = a;
        self.rank_at[na as usize] = b;
        if b != FREE {
            self.node_of[b as usize] = na;
        }
    }
}

/// Anneal from `start` (node of every rank, one rank per node).
pub fn anneal(topo: &Topology, pattern: &Pattern, start: &[NodeId], opts: &Options) -> Mapped {
    let began = Instant::now();
    let ranks = pattern.ranks();
    let nodes = topo.nodes();
    let mut s = State { topo, nb: pattern.neighbours(), node_of: start.iter().map(|n| n.0).collect(), rank_at: vec![FREE; nodes as usize] };
    for (r, &n) in s.node_of.iter().enumerate() {
        s.rank_at[n as usize] = r as u32;
    }
    let start_cost = cost::hop_bytes(topo, pattern, start) as i64;
    let mut rng = RngStreams::new(opts.seed).stream(7, 0);
    let iterations = if opts.iterations == 0 { 2000 * ranks as u64 } else { opts.iterations };
    let (mut sum, mut count) = (0f64, 0u32);
    for _ in 0..256 {
        let d = s.delta(rng.gen_range(0..ranks), rng.gen_range(0..nodes));
        if d > 0 {
            sum += d as f64;
            count += 1;
        }
    }
    let t0 = if count == 0 { 1.0 } else { sum / count as f64 };
    let cool = (1e-3f64).ln() / iterations.max(1) as f64;
    let mut near = Vec::with_capacity(16);
    let mut undo: Vec<(u32, u32)> = Vec::new();
    let (mut current, mut accepted, mut done) = (start_cost, 0u64, 0u64);
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
            let n = target(&s, a, &mut rng, &mut near);
            let d = s.delta(a, n);
            if d <= 0 || rng.gen::<f64>() < (-(d as f64) / temp).exp() {
                s.apply(a, n);
                current += d;
                accepted += 1;
            }
            continue;
        } else {
            let (a, c) = (rng.gen_range(0..=ranks - block), rng.gen_range(0..=ranks - block));
            if a.abs_diff(c) < block {
                continue;
            }
            undo.clear();
            let mut d = 0;
            for k in 0..block {
                let (x, y) = (a + k, c + k);
                let (nx, ny) = (s.node_of[x as usize], s.node_of[y as usize]);
                d += s.delta(x, ny);
                s.apply(x, ny);
                undo.push((x, nx));
            }
            d
        };
        if delta <= 0 || rng.gen::<f64>() < (-(delta as f64) / temp).exp() {
            current += delta;
            accepted += 1;
        } else {
            for &(x, n) in undo.iter().rev() {
                s.apply(x, n);
            }
        }
    }
    let (map, hop_bytes) =
        if current < start_cost { (s.node_of.into_iter().map(NodeId).collect(), current as u64) } else { (start.to_vec(), start_cost as u64) };
    Mapped { map, hop_bytes, detail: format!("{done} moves, {accepted} accepted, seed {}", opts.seed) }
}

/// A node to move rank `a` to: a random node, or one link from a partner's node.
fn target(s: &State, a: u32, rng: &mut impl Rng, near: &mut Vec<NodeId>) -> u32 {
    let nodes = s.rank_at.len() as u32;
    let partners = s.nb.of(a);
    if partners.is_empty() || rng.gen::<bool>() {
        return rng.gen_range(0..nodes);
    }
    let (x, _) = partners[rng.gen_range(0..partners.len())];
    let nx = NodeId(s.node_of[x as usize]);
    near.clear();
    if let Topology::Torus(t) = s.topo {
        for ax in 0..t.dims() {
            for d in [1, -1] {
                if let Some(m) = t.step(nx, ax, d) {
                    near.push(m);
                }
            }
        }
    }
    if near.is_empty() {
        return rng.gen_range(0..nodes);
    }
    near[rng.gen_range(0..near.len())].0
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
        let opts = Options { seed: 3, iterations: 20_000, budget: None, block: 4 };
        let a = anneal(&topo, &p, &start, &opts);
        assert_eq!(a.hop_bytes, cost::hop_bytes(&topo, &p, &a.map), "the incremental cost is the true cost");
        assert!(a.hop_bytes < before, "{} vs {before}", a.hop_bytes);
        assert_eq!(a.hop_bytes, 160, "a ring on a ring: one hop per message");
        assert_eq!(anneal(&topo, &p, &start, &opts).map, a.map, "same seed, same map");
        // Too few ranks for block moves: swaps only, no panic.
        let two = crate::generate::simple::ring(3, 10);
        let start: Vec<NodeId> = (0..3).map(|r| NodeId(r * 5)).collect();
        let a = anneal(&topo, &two, &start, &Options { seed: 1, iterations: 1000, budget: None, block: 8 });
        assert_eq!(a.hop_bytes, cost::hop_bytes(&topo, &two, &a.map));
    }
}

//! Annealing on the exact link-load model ([`crate::cost::link_loads`]): the energy is
//!
//! ```text
//! E = max_link + sum(load^2) / sum(load at the start)
//! ```
//!
//! the busiest link's bytes under the machine's own routing plus the load-weighted mean load
//! (at the start; the denominator stays fixed so the term is a plain sum of squares). The first
//! term is what the objective is about; it is flat over most moves (only a move touching a
//! busiest link changes it), and the second, smooth term rewards taking bytes off every loaded
//! link, so annealing has a slope to follow between the steps of the first.
//!
//! Incremental: a move re-routes only the flows of the ranks it moves. Their old routes'
//! shares are taken off the links, the ranks swapped, the new routes' shares put on; every
//! changed link updates the maximum of its block of 64 links and the sum of squares; the busiest
//! link is the largest block maximum. A move costs O(degree x path length + links / 64), never
//! O(flows). A rejected move is taken back by
//! restoring the links it changed from a log.
//!
//! Annealing starts a hundred times cooler than on hop-bytes (see `T0_SCALE`) and proposes
//! 200 moves per rank by default (a tenth of hop-bytes': each costs tens of microseconds).

use super::anneal::{Energy, Options, Slots, FREE};
use super::Mapped;
use crate::cost::link_load::Tracer;
use crate::{cost, Pattern};
use fabricsim_core::NodeId;
use fabricsim_routing::Routing;
use fabricsim_topology::{PortGraph, Topology};

/// The machine's link model: its port graph and routing.
#[derive(Clone, Copy)]
pub struct LinkModel<'a> {
    /// The port graph of the network.
    pub graph: &'a PortGraph,
    /// The routing the network runs.
    pub routing: &'a Routing,
}

/// Each rank's directed flows, the bytes of every (src, dst) pair summed: `(partner, bytes,
/// outgoing)`, compressed rows as [`crate::pattern::Neighbours`].
struct Directed {
    start: Vec<u32>,
    list: Vec<(u32, u64, bool)>,
}

impl Directed {
    fn new(pattern: &Pattern) -> Directed {
        let mut pairs: Vec<(u32, u32, u64)> =
            pattern.flows().iter().filter(|f| f.src != f.dst && f.bytes > 0).map(|f| (f.src, f.dst, f.bytes)).collect();
        pairs.sort_unstable_by_key(|&(s, d, _)| (s, d));
        pairs.dedup_by(|b, a| {
            let same = (a.0, a.1) == (b.0, b.1);
            if same {
                a.2 += b.2;
            }
            same
        });
        let mut rows: Vec<(u32, (u32, u64, bool))> = Vec::with_capacity(pairs.len() * 2);
        for &(s, d, b) in &pairs {
            rows.push((s, (d, b, true)));
            rows.push((d, (s, b, false)));
        }
        rows.sort_unstable_by_key(|&(r, (x, _, out))| (r, x, out));
        let mut start = vec![0u32; pattern.ranks() as usize + 1];
        for &(r, _) in &rows {
            start[r as usize + 1] += 1;
        }
        for r in 0..pattern.ranks() as usize {
            start[r + 1] += start[r];
        }
        Directed { start, list: rows.into_iter().map(|(_, e)| e).collect() }
    }
}

/// Link loads as an energy.
struct Links<'a> {
    model: LinkModel<'a>,
    nb: crate::pattern::Neighbours,
    flows: Directed,
    s: Slots,
    tracer: Tracer,
    /// Bytes on every port (global index).
    load: Vec<f64>,
    /// The largest load of every block of `BLOCK` ports.
    block_max: Vec<f64>,
    sumsq: f64,
    /// The fixed denominator of the smooth term.
    norm: f64,
    /// Changed ports with their loads before, and moved ranks with their slots before.
    log: Vec<(u32, f64)>,
    undo: Vec<(u32, u32)>,
    failed: Option<String>,
}

/// The first temperature as a share of the mean worsening of random swaps. Lower than
/// hop-bytes' 1: the energy's steps (a link becoming the busiest) are large beside the moves that
/// matter, and with the fewer moves this model affords a hot start ends scrambled (the 2,304-rank
/// halo of docs/mapping.md from its greedy map, 300,000 moves: busiest link 131,072 bytes from
/// the full mean worsening, 114,688 from a tenth, 98,304 from a hundredth).
const T0_SCALE: f64 = 0.01;

/// Ports a block of the busiest-link search holds.
const BLOCK: usize = 64;

impl<'a> Links<'a> {
    fn new(model: LinkModel<'a>, pattern: &Pattern, s: Slots) -> Result<Links<'a>, String> {
        let map = s.map();
        let loads = cost::link_loads(model.graph, model.routing, pattern, &map)?;
        let block_max = loads.bytes.chunks(BLOCK).map(|c| c.iter().copied().fold(0.0, f64::max)).collect();
        let total: f64 = loads.bytes.iter().sum();
        Ok(Links {
            model,
            nb: pattern.neighbours(),
            flows: Directed::new(pattern),
            s,
            tracer: Tracer::default(),
            sumsq: loads.bytes.iter().map(|b| b * b).sum(),
            load: loads.bytes,
            block_max,
            norm: if total > 0.0 { total } else { 1.0 },
            log: Vec::new(),
            undo: Vec::new(),
            failed: None,
        })
    }

    /// The busiest link's bytes.
    fn max(&self) -> f64 {
        self.block_max.iter().copied().fold(0.0, f64::max)
    }

    fn energy(&self) -> f64 {
        self.max() + self.sumsq / self.norm
    }

    /// Set port `p`'s load to `v` (its block's maximum and the sum of squares follow).
    fn set(&mut self, p: usize, v: f64) {
        let old = self.load[p];
        self.sumsq += v * v - old * old;
        self.load[p] = v;
        let b = p / BLOCK;
        if v >= self.block_max[b] {
            self.block_max[b] = v;
        } else if old >= self.block_max[b] {
            let end = (b * BLOCK + BLOCK).min(self.load.len());
            self.block_max[b] = self.load[b * BLOCK..end].iter().copied().fold(0.0, f64::max);
        }
    }

    /// Add (`sign` 1) or take off (-1) the flows of rank `a` (and of `b`, but those with `a`),
    /// at the ranks' present nodes.
    fn route(&mut self, a: u32, b: u32, sign: f64) {
        for r in [a, b] {
            if r == FREE {
                continue;
            }
            let row = self.flows.start[r as usize] as usize..self.flows.start[r as usize + 1] as usize;
            for i in row {
                let (x, bytes, out) = self.flows.list[i];
                if r == b && x == a {
                    continue;
                }
                let (nr, nx) = (self.s.node(self.s.slot_of[r as usize]), self.s.node(self.s.slot_of[x as usize]));
                if nr == nx {
                    continue;
                }
                let (src, dst) = if out { (nr, nx) } else { (nx, nr) };
                let mut changes = std::mem::take(&mut self.log);
                let start = changes.len();
                let w = sign * bytes as f64;
                let res =
                    self.tracer.trace(self.model.graph, self.model.routing, NodeId(src), NodeId(dst), |p, share| changes.push((p as u32, w * share)));
                if let Err(m) = res {
                    self.failed.get_or_insert(m);
                }
                // The deltas traced become (port, load before) entries of the log.
                for c in changes[start..].iter_mut() {
                    let before = self.load[c.0 as usize];
                    self.set(c.0 as usize, before + c.1);
                    c.1 = before;
                }
                self.log = changes;
            }
        }
    }
}

impl Energy for Links<'_> {
    fn slots(&self) -> &Slots {
        &self.s
    }
    fn partners(&self, a: u32) -> &[(u32, u64)] {
        self.nb.of(a)
    }
    fn apply(&mut self, a: u32, n: u32) -> f64 {
        let na = self.s.slot_of[a as usize];
        self.undo.push((a, na));
        if self.s.node(na) == self.s.node(n) {
            self.s.swap(a, n);
            return 0.0;
        }
        let before = self.energy();
        let b = self.s.rank_at[n as usize];
        self.route(a, b, -1.0);
        self.s.swap(a, n);
        self.route(a, b, 1.0);
        self.energy() - before
    }
    fn commit(&mut self) {
        self.log.clear();
        self.undo.clear();
    }
    fn revert(&mut self) {
        while let Some((p, v)) = self.log.pop() {
            self.set(p as usize, v);
        }
        while let Some((a, n)) = self.undo.pop() {
            self.s.swap(a, n);
        }
    }
}

/// What [`anneal_max_link`] found, with the model's numbers for the report and the tests.
#[derive(Debug, Clone)]
pub struct LinkAnnealed {
    /// The map, its hop-bytes and what annealing did.
    pub mapped: Mapped,
    /// The busiest link's bytes as the incremental model has them at the end.
    pub max: f64,
    /// The sum of squared link loads as the incremental model has it at the end.
    pub sumsq: f64,
}

/// Anneal the busiest link's load (see the module docs) from `start` (node of every rank, at
/// most `opts.per_node` ranks a node). Errors name a flow whose route does not end.
pub fn anneal_max_link(model: LinkModel, topo: &Topology, pattern: &Pattern, start: &[NodeId], opts: &Options) -> Result<LinkAnnealed, String> {
    let mut e = Links::new(model, pattern, Slots::new(start, topo.nodes(), opts.per_node))?;
    let (max0, sumsq0) = (e.max(), e.sumsq);
    let iterations = if opts.iterations == 0 { 200 * pattern.ranks() as u64 } else { opts.iterations };
    let (_, detail) = super::anneal::run(&mut e, topo, iterations, T0_SCALE, opts);
    if let Some(m) = e.failed.take() {
        return Err(m);
    }
    let (max, sumsq) = (e.max(), e.sumsq);
    // Keep the start unless the busiest link fell (or stayed, with less in all).
    let better = max < max0 * (1.0 - 1e-12) || (max <= max0 * (1.0 + 1e-12) && sumsq < sumsq0 * (1.0 - 1e-12));
    let (map, max, sumsq) = if better { (e.s.map(), max, sumsq) } else { (start.to_vec(), max0, sumsq0) };
    let hop_bytes = cost::hop_bytes(topo, pattern, &map);
    Ok(LinkAnnealed { mapped: Mapped { map, hop_bytes, detail: format!("max-link: {detail}") }, max, sumsq })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::Flow;
    use fabricsim_core::RngStreams;
    use fabricsim_routing::RoutingSpec;
    use fabricsim_topology::Torus;
    use proptest::prelude::*;
    use rand::Rng;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// After many moves, kept or taken back at random, the incremental loads, busiest link
        /// and sum of squares are those of the whole pattern routed again on the final map.
        #[test]
        fn incremental_loads_equal_a_full_recomputation(
            seed in any::<u64>(),
            dims in prop::collection::vec(2u32..=4, 2..=3),
            adaptive in any::<bool>(),
            per_node in 1u32..=2,
            flows in 10usize..60,
        ) {
            let topo = Topology::Torus(Torus::new(dims, None, None).unwrap());
            let graph = topo.build_graph(1);
            let spec = if adaptive { RoutingSpec::Adaptive(Default::default()) } else { RoutingSpec::DimensionOrder(Default::default()) };
            let routing = Routing::build(&spec, &topo, 1, if adaptive { 3 } else { 2 }).unwrap();
            let model = LinkModel { graph: &graph, routing: &routing };
            let mut rng = RngStreams::new(seed).stream(1, 0);
            let slots = topo.nodes() * per_node;
            let ranks = rng.gen_range(2..=slots);
            let list: Vec<Flow> =
                (0..flows).map(|_| Flow { src: rng.gen_range(0..ranks), dst: rng.gen_range(0..ranks), bytes: rng.gen_range(0..5000) }).collect();
            let p = Pattern::new(ranks, list, "t").unwrap();
            let start: Vec<NodeId> = (0..ranks).map(|r| NodeId(r / per_node)).collect();
            let mut e = Links::new(model, &p, Slots::new(&start, topo.nodes(), per_node)).unwrap();
            for _ in 0..400 {
                let (a, n) = (rng.gen_range(0..ranks), rng.gen_range(0..slots));
                let before = e.energy();
                let d = e.apply(a, n);
                prop_assert!((e.energy() - before - d).abs() <= 1e-6 * before.max(1.0));
                if rng.gen::<bool>() { e.commit() } else { e.revert() }
            }
            prop_assert!(e.failed.is_none());
            let full = cost::link_loads(&graph, &routing, &p, &e.s.map()).unwrap();
            let scale = full.max.max(1.0);
            for (port, (&inc, &all)) in e.load.iter().zip(&full.bytes).enumerate() {
                prop_assert!((inc - all).abs() <= 1e-9 * scale, "port {}: {} vs {}", port, inc, all);
            }
            prop_assert!((e.max() - full.max).abs() <= 1e-9 * scale);
            let sumsq: f64 = full.bytes.iter().map(|b| b * b).sum();
            prop_assert!((e.sumsq - sumsq).abs() <= 1e-9 * sumsq.max(1.0));
            // Every rank in its own slot, at most per_node a node.
            let mut held = vec![0u32; topo.nodes() as usize];
            for n in e.s.map() {
                held[n.index()] += 1;
            }
            prop_assert!(held.iter().all(|&h| h <= per_node));
        }
    }
}

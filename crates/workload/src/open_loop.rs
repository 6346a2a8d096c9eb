//! Open-loop synthetic traffic: each node creates single-packet messages as a Poisson process.
//! The rate is set so that wire bytes offered per node equal `load` times the node's injection
//! bandwidth (engines x engine bandwidth). Each node draws from its own random stream, so a
//! node's sequence of destinations and times does not depend on the rest of the network.

use crate::pattern::{Pattern, Shape};
use crate::WorkloadReport;
use fabricsim_core::rng::Stream;
use fabricsim_core::{RngStreams, Time};
use fabricsim_nic::{Api, Delivered, Rank, Workload};
use rand::Rng;

/// Open-loop Poisson traffic from every node (see the module docs).
pub struct OpenLoop {
    shape: Shape,
    pattern: Pattern,
    payload: u64,
    /// Mean gap between a node's messages, in ps.
    mean_gap_ps: f64,
    rngs: Vec<Stream>,
    /// Each node's next message, drawn one wake-up early: its destination (`None`: the
    /// pattern gives none) and the gap after it. A node's draws keep their order; drawing early
    /// lets the logarithm's latency overlap other work instead of delaying the timer it sets.
    next: Vec<(Option<Rank>, Time)>,
    /// Each node's destination when the pattern is a permutation (tabulated once: computing it
    /// takes a division per axis per message), else empty.
    fixed: Vec<Option<Rank>>,
    created: u64,
    /// Messages a node's NIC may hold waiting; a source that finds it full does not send (0: no
    /// limit).
    queue_limit: u32,
    /// Messages not sent because the NIC's queue was full.
    refused: u64,
}

impl OpenLoop {
    /// `wire_bytes` is the packet size on the wire, `payload` what it carries, and
    /// `node_injection_bytes_per_s` the node's injection bandwidth.
    pub fn new(shape: Shape, pattern: Pattern, load: f64, payload: u64, wire_bytes: u64, node_injection_bytes_per_s: f64, seeds: RngStreams) -> Self {
        let rate_per_ps = load * node_injection_bytes_per_s / 1e12 / wire_bytes as f64;
        let n = shape.nodes();
        let fixed = if pattern.is_permutation() {
            // A permutation draws nothing, so any generator will do.
            let mut rng = seeds.stream(0, 0);
            (0..n).map(|src| pattern.destination(&shape, Rank(src), &mut rng)).collect()
        } else {
            Vec::new()
        };
        OpenLoop {
            shape,
            pattern,
            payload,
            mean_gap_ps: if rate_per_ps > 0.0 { 1.0 / rate_per_ps } else { f64::INFINITY },
            rngs: (0..n).map(|i| seeds.stream(0, i as u64)).collect(),
            next: Vec::new(),
            fixed,
            created: 0,
            queue_limit: 0,
            refused: 0,
        }
    }

    /// Bound each node's NIC queue at `limit` messages (0: no bound): a source finding its
    /// NIC's queue full does not send, as back-pressure from a real NIC would stop it, and the
    /// message counts as refused. Keeps a saturated run's memory bounded.
    pub fn with_queue_limit(mut self, limit: u32) -> Self {
        self.queue_limit = limit;
        self
    }

    fn gap(&mut self, node: Rank) -> Time {
        let u: f64 = self.rngs[node.index()].gen::<f64>();
        let g = -(1.0 - u).ln() * self.mean_gap_ps;
        // Rounded half up (`g` is not negative): `f64::round` is a library call on baseline
        // x86-64.
        Time(((g + 0.5) as u64).max(1))
    }

    /// Draw `node`'s next message: destination, then the gap after it.
    #[inline(always)]
    fn draw(&mut self, node: Rank) -> (Option<Rank>, Time) {
        let dst =
            if self.fixed.is_empty() { self.pattern.destination(&self.shape, node, &mut self.rngs[node.index()]) } else { self.fixed[node.index()] };
        (dst, self.gap(node))
    }

    /// Messages created, nodes that send at all and messages refused by a full NIC queue.
    pub fn report(&self) -> WorkloadReport {
        let senders = if self.fixed.is_empty() { self.shape.nodes() } else { self.fixed.iter().filter(|d| d.is_some()).count() as u32 };
        WorkloadReport { messages: self.created, senders: Some(senders), refused: Some(self.refused), ..Default::default() }
    }
}

impl Workload for OpenLoop {
    fn start(&mut self, api: &mut Api) {
        if !self.mean_gap_ps.is_finite() {
            return;
        }
        // A second run of the same simulation starts over with fresh draws.
        self.next.clear();
        for node in (0..self.shape.nodes()).map(Rank) {
            let g = self.gap(node);
            api.wake_at(node, api.now() + g);
            let next = self.draw(node);
            self.next.push(next);
        }
    }

    fn wake(&mut self, node: Rank, api: &mut Api) {
        let (dst, g) = self.next[node.index()];
        self.next[node.index()] = self.draw(node);
        if let Some(dst) = dst {
            if self.queue_limit > 0 && api.queued(node) >= self.queue_limit {
                self.refused += 1;
            } else {
                api.send(node, dst, self.payload, 0);
                self.created += 1;
            }
        }
        api.wake_at(node, api.now() + g);
    }

    fn delivered(&mut self, _m: &Delivered, _api: &mut Api) {}

    fn hears_completions(&self) -> bool {
        false
    }

    fn saturated(&self) -> bool {
        self.refused > 0
    }

    fn partitionable(&self) -> bool {
        true
    }
}

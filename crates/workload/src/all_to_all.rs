//! All-to-all: node `i` sends one message to every other node, in the order its [`Schedule`]
//! gives. Each node keeps at most `window` messages outstanding, posting the next when one of
//! its own is delivered, so memory stays bounded on large machines; with
//! [`Schedule::AllAtOnce`] it posts them all at the start.

use crate::permutation::Permutation;
use crate::WorkloadReport;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Rank, Workload};

/// The order in which a node visits its destinations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// `(i + k) mod n` for `k = 1..n-1`: at every step the nodes' destinations form a
    /// permutation (the usual MPI schedule).
    Shifted,
    /// A random order per node, drawn from the seed (every node's order differs).
    Random {
        /// Seed the orders are drawn from.
        seed: u64,
    },
    /// The shifted order, every message posted at the start (no window).
    AllAtOnce,
}

/// An all-to-all exchange (see the module docs).
pub struct AllToAll {
    n: u32,
    /// A sampled exchange (see [`AllToAll::sampled`]): each node's destinations, `per_node`
    /// a node, in its order (empty: every other node, by the schedule).
    table: Vec<u32>,
    per_node: u32,
    schedule: Schedule,
    bytes: u64,
    window: u32,
    next_k: Vec<u32>,
    remaining: u64,
    total: u64,
    last: Time,
}

impl AllToAll {
    /// A full all-to-all among ranks `0..nodes` (at least 1): one Put of `bytes` from each
    /// rank to every other, in the order `schedule` gives, at most `window` outstanding per
    /// rank (at least 1; [`Schedule::AllAtOnce`] posts them all).
    pub fn new(nodes: u32, bytes: u64, window: u32, schedule: Schedule) -> Self {
        let total = nodes as u64 * (nodes as u64 - 1);
        let window = if schedule == Schedule::AllAtOnce { nodes } else { window.max(1) };
        AllToAll {
            n: nodes,
            table: Vec::new(),
            per_node: nodes - 1,
            schedule,
            bytes,
            window,
            next_k: vec![1; nodes as usize],
            remaining: total,
            total,
            last: Time::ZERO,
        }
    }

    /// A sampled all-to-all: node `i` sends to `table[i * k .. (i + 1) * k]`, in that order
    /// (a window at a time, as the whole exchange), `k = table.len() / nodes`. The caller picks
    /// the sample; `fabricsim` takes a set of torus translations, so every link of a direction
    /// carries the same load, as in the whole exchange.
    pub fn sampled(nodes: u32, bytes: u64, window: u32, table: Vec<u32>) -> Self {
        let k = (table.len() / nodes as usize) as u32;
        assert!(k >= 1 && table.len() == (k * nodes) as usize, "a destination table of k per node");
        let total = nodes as u64 * k as u64;
        AllToAll { table, per_node: k, remaining: total, total, ..AllToAll::new(nodes, bytes, window, Schedule::Shifted) }
    }

    /// The `k`-th destination (`k = 1..n-1`) of node `src`.
    pub fn destination(&self, src: u32, k: u32) -> u32 {
        if !self.table.is_empty() {
            return self.table[((src * self.per_node) + k - 1) as usize];
        }
        let shift = match self.schedule {
            Schedule::Shifted | Schedule::AllAtOnce => k,
            // A permutation of the shifts 1..n-1, its own for each node.
            Schedule::Random { seed } => 1 + Permutation::new(self.n - 1, seed ^ (src as u64) << 32).apply(k - 1),
        };
        (src + shift) % self.n
    }

    fn post(&mut self, src: Rank, api: &mut Api) {
        let k = self.next_k[src.index()];
        if k <= self.per_node {
            self.next_k[src.index()] += 1;
            api.send(src, Rank(self.destination(src.0, k)), self.bytes, 0);
        }
    }

    /// Time of the last delivery so far, payload throughput up to it (`None` before it) and
    /// the messages delivered.
    pub fn report(&self) -> WorkloadReport {
        let secs = self.last.as_secs_f64();
        let done = self.total - self.remaining;
        WorkloadReport {
            completion_ns: Some(self.last.as_ns_f64()),
            throughput_gb_per_s: (secs > 0.0).then(|| (done * self.bytes) as f64 / secs / 1e9),
            messages: done,
            ..Default::default()
        }
    }
}

impl Workload for AllToAll {
    fn start(&mut self, api: &mut Api) {
        for src in 0..self.n {
            for _ in 0..self.window {
                self.post(Rank(src), api);
            }
        }
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.remaining -= 1;
        self.last = m.delivered;
        self.post(m.src, api);
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schedule_visits_every_other_node_once() {
        for schedule in [Schedule::Shifted, Schedule::Random { seed: 3 }, Schedule::AllAtOnce] {
            let a = AllToAll::new(37, 8, 4, schedule);
            for src in 0..37 {
                let mut seen: Vec<u32> = (1..37).map(|k| a.destination(src, k)).collect();
                seen.sort_unstable();
                assert_eq!(seen, (0..37).filter(|&d| d != src).collect::<Vec<_>>(), "{schedule:?}");
            }
        }
        // A sampled exchange follows its table.
        let s = AllToAll::sampled(3, 8, 4, vec![1, 2, 2, 0, 0, 1]);
        assert_eq!((s.total, s.destination(0, 2), s.destination(2, 1)), (6, 2, 0));
        // Random orders differ between nodes (shifted ones are the same shifts).
        let r = AllToAll::new(37, 8, 4, Schedule::Random { seed: 3 });
        let shifts = |src: u32| (1..37).map(|k| (r.destination(src, k) + 37 - src) % 37).collect::<Vec<_>>();
        assert_ne!(shifts(0), shifts(1));
    }
}

//! All-to-all: node `i` sends one message to every other node, in the order its [`Schedule`]
//! gives. Each node keeps at most `window` messages outstanding, posting the next when one of
//! its own is delivered, so memory stays bounded on large machines; with
//! [`Schedule::AllAtOnce`] it posts them all at the start.
//!
//! With a chunk size ([`AllToAll::in_chunks`]) each message goes as Puts of at most that many
//! bytes, in rounds: a node sends the first chunk to each destination in its order, then the
//! second to each, and so on, as Blue Gene/Q's SPI all-to-all example cuts its messages into
//! 2 KB windows. Every destination then receives from every node throughout the exchange.

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
    /// Bytes per Put (`bytes`: one Put per message) and rounds of Puts per message.
    chunk: u64,
    rounds: u32,
    window: u32,
    /// Each node's next Put: round `i / per_node`, destination `i % per_node + 1`.
    next_k: Vec<u32>,
    /// Puts not yet delivered, of `total`, and bytes delivered.
    remaining: u64,
    total: u64,
    done_bytes: u64,
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
            chunk: bytes,
            rounds: 1,
            window,
            next_k: vec![0; nodes as usize],
            remaining: total,
            total,
            done_bytes: 0,
            last: Time::ZERO,
        }
    }

    /// Send each message as Puts of at most `chunk` bytes (at least 1), a round of one chunk
    /// per destination at a time (see the module docs). The window counts Puts; with
    /// [`Schedule::AllAtOnce`] every Put is posted at the start.
    pub fn in_chunks(mut self, chunk: u64) -> Self {
        self.chunk = chunk.clamp(1, self.bytes.max(1));
        self.rounds = self.bytes.div_ceil(self.chunk).max(1) as u32;
        let puts = self.per_node as u64 * self.rounds as u64;
        (self.total, self.remaining) = (self.n as u64 * puts, self.n as u64 * puts);
        if self.schedule == Schedule::AllAtOnce {
            self.window = puts.min(u32::MAX as u64) as u32;
        }
        self
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
        let i = self.next_k[src.index()];
        if (i as u64) < self.per_node as u64 * self.rounds as u64 {
            self.next_k[src.index()] += 1;
            let (round, k) = (i / self.per_node, i % self.per_node + 1);
            let size = self.chunk.min(self.bytes - round as u64 * self.chunk);
            api.send(src, Rank(self.destination(src.0, k)), size, 0);
        }
    }

    /// Time of the last delivery so far, payload throughput up to it (`None` before it) and
    /// the messages delivered.
    pub fn report(&self) -> WorkloadReport {
        let secs = self.last.as_secs_f64();
        let done = self.total - self.remaining;
        WorkloadReport {
            completion_ns: Some(self.last.as_ns_f64()),
            throughput_gb_per_s: (secs > 0.0).then(|| self.done_bytes as f64 / secs / 1e9),
            messages: done,
            ..Default::default()
        }
    }
}

impl Workload for AllToAll {
    fn start(&mut self, api: &mut Api) {
        let puts = self.per_node as u64 * self.rounds as u64;
        for src in 0..self.n {
            for _ in 0..(self.window as u64).min(puts) {
                self.post(Rank(src), api);
            }
        }
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.remaining -= 1;
        self.done_bytes += m.bytes;
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

    #[test]
    fn chunks_go_round_by_round_to_every_destination() {
        // 5 KB in 2 KB chunks: rounds of 2, 2 and 1 KB, each round one Put per destination,
        // one Put outstanding per node (the next follows each delivery).
        let mut a = AllToAll::new(4, 5000, 1, Schedule::Random { seed: 9 }).in_chunks(2000);
        let mut nic = fabricsim_nic::mock::MockNic::new(4);
        nic.start(&mut a);
        let mut i = 0;
        while i < nic.posted.len() {
            nic.deliver(&mut a, i);
            i += 1;
        }
        assert!(a.finished(), "4 nodes x 3 destinations x 3 rounds");
        let sent: Vec<(u32, u64)> = nic.posted.iter().filter(|(_, m)| m.src.0 == 2).map(|(_, m)| (m.dst.0, m.bytes)).collect();
        let order: Vec<u32> = (1..4).map(|k| a.destination(2, k)).collect();
        let expect: Vec<(u32, u64)> = [2000, 2000, 1000].iter().flat_map(|&b| order.iter().map(move |&d| (d, b))).collect();
        assert_eq!(sent, expect);
        assert_eq!(a.report().messages, 36);
        assert_eq!(a.done_bytes, 4 * 3 * 5000);
    }
}

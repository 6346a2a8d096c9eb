//! All-to-all: node `i` sends one message to each `(i + k) mod n`, `k = 1..n-1`, in that order
//! (the shifted schedule that spreads destinations). Each node keeps at most `window` messages
//! outstanding, posting the next when one of its own is delivered, so memory stays bounded on
//! large machines.

use crate::WorkloadReport;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Rank, Workload};

pub struct AllToAll {
    n: u32,
    bytes: u64,
    window: u32,
    next_k: Vec<u32>,
    remaining: u64,
    total: u64,
    last: Time,
}

impl AllToAll {
    pub fn new(nodes: u32, bytes: u64, window: u32) -> Self {
        let total = nodes as u64 * (nodes as u64 - 1);
        AllToAll { n: nodes, bytes, window: window.max(1), next_k: vec![1; nodes as usize], remaining: total, total, last: Time::ZERO }
    }

    fn post(&mut self, src: Rank, api: &mut Api) {
        let k = self.next_k[src.index()];
        if k < self.n {
            self.next_k[src.index()] += 1;
            api.send(src, Rank((src.0 + k) % self.n), self.bytes, 0);
        }
    }

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

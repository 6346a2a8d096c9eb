//! Single-stream throughput: `count` messages from `src` to `dst`, all posted at time zero so the
//! NIC keeps its engines busy. Throughput is payload delivered over the time from the start to
//! the last byte's arrival.

use crate::WorkloadReport;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Rank, Workload};

/// One stream of Puts between two ranks (see the module docs).
pub struct Throughput {
    src: Rank,
    dst: Rank,
    bytes: u64,
    count: u64,
    delivered: u64,
    last: Time,
}

impl Throughput {
    /// `count` Puts (at least 1) of `bytes` from `src` to `dst`, tagged `0..count`.
    pub fn new(src: Rank, dst: Rank, bytes: u64, count: u64) -> Self {
        Throughput { src, dst, bytes, count: count.max(1), delivered: 0, last: Time::ZERO }
    }

    /// Payload throughput from time zero to the last delivery so far (`None` before it), the
    /// time of that delivery and the messages posted (all of them, at the start).
    pub fn report(&self) -> WorkloadReport {
        let secs = self.last.as_secs_f64();
        WorkloadReport {
            throughput_gb_per_s: (secs > 0.0).then(|| (self.delivered * self.bytes) as f64 / secs / 1e9),
            completion_ns: Some(self.last.as_ns_f64()),
            messages: self.count,
            ..Default::default()
        }
    }
}

impl Workload for Throughput {
    fn start(&mut self, api: &mut Api) {
        for i in 0..self.count {
            api.send(self.src, self.dst, self.bytes, i);
        }
    }

    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        self.delivered += 1;
        self.last = m.delivered;
    }

    fn finished(&self) -> bool {
        self.delivered == self.count
    }
}

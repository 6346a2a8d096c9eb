//! Ping-pong: a message goes from `a` to `b`, and as soon as it has fully arrived `b` sends one
//! back, `iterations` round trips in all. Each leg starts on an idle network, so the mean of the
//! legs is the one-way latency (the usual half round trip).

use crate::WorkloadReport;
use fabricsim_core::NodeId;
use fabricsim_network::{Api, Delivered, Workload};

pub struct PingPong {
    a: NodeId,
    b: NodeId,
    bytes: u64,
    legs_left: u64,
    sum_ps: u128,
    legs: u64,
}

impl PingPong {
    pub fn new(a: NodeId, b: NodeId, bytes: u64, iterations: u64) -> Self {
        PingPong { a, b, bytes, legs_left: 2 * iterations.max(1), sum_ps: 0, legs: 0 }
    }

    pub fn report(&self) -> WorkloadReport {
        WorkloadReport {
            one_way_latency_ns: (self.legs > 0).then(|| self.sum_ps as f64 / self.legs as f64 / 1e3),
            messages: self.legs,
            ..Default::default()
        }
    }
}

impl Workload for PingPong {
    fn start(&mut self, api: &mut Api) {
        api.send(self.a, self.b, self.bytes, 0);
        self.legs_left -= 1;
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.sum_ps += (m.delivered - m.created).ps() as u128;
        self.legs += 1;
        if self.legs_left > 0 {
            self.legs_left -= 1;
            let back = if m.dst == self.b { self.a } else { self.b };
            api.send(m.dst, back, self.bytes, 0);
        }
    }

    fn finished(&self) -> bool {
        self.legs_left == 0
    }
}

//! RDMA Get: the initiator posts a Get of `bytes` from the target; its request (one 64-byte
//! descriptor) travels to the target, whose NIC sends the data back by itself (the target's
//! workload is not involved). The latency of a Get runs from its posting to the last data
//! byte's delivery. `iterations` Gets run one after another on an idle network.

use crate::WorkloadReport;

use fabricsim_nic::{Api, Delivered, Message, Op, Rank, Workload};

/// Size of a Get request on the wire (payload): one descriptor.
pub const REQUEST_BYTES: u64 = fabricsim_nic::GET_REQUEST_BYTES;

/// Gets by one rank from another, one after another (see the module docs).
pub struct RdmaGet {
    initiator: Rank,
    target: Rank,
    bytes: u64,
    left: u64,
    total: u64,
    sum_ps: u128,
    done: u64,
}

impl RdmaGet {
    /// `iterations` Gets (at least 1) of `bytes` by `initiator` from `target`.
    pub fn new(initiator: Rank, target: Rank, bytes: u64, iterations: u64) -> Self {
        let total = iterations.max(1);
        RdmaGet { initiator, target, bytes, left: total, total, sum_ps: 0, done: 0 }
    }

    /// Mean latency of the completed Gets (in `one_way_latency_ns`; `None` before the first)
    /// and the messages they moved: two per Get, request and data.
    pub fn report(&self) -> WorkloadReport {
        WorkloadReport {
            one_way_latency_ns: (self.done > 0).then(|| self.sum_ps as f64 / self.done as f64 / 1e3),
            messages: 2 * self.done,
            ..Default::default()
        }
    }

    fn issue(&mut self, api: &mut Api) {
        self.left -= 1;
        api.post(Message::get(self.initiator, self.target, self.bytes));
    }
}

impl Workload for RdmaGet {
    fn start(&mut self, api: &mut Api) {
        self.issue(api);
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        debug_assert_eq!((m.op, m.src, m.dst), (Op::Get, self.initiator, self.target));
        self.sum_ps += (m.delivered - m.created).ps() as u128;
        self.done += 1;
        if self.left > 0 {
            self.issue(api);
        }
    }

    /// Every Get has completed (the network also waits for nothing in flight, which hid that
    /// this once said yes with the last Get still under way).
    fn finished(&self) -> bool {
        self.done == self.total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_core::Time;
    use fabricsim_nic::mock::MockNic;

    #[test]
    fn gets_run_one_after_another_against_a_mock_nic() {
        let (mut nic, mut w) = (MockNic::new(4), RdmaGet::new(Rank(0), Rank(3), 4096, 2));
        nic.start(&mut w);
        assert_eq!(nic.posted.len(), 1);
        assert_eq!(nic.posted[0].1, Message::get(Rank(0), Rank(3), 4096));
        nic.now = Time::from_ns(500);
        nic.deliver(&mut w, 0);
        assert_eq!(nic.posted.len(), 2, "the second Get follows the first");
        assert!(!w.finished());
        nic.now = Time::from_ns(1300);
        nic.deliver(&mut w, 1);
        assert!(w.finished());
        assert_eq!(w.report().one_way_latency_ns, Some((500.0 + 800.0) / 2.0));
    }
}

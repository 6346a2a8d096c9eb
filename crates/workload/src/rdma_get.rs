//! RDMA Get: the initiator sends a small request (a 64-byte descriptor, as in BG/Q's remote get
//! whose payload is descriptors) to the target; when it has arrived, the target's NIC sends the
//! requested data back. The latency of a Get runs from the request's creation to the last data
//! byte's delivery. `iterations` Gets run one after another on an idle network.

use crate::WorkloadReport;
use fabricsim_core::{NodeId, Time};
use fabricsim_network::{Api, Delivered, Workload};

/// Size of a Get request on the wire (payload): one descriptor.
pub const REQUEST_BYTES: u64 = 64;
const TAG_REQUEST: u64 = 1;
const TAG_DATA: u64 = 2;

pub struct RdmaGet {
    initiator: NodeId,
    target: NodeId,
    bytes: u64,
    left: u64,
    started: Time,
    sum_ps: u128,
    done: u64,
}

impl RdmaGet {
    pub fn new(initiator: NodeId, target: NodeId, bytes: u64, iterations: u64) -> Self {
        RdmaGet { initiator, target, bytes, left: iterations.max(1), started: Time::ZERO, sum_ps: 0, done: 0 }
    }

    pub fn report(&self) -> WorkloadReport {
        WorkloadReport {
            one_way_latency_ns: (self.done > 0).then(|| self.sum_ps as f64 / self.done as f64 / 1e3),
            messages: 2 * self.done,
            ..Default::default()
        }
    }

    fn issue(&mut self, api: &mut Api) {
        self.left -= 1;
        self.started = api.now();
        api.send(self.initiator, self.target, REQUEST_BYTES, TAG_REQUEST);
    }
}

impl Workload for RdmaGet {
    fn start(&mut self, api: &mut Api) {
        self.issue(api);
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        match m.tag {
            TAG_REQUEST => api.send(self.target, self.initiator, self.bytes, TAG_DATA),
            _ => {
                self.sum_ps += (m.delivered - self.started).ps() as u128;
                self.done += 1;
                if self.left > 0 {
                    self.issue(api);
                }
            }
        }
    }

    fn finished(&self) -> bool {
        self.left == 0 && self.done > 0
    }
}

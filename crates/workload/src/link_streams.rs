//! Streams pinned to links: each stream sends `messages` messages of `bytes` from a node out of
//! a given local network port to the neighbour behind it. Two benchmarks of the papers are sets
//! of such streams:
//! * simultaneous Puts in several directions (injection rate): one node, its first N ports;
//! * nearest-neighbour exchange on all links: one node sends on every port and every neighbour
//!   sends back over the same link, so the node sends and receives on all its links at once.
//!
//! Throughput is all payload delivered over the time until the last message arrived.

use crate::WorkloadReport;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Rank, Workload};

/// One stream: from `src` out of local port `port` to `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// The sending rank.
    pub src: Rank,
    /// Local network port of `src`'s router that the messages leave on (their first-hop hint).
    pub port: u8,
    /// The receiving rank, normally the neighbour behind `port`.
    pub dst: Rank,
}

/// A set of link-pinned streams (see the module docs).
pub struct LinkStreams {
    streams: Vec<Stream>,
    bytes: u64,
    messages: u64,
    remaining: u64,
    last: Time,
}

impl LinkStreams {
    /// `messages` Puts (at least 1) of `bytes` on each of `streams`, all posted at time zero.
    pub fn new(streams: Vec<Stream>, bytes: u64, messages: u64) -> Self {
        let messages = messages.max(1);
        let remaining = streams.len() as u64 * messages;
        LinkStreams { streams, bytes, messages, remaining, last: Time::ZERO }
    }

    /// Payload throughput up to the last delivery so far (`None` before it), the time of that
    /// delivery and the messages delivered.
    pub fn report(&self) -> WorkloadReport {
        let total = self.streams.len() as u64 * self.messages;
        let done = total - self.remaining;
        let secs = self.last.as_secs_f64();
        WorkloadReport {
            throughput_gb_per_s: (secs > 0.0).then(|| (done * self.bytes) as f64 / secs / 1e9),
            completion_ns: Some(self.last.as_ns_f64()),
            messages: done,
            ..Default::default()
        }
    }
}

impl Workload for LinkStreams {
    fn start(&mut self, api: &mut Api) {
        for _ in 0..self.messages {
            for s in &self.streams {
                api.send_via(s.src, s.port, s.dst, self.bytes, 0);
            }
        }
    }

    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        self.remaining -= 1;
        self.last = m.delivered;
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }
}

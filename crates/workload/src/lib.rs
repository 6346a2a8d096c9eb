//! Workloads: where traffic comes from.
//!
//! * [`OpenLoop`]: every node creates single-packet messages as a Poisson process at an offered
//!   load (fraction of the node's injection bandwidth) with destinations from a [`Pattern`].
//! * [`PingPong`]: one message bounces between two nodes; reports the one-way latency.
//! * [`Throughput`]: one node streams messages to another; reports delivered bandwidth.
//! * [`AllToAll`]: every node sends one message to every other node; reports completion time.
//! * [`RdmaGet`]: request to the target, data back; reports the Get latency.
//! * [`LinkStreams`]: streams pinned to links (simultaneous Puts, neighbour exchange).
//!
//! [`AnyWorkload`] is the closed set the facade builds from a scenario.

pub mod all_to_all;
pub mod link_streams;
pub mod open_loop;
pub mod pattern;
pub mod permutation;
pub mod pingpong;
pub mod rdma_get;
mod sphere;
pub mod throughput;

pub use all_to_all::{AllToAll, Schedule};
pub use link_streams::{Iterations, LinkStreams, Stream};
pub use open_loop::OpenLoop;
pub use pattern::{Pattern, Shape};
pub use pingpong::PingPong;
pub use rdma_get::RdmaGet;
pub use throughput::Throughput;

use fabricsim_nic::{Api, Delivered, Rank, Workload};
use serde::Serialize;

/// Workload-specific results (fields not meaningful for a workload are `None`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct WorkloadReport {
    /// Mean one-way latency of the ping-pong messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_way_latency_ns: Option<f64>,
    /// Delivered payload bandwidth of a stream or exchange, GB/s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throughput_gb_per_s: Option<f64>,
    /// Time until the last message of a closed workload arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_ns: Option<f64>,
    /// Messages the workload created.
    pub messages: u64,
    /// Open-loop traffic: nodes that send at all (a permutation may leave some idle, e.g. the
    /// diagonal of a transpose).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub senders: Option<u32>,
    /// Open-loop traffic: messages not sent because the node's NIC queue was full (the source
    /// was back-pressured: the network is saturated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<u64>,
}

impl WorkloadReport {
    /// The report of a workload run as copies over the blocks of a partitioned run, from the
    /// copies' reports (in block order): the counts add up, the rest is the first copy's.
    pub fn merged(reports: impl IntoIterator<Item = WorkloadReport>) -> WorkloadReport {
        let mut it = reports.into_iter();
        let mut r = it.next().unwrap_or_default();
        for o in it {
            r.messages += o.messages;
            r.refused = match (r.refused, o.refused) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
        }
        r
    }
}

/// Calls `$body` with `$w` bound to the workload inside `$self`, whatever its variant: the one
/// list of variants that every forwarding method below uses.
macro_rules! each_workload {
    ($self:expr, $w:ident => $body:expr) => {
        match $self {
            AnyWorkload::OpenLoop($w) => $body,
            AnyWorkload::PingPong($w) => $body,
            AnyWorkload::Throughput($w) => $body,
            AnyWorkload::AllToAll($w) => $body,
            AnyWorkload::LinkStreams($w) => $body,
            AnyWorkload::RdmaGet($w) => $body,
        }
    };
}

/// Any of the workloads: the closed set the facade builds from a scenario (a `match` forwards
/// each call, not a virtual call).
pub enum AnyWorkload {
    /// Open-loop synthetic traffic.
    OpenLoop(OpenLoop),
    /// A ping-pong between two ranks.
    PingPong(PingPong),
    /// One stream of messages between two ranks.
    Throughput(Throughput),
    /// An all-to-all exchange.
    AllToAll(AllToAll),
    /// Streams pinned to links.
    LinkStreams(LinkStreams),
    /// RDMA Gets from one rank.
    RdmaGet(RdmaGet),
}

impl AnyWorkload {
    /// The workload's results so far (see the `report` of each workload).
    pub fn report(&self) -> WorkloadReport {
        each_workload!(self, w => w.report())
    }
    /// Why the workload could not go on (the network refused what it asked for), if it could
    /// not.
    pub fn error(&self) -> Option<&str> {
        match self {
            AnyWorkload::LinkStreams(w) => w.error(),
            _ => None,
        }
    }
    /// Whether this workload runs until its work is done (rather than for a time window).
    pub fn is_closed(&self) -> bool {
        !matches!(self, AnyWorkload::OpenLoop(_))
    }
}

impl Workload for AnyWorkload {
    fn start(&mut self, api: &mut Api) {
        each_workload!(self, w => w.start(api))
    }
    fn wake(&mut self, node: Rank, api: &mut Api) {
        each_workload!(self, w => w.wake(node, api))
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        each_workload!(self, w => w.delivered(m, api))
    }
    fn sent(&mut self, m: &Delivered, api: &mut Api) {
        each_workload!(self, w => w.sent(m, api))
    }
    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        each_workload!(self, w => w.collective_done(rank, tag, api))
    }
    fn finished(&self) -> bool {
        each_workload!(self, w => w.finished())
    }
    fn wants_local_completion(&self) -> bool {
        each_workload!(self, w => w.wants_local_completion())
    }
    fn hears_completions(&self) -> bool {
        each_workload!(self, w => w.hears_completions())
    }
    fn saturated(&self) -> bool {
        each_workload!(self, w => w.saturated())
    }
    fn partitionable(&self) -> bool {
        each_workload!(self, w => w.partitionable())
    }
}

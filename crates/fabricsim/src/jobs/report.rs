//! What a run of several jobs reports for each job, and which job's bytes crossed each link.

use serde::Serialize;
use std::fmt::Write;

/// One job of a shared run: its time (or its messages' latency, for open-loop traffic) beside
/// the others and alone on the same nodes, and the slowdown.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobReport {
    pub name: String,
    /// Its workload's `type`.
    pub workload_type: String,
    pub nodes: u32,
    pub ranks: u32,
    pub start_ns: f64,
    /// A closed job: from its start until its last rank finished, beside the other jobs ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<f64>,
    /// ... and alone on the same nodes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone_time_ns: Option<f64>,
    /// Time over time alone (a closed job) or mean message latency over the same alone (open-loop
    /// traffic): 1 is no interference. `None`: nothing to compare (no message delivered).
    pub slowdown: Option<f64>,
    /// Messages delivered beside the other jobs, their payload bytes and latency (posting to
    /// delivery).
    pub messages: u64,
    pub bytes: u64,
    pub latency_mean_ns: f64,
    pub latency_max_ns: f64,
    /// The same mean alone.
    pub alone_latency_mean_ns: f64,
    /// Wire bytes its packets put on network links (from its run alone).
    pub link_bytes: u64,
}

/// The bytes a network link sent in the shared run, and each job's bytes over it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobLinkBytes {
    pub router: u32,
    pub port: u32,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<u32>>,
    /// Wire bytes the link sent in the shared run.
    pub bytes: u64,
    /// Wire bytes each job's packets put on it, in job order. The network does not tell a
    /// packet's job, so these come from each job's run alone: under a deterministic routing
    /// the same packets take the same links, and they add up to `bytes` when every job is
    /// closed; under adaptive routing they are the links the job takes on an idle network.
    pub jobs: Vec<u64>,
}

impl JobReport {
    /// The summary line.
    pub fn line(&self) -> String {
        let mut s =
            format!("job {:<9}{} on {} ranks, {} nodes, from {:.1} ns: ", self.name, self.workload_type, self.ranks, self.nodes, self.start_ns);
        match (self.time_ns, self.alone_time_ns) {
            (Some(t), Some(a)) => {
                let _ = write!(s, "{:.3} us (alone {:.3} us)", t / 1e3, a / 1e3);
            }
            _ => {
                let _ =
                    write!(s, "{} messages, latency mean {:.1} ns (alone {:.1} ns)", self.messages, self.latency_mean_ns, self.alone_latency_mean_ns);
            }
        }
        match self.slowdown {
            Some(x) => {
                let _ = write!(s, ", slowdown {x:.3}");
            }
            None => s.push_str(", slowdown -"),
        }
        s
    }
}

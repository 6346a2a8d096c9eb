//! Measurement and stopping: the outcome, the window, the counters, the stopping counts.

pub(crate) mod measure;
pub(crate) mod outcome;

use fabricsim_stats::{LatencyHistogram, PortCounters};
use outcome::Outcome;

/// Measurement and stopping: the outcome, the measurement window, counter snapshots, and the global counts the stopping rules reduce over.
pub(crate) struct Meter {
    pub(crate) last_progress: u64,
    pub(crate) in_network: u64,
    pub(crate) measured_outstanding: u64,
    pub(crate) window_start: u64,
    pub(crate) window_end: u64,
    pub(crate) out: Outcome,
    /// Latencies of measured one-packet messages with no receive overhead, where the message's
    /// latency is its packet's: recorded once here instead of in both of `out`'s histograms,
    /// and added to both when the run returns its outcome.
    pub(crate) single_latency: LatencyHistogram,
    /// Port counters when the measurement window began and ended (empty until then).
    pub(crate) counters_at_start: Vec<PortCounters>,
    pub(crate) counters_at_end: Vec<PortCounters>,
}

impl Meter {
    /// Nothing measured yet; the window is open until the run sets it.
    pub(crate) fn new() -> Self {
        Meter {
            last_progress: 0,
            in_network: 0,
            measured_outstanding: 0,
            window_start: 0,
            window_end: u64::MAX,
            counters_at_start: Vec::new(),
            counters_at_end: Vec::new(),
            single_latency: LatencyHistogram::new(),
            out: Outcome::empty(),
        }
    }

    /// A packet entered the network; the run makes progress at least until `until` (its head
    /// reaches the first router, its engine is free again).
    #[inline(always)]
    pub(crate) fn injected(&mut self, until: u64) {
        self.in_network += 1;
        self.out.packets_injected += 1;
        self.last_progress = self.last_progress.max(until);
    }

    /// The next time the run loop must look at the phase: the window's start or end while a
    /// snapshot is pending, then just past the hard end.
    pub(crate) fn next_phase(&self, hard_end: u64) -> u64 {
        let after_end = hard_end.saturating_add(1);
        if self.counters_at_start.is_empty() {
            self.window_start.min(after_end)
        } else if self.counters_at_end.is_empty() {
            self.window_end.min(after_end)
        } else {
            after_end
        }
    }
}

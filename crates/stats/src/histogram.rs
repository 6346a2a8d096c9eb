//! Latency histogram in picoseconds with 3 significant digits (hdrhistogram), summarised in ns.

use fabricsim_core::Time;
use hdrhistogram::Histogram;
use serde::Serialize;

/// A distribution of latencies: picosecond values bucketed to 3 significant digits, plus their
/// exact sum for the mean.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    h: Histogram<u64>,
    sum_ps: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self::new()
    }
}

/// One bucket of a latency distribution: the values up to `upper_ns` above the previous bucket's.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LatencyBucket {
    /// Upper bound of the bucket, ns (inclusive).
    pub upper_ns: f64,
    /// Values recorded in the bucket.
    pub count: u64,
}

/// Summary statistics in nanoseconds. All zero when nothing was recorded.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Default)]
pub struct LatencySummary {
    /// Values recorded.
    pub count: u64,
    /// Exact mean.
    pub mean: f64,
    /// Smallest value (to the histogram's 3 significant digits, as are the percentiles and `max`).
    pub min: f64,
    /// The median.
    pub p50: f64,
    /// The 90th percentile.
    pub p90: f64,
    /// The 99th percentile.
    pub p99: f64,
    /// The 99.9th percentile.
    pub p999: f64,
    /// Largest value.
    pub max: f64,
}

impl LatencyHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        LatencyHistogram { h: Histogram::new(3).expect("3 significant digits is valid"), sum_ps: 0 }
    }

    /// Record one latency `t` (zero is bucketed as 1 ps but counts as zero in the mean).
    #[inline]
    pub fn record(&mut self, t: Time) {
        // Auto-resizing histogram: recording cannot fail for u64 values.
        let _ = self.h.record(t.ps().max(1));
        self.sum_ps += t.ps() as u128;
    }

    /// Add every value recorded in `other`.
    pub fn merge(&mut self, other: &LatencyHistogram) {
        // Both auto-resize, so adding cannot fail.
        let _ = self.h.add(&other.h);
        self.sum_ps += other.sum_ps;
    }

    /// The recorded values as (a value of each non-empty bucket, its count), and their exact
    /// sum in ps: what [`LatencyHistogram::from_parts`] rebuilds the histogram from (to send it
    /// to another process).
    pub fn parts(&self) -> (Vec<(u64, u64)>, u128) {
        (self.h.iter_recorded().map(|v| (v.value_iterated_to(), v.count_at_value())).collect(), self.sum_ps)
    }

    /// The histogram whose [`LatencyHistogram::parts`] are `buckets` and `sum_ps`.
    pub fn from_parts(buckets: &[(u64, u64)], sum_ps: u128) -> Self {
        let mut h = Self::new();
        for &(v, n) in buckets {
            // Auto-resizing histogram: recording cannot fail for u64 values.
            let _ = h.h.record_n(v, n);
        }
        h.sum_ps = sum_ps;
        h
    }

    /// Number of values recorded.
    pub fn count(&self) -> u64 {
        self.h.len()
    }

    /// Exact mean (kept beside the histogram, not bucketed).
    pub fn mean(&self) -> Time {
        if self.h.is_empty() {
            Time::ZERO
        } else {
            Time((self.sum_ps / self.h.len() as u128) as u64)
        }
    }

    /// The distribution in buckets doubling in width from 1 ns: (upper bound in ns, count),
    /// empty buckets left out.
    pub fn buckets(&self) -> Vec<LatencyBucket> {
        if self.h.is_empty() {
            return Vec::new();
        }
        self.h
            .iter_log(1000, 2.0)
            .filter(|v| v.count_since_last_iteration() > 0)
            .map(|v| LatencyBucket { upper_ns: v.value_iterated_to() as f64 / 1000.0, count: v.count_since_last_iteration() })
            .collect()
    }

    /// Count, mean, extremes and percentiles in ns (all zero if nothing was recorded).
    pub fn summary(&self) -> LatencySummary {
        if self.h.is_empty() {
            return LatencySummary::default();
        }
        let ns = |ps: u64| ps as f64 / 1000.0;
        LatencySummary {
            count: self.h.len(),
            mean: self.sum_ps as f64 / self.h.len() as f64 / 1000.0,
            min: ns(self.h.min()),
            p50: ns(self.h.value_at_quantile(0.5)),
            p90: ns(self.h.value_at_quantile(0.9)),
            p99: ns(self.h.value_at_quantile(0.99)),
            p999: ns(self.h.value_at_quantile(0.999)),
            max: ns(self.h.max()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_values() {
        let mut h = LatencyHistogram::new();
        for v in 1..=100u64 {
            h.record(Time::from_ns(v));
        }
        let s = h.summary();
        assert_eq!(s.count, 100);
        assert!((s.mean - 50.5).abs() < 1e-9);
        assert!((s.p50 - 50.0).abs() < 0.1, "{}", s.p50);
        assert!((s.p99 - 99.0).abs() < 0.1, "{}", s.p99);
        assert!((s.max - 100.0).abs() < 0.1);
        assert_eq!(LatencyHistogram::new().summary().count, 0);
    }

    #[test]
    fn merging_equals_recording_everything_in_one() {
        let (mut all, mut a, mut b) = (LatencyHistogram::new(), LatencyHistogram::new(), LatencyHistogram::new());
        for v in 1..=300u64 {
            let t = Time(v * v * 37);
            all.record(t);
            if v % 3 == 0 {
                a.record(t)
            } else {
                b.record(t)
            }
        }
        a.merge(&b);
        assert_eq!(a.summary(), all.summary());
        assert_eq!(a.mean(), all.mean());
        a.merge(&LatencyHistogram::new());
        assert_eq!(a.count(), 300);
    }
}

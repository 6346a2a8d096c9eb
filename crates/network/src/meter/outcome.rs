//! What a run is asked for (its measurement window and stopping rules, [`RunLimits`]) and what
//! it reports ([`Outcome`]).

use fabricsim_core::Time;
use fabricsim_stats::LatencyHistogram;

/// Measurement window and stopping rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunLimits {
    /// Messages created before this are warm-up traffic and not measured.
    pub warmup: Time,
    /// Length of the measurement window that follows the warm-up.
    pub measure: Time,
    /// After the window, keep running (traffic continues) until every measured message has
    /// arrived, but at most this long.
    pub drain: Time,
}

impl RunLimits {
    /// The latest a run can go on: warm-up + window + drain (saturating).
    pub fn hard_end(&self) -> Time {
        Time(self.warmup.ps().saturating_add(self.measure.ps()).saturating_add(self.drain.ps()))
    }

    /// Refuse limits that could take the run past the event queue's horizon
    /// ([`fabricsim_engine::MAX_TIME`]); the error names `field`, the key that set them.
    pub fn check(&self, field: &str) -> Result<(), fabricsim_core::ConfigError> {
        let end = self.hard_end().ps();
        if end >= fabricsim_engine::MAX_TIME.ps() {
            return Err(fabricsim_core::ConfigError::new(
                field,
                format!(
                    "the run could last {:.0} s (warm-up + window + drain), beyond the {:.0} s the event queue holds",
                    end as f64 * 1e-12,
                    fabricsim_engine::MAX_TIME.ps() as f64 * 1e-12
                ),
            ));
        }
        Ok(())
    }
}

/// How a run ended and what it measured.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Simulated time at which the run ended.
    pub sim_time: Time,
    /// Events the event queue processed.
    pub events: u64,
    /// Packets handed from NICs to routers (and packets the collective hardware creates in the
    /// switches: switch agents' packets, multicast copies).
    pub packets_injected: u64,
    /// Packets that reached their NIC or switch agent (and multicast packets whose copies have
    /// all left: they end in their copies).
    pub packets_delivered: u64,
    /// Payload bytes delivered (whole run).
    pub bytes_delivered: u64,
    /// Messages whose last byte arrived (whole run; Get requests and data and the collective
    /// hardware's own messages included).
    pub messages_delivered: u64,
    /// Router traversals (grants at router outputs, ejection included).
    pub packet_hops: u64,
    /// Latency of measured messages, creation to last byte delivered.
    pub message_latency: LatencyHistogram,
    /// Latency of measured packets.
    pub packet_latency: LatencyHistogram,
    /// Payload bytes delivered inside the measurement window.
    pub window_bytes: u64,
    /// The part of `window_bytes` delivered in the window's first half (a ramp between the two
    /// halves means the run had not reached steady state).
    pub window_bytes_first_half: u64,
    /// Length of the measurement window the run covered (shorter than asked when the run
    /// ended before the window did).
    pub window: Time,
    /// Whether every measured message arrived (false: saturated, results biased).
    pub drained: bool,
    /// High-water mark of the packet slab (most packets alive at once).
    pub peak_packets: usize,
    /// High-water mark of the message slab (most messages alive at once).
    pub peak_messages: usize,
    /// Delivered packets of an adaptive routing that took the escape sub-network on the way.
    pub packets_escaped: u64,
    /// Packets lost on faulty links without protection (`link.protection = "none"`).
    pub packets_lost: u64,
}

impl Outcome {
    /// Nothing counted yet.
    pub(crate) fn empty() -> Self {
        Outcome {
            sim_time: fabricsim_core::Time::ZERO,
            events: 0,
            packets_injected: 0,
            packets_delivered: 0,
            bytes_delivered: 0,
            messages_delivered: 0,
            packet_hops: 0,
            message_latency: LatencyHistogram::new(),
            packet_latency: LatencyHistogram::new(),
            window_bytes: 0,
            window_bytes_first_half: 0,
            window: fabricsim_core::Time::ZERO,
            drained: true,
            peak_packets: 0,
            peak_messages: 0,
            packets_escaped: 0,
            packets_lost: 0,
        }
    }
}

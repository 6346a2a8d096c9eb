//! What a scenario says about faults and link protection: the `[faults]` section (lane error
//! process and scheduled events) and the `[link]` section (lanes and protection scheme),
//! deserialised straight into these types, and their checks (each error names its key).

use fabricsim_core::{Bytes, ConfigError, Time};
use serde::{Deserialize, Serialize};

/// `[faults]`: how lanes fail. Everything off by default (a perfect network).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FaultSpec {
    /// Random bit-error rate of every lane, in [0, 1). Default 0.
    pub lane_ber: f64,
    /// Error bursts per second on each lane (a Poisson process). Default 0.
    pub burst_rate: f64,
    /// How long a burst lasts: every frame slice a lane carries during it is corrupted.
    /// Default 0.
    pub burst_length: Time,
    /// Probability that a corrupted frame passes the CRC/FCS check undetected, in [0, 1].
    /// Default 0. Such a frame is delivered and counted as an undetected corruption.
    pub undetected: f64,
    /// Fault awareness: how long after a link goes down (or comes back) the routers at its
    /// ends learn of it from their neighbours' status packets. Until then adaptive routing may
    /// still choose the dead link (its packets then wait for it). Default 0.
    pub awareness: Time,
    /// Scheduled events (`[[faults.events]]`), in time order per link.
    pub events: Vec<FaultEvent>,
}

impl FaultSpec {
    /// Whether any fault is configured (otherwise the links are perfect and cost nothing).
    pub fn any(&self) -> bool {
        self.lane_ber > 0.0 || (self.burst_rate > 0.0 && self.burst_length > Time::ZERO) || !self.events.is_empty()
    }
}

/// One scheduled event: `at` a time, `kind`, on `link` (or, for `node_down`, at `node`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FaultEvent {
    /// When it happens.
    pub at: Time,
    /// What happens.
    pub kind: EventKind,
    /// The link (for lane and link events): node coordinates, axis and direction, or a port id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<LinkRef>,
    /// The node (for `node_down`): its coordinates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<Vec<u32>>,
    /// The lane (for `lane_down`, `lane_up`). Default: the link's last lane.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane: Option<u32>,
}

/// `faults.events[].kind`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// One lane of one direction of a link goes dark.
    LaneDown,
    /// It comes back.
    LaneUp,
    /// Both directions of a link go down.
    LinkDown,
    /// They come back.
    LinkUp,
    /// A node fails: every link of its router, both directions, for good.
    NodeDown,
}

/// A link by the node at its sending end, the axis and the direction (`"+"` or `"-"`), or by
/// the global id of its sending port (`fabricsim info` lists ports).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkRef {
    /// Coordinates of the node at the sending end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<Vec<u32>>,
    /// Axis name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub axis: Option<String>,
    /// `"+"` or `"-"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// Global id of the sending port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u32>,
}

/// `link.direction`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum Direction {
    /// Towards higher coordinates.
    #[serde(rename = "+")]
    Plus,
    /// Towards lower coordinates.
    #[serde(rename = "-")]
    Minus,
}

/// `[link]`: the lanes of a link and how it protects frames.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LinkSpec {
    /// `"retry"` (default), `"slicing"`, `"degrade"` or `"none"`.
    pub protection: Protection,
    /// Lanes per link direction (1 to 16); each has its own error process. Default 1.
    pub lanes: u32,
    /// `retry` (also under `slicing` and `degrade`).
    pub retry: RetryParams,
    /// `slicing`'s mode choice.
    pub slicing: SlicingParams,
    /// `degrade`'s lane threshold.
    pub degrade: DegradeParams,
}

impl Default for LinkSpec {
    fn default() -> Self {
        LinkSpec { protection: Protection::Retry, lanes: 1, retry: Default::default(), slicing: Default::default(), degrade: Default::default() }
    }
}

/// `link.protection`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Protection {
    /// No recovery: a frame that fails its CRC is a lost packet (counted).
    None,
    /// Link-level retransmission (Blue Gene/Q, APEnet+): sequence numbers, a retransmission
    /// buffer at the sender, ACK/NAK and a timeout.
    #[default]
    Retry,
    /// TofuD's dynamic packet slicing: split or duplicate mode per packet from the receiver's
    /// error status, retry underneath.
    Slicing,
    /// Tofu2's lane degradation: a lane with too many errors is dropped for good, retry
    /// underneath.
    Degrade,
}

impl Protection {
    /// The scheme's key value.
    pub fn name(self) -> &'static str {
        match self {
            Protection::None => "none",
            Protection::Retry => "retry",
            Protection::Slicing => "slicing",
            Protection::Degrade => "degrade",
        }
    }
}

/// `[link.retry]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RetryParams {
    /// Retransmission buffer at the sender: frames not yet acknowledged, at most this many
    /// bytes (a new frame waits for room). Default 16KiB.
    pub buffer: Bytes,
    /// Receiver time to check a frame and send its ACK or NAK. Default 10ns.
    pub ack_delay: Time,
    /// Sender resends when neither ACK nor NAK came back in this time. Default 1us.
    pub timeout: Time,
    /// Consecutive failed attempts after which a link with no scheduled recovery is declared
    /// failed (an error). Default 10000.
    pub max_attempts: u32,
}

impl Default for RetryParams {
    fn default() -> Self {
        RetryParams { buffer: Bytes(16384), ack_delay: Time::from_ns(10), timeout: Time::from_us(1), max_attempts: 10_000 }
    }
}

/// `[link.slicing]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SlicingParams {
    /// Frames a receiver counts per status report (STAT). Default 32.
    pub window: u32,
    /// A lane whose frame error rate in a report exceeds this sends the link to duplicate mode.
    /// Default 0.1.
    pub duplicate_above: f64,
    /// Back to split mode when every lane's error rate in a report is at most this. Default 0.
    pub split_below: f64,
}

impl Default for SlicingParams {
    fn default() -> Self {
        SlicingParams { window: 32, duplicate_above: 0.1, split_below: 0.0 }
    }
}

/// `[link.degrade]`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DegradeParams {
    /// Frames per counting window. Default 64.
    pub window: u32,
    /// A lane with this many errors within one window is dropped for good (while another lane
    /// remains). Default 8.
    pub threshold: u32,
}

impl Default for DegradeParams {
    fn default() -> Self {
        DegradeParams { window: 64, threshold: 8 }
    }
}

impl FaultSpec {
    /// The checks that need no topology (rates, probabilities, scheme against lanes). Events
    /// are checked against the network when it is built ([`super::resolve`]).
    pub fn validate(&self, link: &LinkSpec) -> Result<(), ConfigError> {
        if !(0.0..1.0).contains(&self.lane_ber) {
            return Err(ConfigError::new("faults.lane_ber", format!("{} is outside [0, 1)", self.lane_ber)));
        }
        if !(0.0..=1.0).contains(&self.undetected) {
            return Err(ConfigError::new("faults.undetected", format!("{} is outside [0, 1]", self.undetected)));
        }
        if !self.burst_rate.is_finite() || !(0.0..=1e12).contains(&self.burst_rate) {
            return Err(ConfigError::new("faults.burst_rate", format!("{} bursts per second is outside [0, 1e12]", self.burst_rate)));
        }
        if self.awareness > Time::from_us(1_000) {
            return Err(ConfigError::new("faults.awareness", format!("{} ns is more than 1 ms", self.awareness.as_ns_f64())));
        }
        if self.burst_length > Time::from_us(1_000_000) {
            return Err(ConfigError::new("faults.burst_length", format!("{:?} is longer than 1 s", self.burst_length)));
        }
        link.validate()
    }
}

impl LinkSpec {
    /// Lanes and the scheme's parameters.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.lanes == 0 || self.lanes > 16 {
            return Err(ConfigError::new("link.lanes", format!("{} must be between 1 and 16", self.lanes)));
        }
        match self.protection {
            Protection::Slicing if self.lanes < 2 || !self.lanes.is_multiple_of(2) => {
                return Err(ConfigError::new(
                    "link.protection",
                    format!("'slicing' needs an even number of lanes (2 or more) to duplicate a frame on; link.lanes is {}", self.lanes),
                ))
            }
            Protection::Degrade if self.lanes < 2 => {
                return Err(ConfigError::new("link.protection", "'degrade' needs 2 or more lanes to drop one; link.lanes is 1".to_string()))
            }
            _ => {}
        }
        let r = &self.retry;
        if r.buffer.0 == 0 || r.buffer.0 > 1 << 30 {
            return Err(ConfigError::new("link.retry.buffer", format!("{}B must be between 1B and 1GiB", r.buffer.0)));
        }
        if r.timeout == Time::ZERO || r.timeout > Time::from_us(1_000) {
            return Err(ConfigError::new("link.retry.timeout", format!("{} ns must be positive and at most 1 ms", r.timeout.as_ns_f64())));
        }
        if r.ack_delay > Time::from_us(1_000) {
            return Err(ConfigError::new("link.retry.ack_delay", format!("{} ns is more than 1 ms", r.ack_delay.as_ns_f64())));
        }
        if r.max_attempts == 0 {
            return Err(ConfigError::new("link.retry.max_attempts", "must be at least 1"));
        }
        let s = &self.slicing;
        if s.window == 0 {
            return Err(ConfigError::new("link.slicing.window", "must be at least 1 frame"));
        }
        for (k, v) in [("link.slicing.duplicate_above", s.duplicate_above), ("link.slicing.split_below", s.split_below)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(ConfigError::new(k, format!("{v} is outside [0, 1]")));
            }
        }
        if s.split_below > s.duplicate_above {
            return Err(ConfigError::new(
                "link.slicing.split_below",
                format!("{} is above link.slicing.duplicate_above ({})", s.split_below, s.duplicate_above),
            ));
        }
        let d = &self.degrade;
        if d.window == 0 || d.threshold == 0 || d.threshold > d.window {
            return Err(ConfigError::new(
                "link.degrade.threshold",
                format!("{} must be between 1 and link.degrade.window ({})", d.threshold, d.window),
            ));
        }
        Ok(())
    }
}

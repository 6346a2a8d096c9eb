//! The gates' parameters, as a scenario's `[hardware]` section gives them.

use super::GateAlgorithm;
use fabricsim_core::Time;

/// The barrier hardware of each node (`[hardware] type = "tofu_gates"` in a scenario). The
/// defaults are the K computer's counts (8 channels and 64 gates, TNI 0 only, one element per
/// reduction) and TofuD's measured component latencies.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateParams {
    /// TNIs (the first ones of each node) that have BCHs and BGs.
    pub tnis: u32,
    /// BCHs per TNI.
    pub channels: u32,
    /// BGs per TNI.
    pub gates: u32,
    /// Part of a BCH and its start gate's latency that holds the TNI (not overlapped).
    pub channel_serial: Time,
    /// The rest of it, overlapped with the TNI's next gate.
    pub channel_overlap: Time,
    /// Latency of a relay gate (holds the TNI).
    pub relay: Time,
    /// Most integer elements one synchronisation reduces.
    pub int_elements: u8,
    /// Most floating-point elements one synchronisation reduces.
    pub float_elements: u8,
    /// How each group's gates are wired.
    pub algorithm: GateAlgorithm,
}

impl Default for GateParams {
    fn default() -> Self {
        GateParams {
            tnis: 1,
            channels: 8,
            gates: 64,
            channel_serial: Time::from_ns(290),
            channel_overlap: Time::from_ns(190),
            relay: Time::from_ns(130),
            int_elements: 1,
            float_elements: 1,
            algorithm: GateAlgorithm::default(),
        }
    }
}

//! The switch barrier's parameters, as a scenario's `[hardware]` section gives them.

use fabricsim_core::{Bytes, Time};

/// Dawning's barrier logic in the switches and NICs (`[hardware.barrier]` of `type =
/// "dawning_switch"` in a scenario). The paper gives no timing for the logic or the timeouts:
/// the defaults are assumptions (no logic time beyond the switch's pipeline; timeouts that a
/// loaded Dawning network's packets stay within).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwitchBarrierParams {
    /// The plane the barrier trees use.
    pub rail: u32,
    /// A switch's barrier logic time for a packet, after the switch's pipeline.
    pub delay: Time,
    /// Payload of a barrier packet: 1 to 1024 bytes. Default 8B.
    pub payload: Bytes,
    /// Time after which an unacknowledged arrive is sent again.
    pub retry_timeout: Time,
    /// Time after which an element still waiting for done urges its parent (and again).
    pub urge_timeout: Time,
    /// Probability that a barrier packet is lost on its link (to study the recovery), below 1.
    pub drop: f64,
}

impl Default for SwitchBarrierParams {
    fn default() -> Self {
        SwitchBarrierParams {
            rail: 0,
            delay: Time::ZERO,
            payload: Bytes(8),
            retry_timeout: Time::from_us(10),
            urge_timeout: Time::from_us(40),
            drop: 0.0,
        }
    }
}

//! `[packet]`: the packet format.

use fabricsim_core::Bytes;
use serde::{Deserialize, Serialize};

/// Packet format (see `fabricsim_network::PacketFormat`). Without `max_payload`, packets are
/// `workload.packet_size` bytes on the wire.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PacketSpec {
    pub max_payload: Option<Bytes>,
    pub payload_align: Bytes,
    pub header: Bytes,
    pub trailer: Bytes,
    pub lanes: u32,
    pub lane_framing: Bytes,
    pub link_overhead: Bytes,
}

impl Default for PacketSpec {
    fn default() -> Self {
        PacketSpec {
            max_payload: None,
            payload_align: Bytes(1),
            header: Bytes(0),
            trailer: Bytes(0),
            lanes: 1,
            lane_framing: Bytes(0),
            link_overhead: Bytes(0),
        }
    }
}

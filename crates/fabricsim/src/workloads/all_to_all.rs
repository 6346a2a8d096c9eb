//! `all_to_all`: every node sends one message to every other, a window at a time.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::Error;
use fabricsim_core::Bytes;
use fabricsim_workload::{AllToAll, AnyWorkload};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AllToAllSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Message size. Default 8B.
    pub message_size: Bytes,
    /// Messages outstanding per node. Default 4.
    pub window: u32,
}

impl Default for AllToAllSpec {
    fn default() -> Self {
        AllToAllSpec { packet_size: default_packet_size(), message_size: default_message_size(), window: 4 }
    }
}

impl AllToAllSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        let size = positive("workload.message_size", self.message_size)?.get();
        let window = positive("workload.window", self.window)?;
        Ok(AnyWorkload::AllToAll(AllToAll::new(cx.plan.topology.nodes(), size, window)))
    }
}

//! `throughput`: one stream of messages between two nodes, all posted at once.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::Error;
use fabricsim_core::Bytes;
use fabricsim_workload::{AnyWorkload, Throughput};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct StreamSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Source coordinates (fat-tree: [node id]). Required.
    pub src: Option<Vec<u32>>,
    /// Destination coordinates. Required.
    pub dst: Option<Vec<u32>>,
    /// Message size. Default 8B.
    pub message_size: Bytes,
    /// Messages in the stream. Default 16.
    pub messages: u64,
}

impl Default for StreamSpec {
    fn default() -> Self {
        StreamSpec { packet_size: default_packet_size(), src: None, dst: None, message_size: default_message_size(), messages: 16 }
    }
}

impl StreamSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        let (a, b) = cx.plan.endpoints(&self.src, &self.dst)?;
        let size = positive("workload.message_size", self.message_size)?.get();
        let n = positive("workload.messages", self.messages)?;
        Ok(AnyWorkload::Throughput(Throughput::new(a, b, size, n)))
    }
}

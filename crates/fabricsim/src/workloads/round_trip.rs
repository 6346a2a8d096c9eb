//! `pingpong` and `rdma_get`: one message (or Get) at a time between two nodes.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::Error;
use fabricsim_core::Bytes;
use fabricsim_workload::{AnyWorkload, PingPong, RdmaGet};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RoundTripSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Source coordinates (fat-tree: [node id]). Required.
    pub src: Option<Vec<u32>>,
    /// Destination coordinates. Required.
    pub dst: Option<Vec<u32>>,
    /// Message size (a Get: the data fetched). Default 8B.
    pub message_size: Bytes,
    /// Round trips (Gets). Default 10.
    pub iterations: u64,
}

impl Default for RoundTripSpec {
    fn default() -> Self {
        RoundTripSpec { packet_size: default_packet_size(), src: None, dst: None, message_size: default_message_size(), iterations: 10 }
    }
}

impl RoundTripSpec {
    /// A ping-pong, or with `get` a sequence of RDMA Gets.
    pub(crate) fn build(&self, cx: &BuildContext, get: bool) -> Result<AnyWorkload, Error> {
        let (a, b) = cx.plan.endpoints(&self.src, &self.dst)?;
        let size = positive("workload.message_size", self.message_size)?.get();
        let n = positive("workload.iterations", self.iterations)?;
        Ok(if get { AnyWorkload::RdmaGet(RdmaGet::new(a, b, size, n)) } else { AnyWorkload::PingPong(PingPong::new(a, b, size, n)) })
    }
}

//! `all_to_all`: every node sends one message to every other, a window at a time.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::Error;
use fabricsim_core::Bytes;
use fabricsim_workload::{AllToAll, AnyWorkload, Schedule};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AllToAllSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Message size. Default 8B.
    pub message_size: Bytes,
    /// Messages outstanding per node. Default 4 (unused by `all_at_once`).
    pub window: u32,
    /// Order of each node's destinations: `"shifted"` (default: node i sends to i+1, i+2, ...),
    /// `"random"` (a random order per node, from `sim.seed`) or `"all_at_once"` (shifted, every
    /// message posted at the start).
    pub schedule: ScheduleSpec,
}

/// `workload.schedule` of an all-to-all.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleSpec {
    #[default]
    Shifted,
    Random,
    AllAtOnce,
}

impl Default for AllToAllSpec {
    fn default() -> Self {
        AllToAllSpec { packet_size: default_packet_size(), message_size: default_message_size(), window: 4, schedule: ScheduleSpec::Shifted }
    }
}

impl AllToAllSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        let size = positive("workload.message_size", self.message_size)?.get();
        let window = positive("workload.window", self.window)?;
        let schedule = match self.schedule {
            ScheduleSpec::Shifted => Schedule::Shifted,
            ScheduleSpec::Random => Schedule::Random { seed: cx.plan.scenario.sim.seed },
            ScheduleSpec::AllAtOnce => Schedule::AllAtOnce,
        };
        Ok(AnyWorkload::AllToAll(AllToAll::new(cx.plan.topology.nodes(), size, window, schedule)))
    }
}

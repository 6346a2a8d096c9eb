//! `[router]`: buffers, virtual channels and the crossbar.

use fabricsim_core::{Bytes, Time};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RouterSpec {
    /// Pipeline delay per router traversal. Default 40ns.
    pub delay: Time,
    /// Virtual channels per port. Default 2.
    pub vcs: u8,
    /// Input buffer per VC. Default 4KiB.
    pub buffer: Bytes,
    /// Dedicated VCs for priority classes, after the `vcs` routing VCs: messages of class k >= 1
    /// travel on class VC min(k, class_vcs) - 1, deterministically routed. Default 0 (classes
    /// share the routing's VCs and only win arbitration).
    pub class_vcs: u8,
    /// Input buffer per class VC (class messages are cut into packets that fit it). Default:
    /// `buffer`.
    pub class_buffer: Option<Bytes>,
    /// `"per_vc"` (default): parallel switching, one crossbar input per VC, so the VCs of one
    /// input port may send to different outputs at once (Dawning 5000's k crossbars of N x N;
    /// BG/Q's several paths per receiver); `"shared"`: one crossbar input per port, shared by
    /// its VCs (one packet at a time).
    pub crossbar: Crossbar,
    /// Queues per dynamic VC of adaptive routing (virtual output queuing, as Blue Gene/Q): how
    /// they hold the VC's buffer is `queue_buffer`'s. Default 1.
    pub queues: u8,
    /// How the queues of a dynamic VC hold its buffer: `"split"` (default: each a
    /// `queues`-th, and the sender picks the queue as it picks a VC, by most room) or
    /// `"shared"` (Blue Gene/Q: one buffer, the sender's credit counts the VC's free space,
    /// and the receiver files each arriving packet in the queue with the fewest packets).
    pub queue_buffer: QueueBuffer,
    /// Grants a router output gives in a row to packets cutting through while packets waiting
    /// at injection ports (of the same priority) wait, before it grants one of those: Blue
    /// Gene/Q's programmable ratio of receiver to injection grants. Default 0: no preference
    /// (one round-robin over every requester).
    pub transit_ratio: u32,
    /// Flit size at which a link multiplexes its VCs: a packet of a higher priority class (or
    /// a switch's own barrier packet) takes the link at the next flit boundary of a
    /// lower-priority packet under way, which resumes after it. Default: none (or `"0B"`), a
    /// link sends whole packets.
    pub flit_size: Option<Bytes>,
}

/// `router.queue_buffer`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum QueueBuffer {
    #[default]
    Split,
    Shared,
}

/// `router.crossbar`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Crossbar {
    #[default]
    PerVc,
    Shared,
}

impl Default for RouterSpec {
    fn default() -> Self {
        RouterSpec {
            delay: Time::from_ns(40),
            vcs: 2,
            buffer: Bytes(4096),
            class_vcs: 0,
            class_buffer: None,
            crossbar: Crossbar::PerVc,
            queues: 1,
            queue_buffer: QueueBuffer::Split,
            transit_ratio: 0,
            flit_size: None,
        }
    }
}

impl RouterSpec {
    /// VCs per port in all, at most: the routing's (each dynamic one counted as its queues;
    /// escape VCs are counted as dynamic here) and the class VCs.
    pub fn total_vcs(&self) -> u8 {
        self.vcs.saturating_mul(self.queues.max(1)).saturating_add(self.class_vcs)
    }
}

//! The network's side of the interface with traffic (defined in `fabricsim-nic`): the
//! simulation core is the [`Nic`] a workload's [`Api`] talks to.

use crate::packet::NO_HINT;
use crate::sim::Core;
use fabricsim_core::{NodeId, Time};
pub use fabricsim_nic::{Api, Delivered, HwCollective, HwGroup, HwKind, HwOp, Message, Nic, Op, Rank, Workload};
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// The node of each member of in-network collective group `g`, once its ranks are checked:
    /// every one (and its root, if it names one) a rank of the job, none named twice.
    pub(crate) fn group_nodes(&self, g: &HwGroup) -> Result<Vec<u32>, String> {
        if let Some(r) = g.members.iter().chain(&g.root).find(|r| r.0 >= self.ranks()) {
            return Err(format!("group {} names rank {}, the job has {}", g.id, r.0, self.ranks()));
        }
        let mut seen = std::collections::HashSet::with_capacity(g.members.len());
        if let Some(r) = g.members.iter().find(|r| !seen.insert(r.0)) {
            return Err(format!("group {} names rank {} twice", g.id, r.0));
        }
        Ok(g.members.iter().map(|r| self.node(r.0)).collect())
    }
}

impl<O: Observer> Nic for Core<O> {
    fn now(&self) -> Time {
        self.queue.now()
    }
    fn ranks(&self) -> u32 {
        self.ranks()
    }
    fn node_of(&self, r: Rank) -> NodeId {
        NodeId(self.node(r.0))
    }
    fn queued(&self, r: Rank) -> u32 {
        self.nics.node[self.node(r.0) as usize].queued
    }
    fn post(&mut self, m: Message) {
        let hint = if m.hint == fabricsim_nic::NO_HINT { NO_HINT } else { m.hint };
        match m.op {
            Op::Put => Core::send(
                self,
                m.src.0,
                m.dst.0,
                m.bytes,
                m.tag,
                hint,
                m.class,
                crate::packet::PUT,
                (pace(m.rate), m.engine.unwrap_or(crate::packet::ANY_ENGINE), m.route),
            ),
            Op::Get => self.post_get(m.src.0, m.dst.0, m.bytes, m.tag, hint, m.class),
        }
    }
    fn wake_at(&mut self, rank: Rank, at: Time) {
        Core::wake_at(self, rank.0, at)
    }
    fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        Core::collective_group(self, g)
    }
    fn collective_start(&mut self, rank: Rank, c: HwCollective) -> Result<(), String> {
        Core::collective_start(self, rank, c)
    }
    fn collective_value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        Core::collective_value(self, rank, group)
    }
}

/// A rate cap as picoseconds per KiB of wire bytes (0: none), rounded up (never faster than the
/// cap); at least 1 for any finite rate. Caps below about 240 KB/s are held at that rate.
fn pace(rate: Option<fabricsim_core::Bandwidth>) -> u32 {
    match rate {
        Some(bw) if bw.bytes_per_sec() > 0 => (1024u128 * 1_000_000_000_000).div_ceil(bw.bytes_per_sec() as u128).clamp(1, u32::MAX as u128) as u32,
        _ => 0,
    }
}

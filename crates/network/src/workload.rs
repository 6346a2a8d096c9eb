//! The interface between the network and whatever creates traffic.
//!
//! The network never knows where traffic comes from: a [`Workload`] is called at start, when a
//! node's timer it asked for fires, and when one of its messages is fully delivered. Through the
//! [`Api`] it sends messages and sets timers. Synthetic patterns, benchmarks, and later per-rank
//! schedules (collectives, trace replay) are all workloads.

use crate::sim::Core;
use fabricsim_core::{NodeId, Time};
use fabricsim_stats::Observer;

/// A message whose last byte has reached its destination NIC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivered {
    pub src: NodeId,
    pub dst: NodeId,
    pub bytes: u64,
    pub tag: u64,
    pub created: Time,
    pub delivered: Time,
}

/// A traffic source.
pub trait Workload {
    /// Called once at time zero.
    fn start(&mut self, api: &mut Api);
    /// A timer set with [`Api::wake_at`] fired for `node`.
    fn wake(&mut self, _node: NodeId, _api: &mut Api) {}
    /// A message was delivered.
    fn delivered(&mut self, _msg: &Delivered, _api: &mut Api) {}
    /// A closed workload (a benchmark with a fixed amount of work) returns true once it needs
    /// nothing more; open-loop traffic never finishes by itself.
    fn finished(&self) -> bool {
        false
    }
}

/// What a workload may do to the network.
pub struct Api<'a> {
    pub(crate) core: &'a mut dyn NicSide,
}

/// The part of the network a workload reaches through [`Api`] (an object, so that neither the
/// workload interface nor a workload depends on the simulation's observer type).
pub(crate) trait NicSide {
    fn now(&self) -> Time;
    fn nodes(&self) -> u32;
    fn send(&mut self, src: NodeId, dst: NodeId, bytes: u64, tag: u64, hint: u8, prio: u8);
    fn wake_at(&mut self, node: NodeId, at: Time);
}

impl<O: Observer> NicSide for Core<O> {
    fn now(&self) -> Time {
        self.queue.now()
    }
    fn nodes(&self) -> u32 {
        self.graph.nodes
    }
    fn send(&mut self, src: NodeId, dst: NodeId, bytes: u64, tag: u64, hint: u8, prio: u8) {
        Core::send(self, src, dst, bytes, tag, hint, prio)
    }
    fn wake_at(&mut self, node: NodeId, at: Time) {
        Core::wake_at(self, node, at)
    }
}

impl Api<'_> {
    #[inline]
    pub fn now(&self) -> Time {
        self.core.now()
    }
    pub fn nodes(&self) -> u32 {
        self.core.nodes()
    }
    /// Queue a message of `bytes` at `src`'s NIC for `dst`. `tag` comes back on delivery.
    #[inline]
    pub fn send(&mut self, src: NodeId, dst: NodeId, bytes: u64, tag: u64) {
        self.core.send(src, dst, bytes, tag, crate::packet::NO_HINT, 0);
    }
    /// Like [`send`](Self::send), in priority class `prio`: an output grants a waiting packet
    /// of a higher class before any of a lower one (round-robin within a class).
    #[inline]
    pub fn send_prio(&mut self, src: NodeId, dst: NodeId, bytes: u64, tag: u64, prio: u8) {
        self.core.send(src, dst, bytes, tag, crate::packet::NO_HINT, prio);
    }
    /// Like [`send`](Self::send), but the first hop leaves on local network port `port` of the
    /// source router (e.g. to use a particular one of two links to the same neighbour).
    #[inline]
    pub fn send_via(&mut self, src: NodeId, port: u8, dst: NodeId, bytes: u64, tag: u64) {
        self.core.send(src, dst, bytes, tag, port, 0);
    }
    /// Call [`Workload::wake`] for `node` at time `at` (not before now).
    #[inline]
    pub fn wake_at(&mut self, node: NodeId, at: Time) {
        self.core.wake_at(node, at);
    }
}

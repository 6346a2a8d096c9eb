//! Observers: what a simulation tells whoever watches it, as it happens.
//!
//! A simulation calls these hooks from its hot path; every hook has an empty default, and a
//! simulation without an observer uses `()`, whose calls compile to nothing. An observer that
//! wants time series, traces or pictures implements the hooks it needs. Times are in
//! picoseconds of simulated time; ports are global port ids of the port graph, nodes node ids.
//!
//! The per-port totals and latency histograms of every report are kept by the network itself
//! (they sit in the records a hop already touches, which is cheaper than a call per hop into
//! separate arrays); the hooks carry the same events for anything else.

use fabricsim_core::{NodeId, PortId, Time};

/// Hooks called as a simulation runs. All default to doing nothing.
pub trait Observer {
    /// A NIC engine started pushing a packet of `bytes` wire bytes from `node` into its router.
    #[inline(always)]
    fn on_inject(&mut self, _at: Time, _node: NodeId, _bytes: u32) {}
    /// Output `port` started sending a packet of `bytes` wire bytes at `start`; it is busy until
    /// `end` (a hop, ejection included). Between two such intervals the port is idle.
    #[inline(always)]
    fn on_hop(&mut self, _port: PortId, _start: Time, _end: Time, _bytes: u32) {}
    /// A packet's tail reached its destination `node`; `latency` since its message was created.
    #[inline(always)]
    fn on_deliver(&mut self, _at: Time, _node: NodeId, _payload: u32, _latency: Time) {}
    /// Output `port` waited for credit from `since` until `until` (when it sent again).
    #[inline(always)]
    fn on_credit_stall(&mut self, _port: PortId, _since: Time, _until: Time) {}
    /// A packet of `bytes` wire bytes waited for output `port` (on its VC `vc`) from `ready`,
    /// when its head had passed the router's pipeline, until `granted`, when the output took it
    /// (see [`crate::QueueMeter`]). Called as the grant happens, before [`Observer::on_hop`].
    #[inline(always)]
    fn on_queue_wait(&mut self, _port: PortId, _vc: u8, _ready: Time, _granted: Time, _bytes: u32) {}
    /// Output `port`'s arbitration at `at` found a packet for its VC `vc` lacking credit: it
    /// waits for that VC's credit from now (called once per such packet; a wait already open
    /// goes on). Called only where an output waits for credit, never on a hop.
    #[inline(always)]
    fn on_credit_wait(&mut self, _port: PortId, _vc: u8, _at: Time) {}
    /// Credit on VC `vc` reached output `port` at `at` while the output waited for it (after
    /// [`Observer::on_credit_wait`], or for adaptive packets asleep on it): the output
    /// arbitrates again in this instant, and a packet still lacking credit waits anew.
    #[inline(always)]
    fn on_credit_back(&mut self, _port: PortId, _vc: u8, _at: Time) {}
    /// Why the run must stop, if it must: the observer cannot go on (a file it writes as the
    /// run goes failed). Asked every few thousand events, never per hop; the run then ends
    /// with [`fabricsim_core::SimError::Observer`] carrying the reason.
    #[inline(always)]
    fn failed(&self) -> Option<String> {
        None
    }
    /// Whether it watches anything (a partitioned run, which cannot feed an observer yet,
    /// refuses one that does).
    fn watching(&self) -> bool {
        true
    }
}

/// No observer.
impl Observer for () {
    fn watching(&self) -> bool {
        false
    }
}

/// Two observers watching one run: each hook goes to both.
impl<A: Observer, B: Observer> Observer for (A, B) {
    #[inline(always)]
    fn on_inject(&mut self, at: Time, node: NodeId, bytes: u32) {
        self.0.on_inject(at, node, bytes);
        self.1.on_inject(at, node, bytes);
    }
    #[inline(always)]
    fn on_hop(&mut self, port: PortId, start: Time, end: Time, bytes: u32) {
        self.0.on_hop(port, start, end, bytes);
        self.1.on_hop(port, start, end, bytes);
    }
    #[inline(always)]
    fn on_deliver(&mut self, at: Time, node: NodeId, payload: u32, latency: Time) {
        self.0.on_deliver(at, node, payload, latency);
        self.1.on_deliver(at, node, payload, latency);
    }
    #[inline(always)]
    fn on_credit_stall(&mut self, port: PortId, since: Time, until: Time) {
        self.0.on_credit_stall(port, since, until);
        self.1.on_credit_stall(port, since, until);
    }
    #[inline(always)]
    fn on_queue_wait(&mut self, port: PortId, vc: u8, ready: Time, granted: Time, bytes: u32) {
        self.0.on_queue_wait(port, vc, ready, granted, bytes);
        self.1.on_queue_wait(port, vc, ready, granted, bytes);
    }
    #[inline(always)]
    fn on_credit_wait(&mut self, port: PortId, vc: u8, at: Time) {
        self.0.on_credit_wait(port, vc, at);
        self.1.on_credit_wait(port, vc, at);
    }
    #[inline(always)]
    fn on_credit_back(&mut self, port: PortId, vc: u8, at: Time) {
        self.0.on_credit_back(port, vc, at);
        self.1.on_credit_back(port, vc, at);
    }
    fn watching(&self) -> bool {
        self.0.watching() || self.1.watching()
    }
    fn failed(&self) -> Option<String> {
        self.0.failed().or_else(|| self.1.failed())
    }
}

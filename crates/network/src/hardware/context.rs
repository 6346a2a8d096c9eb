//! The narrow view of the network a hardware unit gets ([`Context`]), and its implementation over
//! the simulation core ([`UnitCx`]).

use super::agent::AgentSend;
use crate::params::NetworkParams;
use crate::sim::{Core, Ev};
use fabricsim_core::{RouterId, Time};
use fabricsim_stats::Observer;
use fabricsim_topology::PortGraph;

/// A message a unit sends from a NIC (see `Core::send`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct HwMessage {
    /// Ranks it goes from and to (the NICs of their nodes).
    pub src: u32,
    pub dst: u32,
    pub bytes: u64,
    /// Its tag: what the unit hears back with it when it is delivered.
    pub tag: u64,
    /// First-hop hint (`crate::packet::NO_HINT`, the agent's sink, the multicast's).
    pub hint: u8,
    /// Priority class.
    pub class: u8,
    /// Message op (one of the unit's [`Unit::ops`](super::Unit::ops)).
    pub op: u8,
    /// The engine it leaves on, and its routing selector.
    pub engine: u8,
    pub route: u8,
}

/// What a unit may see and do of the rest of the network.
pub(crate) trait Context {
    /// The current time (ps).
    fn now(&self) -> u64;
    /// Schedule the unit's own event `e` at `at` (its [`Unit::on_event`](super::Unit::on_event)).
    fn schedule(&mut self, at: u64, e: u32);
    /// Ask for the end-of-instant phase ([`Unit::phase`](super::Unit::phase)).
    fn phase_due(&mut self);
    /// Send a message from a NIC.
    fn send(&mut self, m: HwMessage);
    /// Send a packet from switch output `out`'s agent.
    fn agent_send(&mut self, out: u32, s: AgentSend);
    /// The routing selector of a message of priority class `class` (its class VC, if any).
    fn class_route(&self, class: u8, route: u8) -> u8;
    /// The node rank `rank` runs on, and the job's ranks.
    fn node(&self, rank: u32) -> u32;
    fn ranks(&self) -> u32;
    fn params(&self) -> &NetworkParams;
    fn graph(&self) -> &PortGraph;
    /// Largest payload of a packet on a class VC.
    fn class_payload(&self) -> u32;
    /// Packets in switch `r`'s input buffers (what a global resource bulletin shows).
    fn switch_packets(&self, r: RouterId) -> u64;
}

/// The core as the context of unit `unit` (taken out of the core's list meanwhile).
pub(crate) struct UnitCx<'a, O> {
    pub core: &'a mut Core<O>,
    pub unit: u8,
}

impl<O: Observer> Context for UnitCx<'_, O> {
    fn now(&self) -> u64 {
        self.core.queue.now().ps()
    }
    fn schedule(&mut self, at: u64, e: u32) {
        self.core.queue.schedule(Time(at), Ev::Unit { unit: self.unit, e });
    }
    fn phase_due(&mut self) {
        self.core.phase.due = true;
    }
    fn send(&mut self, m: HwMessage) {
        self.core.send(m.src, m.dst, m.bytes, m.tag, m.hint, m.class, m.op, (0, m.engine, m.route));
    }
    fn agent_send(&mut self, out: u32, s: AgentSend) {
        self.core.agent_send(out, s);
    }
    fn class_route(&self, class: u8, route: u8) -> u8 {
        self.core.class_route(class, route)
    }
    fn node(&self, rank: u32) -> u32 {
        self.core.node(rank)
    }
    fn ranks(&self) -> u32 {
        self.core.ranks()
    }
    fn params(&self) -> &NetworkParams {
        &self.core.p
    }
    fn graph(&self) -> &PortGraph {
        &self.core.graph
    }
    fn class_payload(&self) -> u32 {
        self.core.fabric.class_payload
    }
    fn switch_packets(&self, r: RouterId) -> u64 {
        let c = &self.core;
        let vcs = c.fabric.vcs;
        let (first, last) = (c.graph.port_offset[r.index()] * vcs, c.graph.port_offset[r.index() + 1] * vcs);
        let mut n = 0;
        for q in first..last {
            let mut p = c.fabric.vcq[q as usize].head;
            while p != crate::packet::PacketId::NIL {
                n += 1;
                p = c.packets.get(p).next;
            }
        }
        n
    }
}

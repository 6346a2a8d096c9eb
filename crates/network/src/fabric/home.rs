//! Which router a step of the network belongs to: the home the seam guard (`guard.rs`, feature
//! `seam-guard`) checks a step against, and the router a partitioned run will hand it to.

use crate::sim::Core;
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// The router of sender `s` (a router port, a NIC engine pseudo-port, or a switch agent's
    /// sink output: router `r`'s is `Agents::sinks + r`, after the engines).
    pub(crate) fn sender_router(&self, s: u32) -> u32 {
        if s < self.total_ports() {
            return self.graph.owner[s as usize].0;
        }
        match self.agents.as_deref() {
            Some(a) if s >= a.sinks => s - a.sinks,
            _ => self.node_router(self.nics.engines_div.div(s - self.total_ports())),
        }
    }

    /// The router of node `node` (its NICs' engines attach to it).
    pub(crate) fn node_router(&self, node: u32) -> u32 {
        self.graph.owner[self.graph.attach[(node * self.graph.engines) as usize].index()].0
    }

    /// The router of input VC `q`'s buffer.
    pub(crate) fn vc_router(&self, q: u32) -> u32 {
        self.graph.owner[(q / self.fabric.vcs) as usize].0
    }

    /// The router of the packet `pkt` choosing its hop.
    pub(crate) fn home_of_packet(&self, pkt: crate::packet::PacketId) -> u32 {
        self.vc_router(self.packets.get(pkt).q.0)
    }
}

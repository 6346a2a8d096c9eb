//! Adaptive routing around links known to be down (see [`crate::detour`]).

use super::Adaptive;
use crate::{Candidates, Header};
use fabricsim_core::RouterId;
use fabricsim_topology::Torus;

impl Adaptive {
    /// [`route`](Self::route) avoiding the links `dead` names (a router and its local port):
    /// the escape hop follows dimension order around them
    /// ([`DimensionOrder::route_around`](crate::DimensionOrder::route_around)), and no adaptive
    /// hop leads onto one, nor to a router from which the escape sub-network could not
    /// deliver the packet (so a packet that has a way never strands where it has none).
    /// `false`, with no candidate: nothing alive leads on.
    pub fn route_around(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, dead: crate::detour::Dead, out: &mut Candidates) -> bool {
        let escape_found = self.escape_routing.route_around(router, in_port, self.escape_vc(in_vc), hdr, dead, out);
        self.mark_escape_entries(in_vc, out);
        let t = &self.torus;
        let closed = |port: u32| {
            if dead(router, port) {
                return true;
            }
            // (A length-2 mesh axis has one port, reported as +, for both ways.)
            let here = Torus::node_on(router);
            let next = t.port_axis(port).and_then(|(axis, delta)| t.step(here, axis, delta).or_else(|| t.step(here, axis, -delta)));
            next.is_none_or(|n| !self.escape_routing.reaches_around(n, hdr.dst, dead))
        };
        self.adaptive_hops(router, in_port, hdr, out, escape_found, closed)
    }
}

//! Routing around links the routers know are down.
//!
//! Runs with failed links route through [`Routing::route_around`], which takes the set of dead
//! links (a router and its local port) the routers know of, and gives the candidates of the
//! same routing with every dead hop left out, or says that none is left:
//!
//! * **Dimension order** corrects the same axis as without faults, but picks the way round the
//!   ring whose *whole remaining path along the axis* is alive: the shorter live way, the
//!   parity rule when both are alive and equally long. A packet that cannot go the short way
//!   goes the long way round (a 2-ring's other link); on a mesh axis, or a ring broken on both
//!   sides of the packet, there is no way left.
//! * **Adaptive** routing offers its productive hops that are alive, and the escape hop of
//!   dimension order around the dead links.
//! * **Up/down** takes the up port its rule picks, or the next live one after it; the down
//!   path from a switch to a destination is unique, and the up choice does not look ahead, so
//!   a dead link on the way down leaves the packets that reach it no way, under this routing,
//!   although another top switch may have had one.
//! * Packets on dedicated class VCs go around as their deterministic routing does. (The
//!   in-network hardware's trees and multicasts are not routings: they keep their links.)
//!
//! **Why dimension order stays deadlock-free.** The rule reads the whole path along the axis,
//! not only the next link, so a packet never turns back on an axis: at the next router along
//! its way the path it chose is a live sub-path and the other way is the one it rejected plus
//! a hop, so it keeps its direction (no dependency from one direction of a ring to the other).
//! Along one direction, a ring with a dead link is a line, whose channels have no cycle
//! whatever the VCs; a ring with none keeps its dateline. Axes are still corrected in order.
//! So the channel-dependency graph for a fixed set of known failures is acyclic
//! ([`crate::cdg::find_cycle_around`] checks it). While the routers learn of a failure the set
//! changes under packets in flight, and one that heads for the new dead link turns back at its
//! end: that transient dependency is the only one the argument does not cover.

use crate::{Candidates, Header, Kind, Routing};
use fabricsim_core::RouterId;

/// Which links are down: `dead(router, local_port)`.
pub type Dead<'a> = &'a dyn Fn(RouterId, u32) -> bool;

impl Routing {
    /// Permitted next hops, as [`route`](Self::route) gives them, without any leading onto a
    /// link `dead` names (a router and its local port). `false`: no live hop leads on, so the
    /// packet cannot reach its destination under this routing (see the module docs). Class VCs
    /// go around the same way as their routing (dimension order or up/down).
    pub fn route_around(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, dead: crate::detour::Dead, out: &mut Candidates) -> bool {
        out.clear();
        match (&self.kind, &self.classes) {
            (_, Some(c)) if hdr.zone & crate::classes::CLASS_VC != 0 => c.route_around(router, in_port, hdr, dead, out),
            (Kind::DimensionOrder(r), _) => r.route_around(router, in_port, in_vc, hdr, dead, out),
            (Kind::Adaptive(r), _) => r.route_around(router, in_port, in_vc, hdr, dead, out),
            (Kind::UpDown(r), _) => r.route_around(router, hdr, dead, out),
        }
    }
}

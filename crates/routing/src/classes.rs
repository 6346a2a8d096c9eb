//! Dedicated VCs for priority classes (Blue Gene/Q's high-priority and system VCs, Dawning's
//! barrier VC): VCs appended after a routing's own, on which packets of a priority class travel
//! apart from normal traffic, so a long queue of normal packets cannot hold them up.
//!
//! Class VC `k` carries the packets whose header selects it ([`CLASS_VC`] `| k` in
//! [`crate::Header::zone`], set by the network from the message's class). A packet stays on its
//! class VC from its NIC to its destination and routes deterministically there, so one pair's
//! class packets stay in order: dimension order on a torus or mesh (with bubble flow control on
//! rings that would need a dateline, since one VC cannot hold two dateline halves), up/down with
//! the destination's up port on a fat-tree. Each class VC is then deadlock-free by itself, and
//! no dependency runs between class VCs or into the routing's own VCs.
//!
//! The output arbiters grant the highest class first (see the network's arbitration), so class
//! VCs bypass normal traffic both in the buffers and on the links.

use crate::{Candidates, DimensionOrder, Header, Kind, UpDown};
use fabricsim_core::{ConfigError, RouterId};
use fabricsim_topology::Topology;

/// `Header::zone`: the packet travels on class VC `zone & CLASS_INDEX`.
pub const CLASS_VC: u8 = 0x40;
/// `Header::zone`: the class VC's index, with [`CLASS_VC`].
pub const CLASS_INDEX: u8 = CLASS_VC - 1;

/// The class VCs of a routing: `count` VCs from `first`, each routed by `routing` (built for one VC).
#[derive(Debug, Clone)]
pub struct ClassVcs {
    routing: Kind,
    first: u8,
    count: u8,
}

impl ClassVcs {
    /// `count` class VCs after the `first` VCs of a routing on `topo` whose deterministic
    /// dimension order (tori) is `order` (axis indices).
    pub(crate) fn new(topo: &Topology, order: &[usize], engines: u32, first: u8, count: u8) -> Result<Self, ConfigError> {
        let routing = match topo {
            Topology::Torus(t) => {
                let names: Vec<String> = order.iter().map(|&a| t.names()[a].clone()).collect();
                Kind::DimensionOrder(if DimensionOrder::dateline_axis(t).is_some() {
                    DimensionOrder::on_one_vc_with_bubbles(t.clone(), Some(&names), engines)?
                } else {
                    DimensionOrder::new(t.clone(), Some(&names), engines, 1)?
                })
            }
            Topology::FatTree(f) => Kind::UpDown(UpDown::new(f.clone(), 1)),
        };
        Ok(ClassVcs { routing, first, count })
    }

    /// Number of class VCs (1 to 4).
    pub fn count(&self) -> u8 {
        self.count
    }
    /// Index of the first class VC: the VC count of the routing's own algorithm.
    pub fn first(&self) -> u8 {
        self.first
    }
    /// Whether the class VCs rely on bubble flow control (rings on one VC).
    pub fn uses_bubbles(&self) -> bool {
        self.routing.uses_bubbles()
    }

    /// Candidates for a packet on class VC `hdr.zone & CLASS_INDEX` (at most `count - 1`).
    #[inline]
    pub(crate) fn route(&self, router: RouterId, in_port: u32, hdr: &Header, out: &mut Candidates) {
        let vc = self.vc(hdr.zone);
        let plain = Header { zone: 0, escaped: false, ..*hdr };
        self.routing.route(router, in_port, 0, &plain, out);
        out.shift_vcs(vc);
    }

    /// [`route`](Self::route) around the links `dead` names (see [`crate::detour`]); `false`:
    /// no live way on.
    pub(crate) fn route_around(&self, router: RouterId, in_port: u32, hdr: &Header, dead: crate::detour::Dead, out: &mut Candidates) -> bool {
        let vc = self.vc(hdr.zone);
        let plain = Header { zone: 0, escaped: false, ..*hdr };
        let found = match &self.routing {
            Kind::DimensionOrder(r) => r.route_around(router, in_port, 0, &plain, dead, out),
            Kind::UpDown(r) => r.route_around(router, &plain, dead, out),
            Kind::Adaptive(r) => r.route_around(router, in_port, 0, &plain, dead, out),
        };
        out.shift_vcs(vc);
        found
    }

    /// The VC of class VC selector `zone`.
    #[inline]
    pub(crate) fn vc(&self, zone: u8) -> u8 {
        self.first + (zone & CLASS_INDEX).min(self.count - 1)
    }
}

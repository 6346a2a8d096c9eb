//! Minimal adaptive routing on an n-D torus or mesh, kept deadlock-free by an escape
//! sub-network (Duato's condition).
//!
//! The VCs of every port are split in two classes. The first `escape` VCs form the escape
//! sub-network: dimension-order routing with its dateline rule (two VCs when some ring of four
//! or more needs a dateline, else one), whose channel-dependency graph is acyclic. The other VCs
//! are adaptive: a packet may take any *productive* hop on them, along any axis whose coordinate
//! still differs from the destination's, the shorter way round a ring (both ways when they are
//! equally short, and on a 2-ring). At every hop a packet not yet on the escape sub-network is
//! offered all its productive adaptive hops and the escape hop; the router's selection policy
//! chooses (by default an adaptive hop with room, the freest output, the most credit). A packet
//! that takes an escape hop stays on the escape sub-network to its destination
//! ([`crate::Header::escaped`]), so the escape sub-network's extended dependency graph is the
//! deterministic one, and a packet blocked on adaptive VCs always has a way out.
//!
//! The escape sub-network keeps its rings free of deadlock in one of two ways ([`Escape`]):
//! - **dateline**: two escape VCs, the second taken after crossing a ring's wrap-around link, so
//!   its channel-dependency graph is acyclic;
//! - **bubble** (as the Blue Gene family does): one escape VC, and a packet may *enter* a ring
//!   on it (from its NIC, from an adaptive VC or from another axis) only when the next buffer
//!   has room for it twice, so a ring always keeps a free packet slot and never fills; moving
//!   on along the same ring needs room for the packet only. The dependency graph of the
//!   escape VC then has cycles (one per ring); the bubble rule, not the graph, prevents
//!   deadlock. It leaves one more VC for adaptive hops.
//!
//! Candidates are listed escape hop first, so a full candidate set never drops it.

use crate::{Candidates, DimensionOrder, Header};
use fabricsim_core::{ConfigError, RouterId};
use fabricsim_topology::Torus;

/// How the escape sub-network avoids deadlock on rings (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Escape {
    #[default]
    Dateline,
    Bubble,
}

#[derive(Debug, Clone)]
pub struct Adaptive {
    torus: Torus,
    /// Dimension order on VCs `0..escape`.
    escape_routing: DimensionOrder,
    escape: u8,
    bubble: bool,
    vcs: u8,
    engines: u32,
    /// Per axis: length, whether it wraps, its + and - ports.
    axes: Vec<Axis>,
}

#[derive(Debug, Clone, Copy)]
struct Axis {
    len: u32,
    wrap: bool,
    plus: u32,
    minus: u32,
}

impl Adaptive {
    /// Adaptive routing on `torus` with `vcs` VCs per port; the escape sub-network follows
    /// dimension order in `order` (default: axis order), deadlock-free by `kind`.
    pub fn new(torus: Torus, order: Option<&[String]>, engines: u32, vcs: u8, kind: Escape) -> Result<Self, ConfigError> {
        let bubble = kind == Escape::Bubble;
        let needs_dateline = !bubble && (0..torus.dims()).any(|a| torus.wrap()[a] && torus.shape()[a] >= 4);
        let escape = if needs_dateline { 2 } else { 1 };
        if vcs <= escape {
            return Err(ConfigError::new(
                "router.vcs",
                format!(
                    "{vcs}: adaptive routing needs at least {} VCs here ({escape} for the dimension-order escape sub-network{}, and one or more adaptive)",
                    escape + 1,
                    if needs_dateline { " with its dateline" } else if bubble { " with bubble flow control" } else { "" }
                ),
            ));
        }
        let escape_routing = if bubble {
            DimensionOrder::on_one_vc_with_bubbles(torus.clone(), order, engines)?
        } else {
            DimensionOrder::new(torus.clone(), order, engines, escape)?
        };
        let axes = (0..torus.dims())
            .map(|a| Axis { len: torus.shape()[a], wrap: torus.wrap()[a], plus: torus.port_for(a, 1), minus: torus.port_for(a, -1) })
            .collect();
        Ok(Adaptive { torus, escape_routing, escape, bubble, vcs, engines, axes })
    }

    pub fn vcs(&self) -> u8 {
        self.vcs
    }
    pub fn engines(&self) -> u32 {
        self.engines
    }
    /// VCs `0..escape_vcs()` are the escape sub-network's.
    pub fn escape_vcs(&self) -> u8 {
        self.escape
    }
    pub fn uses_bubbles(&self) -> bool {
        self.bubble
    }
    pub fn torus(&self) -> &Torus {
        &self.torus
    }

    /// Candidates for a packet with header `hdr` that entered `router` on local port `in_port`,
    /// VC `in_vc`: the escape hop, then (unless the packet is on the escape sub-network or a
    /// hint forces its first hop) every productive hop on every adaptive VC.
    pub fn route(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, out: &mut Candidates) {
        // A packet that arrived on an adaptive VC enters the escape sub-network afresh: before
        // any dateline on its current axis.
        let esc_vc = if in_vc < self.escape { in_vc } else { 0 };
        self.escape_routing.route(router, in_port, esc_vc, hdr, out);
        if self.bubble && in_vc >= self.escape {
            // From an adaptive VC onto the escape VC enters its ring too (the escape routing
            // marked entries from the NIC and from other axes).
            let t = &self.torus;
            out.mark_bubbles(0, |h| t.port_axis(h.port).is_some());
        }
        let arrived = Torus::node_on(router) == hdr.dst;
        if hdr.escaped || arrived {
            return;
        }
        // A hint forces the first hop (from the NIC); it may take an adaptive VC too.
        if hdr.hint != crate::NO_HINT && self.torus.port_axis(in_port).is_none() && self.torus.port_axis(hdr.hint as u32).is_some() {
            for vc in self.escape..self.vcs {
                out.push(hdr.hint as u32, vc, false);
            }
            return;
        }
        let (here, there) = (self.torus.coord_row(Torus::node_on(router)), self.torus.coord_row(hdr.dst));
        for (a, ax) in self.axes.iter().enumerate() {
            let (c, t) = (here[a] as u32, there[a] as u32);
            if c == t {
                continue;
            }
            let (plus, minus) = Self::productive(ax, c, t);
            for (go, port) in [(plus, ax.plus), (minus && ax.minus != ax.plus, ax.minus)] {
                if go {
                    for vc in self.escape..self.vcs {
                        out.push(port, vc, false);
                    }
                }
            }
        }
    }

    /// Whether going + and going - from `c` towards `t` (which differ) are minimal along `ax`.
    #[inline]
    fn productive(ax: &Axis, c: u32, t: u32) -> (bool, bool) {
        if !ax.wrap {
            return (t > c, t < c);
        }
        let fwd = (t + ax.len - c) % ax.len;
        let back = ax.len - fwd;
        (fwd <= back, back <= fwd)
    }
}

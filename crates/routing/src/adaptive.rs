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
//! that takes an escape hop stays on the escape sub-network to its destination (unless the
//! routing lets it leave, [`Adaptive::leaving_escape`], as Blue Gene/Q's dynamic packets may)
//! ([`crate::Header::escaped`]), so the escape sub-network's extended dependency graph is the
//! deterministic one, and a packet blocked on adaptive VCs always has a way out.
//!
//! The escape sub-network keeps its rings free of deadlock in one of two ways ([`Escape`]):
//! - **dateline**: two escape VCs, the second taken after crossing a ring's wrap-around link, so
//!   its channel-dependency graph is acyclic;
//! - **bubble** (as the Blue Gene family does): one escape VC, and a packet may *enter* a ring
//!   on it (from its NIC, from an adaptive VC or from another axis) only when the next buffer
//!   has room for it and for one largest packet more, so a ring always keeps a free packet slot
//!   and never fills; moving
//!   on along the same ring needs room for the packet only. The dependency graph of the
//!   escape VC then has cycles (one per ring); the bubble rule, not the graph, prevents
//!   deadlock. It leaves one more VC for adaptive hops.
//!
//! **Zone routing** (Blue Gene/Q): a zone list is a sequence of axis sets; a dynamic packet
//! takes adaptive hops only along the axes of the first zone in which it still has a coordinate
//! to correct, so it finishes the first zone before it moves in the next. The routing holds a
//! small table of zone lists; a packet's header selects its entry ([`crate::Header::zone`],
//! from `fabricsim_nic::Message::route`; entry 0 by default, and no table: every axis is one
//! zone). A packet marked deterministic ([`DETERMINISTIC`]) takes the escape hop only, so the
//! packets of one pair follow one path on one VC, in order (one injection VC too, see
//! [`crate::Routing::injection_vcs`]).
//!
//! Candidates are listed escape hop first, so a full candidate set never drops it.

mod detour;

use crate::{Candidates, DimensionOrder, Header};

/// `Header::zone`: route on the deterministic (escape) sub-network only.
pub const DETERMINISTIC: u8 = 0x80;
use fabricsim_core::{ConfigError, RouterId};
use fabricsim_topology::Torus;

/// How the escape sub-network avoids deadlock on rings (see the module docs;
/// `[routing] escape = "..."`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Escape {
    /// A dateline VC split: two escape VCs, the second taken after crossing a ring's
    /// wrap-around link (one escape VC when no ring of four or more needs it).
    #[default]
    Dateline,
    /// Bubble flow control: one escape VC, which a packet enters a ring on only when the next
    /// buffer has room for it and one largest packet more.
    Bubble,
}

/// Minimal adaptive routing on a torus or mesh over a dimension-order escape sub-network (see
/// the module docs).
#[derive(Debug, Clone)]
pub struct Adaptive {
    torus: Torus,
    /// Dimension order on VCs `0..escape`.
    escape_routing: DimensionOrder,
    escape: u8,
    bubble: bool,
    vcs: u8,
    /// Queues per dynamic VC (see [`Adaptive::with_queues`]).
    queues: u8,
    /// Whether a dynamic VC's queues share its buffer (see [`Adaptive::sharing_buffers`]).
    shared: bool,
    engines: u32,
    /// Per axis: length, whether it wraps, its + and - ports.
    axes: Vec<Axis>,
    /// Zone lists (each a sequence of axis bit masks), selected by `Header::zone`; empty: no
    /// zones.
    zones: Vec<Vec<u32>>,
    /// Whether a packet with no hop that has room commits to the escape hop (see
    /// [`Adaptive::committing`]).
    commit: bool,
    /// Whether a packet on the escape sub-network may take adaptive hops again (see
    /// [`Adaptive::leaving_escape`]).
    leave_escape: bool,
    /// Ties split by the source's coordinates (see [`Adaptive::tying_by_source`]).
    source_ties: bool,
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
        let needs_dateline = !bubble && DimensionOrder::dateline_axis(&torus).is_some();
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
        Ok(Adaptive {
            torus,
            escape_routing,
            escape,
            bubble,
            vcs,
            queues: 1,
            shared: false,
            engines,
            axes,
            zones: Vec::new(),
            commit: false,
            leave_escape: false,
            source_ties: false,
        })
    }

    /// Give every dynamic VC `k` queues (Blue Gene/Q's virtual output queuing): each a buffer of
    /// its own, a `k`-th of the VC's, so packets for different outputs wait in different queues
    /// and do not block each other; an arriving packet takes the queue the selection policy
    /// prefers (by default the one with most room, that is the fewest packets). The queues
    /// are VCs `escape_vcs()..vcs()` to the network; the escape VCs keep one queue, so
    /// deterministic packets stay in order. Refused (naming `router.queues`) for 0 or beyond 8
    /// VCs in all.
    pub fn with_queues(mut self, k: u8) -> Result<Self, ConfigError> {
        let dynamic = (self.vcs - self.escape) as u32 * k as u32;
        if k == 0 || self.escape as u32 + dynamic > 8 {
            return Err(ConfigError::new(
                "router.queues",
                format!("{k}: between 1 and 8 queues in all ({} escape VCs + {} dynamic VCs x {k})", self.escape, self.vcs - self.escape),
            ));
        }
        (self.vcs, self.queues) = (self.escape + dynamic as u8, k);
        Ok(self)
    }

    /// Let the queues of each dynamic VC share the VC's whole buffer (Blue Gene/Q: the sender's
    /// tokens count the VC's free space, and the receiver files each arriving packet in the
    /// queue with the fewest packets). Hops then name only the first queue of each dynamic VC
    /// (the VC as the sender sees it); the network files the packet when it arrives. Without
    /// it (the default) each queue is a buffer of its own, a `k`-th of the VC's, and the
    /// sender picks the queue as it picks a VC.
    pub fn sharing_buffers(mut self, yes: bool) -> Self {
        self.shared = yes;
        self
    }

    /// Whether the queues of a dynamic VC share its buffer (see [`Adaptive::sharing_buffers`]).
    pub fn shares_buffers(&self) -> bool {
        self.shared && self.queues > 1
    }

    /// The dynamic VCs a hop may name: every queue, or with shared buffers the first queue of
    /// each dynamic VC.
    #[inline(always)]
    fn dynamic_vcs(&self) -> std::iter::StepBy<std::ops::Range<u8>> {
        (self.escape..self.vcs).step_by(if self.shared { self.queues as usize } else { 1 })
    }

    /// Let a packet that took an escape hop take adaptive hops again from the next router on
    /// (Blue Gene/Q's dynamic packets with the header's stay-on-bubble bit clear): at every
    /// hop it is offered its escape hop and its adaptive hops, as before it escaped. Only with
    /// bubble flow control, whose rings stay free of deadlock whatever enters them (a dateline
    /// escape would have to be entered afresh, before its dateline, each time); refused
    /// otherwise, naming `field`.
    pub fn leaving_escape(mut self, yes: bool, field: &str) -> Result<Self, ConfigError> {
        if yes && !self.bubble {
            return Err(ConfigError::new(
                field,
                "true needs routing.escape = \"bubble\": a packet may leave and re-enter only a bubble escape sub-network",
            ));
        }
        self.leave_escape = yes;
        Ok(self)
    }

    /// Split ties (a destination half an even ring away) by the source's coordinates, as Blue
    /// Gene/Q's hint bits do: every hop of the packet, adaptive or escape, goes **+** along that
    /// axis when the source's coordinates sum to an even number, **-** otherwise (see
    /// [`DimensionOrder::tying_by_source`]). Default: adaptive hops may go either way, escape
    /// hops split by the pair's parity.
    pub fn tying_by_source(mut self, yes: bool) -> Self {
        self.source_ties = yes;
        self.escape_routing = self.escape_routing.tying_by_source(yes);
        self
    }

    /// What a packet does when none of its hops has room: by default it waits for room on any
    /// of them (the network layer's business: it takes the first hop that has room);
    /// `committing(true)`: it takes the escape hop at once and waits for that one.
    pub fn committing(mut self, yes: bool) -> Self {
        self.commit = yes;
        self
    }

    /// Whether blocked packets commit to the escape hop (see [`Adaptive::committing`]).
    pub fn commits_when_blocked(&self) -> bool {
        self.commit
    }

    /// Whether a packet may leave the escape sub-network (see [`Adaptive::leaving_escape`]).
    pub fn leaves_escape(&self) -> bool {
        self.leave_escape
    }

    /// Queues per dynamic VC.
    pub fn queues(&self) -> u8 {
        self.queues
    }

    /// Use `table` as the zone table: entry `z` (a list of zones, each a list of axis names) is
    /// the one packets with `Header::zone == z` follow. Every zone list must name each axis of
    /// length two or more exactly once. `field` names the setting in errors.
    pub fn with_zones(mut self, table: &[Vec<Vec<String>>], field: &str) -> Result<Self, ConfigError> {
        // Selector bits above the zone index mark deterministic and class-VC packets.
        if table.len() > crate::classes::CLASS_INDEX as usize {
            return Err(ConfigError::new(field, format!("{} zone lists; at most {}", table.len(), crate::classes::CLASS_INDEX)));
        }
        let t = &self.torus;
        let needed: u32 = (0..t.dims()).filter(|&a| t.shape()[a] >= 2).fold(0, |m, a| m | 1 << a);
        let mut masks = Vec::with_capacity(table.len());
        for list in table {
            let mut seen = 0u32;
            let mut zones = Vec::with_capacity(list.len());
            for zone in list {
                let mut mask = 0u32;
                for name in zone {
                    let a =
                        t.axis_index(name).ok_or_else(|| ConfigError::new(field, format!("'{name}' is not an axis (axes are {:?})", t.names())))?;
                    if seen & 1 << a != 0 {
                        return Err(ConfigError::new(field, format!("axis '{name}' is in more than one zone (zones must not overlap)")));
                    }
                    (seen, mask) = (seen | 1 << a, mask | 1 << a);
                }
                if mask == 0 {
                    return Err(ConfigError::new(field, "a zone names no axis"));
                }
                zones.push(mask);
            }
            if needed & !seen != 0 {
                let missing: Vec<&String> = (0..t.dims()).filter(|&a| needed & !seen & 1 << a != 0).map(|a| &t.names()[a]).collect();
                return Err(ConfigError::new(field, format!("no zone holds axes {missing:?}; every axis longer than 1 needs one")));
            }
            masks.push(zones);
        }
        self.zones = masks;
        Ok(self)
    }

    /// VCs per port it uses: the escape VCs, then the dynamic ones (each queue of a dynamic VC
    /// counted as one VC, see [`Adaptive::with_queues`]).
    pub fn vcs(&self) -> u8 {
        self.vcs
    }
    /// Injection/reception engines per node it was built for (the local ports after a router's
    /// network ports).
    pub fn engines(&self) -> u32 {
        self.engines
    }
    /// VCs `0..escape_vcs()` are the escape sub-network's.
    pub fn escape_vcs(&self) -> u8 {
        self.escape
    }
    /// Whether the escape VC relies on bubble flow control ([`Escape::Bubble`]).
    pub fn uses_bubbles(&self) -> bool {
        self.bubble
    }
    /// The torus or mesh it routes.
    pub fn torus(&self) -> &Torus {
        &self.torus
    }
    /// The escape sub-network's dimension order (axis indices).
    pub fn order(&self) -> &[usize] {
        self.escape_routing.order()
    }

    /// Candidates for a packet with header `hdr` that entered `router` on local port `in_port`,
    /// VC `in_vc`: the escape hop, then (unless the packet is on the escape sub-network or a
    /// hint forces its first hop) every productive hop on every adaptive VC.
    #[inline]
    pub fn route(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, out: &mut Candidates) {
        self.escape_routing.route(router, in_port, self.escape_vc(in_vc), hdr, out);
        self.mark_escape_entries(in_vc, out);
        self.adaptive_hops(router, in_port, hdr, out, true, |_| false);
    }

    /// With bubble flow control, a packet that came in on an adaptive VC enters a ring when it
    /// takes the escape hop (the escape routing marked entries from the NIC and from other
    /// axes): the hops in `out` so far are marked bubble hops.
    #[inline(always)]
    fn mark_escape_entries(&self, in_vc: u8, out: &mut Candidates) {
        if self.bubble && in_vc >= self.escape {
            let t = &self.torus;
            out.mark_bubbles(|h| t.port_axis(h.port).is_some());
        }
    }

    /// The VC a packet that entered on `in_vc` holds on the escape sub-network: a packet that
    /// arrived on an adaptive VC enters it afresh, before any dateline on its current axis.
    fn escape_vc(&self, in_vc: u8) -> u8 {
        if in_vc < self.escape {
            in_vc
        } else {
            0
        }
    }

    /// After the escape hop (in `out`, if `escape_found`), the adaptive hops of
    /// [`route`](Self::route), but none onto a local port `dead` names. Whether some candidate
    /// was found. Without an escape hop the adaptive hops are offered as escape hops: safe to
    /// wait for (they lead where the escape sub-network can deliver, see
    /// [`Adaptive::route_around`]), and the packet stays on the escape sub-network after.
    #[inline(always)]
    fn adaptive_hops(
        &self,
        router: RouterId,
        in_port: u32,
        hdr: &Header,
        out: &mut Candidates,
        escape_found: bool,
        dead: impl Fn(u32) -> bool,
    ) -> bool {
        let arrived = Torus::node_on(router) == hdr.dst;
        if (hdr.escaped && !self.leave_escape) || arrived || hdr.zone & DETERMINISTIC != 0 {
            return escape_found;
        }
        let as_escape = !escape_found;
        // A hint forces the first hop (from the NIC); it may take an adaptive VC too.
        if hdr.hint != crate::NO_HINT
            && self.torus.port_axis(in_port).is_none()
            && self.torus.port_axis(hdr.hint as u32).is_some()
            && !dead(hdr.hint as u32)
        {
            for vc in self.dynamic_vcs() {
                out.push(hdr.hint as u32, vc, as_escape);
            }
            return true;
        }
        let (here, there) = (self.torus.coord_row(Torus::node_on(router)), self.torus.coord_row(hdr.dst));
        let pending = (0..self.axes.len()).filter(|&a| here[a] != there[a]).fold(0u32, |m, a| m | 1 << a);
        // The axes open to adaptive hops: the first zone with something left to correct.
        let open = match self.zones.get(hdr.zone as usize).or(self.zones.first()) {
            Some(list) => list.iter().map(|&z| z & pending).find(|&m| m != 0).unwrap_or(pending),
            None => pending,
        };
        let mut found = escape_found;
        // With ties by source: + at a tie when the source's coordinates sum to an even number.
        let plus_at_tie = !self.source_ties || self.torus.coord_row(hdr.src).iter().map(|&x| x as u32).sum::<u32>() % 2 == 0;
        for (a, ax) in self.axes.iter().enumerate() {
            let (c, t) = (here[a] as u32, there[a] as u32);
            if open & 1 << a == 0 {
                continue;
            }
            let (mut plus, mut minus) = Self::productive(ax, c, t);
            if plus && minus && self.source_ties {
                (plus, minus) = (plus_at_tie, !plus_at_tie);
            }
            for (go, port) in [(plus, ax.plus), (minus && ax.minus != ax.plus, ax.minus)] {
                if go && !dead(port) {
                    found = true;
                    for vc in self.dynamic_vcs() {
                        out.push(port, vc, as_escape);
                    }
                }
            }
        }
        found
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

//! Dimension-order routing on an n-D mesh/torus with a programmable axis order.
//!
//! A packet corrects one axis at a time, in `order`, taking the shorter way round on a ring.
//! When both ways are equally short (an offset of exactly half an even ring, which includes any
//! move on a 2-ring) the tie is split by parity, so that the + and - links of a ring carry the
//! same load under symmetric traffic: the packet goes **+** when the source's coordinates on the
//! other axes and all of the destination's coordinates sum to an even number, **-** otherwise.
//! The choice depends on the source and destination alone, so one pair's packets all take the
//! same links (with one VC per dateline half and one injection VC they also stay in order;
//! with more, the NIC and the routers spread them over VCs and they may overtake each other);
//! and the packets that meet a tie at one router come from sources (or go to destinations)
//! that differ on other axes, so they split between the two ways. On a 2-ring, which has two
//! links between the same two routers, this sends half of each router's traffic over each link
//! in each direction (always going + would use each link in one direction only); on a lone even
//! ring it sends even coordinates + and odd ones -.
//!
//! Deadlock freedom on rings uses a dateline: the VCs of a port are split into a lower half
//! (used before crossing the ring's wrap-around link in the current axis) and an upper half
//! (used after). Moving to the next axis returns the packet to the lower half. Rings of length
//! 3 or less never carry a packet more than one hop per axis, so they need no dateline; rings of
//! 4 or more need at least 2 VCs, which [`DimensionOrder::new`] enforces.

mod detour;

use crate::{Candidates, Header, Hop, NO_HINT};
use fabricsim_core::{ConfigError, NodeId, RouterId};
use fabricsim_topology::Torus;

/// Dimension-order routing on a torus or mesh (see the module docs).
#[derive(Debug, Clone)]
pub struct DimensionOrder {
    torus: Torus,
    order: Vec<usize>,
    engines: u32,
    vcs: u8,
    /// Whether some ring axis needs the dateline split.
    dateline: bool,
    /// Bubble flow control instead of a dateline (see [`DimensionOrder::on_one_vc_with_bubbles`]).
    bubbles: bool,
    /// Axis of each local network port (a table: the per-hop route reads it).
    port_axis: Vec<u16>,
    /// The axes in routing order, with what the per-hop route needs of each.
    steps: Vec<AxisStep>,
    /// Each node's coordinates packed one byte per step, in routing order, when they fit (at
    /// most 8 steps, every length at most 256): the first axis still to correct is then the
    /// lowest differing byte of two words.
    packed: Option<Vec<u64>>,
    /// With `packed`, unless the tables would exceed [`MAX_MOVES`] entries (empty then): the
    /// move from coordinate `c` towards `t` on each step, tabulated as
    /// `moves[step.moves + c * len + t]` (the local port, and [`CROSSES`] if it takes the
    /// wrap-around link), so a hop looks its direction up instead of working it out.
    moves: Vec<u16>,
    /// Ties split by the source's coordinates alone (see [`DimensionOrder::tying_by_source`]).
    source_ties: bool,
}

/// [`DimensionOrder::tie_pair`] with ties by source: `src` the source's packed coordinates,
/// `c` its coordinate on the tied axis (out of the hop path's way: ties by source are rare).
#[cold]
#[inline(never)]
fn source_pair(src: u64, c: u32) -> u32 {
    ((src & LOW_BITS).count_ones() + c) & 1
}

/// `DimensionOrder::moves`: the move takes the ring's wrap-around link.
const CROSSES: u16 = 1 << 15;
/// `DimensionOrder::moves`: both ways are equally short; the entry holds the + move and the
/// parity rule decides (see [`DimensionOrder::direction`]).
const TIE: u16 = 1 << 14;
/// `DimensionOrder::moves`: the port bits of an entry.
const PORT: u16 = TIE - 1;
/// The low bit of every byte of a packed coordinate word: their count's parity is that of the
/// sum of the coordinates.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
/// Most move-table entries (all steps together) built; larger shapes route arithmetically.
const MAX_MOVES: usize = 1 << 16;

/// One axis as the per-hop route sees it (precomputed so a hop reads one small record).
#[derive(Debug, Clone, Copy)]
struct AxisStep {
    axis: u16,
    len: i32,
    /// A ring of 3 or more: take the shorter way.
    ring: bool,
    /// Wrap-around link present (rings of any length): the dateline applies.
    wrap: bool,
    plus: u32,
    minus: u32,
    /// First entry of this step's move table.
    moves: u32,
}

impl DimensionOrder {
    /// Dimension order on `torus` correcting axes in `order` (axis names; `None`: the torus's
    /// axis order), for `engines` engines per node and `vcs` VCs per port. Refused (naming
    /// `routing.order`) unless `order` names every axis once, and (naming `router.vcs`) with
    /// one VC when a ring needs a dateline.
    pub fn new(torus: Torus, order: Option<&[String]>, engines: u32, vcs: u8) -> Result<Self, ConfigError> {
        let order: Vec<usize> = match order {
            None => (0..torus.dims()).collect(),
            Some(names) => {
                let mut idx = Vec::with_capacity(names.len());
                for n in names {
                    let a = torus
                        .axis_index(n)
                        .ok_or_else(|| ConfigError::new("routing.order", format!("'{n}' is not an axis (axes are {:?})", torus.names())))?;
                    if idx.contains(&a) {
                        return Err(ConfigError::new("routing.order", format!("axis '{n}' appears twice")));
                    }
                    idx.push(a);
                }
                if idx.len() != torus.dims() {
                    let missing: Vec<&String> = (0..torus.dims()).filter(|a| !idx.contains(a)).map(|a| &torus.names()[a]).collect();
                    return Err(ConfigError::new("routing.order", format!("misses axes {missing:?}")));
                }
                idx
            }
        };
        let needs = Self::dateline_axis(&torus);
        if let (Some(a), 1) = (needs, vcs) {
            return Err(ConfigError::new(
                "router.vcs",
                format!(
                    "1 VC cannot keep dimension-order routing deadlock-free on ring axis {} (length {}); use at least 2 (dateline)",
                    torus.names()[a],
                    torus.shape()[a]
                ),
            ));
        }
        // Every local port, reception/injection ports included (no axis): the per-hop lookup
        // then always finds its port, and its bound check always goes the same way.
        let port_axis = (0..torus.net_ports() + engines).map(|p| torus.port_axis(p).map_or(u16::MAX, |(a, _)| a as u16)).collect();
        // Axes of length 1 never need correcting; the rest are at most 31 (a shape with more
        // axes of length >= 2 would exceed the node limit), so a u32 holds one bit per axis.
        let mut steps = order
            .iter()
            .filter(|&&a| torus.shape()[a] >= 2)
            .map(|&a| {
                let (len, wrap) = (torus.shape()[a] as i32, torus.wrap()[a]);
                AxisStep { axis: a as u16, len, ring: wrap && len >= 3, wrap, plus: torus.port_for(a, 1), minus: torus.port_for(a, -1), moves: 0 }
            })
            .collect::<Vec<AxisStep>>();
        let fits = steps.len() <= 8 && steps.iter().all(|s| s.len <= 256);
        let table_len: usize = steps.iter().map(|s| (s.len as usize).pow(2)).sum();
        let packed = fits.then(|| {
            (0..torus.nodes())
                .map(|n| {
                    let row = torus.coord_row(NodeId(n));
                    steps.iter().enumerate().fold(0u64, |w, (i, s)| w | (row[s.axis as usize] as u64) << (8 * i))
                })
                .collect()
        });
        let mut moves = Vec::new();
        if fits && table_len <= MAX_MOVES {
            for s in steps.iter_mut() {
                s.moves = moves.len() as u32;
                for c in 0..s.len {
                    for t in 0..s.len {
                        let (port, crosses) = Self::direction(s, c, t, 0);
                        let tie = Self::is_tie(s, c, t);
                        moves.push(port as u16 | if crosses { CROSSES } else { 0 } | if tie { TIE } else { 0 });
                    }
                }
            }
        }
        Ok(DimensionOrder {
            dateline: needs.is_some(),
            bubbles: false,
            torus,
            order,
            engines,
            vcs,
            port_axis,
            steps,
            packed,
            moves,
            source_ties: false,
        })
    }

    /// The first axis of `torus` whose ring needs a dateline to route in dimension order
    /// without deadlock: a wrapping axis of length 4 or more (shorter rings never carry a
    /// packet more than one hop); `None`: one VC suffices.
    pub fn dateline_axis(torus: &Torus) -> Option<usize> {
        (0..torus.dims()).find(|&a| torus.wrap()[a] && torus.shape()[a] >= 4)
    }

    /// Dimension order on one VC with no dateline, its rings kept from deadlock by bubble flow
    /// control instead: a hop that enters a ring (from the NIC or from another axis) is a
    /// bubble hop, taken only when the next buffer has room for the packet and one largest packet more. The Blue Gene
    /// family's escape VC (see [`crate::adaptive`]).
    pub fn on_one_vc_with_bubbles(torus: Torus, order: Option<&[String]>, engines: u32) -> Result<Self, ConfigError> {
        // Built with two VCs (so the dateline check passes), then narrowed to one without it.
        let mut r = DimensionOrder::new(torus, order, engines, 2)?;
        (r.vcs, r.dateline, r.bubbles) = (1, false, true);
        Ok(r)
    }

    /// Whether it runs on one VC with bubble flow control (see
    /// [`DimensionOrder::on_one_vc_with_bubbles`]).
    pub fn uses_bubbles(&self) -> bool {
        self.bubbles
    }

    /// A packet that came in on local port `in_port` and leaves on `out` stays in the same ring
    /// (same axis, same direction of travel: it arrived through the port facing the other way).
    fn continues_ring(&self, in_port: u32, out: u32) -> bool {
        match (self.torus.port_axis(in_port), self.torus.port_axis(out)) {
            (Some((a, d_in)), Some((b, d_out))) => a == b && d_in == -d_out,
            _ => false,
        }
    }

    /// The same routing without the bubble rule (one VC, no dateline: deadlock-prone on rings;
    /// for the tests that show what the rule prevents).
    #[doc(hidden)]
    pub fn without_bubbles(mut self) -> Self {
        self.bubbles = false;
        self
    }

    /// Switch the dateline VC split off (or back on). Without it, dimension-order routing on a
    /// ring of length >= 4 can deadlock; this exists for experiments that demonstrate exactly
    /// that (and for the deadlock-watchdog tests).
    pub fn with_dateline(mut self, on: bool) -> Self {
        self.dateline = on;
        self
    }

    /// Route from coordinate rows instead of packed words (for tests: both must agree).
    #[doc(hidden)]
    pub fn without_packed_coordinates(mut self) -> Self {
        self.packed = None;
        self
    }

    /// The torus or mesh it routes.
    pub fn torus(&self) -> &Torus {
        &self.torus
    }
    /// The order packets correct their coordinates in: axis indices, each axis once.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// VCs per port it uses (with a dateline, the lower half before the wrap-around link and
    /// the upper half after).
    pub fn vcs(&self) -> u8 {
        self.vcs
    }
    /// Injection/reception engines per node it was built for (the local ports after a router's
    /// network ports).
    pub fn engines(&self) -> u32 {
        self.engines
    }

    /// Leave on local port `port` (a network port); VCs as the dateline rule gives for it.
    /// `false`: `port` is not a network port.
    fn route_via(&self, router: RouterId, port: u32, out: &mut Candidates) -> bool {
        let Some((axis, delta)) = self.torus.port_axis(port) else { return false };
        self.push_port(port, self.torus.crosses_dateline(Torus::node_on(router), axis, delta), out);
        true
    }

    /// VCs (a range) of the dateline half a packet may use on a port: the upper half once it
    /// has crossed the dateline in the current axis (`post`), the lower half before; all VCs
    /// when no ring needs a dateline.
    #[inline]
    fn vc_range(&self, post: bool) -> std::ops::Range<u8> {
        let half = self.vcs / 2;
        match (self.dateline, post) {
            (false, _) => 0..self.vcs,
            (true, true) => half..self.vcs,
            (true, false) => 0..half,
        }
    }

    #[inline]
    fn push_port(&self, port: u32, post: bool, out: &mut Candidates) {
        out.push_vcs(port, self.vc_range(post));
    }

    /// Candidates for a packet with header `hdr` that entered on local port `in_port`, VC
    /// `in_vc`. A hint (a network port) forces the first hop, taken where the packet enters
    /// from its NIC (a port on no axis); a hint that names no network port is ignored.
    #[inline]
    pub fn route(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, out: &mut Candidates) {
        let from_nic = self.port_axis.get(in_port as usize).is_none_or(|&a| a == u16::MAX);
        if hdr.hint != NO_HINT && from_nic && self.route_via(router, hdr.hint as u32, out) {
            if self.bubbles {
                out.mark_bubbles(|_| true); // from the NIC into a ring
            }
            return;
        }
        match self.next(router, in_port, in_vc, hdr.src, hdr.dst) {
            Some((port, post)) => {
                self.push_port(port, post, out);
                if self.bubbles && !self.continues_ring(in_port, port) {
                    out.mark_bubbles(|_| true);
                }
            }
            // Arrived: any reception engine will do.
            None => {
                for e in 0..self.engines {
                    out.push(self.torus.net_ports() + e, 0, true);
                }
            }
        }
    }

    /// The hop, when the routing offers exactly one (one VC per dateline half, one reception
    /// engine): the router then needs no candidate set.
    #[inline(always)]
    pub fn route_single(&self, router: RouterId, in_port: u32, in_vc: u8, src: NodeId, dst: NodeId) -> Option<Hop> {
        if self.bubbles {
            return None; // bubble hops need the flag `route` sets
        }
        match self.next(router, in_port, in_vc, src, dst) {
            // One VC per dateline half (or one VC, without a dateline), the usual case: the
            // VC is the half (`post` is false without a dateline).
            Some((port, post)) if self.vcs == 1 + self.dateline as u8 => Some(Hop { port, vc: post as u8, escape: true, bubble: false }),
            Some((port, post)) => {
                let vcs = self.vc_range(post);
                (vcs.len() == 1).then_some(Hop { port, vc: vcs.start, escape: true, bubble: false })
            }
            None => (self.engines == 1).then_some(Hop { port: self.torus.net_ports(), vc: 0, escape: true, bubble: false }),
        }
    }

    /// The output port towards `dst` and whether the packet is past the dateline on it, or
    /// `None` once the packet has arrived.
    #[inline(always)]
    fn next(&self, router: RouterId, in_port: u32, in_vc: u8, src: NodeId, dst: NodeId) -> Option<(u32, bool)> {
        if let Some(packed) = &self.packed {
            let (here, there) = (packed[router.index()], packed[dst.index()]);
            let diff = here ^ there;
            if diff != 0 {
                let i = diff.trailing_zeros() / 8;
                let (c, t) = ((here >> (8 * i)) as u8 as u32, (there >> (8 * i)) as u8 as u32);
                let s = &self.steps[i as usize];
                if self.moves.is_empty() {
                    let pair = self.tie_pair(((packed[src.index()] ^ there) & LOW_BITS).count_ones(), packed[src.index()], c);
                    return Some(self.step_with(s, c as i32, t as i32, pair, in_port, in_vc));
                }
                let m = self.moves[(s.moves + c * s.len as u32 + t) as usize];
                if m & TIE != 0 {
                    let pair = self.tie_pair(((packed[src.index()] ^ there) & LOW_BITS).count_ones(), packed[src.index()], c);
                    return Some(self.step_with(s, c as i32, t as i32, pair, in_port, in_vc));
                }
                return Some(self.leave(s, (m & PORT) as u32, m & CROSSES != 0, in_port, in_vc));
            }
        } else {
            let t = &self.torus;
            let (here, there) = (t.coord_row(Torus::node_on(router)), t.coord_row(dst));
            // The first axis (in routing order) not yet corrected. A fixed-count loop and a bit
            // scan instead of an early exit: which axis is next is random per packet, and a
            // mispredicted branch per hop costs more than the few extra loads.
            let mut pending = 0u32;
            for (i, s) in self.steps.iter().enumerate() {
                pending |= ((here[s.axis as usize] != there[s.axis as usize]) as u32) << i;
            }
            if pending != 0 {
                let s = &self.steps[pending.trailing_zeros() as usize];
                let sum = |row: &[u16]| row.iter().map(|&x| x as u32).sum::<u32>();
                let c = here[s.axis as usize] as u32;
                let pair = if self.source_ties { (sum(t.coord_row(src)) + c) & 1 } else { (sum(t.coord_row(src)) + sum(there)) & 1 };
                return Some(self.step_with(s, here[s.axis as usize] as i32, there[s.axis as usize] as i32, pair, in_port, in_vc));
            }
        }
        None
    }

    /// One hop along axis step `s`, from coordinate `c` towards `t` (which differ), for a
    /// packet whose source's and destination's coordinates sum to `pair` (mod 2): the port, and
    /// whether the packet is past the dateline on it.
    #[inline(always)]
    fn step_with(&self, s: &AxisStep, c: i32, t: i32, pair: u32, in_port: u32, in_vc: u8) -> (u32, bool) {
        let (port, crosses) = Self::direction(s, c, t, pair);
        self.leave(s, port, crosses, in_port, in_vc)
    }

    /// Split ties by the parity of the source's coordinates alone, as Blue Gene/Q's hint bits
    /// do: a packet goes **+** at a tie when its source's coordinates sum to an even number,
    /// **-** otherwise, whatever its destination (the network computes the hint bits at
    /// injection from the node's own coordinates, and a packet keeps them to its destination).
    /// Default: by the pair's parity (see the module docs).
    pub fn tying_by_source(mut self, yes: bool) -> Self {
        self.source_ties = yes;
        self
    }

    /// The `pair` argument of [`direction`](Self::direction) at a tie on coordinate `c`: `xor`
    /// is the count of the low bits the source's and destination's packed coordinates differ
    /// in (their sums' parity), `src` the source's packed coordinates. With ties by source,
    /// `c + pair` must have the parity of the source's coordinate sum.
    #[inline(always)]
    fn tie_pair(&self, xor: u32, src: u64, c: u32) -> u32 {
        if self.source_ties {
            source_pair(src, c)
        } else {
            xor & 1
        }
    }

    /// Both ways from `c` to `t` along step `s` are equally short: half an even ring apart.
    #[inline(always)]
    fn is_tie(s: &AxisStep, c: i32, t: i32) -> bool {
        s.wrap && s.len % 2 == 0 && (t - c).abs() == s.len / 2
    }

    /// The port of a move along step `s` from coordinate `c` towards `t` (which differ), and
    /// whether it takes the wrap-around link. A tie is split by `pair`, the parity of the sum
    /// of all the source's and destination's coordinates: at a tie `c` is still the source's
    /// coordinate, so `c + pair` has the parity of the source's other coordinates plus all the
    /// destination's (the rule of the module docs).
    #[inline(always)]
    fn direction(s: &AxisStep, c: i32, t: i32, pair: u32) -> (u32, bool) {
        let d = t - c;
        // Direction: the shorter way on a ring, towards the destination on a mesh (see
        // `Torus::offset`); a tie (a 2-ring always) by parity.
        let fwd = if d < 0 { d + s.len } else { d };
        let tie = Self::is_tie(s, c, t);
        let plus = if tie { (c as u32 + pair) & 1 == 0 } else { (s.ring & (fwd < s.len - fwd)) | (!s.ring & (d > 0)) };
        // The ring's last coordinate going `+`, its first going `-` (branch-free: the direction
        // is random per packet).
        let edge = (s.len - 1) & (plus as i32).wrapping_neg();
        let crosses = s.wrap & (c == edge);
        (if plus { s.plus } else { s.minus }, crosses)
    }

    /// Leave on `port` along step `s` (`crosses`: over the wrap-around link), having entered
    /// on `in_port`, VC `in_vc`: the port and whether the packet is past the dateline on it
    /// (it was, and stays on the same axis, or it crosses now).
    #[inline(always)]
    fn leave(&self, s: &AxisStep, port: u32, crosses: bool, in_port: u32, in_vc: u8) -> (u32, bool) {
        let same_axis = self.port_axis.get(in_port as usize) == Some(&s.axis);
        let post = self.dateline & ((same_axis & (in_vc >= self.vcs / 2)) | crosses);
        (port, post)
    }
}

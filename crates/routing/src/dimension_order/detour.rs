//! Dimension order around links known to be down (see [`crate::detour`] for the rule and why
//! it stays deadlock-free).

use super::{AxisStep, DimensionOrder};
use crate::{Candidates, Header, NO_HINT};
use fabricsim_core::{NodeId, RouterId};
use fabricsim_topology::Torus;

impl DimensionOrder {
    /// [`route`](Self::route) avoiding the links `dead` names (a router and its local port):
    /// on the axis the packet corrects, the shorter of the ways round whose whole remaining
    /// path along the axis is alive (the parity rule when both are and they are equally long).
    /// `false`, with no candidate: neither way is alive (on a mesh axis, the only way), so the
    /// packet cannot reach its destination in dimension order. A hint naming a dead port is
    /// ignored.
    pub fn route_around(&self, router: RouterId, in_port: u32, in_vc: u8, hdr: &Header, dead: crate::detour::Dead, out: &mut Candidates) -> bool {
        let from_nic = self.port_axis.get(in_port as usize).is_none_or(|&a| a == u16::MAX);
        if hdr.hint != NO_HINT && from_nic && !dead(router, hdr.hint as u32) && self.route_via(router, hdr.hint as u32, out) {
            if self.bubbles {
                out.mark_bubbles(|_| true);
            }
            return true;
        }
        let t = &self.torus;
        let (here, there) = (t.coord_row(Torus::node_on(router)), t.coord_row(hdr.dst));
        let Some(s) = self.steps.iter().find(|s| here[s.axis as usize] != there[s.axis as usize]) else {
            for e in 0..self.engines {
                out.push(t.net_ports() + e, 0, true);
            }
            return true;
        };
        let (c, target) = (here[s.axis as usize] as i32, there[s.axis as usize] as i32);
        let sum = |row: &[u16]| row.iter().map(|&x| x as u32).sum::<u32>();
        let pair = if self.source_ties { (sum(t.coord_row(hdr.src)) + c as u32) & 1 } else { (sum(t.coord_row(hdr.src)) + sum(there)) & 1 };
        let (preferred, _) = Self::direction(s, c, target, pair);
        let first = preferred == s.plus && !(s.plus == s.minus && target < c);
        // A ring (or a 2-ring's two links) has the other way too; a mesh axis has one.
        let ways: &[bool] = if s.wrap { &[first, !first] } else { &[first] };
        for &plus in ways {
            if self.way_alive(router, s, c, target, plus, dead) {
                let port = if plus { s.plus } else { s.minus };
                let crosses = s.wrap && c == if plus { s.len - 1 } else { 0 };
                let (port, post) = self.leave(s, port, crosses, in_port, in_vc);
                self.push_port(port, post, out);
                if self.bubbles && !self.continues_ring(in_port, port) {
                    out.mark_bubbles(|_| true);
                }
                return true;
            }
        }
        false
    }

    /// Whether dimension order around the links `dead` names takes a packet from `from` to
    /// `dst`: on every axis still to correct, in order, one of its ways is alive.
    pub fn reaches_around(&self, from: NodeId, dst: NodeId, dead: crate::detour::Dead) -> bool {
        let t = &self.torus;
        let mut at = from;
        for s in &self.steps {
            let (c, target) = (t.coord(at, s.axis as usize) as i32, t.coord(dst, s.axis as usize) as i32);
            if c == target {
                continue;
            }
            let r = Torus::router_of(at);
            let ways: &[bool] = if s.wrap { &[true, false] } else { &[target > c] };
            if !ways.iter().any(|&plus| self.way_alive(r, s, c, target, plus, dead)) {
                return false;
            }
            let stride = t.stride(s.axis as usize);
            at = NodeId(at.0 - c as u32 * stride + target as u32 * stride);
        }
        true
    }

    /// Whether every link from coordinate `c` to `target` along step `s`, going + (`plus`) or
    /// -, starting at `router`, is alive.
    fn way_alive(&self, router: RouterId, s: &AxisStep, c: i32, target: i32, plus: bool, dead: crate::detour::Dead) -> bool {
        let hops = if plus { (target - c).rem_euclid(s.len) } else { (c - target).rem_euclid(s.len) };
        let (port, delta) = if plus { (s.plus, 1) } else { (s.minus, -1) };
        let mut node = Torus::node_on(router);
        for _ in 0..hops {
            let r = Torus::router_of(node);
            if dead(r, port) {
                return false;
            }
            match self.torus.step(node, s.axis as usize, delta) {
                Some(n) => node = n,
                None => return false,
            }
        }
        true
    }
}

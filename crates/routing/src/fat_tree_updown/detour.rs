//! Up/down routing around links known to be down (see [`crate::detour`]).

use super::{UpDown, UpPort};
use crate::{Candidates, Header};
use fabricsim_core::RouterId;

impl UpDown {
    /// [`route`](Self::route) avoiding the links `dead` names (a router and its local port): a
    /// climbing packet takes the up port its rule picks if that link is alive, else the next
    /// live one after it (every live one, with [`UpPort::Adaptive`]); the down path is unique,
    /// so a dead down link leaves no way. `false`, with no candidate: no live way on.
    pub fn route_around(&self, router: RouterId, hdr: &Header, dead: crate::detour::Dead, out: &mut Candidates) -> bool {
        let f = &self.tree;
        let (_, level, idx) = f.locate(router);
        if f.covers(level, idx, hdr.dst) {
            let port = f.digit(hdr.dst, level);
            if dead(router, port) {
                return false;
            }
            out.push_vcs(port, 0..self.vcs);
            return true;
        }
        let ups = f.ups(level);
        let first = self.up_choice(level, hdr, ups);
        for k in 0..ups {
            let port = f.up_port(level, (first + k) % ups);
            if !dead(router, port) {
                out.push_vcs(port, 0..self.vcs);
                if self.up != UpPort::Adaptive {
                    return true;
                }
            }
        }
        !out.is_empty()
    }
}

//! Up/down routing on a fat-tree.
//!
//! A packet climbs until it reaches a switch whose subtree holds the destination, then descends
//! along the unique path. The up port is chosen by [`UpPort`]: by default the destination's
//! digit at that level mod the up ports ("D-mod-k": destinations that differ in their low
//! digits spread over different top switches); or a port drawn per source-destination pair; or
//! any up port, left to the router's selection policy (adaptive). Up/down paths never turn from
//! down to up, so the channel-dependency graph is acyclic with any VC count and any up-port
//! choice: every hop is an escape hop. All VCs of the chosen ports are candidates.

mod detour;

use crate::{Candidates, Header};
use fabricsim_core::RouterId;
use fabricsim_topology::FatTree;
use serde::{Deserialize, Serialize};

/// How a climbing packet picks its up port (`[routing] up_port = "..."`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UpPort {
    /// The destination's digit at the level, mod the up ports (D-mod-k).
    #[default]
    Destination,
    /// A port drawn from a hash of source, destination and level: random, but one pair's
    /// packets share a path.
    Random,
    /// Every up port is a candidate; the selection policy chooses (free credit by default).
    Adaptive,
}

/// Up/down routing on a fat-tree (see the module docs).
#[derive(Debug, Clone)]
pub struct UpDown {
    tree: FatTree,
    vcs: u8,
    up: UpPort,
}

impl UpDown {
    /// Up/down routing on `tree` with `vcs` VCs per port, choosing up ports by destination
    /// ([`UpPort::Destination`]).
    pub fn new(tree: FatTree, vcs: u8) -> Self {
        UpDown { tree, vcs, up: UpPort::Destination }
    }

    /// The same routing choosing up ports by `up`.
    pub fn with_up_port(mut self, up: UpPort) -> Self {
        self.up = up;
        self
    }

    /// The fat-tree it routes.
    pub fn tree(&self) -> &FatTree {
        &self.tree
    }
    /// VCs per port it uses (every one is a candidate on each chosen port).
    pub fn vcs(&self) -> u8 {
        self.vcs
    }

    /// Add to `out` the candidates for a packet with header `hdr` at `router`: the down port
    /// towards `hdr.dst` if `router`'s subtree holds it, else the up port (or, with
    /// [`UpPort::Adaptive`], every up port) of the [`UpPort`] rule; each with every VC.
    #[inline]
    pub fn route(&self, router: RouterId, hdr: &Header, out: &mut Candidates) {
        let f = &self.tree;
        let dst = hdr.dst;
        let (_, level, idx) = f.locate(router);
        if f.covers(level, idx, dst) {
            return out.push_vcs(f.digit(dst, level), 0..self.vcs);
        }
        let ups = f.ups(level);
        let first = self.up_choice(level, hdr, ups);
        if self.up == UpPort::Adaptive {
            // From a start that depends on the destination: a wide switch with several VCs
            // may offer more than a candidate set holds, and then each destination keeps a
            // different subset.
            for k in 0..ups {
                out.push_vcs(f.up_port(level, (first + k) % ups), 0..self.vcs);
            }
        } else {
            out.push_vcs(f.up_port(level, first), 0..self.vcs);
        }
    }

    /// The index (below `ups`) of the up port the rule picks at `level` for `hdr`, or, with
    /// [`UpPort::Adaptive`], the first of the candidates.
    #[inline]
    fn up_choice(&self, level: usize, hdr: &Header, ups: u32) -> u32 {
        let dst = hdr.dst;
        match self.up {
            UpPort::Destination | UpPort::Adaptive => self.tree.digit(dst, level) % ups,
            UpPort::Random => {
                let h = fabricsim_core::rng::mix((hdr.src.0 as u64) << 32 | dst.0 as u64 ^ (level as u64) << 58);
                (h % ups as u64) as u32
            }
        }
    }
}

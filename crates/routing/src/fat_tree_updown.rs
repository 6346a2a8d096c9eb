//! Deterministic destination-based up/down routing on a fat-tree ("D-mod-k").
//!
//! A packet climbs until it reaches a switch whose subtree holds the destination, then descends
//! along the unique path. Climbing from level `l`, it takes up link `digit_l(dst) mod ups`, so
//! destinations that differ in their low digits spread over different top switches. Up/down
//! paths never turn from down to up, so the channel-dependency graph is acyclic with any VC
//! count; all VCs of the chosen port are candidates.

use crate::Candidates;
use fabricsim_core::{NodeId, RouterId};
use fabricsim_topology::FatTree;

#[derive(Debug, Clone)]
pub struct UpDown {
    tree: FatTree,
    vcs: u8,
}

impl UpDown {
    pub fn new(tree: FatTree, vcs: u8) -> Self {
        UpDown { tree, vcs }
    }

    pub fn tree(&self) -> &FatTree {
        &self.tree
    }
    pub fn vcs(&self) -> u8 {
        self.vcs
    }

    #[inline]
    pub fn route(&self, router: RouterId, dst: NodeId, out: &mut Candidates) {
        let f = &self.tree;
        let (_, level, idx) = f.locate(router);
        let port = if f.covers(level, idx, dst) {
            f.digit(dst, level)
        } else {
            let j = f.digit(dst, level) % f.ups(level);
            f.up_port(level, j)
        };
        out.push_vcs(port, 0..self.vcs);
    }
}

//! Triple trinary tree broadcast and reduce (Tofu's tuned collectives): the buffer in three
//! parts, each down (broadcast) or up (reduce) its own spanning tree of fan-out at most three;
//! the trees share no directed link (see [`super::trinary_trees`]), so the three parts flow at
//! once on separate links and on separate injection engines (tree `p` sends on engine `p`).
//! Each part is cut into segments that pipeline down the tree. Allreduce reduces up the trees
//! and broadcasts back down them. Root: rank 0.

use super::trinary_trees::{children, parent, trees, Tree};
use crate::grid::Grid;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct TrinaryTree {
    grid: Grid,
    trees: [Tree; 3],
    /// Segments per part.
    segments: u32,
    reduce: bool,
}

impl TrinaryTree {
    pub fn new(grid: Grid, segments: u32, reduce: bool) -> Result<Self, String> {
        let trees = trees(&grid)?;
        Ok(TrinaryTree { grid, trees, segments: segments.max(1), reduce })
    }

    /// `rank`'s parent and children in tree `p`.
    fn links(&self, rank: u32, p: u32) -> (Option<u32>, Vec<u32>) {
        let t = self.trees[p as usize];
        (parent(&self.grid, 0, t, rank), children(&self.grid, 0, t, rank))
    }
}

impl Program for TrinaryTree {
    fn ranks(&self) -> u32 {
        self.grid.ranks()
    }
    fn slots(&self) -> u32 {
        3 * self.segments
    }
    /// One lane per tree: the three parts progress independently.
    fn lanes(&self) -> u32 {
        3
    }
    fn len(&self, rank: u32, p: u32) -> u32 {
        let (up, down) = self.links(rank, p);
        1 + self.segments * (up.is_some() as u32 + down.len() as u32)
    }
    fn op(&self, rank: u32, p: u32, i: u32) -> Op {
        if i == 0 {
            return Op::Engine(Some(p as u8));
        }
        let (up, down) = self.links(rank, p);
        let per = up.is_some() as u32 + down.len() as u32;
        let (seg, j) = ((i - 1) / per, ((i - 1) % per) as usize);
        let slot = Slots::range(p * self.segments + seg, 1, 3 * self.segments);
        let tag = seg * 3 + p;
        if self.reduce {
            // Children first (each adds its subtree's sum), then up to the parent.
            match down.get(j) {
                Some(&c) => Op::Wait { from: c, tag, into: slot, combine: Combine::Reduce },
                None => Op::Put { to: up.expect("only the root has no parent"), slots: slot, tag },
            }
        } else {
            match (up, j) {
                (Some(u), 0) => Op::Wait { from: u, tag, into: slot, combine: Combine::Copy },
                (Some(_), j) => Op::Put { to: down[j - 1], slots: slot, tag },
                (None, j) => Op::Put { to: down[j], slots: slot, tag },
            }
        }
    }
}

//! Collective algorithms, one per file, and the table that names them.

pub mod barrier_dissemination;
pub mod binomial;
pub mod bruck_allgather;
pub mod bruck_alltoall;
pub mod chain;
pub mod fold;
pub mod hardware;
pub mod pairwise;
pub mod quad_rings;
pub mod recursive_doubling;
pub mod recursive_halving;
pub mod ring;
pub mod symmetric_alltoall;
pub mod trinary_tree;
pub mod trinary_trees;

use crate::grid::Grid;
use crate::program::{Program, Stages};
use crate::Collective;
use fabricsim_core::Bandwidth;

/// Rounds of a doubling over `n` ranks: `ceil(log2 n)` (0 for one rank).
pub fn ceil_log2(n: u32) -> u32 {
    32 - (n.max(1) - 1).leading_zeros()
}

/// A program ready to run.
pub type Boxed = Box<dyn Program + Send + Sync>;

/// Pieces a pipelined chain cuts the buffer into: one per `CHAIN_SEGMENT` bytes, at most
/// `MAX_SEGMENTS`.
pub const CHAIN_SEGMENT: u64 = 64 * 1024;
pub const MAX_SEGMENTS: u64 = 256;

/// The algorithms of each collective, by name (the topology-aware ones last).
pub fn names(c: Collective) -> &'static [&'static str] {
    match c {
        Collective::Barrier => &["dissemination"],
        Collective::Broadcast | Collective::Reduce => &["binomial", "chain", "trinary_tree"],
        Collective::Allgather => &["ring", "recursive_doubling", "bruck", "quad_rings"],
        Collective::ReduceScatter => &["ring", "recursive_halving"],
        Collective::Allreduce => &["recursive_doubling", "ring", "rabenseifner", "trinary_tree"],
        Collective::AllToAll => &["pairwise", "all_at_once", "bruck", "symmetric", "symmetric_no_rate"],
    }
}

/// The collectives that in-network hardware may do (`hardware`, an algorithm of its own: not
/// among [`names`], since most networks lack the hardware).
pub fn hardware_names(c: Collective) -> &'static [&'static str] {
    match c {
        Collective::Barrier | Collective::Allreduce | Collective::Broadcast | Collective::Allgather => &["hardware"],
        _ => &[],
    }
}

/// What an algorithm may know of where it runs.
#[derive(Debug, Clone)]
pub struct Layout {
    pub ranks: u32,
    /// The torus or mesh of ranks (rank `r` at the grid's position `r`), for the
    /// topology-aware algorithms; `None` when the ranks form no grid (a fat-tree).
    pub grid: Option<Grid>,
    /// Bandwidth of one link, for injection-rate control.
    pub link_bandwidth: Option<Bandwidth>,
    /// Injection engines per node.
    pub engines: u32,
}

impl Layout {
    /// `ranks` ranks with no grid.
    pub fn flat(ranks: u32) -> Layout {
        Layout { ranks, grid: None, link_bandwidth: None, engines: 1 }
    }
    fn grid(&self, name: &str) -> Result<Grid, String> {
        match &self.grid {
            Some(g) if g.ranks() == self.ranks => Ok(g.clone()),
            _ => Err(format!("'{name}' needs the ranks laid out on a torus, one per node")),
        }
    }
}

/// Algorithm `name` for collective `c` on `layout` with a buffer of `size` bytes per rank.
pub fn build(c: Collective, name: &str, layout: &Layout, size: u64) -> Result<Boxed, String> {
    let ranks = layout.ranks;
    if ranks == 0 {
        return Err("needs at least one rank".into());
    }
    let segments = size.div_ceil(CHAIN_SEGMENT).clamp(1, MAX_SEGMENTS) as u32;
    let tree_segments = size.div_ceil(3 * CHAIN_SEGMENT).clamp(1, MAX_SEGMENTS) as u32;
    let p: Boxed = match (c, name) {
        (Collective::Barrier, "dissemination") => Box::new(barrier_dissemination::Dissemination { ranks }),
        (Collective::Barrier, "hardware") => Box::new(hardware::Hardware { ranks, kind: fabricsim_nic::HwKind::Barrier, bytes: 0 }),
        (Collective::Allreduce, "hardware") => Box::new(hardware::Hardware { ranks, kind: fabricsim_nic::HwKind::Allreduce, bytes: size.max(1) }),
        (Collective::Broadcast, "hardware") => Box::new(hardware::Hardware { ranks, kind: fabricsim_nic::HwKind::Broadcast, bytes: size.max(1) }),
        (Collective::Allgather, "hardware") => Box::new(hardware::HardwareAllgather { ranks, bytes: (size / ranks as u64).max(1) }),
        (Collective::Broadcast, "binomial") => Box::new(binomial::Binomial { ranks, reduce: false }),
        (Collective::Reduce, "binomial") => Box::new(binomial::Binomial { ranks, reduce: true }),
        (Collective::Broadcast, "chain") => Box::new(chain::Chain { ranks, segments, reduce: false }),
        (Collective::Reduce, "chain") => Box::new(chain::Chain { ranks, segments, reduce: true }),
        (Collective::Allgather, "ring") => Box::new(ring::Ring { ranks, reduce: false }),
        (Collective::Allgather, "recursive_doubling") => Box::new(recursive_doubling::RecursiveDoubling { ranks, reduce: false, fold_in: true }),
        (Collective::Allgather, "bruck") => Box::new(bruck_allgather::BruckAllgather { ranks }),
        (Collective::ReduceScatter, "ring") => Box::new(ring::Ring { ranks, reduce: true }),
        (Collective::ReduceScatter, "recursive_halving") => Box::new(recursive_halving::RecursiveHalving { ranks, fold_out: true }),
        (Collective::Allreduce, "recursive_doubling") => Box::new(recursive_doubling::RecursiveDoubling { ranks, reduce: true, fold_in: true }),
        (Collective::Allreduce, "ring") => {
            Box::new(Stages::new(vec![Box::new(ring::Ring { ranks, reduce: true }), Box::new(ring::Ring { ranks, reduce: false })]))
        }
        (Collective::Allreduce, "rabenseifner") => Box::new(Stages::new(vec![
            Box::new(recursive_halving::RecursiveHalving { ranks, fold_out: false }),
            Box::new(recursive_doubling::RecursiveDoubling { ranks, reduce: false, fold_in: false }),
        ])),
        (Collective::AllToAll, "pairwise") => Box::new(pairwise::Pairwise { ranks, all_at_once: false }),
        (Collective::AllToAll, "all_at_once") => Box::new(pairwise::Pairwise { ranks, all_at_once: true }),
        (Collective::AllToAll, "bruck") => Box::new(bruck_alltoall::BruckAllToAll { ranks }),
        (Collective::Broadcast | Collective::Reduce, "trinary_tree") => {
            Box::new(trinary_tree::TrinaryTree::new(layout.grid(name)?, tree_segments, c == Collective::Reduce)?)
        }
        (Collective::Allreduce, "trinary_tree") => Box::new(Stages::new(vec![
            Box::new(trinary_tree::TrinaryTree::new(layout.grid(name)?, tree_segments, true)?),
            Box::new(trinary_tree::TrinaryTree::new(layout.grid(name)?, tree_segments, false)?),
        ])),
        (Collective::Allgather, "quad_rings") => Box::new(quad_rings::QuadRings::new(layout.grid(name)?)?),
        (Collective::AllToAll, "symmetric") => {
            Box::new(symmetric_alltoall::SymmetricAllToAll::new(layout.grid(name)?, layout.link_bandwidth, layout.engines)?)
        }
        (Collective::AllToAll, "symmetric_no_rate") => {
            Box::new(symmetric_alltoall::SymmetricAllToAll::new(layout.grid(name)?, None, layout.engines)?)
        }
        _ => return Err(format!("'{name}' is not an algorithm of {} (known: {})", c.name(), names(c).join(", "))),
    };
    Ok(p)
}

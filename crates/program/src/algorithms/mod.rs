//! Collective algorithms, one per file, and the table that names them.

pub mod barrier_dissemination;
pub mod binomial;
pub mod bruck_allgather;
pub mod bruck_alltoall;
pub mod chain;
pub mod fold;
pub mod pairwise;
pub mod recursive_doubling;
pub mod recursive_halving;
pub mod ring;

use crate::program::{Program, Stages};
use crate::Collective;

/// A program ready to run.
pub type Boxed = Box<dyn Program + Send + Sync>;

/// Pieces a pipelined chain cuts the buffer into: one per `CHAIN_SEGMENT` bytes, at most
/// `MAX_SEGMENTS`.
pub const CHAIN_SEGMENT: u64 = 64 * 1024;
pub const MAX_SEGMENTS: u64 = 256;

/// The algorithms of each collective, by name.
pub fn names(c: Collective) -> &'static [&'static str] {
    match c {
        Collective::Barrier => &["dissemination"],
        Collective::Broadcast | Collective::Reduce => &["binomial", "chain"],
        Collective::Allgather => &["ring", "recursive_doubling", "bruck"],
        Collective::ReduceScatter => &["ring", "recursive_halving"],
        Collective::Allreduce => &["recursive_doubling", "ring", "rabenseifner"],
        Collective::AllToAll => &["pairwise", "all_at_once", "bruck"],
    }
}

/// Algorithm `name` for collective `c` on `ranks` ranks with a buffer of `size` bytes.
pub fn build(c: Collective, name: &str, ranks: u32, size: u64) -> Result<Boxed, String> {
    if ranks == 0 {
        return Err("needs at least one rank".into());
    }
    let segments = size.div_ceil(CHAIN_SEGMENT).clamp(1, MAX_SEGMENTS) as u32;
    let p: Boxed = match (c, name) {
        (Collective::Barrier, "dissemination") => Box::new(barrier_dissemination::Dissemination { ranks }),
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
        _ => return Err(format!("'{name}' is not an algorithm of {} (known: {})", c.name(), names(c).join(", "))),
    };
    Ok(p)
}

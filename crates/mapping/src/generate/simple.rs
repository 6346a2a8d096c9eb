//! All-to-all and ring patterns.

use crate::pattern::{Flow, Pattern};

/// Every rank sends `bytes` to every other rank.
pub fn all_to_all(ranks: u32, bytes: u64) -> Pattern {
    let flows = (0..ranks).flat_map(|s| (0..ranks).filter(move |&d| d != s).map(move |d| Flow { src: s, dst: d, bytes })).collect();
    Pattern::new(ranks, flows, "all-to-all").expect("ranks within the job")
}

/// Rank `r` sends `bytes` to rank `r + 1`, the last to rank 0.
pub fn ring(ranks: u32, bytes: u64) -> Pattern {
    let flows = (0..ranks).map(|s| Flow { src: s, dst: (s + 1) % ranks, bytes }).collect();
    Pattern::new(ranks, flows, "ring").expect("ranks within the job").with_grid(vec![ranks])
}

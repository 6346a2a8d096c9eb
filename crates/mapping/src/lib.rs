//! Rank mapping: which node each rank of a job runs on, and how good that choice is.
//!
//! ```text
//!  pattern (src, dst, bytes)          machine (Topology + Routing)
//!  CSV file or generator                       │
//!        │                                     ▼
//!        └──► tuners (default, permutations, blocks, greedy, anneal) ──► rank → node map
//!                         │ cost models: hop-bytes, link loads              │
//!                         ▼                                                  ▼
//!                  per-method costs                      formats: vcoord, MPICH, rankfile,
//!                                                        Slurm, the project's rank map
//! ```
//!
//! * [`placement`]: ranks filling nodes in order and the project's rank-map file;
//! * [`paired`] and [`embed`]: virtual tori whose every virtual step is one physical link;
//! * [`pattern`] and [`generate`]: the communication of a job, read or generated;
//! * [`cost`]: hop-bytes and link loads under the machine's own routing;
//! * [`tune`]: the mapping methods, [`formats`]: the files real machines read.
//!
//! Nothing here knows about time or the event queue: it is analysis over the topology and
//! routing crates, used by the facade and the CLI.

pub mod allocate;
pub mod cost;
pub mod embed;
pub mod formats;
pub mod generate;
mod hamilton;
pub mod paired;
pub mod pattern;
pub mod placement;
pub mod tune;

pub use embed::{embed, EmbedError, Region};
pub use paired::VirtualTorus;
pub use pattern::Pattern;

//! GOAL traces: the text format of LogGOPSim and ATLAHS (per-rank operation graphs), read,
//! checked, replayed over the NIC interface, and written from any program.
//!
//! ```text
//! // a comment; /* block comments */ may span lines
//! num_ranks 2
//! rank 0 {
//!   l1: send 8b to 1 tag 0        // send 8 bytes to rank 1, tag 0 (`cpu N`, `nic N` optional)
//!   l2: recv 8b from 1 tag 0      // source or tag -1: any
//!   l3: calc 100                  // 100 calc units (ns by default; or cycles at a clock)
//!   l2 requires l1                // l2 starts once l1 has completed
//!   l3 irequires l2               // l3 starts once l2 has started
//! }
//! rank 1 { ... }
//! ```
//!
//! Labels belong to their rank's block and may be named before they are defined within it;
//! an operation without a label is allowed. Operations of a rank start as soon as their
//! dependencies allow (all at once if they have none), not in file order.
//!
//! **Semantics of the replay** ([`TraceRun`]):
//! * A *send* posts a Put of its bytes (at least 8) to its peer and is complete when the data
//!   has arrived there (a Put's remote completion; an eager MPI send completes earlier, at the
//!   sender, which this replay does not model).
//! * A *receive* is complete when a message matches it, as MPI matches: a message from rank
//!   `s` tagged `t` goes to the first receive posted (started) at its destination whose source
//!   is `s` or any (`-1`) and whose tag is `t` or any, in posting order; a message that finds
//!   none waits, in arrival order, and a receive that starts takes the first waiting message it
//!   matches. Messages between two ranks match in the order they *arrive* (with adaptive
//!   routing that may differ from the order they were sent). Sizes are not compared: the
//!   send's bytes travel.
//! * A *calc* runs on its rank's core for its units times the calc unit; a rank's calcs run one
//!   at a time, in the order they become ready (the `cpu` and `nic` fields are kept and written
//!   back, not modelled).
//! * A rank is done when all its operations are; a trace that cannot finish is reported as a
//!   deadlock naming each stuck rank's operation and line, never a hang.
//!
//! **Memory**: the text is read line by line, never held, and checked one rank block at a
//! time. [`spill`] (what files are read with) writes each checked block to temporary files,
//! 36 bytes per operation and 4 per dependency, and keeps 8 bytes per rank; [`read`] keeps the
//! whole trace in memory instead (24 bytes per operation, 4 for its line, 4 for its row of
//! successors, 4 per dependency): the reference the spilled replay is tested against. A
//! replay ([`TraceRun`]) holds only the operations in flight (see [`TraceRun::held`]) and, per
//! rank, its queues of receives and messages not yet matched; a spilled trace's reader adds a
//! cache of a few chunks of records per rank.

mod cycles;
pub mod export;
pub mod ideal;
pub mod parse;
pub mod replay;
pub mod source;
pub mod spill;
pub mod trace;

pub use export::{write, ExportError};
pub use ideal::{check, TraceStats};
pub use parse::{parse, read};
pub use replay::TraceRun;
pub use source::{Counts, OpReader, Rec, Source};
pub use spill::{spill, Spilled};
pub use trace::{CalcUnit, GoalError, GoalOp, Kind, Trace, ANY, IREQ};

#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

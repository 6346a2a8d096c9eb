//! Any program written as a GOAL trace: each lane a chain of operations, a Put a send its
//! successor `irequires` (the lane goes on once it is posted), a Wait a receive and a Compute a
//! calc its successor `requires`. Replayed, the trace takes the program's time (tested).

use super::trace::CalcUnit;
use crate::op::Op;
use crate::program::Program;
use crate::runner::message_bytes;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::io::Write;

/// Why a program could not be written as GOAL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// An operation GOAL has no form for (a Get, an in-network collective, a rate cap...).
    Unsupported {
        /// Where it is.
        rank: u32,
        /// Its lane.
        lane: u32,
        /// Its index in the lane.
        op: u32,
        /// The operation, in words.
        what: String,
    },
    /// Writing failed.
    Io(String),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Unsupported { rank, lane, op, what } => {
                write!(f, "rank {rank} lane {lane} operation {op} ({what}) has no GOAL form (sends, receives and calcs only)")
            }
            ExportError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// Write `program` (a buffer of `size` bytes per rank) as GOAL to `out`, calcs in units of
/// `unit` (rounded to the nearest unit).
pub fn write(program: &dyn Program, size: u64, unit: CalcUnit, out: &mut dyn Write) -> Result<(), ExportError> {
    let io = |e: std::io::Error| ExportError::Io(e.to_string());
    let (ranks, lanes) = (program.ranks(), program.lanes().max(1));
    // The size of each message, in the order each (source, destination, tag) sends them, so
    // a receive can say what it takes.
    let mut sizes: HashMap<(u32, u32, u32), VecDeque<u64>> = HashMap::new();
    for r in 0..ranks {
        for l in 0..lanes {
            for i in 0..program.len(r, l) {
                if let Op::Put { to, slots, tag } = program.op(r, l, i) {
                    sizes.entry((r, to, tag)).or_default().push_back(message_bytes(program.slots(), size, slots));
                }
            }
        }
    }
    writeln!(out, "// written by fabricsim: {ranks} ranks, calc unit {unit}\nnum_ranks {ranks}").map_err(io)?;
    for r in 0..ranks {
        writeln!(out, "\nrank {r} {{").map_err(io)?;
        let mut n = 0u32;
        for l in 0..lanes {
            // The previous operation of the lane, and whether the next only needs it started.
            let mut prev: Option<(u32, bool)> = None;
            let mut sends: Vec<u32> = Vec::new();
            for i in 0..program.len(r, l) {
                let unsupported = |op: Op| ExportError::Unsupported { rank: r, lane: l, op: i, what: op.waiting_for() };
                let (line, started) = match program.op(r, l, i) {
                    Op::Put { to, slots, tag } => {
                        sends.push(n);
                        (format!("send {}b to {to} tag {tag}", message_bytes(program.slots(), size, slots)), true)
                    }
                    Op::Wait { from, tag, .. } => {
                        let b = sizes.get_mut(&(from, r, tag)).and_then(|q| q.pop_front()).unwrap_or(0);
                        (format!("recv {b}b from {from} tag {tag}"), false)
                    }
                    Op::Compute(t) => (format!("calc {}", units(t.ps(), unit)), false),
                    Op::WaitAll if lanes == 1 => ("calc 0".to_string(), false),
                    Op::Copy { .. } | Op::Rate(None) | Op::Engine(None) => continue,
                    other => return Err(unsupported(other)),
                };
                writeln!(out, "o{n}: {line}").map_err(io)?;
                if let Some((p, irq)) = prev {
                    writeln!(out, "o{n} {} o{p}", if irq { "irequires" } else { "requires" }).map_err(io)?;
                }
                if program.op(r, l, i) == Op::WaitAll {
                    for s in sends.drain(..) {
                        writeln!(out, "o{n} requires o{s}").map_err(io)?;
                    }
                }
                prev = Some((n, started));
                n += 1;
            }
        }
        writeln!(out, "}}").map_err(io)?;
    }
    Ok(())
}

/// `ps` in calc units, rounded to the nearest.
fn units(ps: u64, unit: CalcUnit) -> u64 {
    match unit {
        CalcUnit::Time(t) => (ps + t.ps() / 2) / t.ps().max(1),
        CalcUnit::Clock(hz) => ((ps as u128 * hz as u128 + 500_000_000_000) / 1_000_000_000_000) as u64,
    }
}

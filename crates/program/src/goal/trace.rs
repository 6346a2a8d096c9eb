//! A GOAL trace in memory: every rank's operations in flat arrays (no allocation per
//! operation), dependencies and their reverse in compressed rows, labels resolved to indices.

use super::source::Counts;
use fabricsim_core::Time;
use std::fmt;

/// A wildcard source (`recv ... from -1`) or tag (`tag -1`).
pub const ANY: u32 = u32::MAX;

/// Marks an `irequires` edge (start after the other operation started) in the dependency and
/// successor rows; without it an edge is a `requires` (start after it completed).
pub const IREQ: u32 = 1 << 31;

/// Most operations a trace may hold (indices keep one bit for [`IREQ`]).
pub const MAX_OPS: u64 = (IREQ - 1) as u64;

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Send `size` bytes to `peer` tagged `tag`.
    Send,
    /// Receive `size` bytes from `peer` (or [`ANY`]) tagged `tag` (or [`ANY`]).
    Recv,
    /// Local work of `size` calc units.
    Calc,
}

/// One operation: 24 bytes, `Copy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoalOp {
    /// Bytes of a send or receive; calc units of a calc.
    pub size: u64,
    /// The other rank of a send or receive ([`ANY`]: any source); unused by a calc.
    pub peer: u32,
    /// Tag of a send or receive ([`ANY`]: any tag).
    pub tag: u32,
    /// What it does.
    pub kind: Kind,
    /// The `cpu` field (default 0): kept and written back, not modelled (a rank has one core).
    pub cpu: u8,
    /// The `nic` field (default 0): kept and written back, not modelled.
    pub nic: u8,
}

/// How long one calc unit lasts: a time (`1ns`), or a cycle of a clock (`2.4GHz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalcUnit {
    /// Each unit lasts this long.
    Time(Time),
    /// Each unit is one cycle at this many hertz.
    Clock(u64),
}

impl Default for CalcUnit {
    fn default() -> Self {
        CalcUnit::Time(Time::from_ns(1))
    }
}

impl CalcUnit {
    /// Parse a time (`"1ns"`, `"500ps"`) or a clock rate (`"2.4GHz"`, `"800MHz"`, `"1e9Hz"`).
    pub fn parse(s: &str) -> Result<CalcUnit, String> {
        let t = s.trim();
        let Some(num) = t.strip_suffix("Hz") else { return Time::parse(t).map(CalcUnit::Time) };
        let (num, scale) = match num.chars().last() {
            Some('G') => (&num[..num.len() - 1], 1e9),
            Some('M') => (&num[..num.len() - 1], 1e6),
            Some('k') => (&num[..num.len() - 1], 1e3),
            _ => (num, 1.0),
        };
        let hz = num.trim().parse::<f64>().map_err(|_| format!("'{s}' is not a time (1ns) or a clock rate (2.4GHz)"))? * scale;
        if !(1.0..=1e15).contains(&hz) || hz.fract() != 0.0 {
            return Err(format!("'{s}': a clock rate is a whole number of hertz from 1Hz to 1000THz"));
        }
        Ok(CalcUnit::Clock(hz as u64))
    }

    /// How long `units` last (picoseconds rounded to the nearest; at most the longest time a
    /// scenario may give, so a run's clock never overflows).
    pub fn of(self, units: u64) -> Time {
        let ps = match self {
            CalcUnit::Time(t) => units as u128 * t.ps() as u128,
            CalcUnit::Clock(hz) => (units as u128 * 1_000_000_000_000 + hz as u128 / 2) / hz as u128,
        };
        Time(ps.min(fabricsim_core::units::MAX_TIME_PS as u128) as u64)
    }
}

impl fmt::Display for CalcUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CalcUnit::Time(t) => write!(f, "{t}"),
            CalcUnit::Clock(hz) => write!(f, "{hz}Hz"),
        }
    }
}

/// A trace, read and checked (see [`crate::goal`]). Operation `i` of the whole trace is
/// `ops[i]`; rank `r`'s are `range(r)`, in file order; the operations that depend on it are
/// `successors(i)`, each an index with [`IREQ`] for `irequires` (the dependencies themselves
/// are not kept: a replay counts them from these rows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trace {
    pub(crate) ranks: u32,
    /// Per rank: first operation and one past the last (a rank without a block: empty).
    pub(crate) range: Vec<(u32, u32)>,
    pub(crate) ops: Vec<GoalOp>,
    /// The line each operation was read from.
    pub(crate) lines: Vec<u32>,
    /// Compressed rows: the operations that depend on operation i are
    /// `succ[succ_start[i]..succ_start[i + 1]]`.
    pub(crate) succ_start: Vec<u32>,
    pub(crate) succ: Vec<u32>,
    /// Totals, counted while it was read.
    pub(crate) counts: Counts,
}

impl Trace {
    /// Ranks (`num_ranks`).
    pub fn ranks(&self) -> u32 {
        self.ranks
    }
    /// Operations over all ranks.
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// Whether no rank has an operation.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    /// Rank `r`'s operations: a range of indices.
    pub fn range(&self, r: u32) -> std::ops::Range<u32> {
        let (a, b) = self.range[r as usize];
        a..b
    }
    /// Operation `i`.
    pub fn op(&self, i: u32) -> GoalOp {
        self.ops[i as usize]
    }
    /// The line of the file operation `i` was read from.
    pub fn line(&self, i: u32) -> u32 {
        self.lines[i as usize]
    }
    /// The operations that depend on `i` (with [`IREQ`] for `irequires`).
    pub fn successors(&self, i: u32) -> &[u32] {
        &self.succ[self.succ_start[i as usize] as usize..self.succ_start[i as usize + 1] as usize]
    }
    /// Dependency edges over all ranks.
    pub fn edges(&self) -> usize {
        self.succ.len()
    }
    /// Bytes the trace holds in memory (its arrays' capacity).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.range.capacity() * size_of::<(u32, u32)>()
            + self.ops.capacity() * size_of::<GoalOp>()
            + (self.lines.capacity() + self.succ_start.capacity() + self.succ.capacity()) * 4
    }
}

/// A bad trace: the line (1-based; 0 for the file as a whole) and what is wrong, value included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalError {
    /// The line it is about.
    pub line: u32,
    /// What is wrong.
    pub message: String,
}

impl GoalError {
    /// An error about line `line`.
    pub fn new(line: u32, message: impl Into<String>) -> Self {
        GoalError { line, message: message.into() }
    }
}

impl fmt::Display for GoalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for GoalError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calc_units_are_times_or_clock_cycles() {
        assert_eq!(CalcUnit::parse("1ns").unwrap().of(100), Time::from_ns(100));
        assert_eq!(CalcUnit::parse("2GHz").unwrap().of(3), Time(1500));
        assert_eq!(CalcUnit::parse("3GHz").unwrap().of(1), Time(333));
        assert!(CalcUnit::parse("fast").unwrap_err().contains("'fast'"));
        assert!(CalcUnit::parse("0Hz").is_err());
        assert_eq!(std::mem::size_of::<GoalOp>(), 24);
    }
}

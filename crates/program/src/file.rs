//! Programs written as text: one operation per line, so users can write their own patterns and
//! traces have a format to be replayed from.
//!
//! ```text
//! # A comment. The first line that is not one gives the rank count.
//! ranks 4
//! # RANK[.LANE] OPERATION ARGUMENTS (a rank's operations run in file order, per lane)
//! 0 put 1 64KiB tag=3      # Put 64 KiB into rank 1, tagged 3 (tag defaults to 0)
//! 1 wait 0 tag=3           # block until rank 0's message tagged 3 has arrived
//! 0 waitall                # block until rank 0's puts and gets have all completed
//! 3 waitbytes 0 96KiB      # block until 96 KiB from rank 0 (tag 0) have arrived
//! 1 compute 2us            # local work (or `compute 1MiB 20GB/s`: bytes at a memory rate)
//! 2 get 3 1KiB tag=1       # read 1 KiB of rank 3 (its NIC answers) ...
//! 2 wait 3 tag=1           # ... and wait for the data
//! 0.1 rate 1GB/s           # lane 1 of rank 0 caps its following Puts' injection rate
//! 0.1 engine 2             # ... and sends them on engine 2 ("engine any" to undo)
//! group 0 all              # a group for in-network collectives: every rank (or `0,2,3`;
//!                          #   add `sums` if it will sum: no wiring that counts twice)
//! 3 hw barrier 0 0B tag=9  # start an in-network collective (barrier, broadcast, reduce or
//! 3 hwwait tag=9           #   allreduce) on group 0 with 0 bytes, and wait for its end
//! ```

use crate::op::{Combine, Op, Slots};
use crate::program::Program;
use fabricsim_core::{Bandwidth, Bytes, Time};
use fabricsim_nic::HwKind;

/// Most ranks a program file may name.
pub const MAX_RANKS: u32 = 1 << 24;

/// A program read from text (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct FileProgram {
    /// Operations per rank, per lane.
    ops: Vec<Vec<Vec<Op>>>,
    lanes: u32,
    /// Groups for in-network collectives (`group` lines).
    groups: Vec<fabricsim_nic::HwGroup>,
    /// The line of the file each operation was read from (1-based), per rank, per lane.
    lines: Vec<Vec<Vec<u32>>>,
}

impl FileProgram {
    /// Parse `text`; errors name the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<FileProgram, String> {
        let mut ranks: Option<u32> = None;
        let mut ops: Vec<Vec<Vec<Op>>> = Vec::new();
        let mut groups = Vec::new();
        let mut lines: Vec<Vec<Vec<u32>>> = Vec::new();
        for (no, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |m: String| format!("line {}: {m} (in `{line}`)", no + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some(n) = ranks else {
                match words.as_slice() {
                    ["ranks", n] => {
                        let n: u32 = n.parse().map_err(|_| at(format!("'{n}' is not a rank count")))?;
                        if n == 0 || n > MAX_RANKS {
                            return Err(at(format!("a program has 1 to {MAX_RANKS} ranks")));
                        }
                        ranks = Some(n);
                        ops = vec![Vec::new(); n as usize];
                        lines = vec![Vec::new(); n as usize];
                        continue;
                    }
                    _ => return Err(at("the first line must be `ranks N`".into())),
                }
            };
            let rank_of = |w: &str, what: &str| -> Result<u32, String> {
                let r: u32 = w.parse().map_err(|_| at(format!("'{w}' is not a {what}")))?;
                if r >= n {
                    return Err(at(format!("{what} {r} is not below the {n} ranks")));
                }
                Ok(r)
            };
            if let ["group", id, who @ ..] = words.as_slice() {
                let id: u32 = id.parse().map_err(|_| at(format!("'{id}' is not a group number")))?;
                let sums = who.last() == Some(&"sums");
                let members = match &who[..who.len() - sums as usize] {
                    ["all"] => (0..n).collect(),
                    [list] => list.split(',').map(|w| rank_of(w, "rank")).collect::<Result<Vec<_>, _>>()?,
                    _ => return Err(at("expected `group G all` or `group G R1,R2,...` (then `sums` if it will sum)".into())),
                };
                groups.push(fabricsim_nic::HwGroup { id, members: members.into_iter().map(fabricsim_nic::Rank).collect(), sums, root: None });
                continue;
            }
            let (who, op, args) = match words.as_slice() {
                [who, op, args @ ..] => (*who, *op, args),
                _ => return Err(at("expected `RANK OPERATION ...`".into())),
            };
            let (rank, lane) = match who.split_once('.') {
                Some((r, l)) => (rank_of(r, "rank")?, l.parse::<u32>().map_err(|_| at(format!("'{l}' is not a lane number")))?),
                None => (rank_of(who, "rank")?, 0),
            };
            if lane >= 64 {
                return Err(at(format!("lane {lane}: at most 64 lanes")));
            }
            // Positional arguments, then `tag=N`.
            let (mut pos, mut tag) = (Vec::new(), 0u32);
            for a in args {
                match a.strip_prefix("tag=") {
                    Some(t) => tag = t.parse().map_err(|_| at(format!("'{t}' is not a tag")))?,
                    None => pos.push(*a),
                }
            }
            let want = |k: usize| if pos.len() == k { Ok(()) } else { Err(at(format!("'{op}' takes {k} argument(s), found {}", pos.len()))) };
            let bytes = |w: &str| Bytes::parse(w).map(|b| b.get()).map_err(&at);
            let peer = |w: &str| -> Result<u32, String> {
                let p = rank_of(w, "rank")?;
                if p == rank {
                    return Err(at(format!("rank {rank} cannot send to or read from itself")));
                }
                Ok(p)
            };
            let parsed = match op {
                "put" => {
                    want(2)?;
                    Op::Put { to: peer(pos[0])?, slots: Slots::Bytes(bytes(pos[1])?), tag }
                }
                "get" => {
                    want(2)?;
                    Op::Get { from: peer(pos[0])?, slots: Slots::Bytes(bytes(pos[1])?), tag }
                }
                "wait" => {
                    want(1)?;
                    Op::Wait { from: peer(pos[0])?, tag, into: Slots::None, combine: Combine::Copy }
                }
                "compute" => match pos.as_slice() {
                    [t] => Op::Compute(Time::parse(t).map_err(at)?),
                    // Bytes at a memory rate (a reduction's pass over its buffer).
                    [b, r] => Op::Compute(Bandwidth::parse(r).map_err(at)?.serialization(bytes(b)?)),
                    _ => return Err(at(format!("'compute' takes a time, or bytes and a rate; found {} argument(s)", pos.len()))),
                },
                "rate" => {
                    want(1)?;
                    match pos[0] {
                        "none" => Op::Rate(None),
                        w => Op::Rate(Some(Bandwidth::parse(w).map_err(at)?)),
                    }
                }
                "engine" => {
                    want(1)?;
                    match pos[0] {
                        "any" => Op::Engine(None),
                        w => Op::Engine(Some(
                            w.parse::<u8>()
                                .ok()
                                .filter(|&e| e < u8::MAX)
                                .ok_or_else(|| at(format!("'{w}' is not an engine number (0-254) or `any`")))?,
                        )),
                    }
                }
                "hw" => {
                    want(3)?;
                    let kind = match pos[0] {
                        "barrier" => HwKind::Barrier,
                        "broadcast" => HwKind::Broadcast,
                        "reduce" => HwKind::Reduce,
                        "allreduce" => HwKind::Allreduce,
                        k => return Err(at(format!("'{k}' is not an in-network collective (barrier, broadcast, reduce, allreduce)"))),
                    };
                    let group = pos[1].parse().map_err(|_| at(format!("'{}' is not a group number", pos[1])))?;
                    Op::HwStart { kind, group, slots: Slots::Bytes(bytes(pos[2])?), tag }
                }
                "waitbytes" => {
                    want(2)?;
                    Op::WaitBytes { from: peer(pos[0])?, tag, bytes: bytes(pos[1])? }
                }
                "waitall" => {
                    want(0)?;
                    Op::WaitAll
                }
                "hwwait" => {
                    want(0)?;
                    Op::HwWait { tag }
                }
                other => {
                    return Err(at(format!(
                    "unknown operation '{other}' (put, get, wait, waitbytes, waitall, compute, rate, engine, hw, hwwait; and `group G ...` lines)"
                )))
                }
            };
            let lanes = &mut ops[rank as usize];
            if lanes.len() <= lane as usize {
                lanes.resize(lane as usize + 1, Vec::new());
            }
            lanes[lane as usize].push(parsed);
            let at_lines = &mut lines[rank as usize];
            if at_lines.len() <= lane as usize {
                at_lines.resize(lane as usize + 1, Vec::new());
            }
            at_lines[lane as usize].push(no as u32 + 1);
        }
        if ranks.is_none() {
            return Err("the program is empty: its first line must be `ranks N`".into());
        }
        let lanes = ops.iter().map(|l| l.len()).max().unwrap_or(1).max(1) as u32;
        Ok(FileProgram { ops, lanes, groups, lines })
    }
}

impl Program for FileProgram {
    fn ranks(&self) -> u32 {
        self.ops.len() as u32
    }
    fn slots(&self) -> u32 {
        1
    }
    fn lanes(&self) -> u32 {
        self.lanes
    }
    fn len(&self, rank: u32, lane: u32) -> u32 {
        self.ops[rank as usize].get(lane as usize).map_or(0, |l| l.len() as u32)
    }
    fn op(&self, rank: u32, lane: u32, i: u32) -> Op {
        self.ops[rank as usize][lane as usize][i as usize]
    }
    fn hw_groups(&self) -> Vec<fabricsim_nic::HwGroup> {
        self.groups.clone()
    }
    fn line(&self, rank: u32, lane: u32, i: u32) -> Option<u32> {
        self.lines.get(rank as usize)?.get(lane as usize)?.get(i as usize).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::run;

    #[test]
    fn a_program_reads_back_as_written() {
        let p = FileProgram::parse(
            "# two ranks\nranks 2\n0 put 1 1KiB tag=4\n1 wait 0 tag=4 # done\n1 compute 2us\n1.1 rate 1GB/s\n0 compute 1MB 10GB/s\n",
        )
        .unwrap();
        assert_eq!((p.ranks(), p.lanes()), (2, 2));
        assert_eq!(p.op(0, 0, 0), Op::Put { to: 1, slots: Slots::Bytes(1024), tag: 4 });
        assert_eq!(p.op(1, 0, 1), Op::Compute(Time::from_us(2)));
        assert_eq!(p.op(1, 1, 0), Op::Rate(Some(Bandwidth(1_000_000_000))));
        assert_eq!(p.len(0, 1), 0);
        assert_eq!(p.op(0, 0, 1), Op::Compute(Time::from_us(100)));
        run(&p, |_, _| None).unwrap();
    }

    #[test]
    fn bad_lines_are_named() {
        for (text, want) in [
            ("0 put 1 8B", "line 1: the first line must be `ranks N`"),
            ("ranks 2\n0 put 2 8B", "line 2: rank 2 is not below the 2 ranks"),
            ("ranks 2\n0 send 1 8B", "unknown operation 'send'"),
            ("ranks 2\n0 put 1", "'put' takes 2 argument(s), found 1"),
            ("ranks 2\n0 put 0 8B", "cannot send to or read from itself"),
            ("ranks 2\n0 put 1 8 parsecs", "takes 2 argument(s)"),
            ("ranks 2\n1 rate 0GB/s", "not a positive bandwidth"),
            ("", "the program is empty"),
        ] {
            let e = FileProgram::parse(text).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_wait_without_its_put_deadlocks() {
        let p = FileProgram::parse("ranks 3\n0 put 1 8B tag=1\n1 wait 0 tag=2\n").unwrap();
        let e = run(&p, |_, _| None).unwrap_err();
        assert_eq!((e.rank, e.op), (1, 0));
    }
}

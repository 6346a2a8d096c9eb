//! A symbolic run of a program, without a network: every rank's buffer holds, per slot, which
//! piece of data it is and whose contributions it includes, so a test can check that each rank
//! ends with exactly the right reduction, gather or exchange, and that no rank waits forever.

use crate::op::{Combine, Op, Slots};
use crate::program::Program;
use crate::Collective;
use std::collections::{HashMap, VecDeque};
use std::fmt;

/// The symbolic content of one slot: piece `chunk` of the data, with the contributions of the
/// ranks in `from` reduced into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub chunk: u32,
    from: Vec<u64>,
}

impl Item {
    /// Piece `chunk` holding the contributions of `ranks` (out of `total` ranks).
    pub fn of(chunk: u32, total: u32, ranks: &[u32]) -> Item {
        let mut from = vec![0u64; total.div_ceil(64) as usize];
        for &r in ranks {
            from[r as usize / 64] |= 1 << (r % 64);
        }
        Item { chunk, from }
    }

    /// The contributing ranks.
    pub fn ranks(&self) -> Vec<u32> {
        (0..self.from.len() as u32 * 64).filter(|&r| self.from[r as usize / 64] >> (r % 64) & 1 == 1).collect()
    }

    fn overlaps(&self, o: &Item) -> bool {
        self.from.iter().zip(&o.from).any(|(a, b)| a & b != 0)
    }

    fn merge(&mut self, o: &Item) {
        self.from.iter_mut().zip(&o.from).for_each(|(a, b)| *a |= b);
    }
}

/// What went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramError {
    pub rank: u32,
    /// The rank's operation list (see [`Program::lanes`]).
    pub lane: u32,
    /// Index of the operation in the list.
    pub op: u32,
    pub message: String,
}

impl fmt::Display for ProgramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lane > 0 {
            write!(f, "rank {} lane {} operation {}: {}", self.rank, self.lane, self.op, self.message)
        } else {
            write!(f, "rank {} operation {}: {}", self.rank, self.op, self.message)
        }
    }
}

impl std::error::Error for ProgramError {}

type Content = Vec<Option<Item>>;

/// Run `p` symbolically from the buffers `initial(rank, slot)` gives (lanes of a rank in turn,
/// each as far as it goes). Returns every rank's final buffer, or the first error: a rank
/// blocked for good (deadlock), a reduction that would count a contribution twice, a message
/// whose size does not match its receive, a message nobody waited for.
pub fn run(p: &dyn Program, initial: impl Fn(u32, u32) -> Option<Item>) -> Result<Vec<Content>, ProgramError> {
    let (n, slots, lanes) = (p.ranks(), p.slots(), p.lanes());
    let mut buf: Vec<Content> = (0..n).map(|r| (0..slots).map(|s| initial(r, s)).collect()).collect();
    let mut pc = vec![0u32; (n * lanes) as usize];
    let mut inbox: HashMap<(u32, u32, u32), VecDeque<(Content, u64)>> = HashMap::new();
    // Bytes a message counts for a WaitBytes: only opaque data says how many.
    let size = |s: Slots| if let Slots::Bytes(n) = s { n.max(crate::runner::MIN_MESSAGE_BYTES) } else { 0 };
    // Bytes gathered so far by each list's WaitBytes.
    let mut gathered = vec![0u64; (n * lanes) as usize];
    loop {
        let mut progress = false;
        for r in 0..n {
            for lane in 0..lanes {
                let err = |op, message: String| ProgramError { rank: r, lane, op, message };
                let len = p.len(r, lane);
                let at = (r * lanes + lane) as usize;
                while pc[at] < len {
                    let i = pc[at];
                    let read = |b: &Content, s: Slots| -> Result<Content, ProgramError> {
                        s.iter().map(|x| b.get(x as usize).cloned().ok_or_else(|| err(i, format!("slot {x} beyond the {slots} slots")))).collect()
                    };
                    match p.op(r, lane, i) {
                        Op::Put { to, slots: s, tag } => {
                            if to >= n || to == r {
                                return Err(err(i, format!("puts to rank {to} (ranks 0..{n}, not itself)")));
                            }
                            let data = read(&buf[r as usize], s)?;
                            inbox.entry((to, r, tag)).or_default().push_back((data, size(s)));
                        }
                        Op::Get { from, slots: s, tag } => {
                            if from >= n || from == r {
                                return Err(err(i, format!("gets from rank {from} (ranks 0..{n}, not itself)")));
                            }
                            let data = read(&buf[from as usize], s)?;
                            inbox.entry((r, from, tag)).or_default().push_back((data, size(s)));
                        }
                        Op::Wait { from, tag, into, combine } => {
                            let Some((data, _)) = inbox.get_mut(&(r, from, tag)).and_then(|q| q.pop_front()) else { break };
                            if data.len() != into.count() as usize {
                                return Err(err(i, format!("a message of {} slots from rank {from} waited into {} slots", data.len(), into.count())));
                            }
                            store(&mut buf[r as usize], into, data, combine).map_err(|m| err(i, m))?;
                        }
                        Op::Copy { from, to } => {
                            let data = read(&buf[r as usize], from)?;
                            if data.len() != to.count() as usize {
                                return Err(err(i, format!("copies {} slots into {}", data.len(), to.count())));
                            }
                            store(&mut buf[r as usize], to, data, Combine::Copy).map_err(|m| err(i, m))?;
                        }
                        // Data moves when it is posted here, so nothing is ever outstanding.
                        Op::Compute(_) | Op::Rate(_) | Op::Engine(_) | Op::WaitAll => {}
                        Op::WaitBytes { from, tag, bytes } => {
                            while gathered[at] < bytes {
                                match inbox.get_mut(&(r, from, tag)).and_then(|q| q.pop_front()) {
                                    Some((_, b)) => gathered[at] += b,
                                    None => break,
                                }
                            }
                            if gathered[at] < bytes {
                                break;
                            }
                            gathered[at] = 0;
                        }
                        // What in-network hardware computes is the network's to check.
                        Op::HwStart { .. } | Op::HwWait { .. } => {}
                    }
                    pc[at] += 1;
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    for r in 0..n {
        for lane in 0..lanes {
            let i = pc[(r * lanes + lane) as usize];
            if i < p.len(r, lane) {
                return Err(ProgramError { rank: r, lane, op: i, message: format!("deadlock: waits forever at {:?}", p.op(r, lane, i)) });
            }
        }
    }
    if let Some(((to, from, tag), _)) = inbox.iter().find(|(_, q)| !q.is_empty()) {
        return Err(ProgramError { rank: *to, lane: 0, op: 0, message: format!("the message from rank {from} tagged {tag} was never waited for") });
    }
    Ok(buf)
}

fn store(b: &mut Content, into: Slots, data: Content, combine: Combine) -> Result<(), String> {
    for (x, d) in into.iter().zip(data) {
        let slot = b.get_mut(x as usize).ok_or_else(|| format!("slot {x} beyond the buffer"))?;
        match (combine, slot.as_mut(), d) {
            (Combine::Copy, _, d) => *slot = d,
            (_, _, None) => return Err(format!("slot {x}: received nothing to combine")),
            (_, None, Some(d)) => *slot = Some(d),
            (c, Some(have), Some(d)) => {
                if have.chunk != d.chunk {
                    return Err(format!("slot {x}: combines chunk {} into chunk {}", d.chunk, have.chunk));
                }
                if c == Combine::Reduce && have.overlaps(&d) {
                    return Err(format!("slot {x}: chunk {} would count a contribution twice", d.chunk));
                }
                have.merge(&d);
            }
        }
    }
    Ok(())
}

/// Run `p` as collective `c` and compare every rank's final buffer with what `c` requires.
pub fn check(p: &dyn Program, c: Collective) -> Result<(), ProgramError> {
    let n = p.ranks();
    c.check_slots(n, p.slots()).map_err(|message| ProgramError { rank: 0, lane: 0, op: 0, message })?;
    let end = run(p, |r, s| c.initial(n, r, s, p.owner(s)))?;
    for (r, b) in end.iter().enumerate() {
        for (s, have) in b.iter().enumerate() {
            if let Some(want) = c.expected(n, r as u32, s as u32, p.owner(s as u32)) {
                if have.as_ref() != Some(&want) {
                    let show = |i: &Option<Item>| i.as_ref().map(|i| format!("chunk {} from {:?}", i.chunk, i.ranks())).unwrap_or("nothing".into());
                    return Err(ProgramError {
                        rank: r as u32,
                        lane: 0,
                        op: p.len(r as u32, 0),
                        message: format!("ends with {} in slot {s}, wants {}", show(have), show(&Some(want))),
                    });
                }
            }
        }
    }
    Ok(())
}

//! Runs a program over the NIC interface: the [`Workload`] that turns operations into
//! messages and completions into progress.

use crate::op::{Op, Slots};
use crate::op_log::OpLog;
use crate::program::Program;
use fabricsim_core::{Bandwidth, Time};
use fabricsim_nic::{Api, Delivered, Message, Op as NicOp, Rank, Workload};
use std::collections::HashMap;

/// No message is shorter than a flag word.
pub const MIN_MESSAGE_BYTES: u64 = 8;

/// Bytes a message of slots `s` carries in a program of `slots` slots per rank with a buffer of
/// `size` bytes: its share of the buffer (or the bytes it names), at least a flag word.
pub fn message_bytes(slots: u32, size: u64, s: Slots) -> u64 {
    if let Slots::Bytes(n) = s {
        return n.max(MIN_MESSAGE_BYTES);
    }
    let slots = slots.max(1) as u128;
    ((size as u128 * s.count() as u128).div_ceil(slots) as u64).max(MIN_MESSAGE_BYTES)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not started, or between operations.
    Ready,
    /// Blocked in the Wait at its program counter.
    Waiting,
    /// In a Compute; its timer resumes it.
    Computing,
    Done,
}

/// One lane of operations of one rank in progress.
#[derive(Debug, Clone, Copy)]
struct Lane {
    pc: u32,
    state: State,
    /// Injection rate cap of its Puts (bytes per second; 0: none).
    rate: u64,
    /// Engine of its Puts (`u8::MAX`: the NIC deals them).
    engine: u8,
    /// End of its Compute (picoseconds), while computing.
    until: u64,
}

/// A program in progress on the network. Per rank and lane: a program counter, a state, the
/// rate and engine its Puts use, a compute's end (24 bytes); per rank its completion time. Messages that
/// arrived before their Wait are counted in one map keyed by (receiver, sender, tag).
pub struct ProgramRun {
    program: Box<dyn Program + Send + Sync>,
    /// Bytes of one rank's whole buffer.
    size: u64,
    lanes: u32,
    lane: Vec<Lane>,
    /// Lanes of each rank still running.
    running: Vec<u32>,
    /// Puts and Gets of each rank not yet completed (for WaitAll).
    outstanding: Vec<u32>,
    done_at: Vec<Time>,
    early: HashMap<(u32, u32, u32), std::collections::VecDeque<u64>>,
    /// In-network collectives over before their HwWait: (rank, tag) -> count.
    early_hw: HashMap<(u32, u32), u32>,
    /// The first thing that made the run impossible (an operation the network refused).
    error: Option<String>,
    remaining: u32,
    messages: u64,
    bytes: u64,
    /// Each operation's slice, when asked for ([`ProgramRun::with_op_log`]).
    log: Option<Box<OpLog>>,
}

impl ProgramRun {
    /// Run `program` with a buffer of `size` bytes per rank, spread evenly over its slots.
    pub fn new(program: Box<dyn Program + Send + Sync>, size: u64) -> Self {
        let n = program.ranks() as usize;
        let lanes = program.lanes().max(1);
        ProgramRun {
            size,
            lanes,
            lane: vec![Lane { pc: 0, state: State::Ready, rate: 0, engine: u8::MAX, until: 0 }; n * lanes as usize],
            running: vec![lanes; n],
            outstanding: vec![0; n],
            done_at: vec![Time::ZERO; n],
            early: HashMap::new(),
            early_hw: HashMap::new(),
            error: None,
            remaining: n as u32,
            messages: 0,
            bytes: 0,
            log: None,
            program,
        }
    }

    /// Log every operation's start and end (at most `cap` of them) when `on`; see
    /// [`crate::op_log`].
    pub fn with_op_log(mut self, on: bool, cap: usize) -> Self {
        self.log = on.then(|| Box::new(OpLog::new(self.lane.len(), cap)));
        self
    }

    /// The operations' log, if one is kept.
    pub fn op_log(&self) -> Option<&OpLog> {
        self.log.as_deref()
    }

    /// Lane `at` (`rank`, `lane`) is done with its operation, which ended at `end`: on to the
    /// next (logging the one done).
    fn next_op(&mut self, rank: u32, lane: u32, at: usize, end: Time) {
        if self.log.is_some() {
            let op = self.program.op(rank, lane, self.lane[at].pc);
            let bytes = match op {
                Op::Put { slots, .. } | Op::Get { slots, .. } => self.bytes_of(slots),
                Op::WaitBytes { bytes, .. } => bytes,
                _ => 0,
            };
            if let Some(log) = &mut self.log {
                log.done(at, rank, lane, &op, bytes, end);
            }
        }
        self.lane[at].pc += 1;
    }

    /// Bytes a message of `s` carries: its share of the buffer (or the bytes it names), at
    /// least a flag word.
    pub fn bytes_of(&self, s: Slots) -> u64 {
        message_bytes(self.program.slots(), self.size, s)
    }

    /// Run lane `lane` of `rank` until it blocks or ends.
    fn advance(&mut self, rank: u32, lane: u32, api: &mut Api) {
        let at = (rank * self.lanes + lane) as usize;
        let len = self.program.len(rank, lane);
        loop {
            let l = self.lane[at];
            if l.pc >= len {
                self.lane[at].state = State::Done;
                self.running[rank as usize] -= 1;
                if self.running[rank as usize] == 0 {
                    self.done_at[rank as usize] = api.now();
                    self.remaining -= 1;
                }
                return;
            }
            if let Some(log) = &mut self.log {
                log.begin(at, l.pc, api.now());
            }
            match self.program.op(rank, lane, l.pc) {
                Op::Put { to, slots, tag } => {
                    let bytes = self.bytes_of(slots);
                    let rate = (l.rate > 0).then_some(Bandwidth(l.rate));
                    let engine = (l.engine != u8::MAX).then_some(l.engine);
                    self.outstanding[rank as usize] += 1;
                    self.post(api, Message::put(Rank(rank), Rank(to), bytes).tag(tag as u64).rate(rate).engine(engine));
                }
                Op::Get { from, slots, tag } => {
                    let bytes = self.bytes_of(slots);
                    self.outstanding[rank as usize] += 1;
                    self.post(api, Message::get(Rank(rank), Rank(from), bytes).tag(tag as u64));
                }
                Op::Wait { from, tag, .. } => {
                    if self.take_early(rank, from, tag).is_none() {
                        self.lane[at].state = State::Waiting;
                        return;
                    }
                }
                Op::WaitBytes { from, tag, bytes } => {
                    // Bytes gathered so far are kept in `until` (unused while waiting).
                    while self.lane[at].until < bytes {
                        match self.take_early(rank, from, tag) {
                            Some(b) => self.lane[at].until += b,
                            None => {
                                self.lane[at].state = State::Waiting;
                                return;
                            }
                        }
                    }
                    self.lane[at].until = 0;
                }
                Op::HwStart { kind, group, slots, tag } => {
                    // A contribution, not a message: no flag-word minimum.
                    let bytes = if let Slots::Bytes(n) = slots { n } else { self.bytes_of(slots) };
                    // A reduction's contribution: a floating-point sum (what the papers time) of
                    // the rank's number plus one in every element, so the result shows the
                    // hardware summed each member once.
                    let mut c = fabricsim_nic::HwCollective::new(kind, group, bytes, tag as u64);
                    if matches!(kind, fabricsim_nic::HwKind::Reduce | fabricsim_nic::HwKind::Allreduce) {
                        c = c.reducing(fabricsim_nic::HwOp::FloatSum, [(rank as f64 + 1.0).to_bits(); 8]);
                    }
                    if let Err(e) = api.collective_start(Rank(rank), c) {
                        self.error.get_or_insert(format!("rank {rank} operation {}: {e}", l.pc));
                        self.lane[at].state = State::Waiting;
                        return;
                    }
                }
                Op::HwWait { tag } => match self.early_hw.get_mut(&(rank, tag)) {
                    Some(c) if *c > 1 => *c -= 1,
                    Some(_) => {
                        self.early_hw.remove(&(rank, tag));
                    }
                    None => {
                        self.lane[at].state = State::Waiting;
                        return;
                    }
                },
                Op::WaitAll if self.outstanding[rank as usize] > 0 => {
                    self.lane[at].state = State::Waiting;
                    return;
                }
                Op::WaitAll | Op::Copy { .. } => {}
                Op::Rate(r) => self.lane[at].rate = r.map_or(0, |b| b.bytes_per_sec()),
                Op::Engine(e) => self.lane[at].engine = e.unwrap_or(u8::MAX),
                Op::Compute(d) => {
                    self.next_op(rank, lane, at, api.now() + d);
                    self.lane[at].state = State::Computing;
                    self.lane[at].until = (api.now() + d).ps();
                    api.wake_at(Rank(rank), api.now() + d);
                    return;
                }
            }
            self.next_op(rank, lane, at, api.now());
        }
    }

    /// The oldest early message for (rank, from, tag): its bytes.
    fn take_early(&mut self, rank: u32, from: u32, tag: u32) -> Option<u64> {
        let q = self.early.get_mut(&(rank, from, tag))?;
        let b = q.pop_front();
        if q.is_empty() {
            self.early.remove(&(rank, from, tag));
        }
        b
    }

    fn post(&mut self, api: &mut Api, m: Message) {
        self.messages += 1;
        self.bytes += m.bytes;
        api.post(m);
    }

    /// Completion time of each rank (zero for ranks not done).
    pub fn done_at(&self) -> &[Time] {
        &self.done_at
    }

    /// Messages posted and their bytes.
    pub fn traffic(&self) -> (u64, u64) {
        (self.messages, self.bytes)
    }

    /// An operation the network refused, if any (the run cannot go on).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// If some rank never finished: which, and the operation it is stuck at.
    pub fn stuck(&self) -> Option<String> {
        let stuck: Vec<usize> = (0..self.lane.len()).filter(|&at| self.lane[at].state != State::Done).collect();
        if stuck.is_empty() {
            return None;
        }
        let n = self.running.iter().filter(|&&c| c > 0).count();
        let mut s = format!("deadlock: {n} rank(s) never finished:");
        for &at in stuck.iter().take(STUCK_SHOWN) {
            s += &format!("\n  {}", self.stuck_lane(at));
        }
        if stuck.len() > STUCK_SHOWN {
            let lanes = if self.lanes > 1 { "lanes" } else { "ranks" };
            s += &format!("\n  and {} more {lanes}", stuck.len() - STUCK_SHOWN);
        }
        Some(s)
    }

    /// One stuck lane in words: the rank (and lane), the line of the program file, what it
    /// waits for and what has arrived meanwhile.
    fn stuck_lane(&self, at: usize) -> String {
        let (r, lane) = (at as u32 / self.lanes, at as u32 % self.lanes);
        let l = self.lane[at];
        let who = if self.lanes > 1 { format!("rank {r} lane {lane}") } else { format!("rank {r}") };
        let where_ = match self.program.line(r, lane, l.pc) {
            Some(line) => format!(" (line {line})"),
            None => format!(" (operation {})", l.pc),
        };
        if l.pc >= self.program.len(r, lane) {
            return format!("{who}{where_} is at the end of its operations");
        }
        let op = self.program.op(r, lane, l.pc);
        let mut s = format!("{who}{where_} {}", op.waiting_for());
        if let Op::WaitBytes { .. } = op {
            s += &format!(" ({} B arrived)", l.until);
        }
        // Messages from the rank it waits on that no operation has taken: a tag or size
        // mismatch shows here.
        if let Op::Wait { from, .. } | Op::WaitBytes { from, .. } = op {
            let mut unclaimed: Vec<(u32, u64)> =
                self.early.iter().filter(|((to, src, _), _)| *to == r && *src == from).map(|((_, _, tag), q)| (*tag, q.iter().sum())).collect();
            unclaimed.sort_unstable();
            if !unclaimed.is_empty() {
                let list: Vec<String> = unclaimed.iter().map(|(tag, b)| format!("{b} B tagged {tag}")).collect();
                s += &format!("; unclaimed from rank {from}: {}", list.join(", "));
            }
        }
        s
    }
}

/// Stuck lanes a deadlock report names one by one (the rest are counted).
const STUCK_SHOWN: usize = 8;

impl Workload for ProgramRun {
    fn start(&mut self, api: &mut Api) {
        for g in self.program.hw_groups() {
            if let Err(e) = api.collective_group(&g) {
                self.error.get_or_insert(e);
                return;
            }
        }
        for rank in 0..self.program.ranks() {
            for lane in 0..self.lanes {
                self.advance(rank, lane, api);
            }
        }
    }

    fn wake(&mut self, rank: Rank, api: &mut Api) {
        // Timers are per rank: this one ends every Compute of the rank that is due.
        for lane in 0..self.lanes {
            let at = (rank.0 * self.lanes + lane) as usize;
            if self.lane[at].state == State::Computing && self.lane[at].until <= api.now().ps() {
                (self.lane[at].state, self.lane[at].until) = (State::Ready, 0);
                self.advance(rank.0, lane, api);
            }
        }
    }

    fn delivered(&mut self, d: &Delivered, api: &mut Api) {
        // The receiving rank and the rank the data came from: a Put lands at its destination,
        // a Get's data at its initiator.
        let (rank, from) = if d.op == NicOp::Get { (d.src.0, d.dst.0) } else { (d.dst.0, d.src.0) };
        let tag = d.tag as u32;
        // The poster's operation is complete: a WaitAll of the poster may pass.
        let poster = d.src.0;
        self.outstanding[poster as usize] -= 1;
        if self.outstanding[poster as usize] == 0 {
            for lane in 0..self.lanes {
                let at = (poster * self.lanes + lane) as usize;
                if self.lane[at].state == State::Waiting && self.program.op(poster, lane, self.lane[at].pc) == Op::WaitAll {
                    self.next_op(poster, lane, at, api.now());
                    self.lane[at].state = State::Ready;
                    self.advance(poster, lane, api);
                }
            }
        }
        for lane in 0..self.lanes {
            let at = (rank * self.lanes + lane) as usize;
            if self.lane[at].state != State::Waiting {
                continue;
            }
            match self.program.op(rank, lane, self.lane[at].pc) {
                Op::Wait { from: f, tag: t, .. } if (f, t) == (from, tag) => {}
                Op::WaitBytes { from: f, tag: t, bytes } if (f, t) == (from, tag) => {
                    self.lane[at].until += d.bytes;
                    if self.lane[at].until < bytes {
                        return;
                    }
                    self.lane[at].until = 0;
                }
                _ => continue,
            }
            self.next_op(rank, lane, at, api.now());
            self.lane[at].state = State::Ready;
            self.advance(rank, lane, api);
            return;
        }
        self.early.entry((rank, from, tag)).or_default().push_back(d.bytes);
    }

    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        let tag = tag as u32;
        for lane in 0..self.lanes {
            let at = (rank.0 * self.lanes + lane) as usize;
            if self.lane[at].state == State::Waiting && self.program.op(rank.0, lane, self.lane[at].pc) == (Op::HwWait { tag }) {
                self.next_op(rank.0, lane, at, api.now());
                self.lane[at].state = State::Ready;
                self.advance(rank.0, lane, api);
                return;
            }
        }
        *self.early_hw.entry((rank.0, tag)).or_default() += 1;
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }

    /// A program the network refused an operation of cannot go on: the run ends.
    fn ended(&self) -> bool {
        self.error.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::FileProgram;
    use fabricsim_nic::mock::MockNic;
    use fabricsim_nic::{HwCollective, HwKind};

    #[test]
    fn in_network_collectives_start_at_the_nic_and_their_end_unblocks_the_wait() {
        let p =
            FileProgram::parse("ranks 2\n0 hw barrier 3 0B tag=1\n0 hwwait tag=1\n1 compute 1us\n1 hw barrier 3 0B tag=1\n1 hwwait tag=1\n").unwrap();
        let mut w = ProgramRun::new(Box::new(p), 0);
        let mut nic = MockNic { collectives: Some(Vec::new()), ..MockNic::new(2) };
        nic.start(&mut w);
        let started = nic.collectives.clone().unwrap();
        assert_eq!(started, vec![(Rank(0), HwCollective::new(HwKind::Barrier, 3, 0, 1))]);
        // Rank 1's end arrives while it still computes: counted, and its wait passes at once.
        nic.complete_collective(&mut w, Rank(1), 1);
        nic.now = Time::from_us(1);
        assert!(nic.fire_next(&mut w));
        assert_eq!(nic.collectives.as_ref().unwrap().len(), 2);
        assert!(!w.finished(), "rank 0 still waits");
        nic.complete_collective(&mut w, Rank(0), 1);
        assert!(w.finished());
        assert_eq!(w.done_at()[1], Time::from_us(1));
    }

    #[test]
    fn wait_all_passes_once_every_put_has_arrived() {
        let p = FileProgram::parse("ranks 3\n0 put 1 1KiB\n0 put 2 1KiB\n0 waitall\n0 put 1 8B tag=5\n1 wait 0\n1 wait 0 tag=5\n2 wait 0\n").unwrap();
        let mut w = ProgramRun::new(Box::new(p), 0);
        let mut nic = MockNic::new(3);
        nic.start(&mut w);
        assert_eq!(nic.posted.len(), 2, "the third put waits for the first two");
        nic.deliver(&mut w, 0);
        assert_eq!(nic.posted.len(), 2);
        nic.deliver(&mut w, 1);
        assert_eq!(nic.posted.len(), 3);
        nic.deliver(&mut w, 2);
        assert!(w.finished());
    }

    #[test]
    fn a_byte_count_wait_passes_once_enough_has_arrived() {
        // Three puts of 32 KiB; rank 1 waits for 96 KiB after a compute, so the first message
        // is early and the last two arrive while it waits.
        let text = "ranks 2\n0 put 1 32KiB\n0 put 1 32KiB\n0 put 1 32KiB\n1 compute 1us\n1 waitbytes 0 96KiB\n";
        let p = FileProgram::parse(text).unwrap();
        crate::check::run(&p, |_, _| None).unwrap();
        let mut w = ProgramRun::new(Box::new(p), 0);
        let mut nic = MockNic::new(2);
        nic.start(&mut w);
        nic.deliver(&mut w, 0);
        nic.now = Time::from_us(1);
        assert!(nic.fire_next(&mut w));
        nic.deliver(&mut w, 1);
        assert!(!w.finished(), "64 KiB of 96");
        nic.deliver(&mut w, 2);
        assert!(w.finished());
        // Asking for more than is ever sent deadlocks (in the checker: by rank and operation).
        let more = FileProgram::parse(&text.replace("96KiB", "97KiB")).unwrap();
        let e = crate::check::run(&more, |_, _| None).unwrap_err();
        assert_eq!((e.rank, e.op), (1, 1));
    }

    #[test]
    fn a_network_without_the_hardware_refuses_it_by_name() {
        let p = FileProgram::parse("ranks 2\n1 hw allreduce 0 8B tag=2\n1 hwwait tag=2\n").unwrap();
        let mut w = ProgramRun::new(Box::new(p), 0);
        let mut nic = MockNic::new(2);
        nic.start(&mut w);
        let e = w.error().unwrap();
        assert!(e.starts_with("rank 1 operation 0") && e.contains("no in-network collectives"), "{e}");
        assert!(!w.finished());
    }
}

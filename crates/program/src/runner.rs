//! Runs a program over the NIC interface: the [`Workload`] that turns operations into
//! messages and completions into progress.

use crate::op::{Op, Slots};
use crate::program::Program;
use fabricsim_core::{Bandwidth, Time};
use fabricsim_nic::{Api, Delivered, Message, Op as NicOp, Rank, Workload};
use std::collections::HashMap;

/// No message is shorter than a flag word.
pub const MIN_MESSAGE_BYTES: u64 = 8;

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

/// A program in progress on the network. Per rank: a program counter, a state and its
/// completion time (16 bytes a rank); messages that arrived before their Wait are counted
/// in one map keyed by (receiver, sender, tag).
pub struct ProgramRun {
    program: Box<dyn Program + Send + Sync>,
    /// Bytes of one rank's whole buffer.
    size: u64,
    pc: Vec<u32>,
    state: Vec<State>,
    done_at: Vec<Time>,
    /// Each rank's injection rate cap for its Puts (bytes per second; 0: none).
    rate: Vec<u64>,
    early: HashMap<(u32, u32, u32), u32>,
    remaining: u32,
    messages: u64,
    bytes: u64,
}

impl ProgramRun {
    /// Run `program` with a buffer of `size` bytes per rank, spread evenly over its slots.
    pub fn new(program: Box<dyn Program + Send + Sync>, size: u64) -> Self {
        let n = program.ranks() as usize;
        ProgramRun {
            program,
            size,
            pc: vec![0; n],
            state: vec![State::Ready; n],
            done_at: vec![Time::ZERO; n],
            rate: vec![0; n],
            early: HashMap::new(),
            remaining: n as u32,
            messages: 0,
            bytes: 0,
        }
    }

    /// Bytes a message of `s` carries: its share of the buffer, at least a flag word.
    pub fn bytes_of(&self, s: Slots) -> u64 {
        let slots = self.program.slots().max(1) as u64;
        (self.size * s.count() as u64).div_ceil(slots).max(MIN_MESSAGE_BYTES)
    }

    /// Run `rank` until it blocks or ends.
    fn advance(&mut self, rank: u32, api: &mut Api) {
        let r = rank as usize;
        let len = self.program.len(rank);
        loop {
            let i = self.pc[r];
            if i >= len {
                self.state[r] = State::Done;
                self.done_at[r] = api.now();
                self.remaining -= 1;
                return;
            }
            match self.program.op(rank, i) {
                Op::Put { to, slots, tag } => {
                    let bytes = self.bytes_of(slots);
                    let rate = (self.rate[r] > 0).then_some(Bandwidth(self.rate[r]));
                    self.post(api, Message::put(Rank(rank), Rank(to), bytes).tag(tag as u64).rate(rate));
                }
                Op::Get { from, slots, tag } => {
                    let bytes = self.bytes_of(slots);
                    self.post(api, Message::get(Rank(rank), Rank(from), bytes).tag(tag as u64));
                }
                Op::Wait { from, tag, .. } => match self.early.get_mut(&(rank, from, tag)) {
                    Some(c) if *c > 1 => *c -= 1,
                    Some(_) => {
                        self.early.remove(&(rank, from, tag));
                    }
                    None => {
                        self.state[r] = State::Waiting;
                        return;
                    }
                },
                Op::Copy { .. } => {}
                Op::Rate(r) => self.rate[rank as usize] = r.map_or(0, |b| b.bytes_per_sec()),
                Op::Compute(d) => {
                    self.pc[r] += 1;
                    self.state[r] = State::Computing;
                    api.wake_at(Rank(rank), api.now() + d);
                    return;
                }
            }
            self.pc[r] += 1;
        }
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

    /// If some rank never finished: which, and the operation it is stuck at.
    pub fn stuck(&self) -> Option<String> {
        let r = self.state.iter().position(|s| *s != State::Done)?;
        let i = self.pc[r];
        let op = (i < self.program.len(r as u32)).then(|| self.program.op(r as u32, i));
        let n = self.state.iter().filter(|s| **s != State::Done).count();
        Some(format!("deadlock: {n} rank(s) never finished; rank {r} waits at operation {i} ({op:?})"))
    }
}

impl Workload for ProgramRun {
    fn start(&mut self, api: &mut Api) {
        for rank in 0..self.program.ranks() {
            self.advance(rank, api);
        }
    }

    fn wake(&mut self, rank: Rank, api: &mut Api) {
        if self.state[rank.index()] == State::Computing {
            self.state[rank.index()] = State::Ready;
            self.advance(rank.0, api);
        }
    }

    fn delivered(&mut self, d: &Delivered, api: &mut Api) {
        // The receiving rank and the rank the data came from: a Put lands at its destination,
        // a Get's data at its initiator.
        let (at, from) = if d.op == NicOp::Get { (d.src.0, d.dst.0) } else { (d.dst.0, d.src.0) };
        let tag = d.tag as u32;
        let r = at as usize;
        if self.state[r] == State::Waiting {
            if let Op::Wait { from: f, tag: t, .. } = self.program.op(at, self.pc[r]) {
                if (f, t) == (from, tag) {
                    self.pc[r] += 1;
                    self.state[r] = State::Ready;
                    self.advance(at, api);
                    return;
                }
            }
        }
        *self.early.entry((at, from, tag)).or_default() += 1;
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }
}

//! Replays a [`Trace`] over the NIC interface: the [`Workload`] that starts each operation
//! once its dependencies allow, turns sends into Puts, matches arrivals to receives as MPI
//! does, and runs calcs on the rank's core.

use super::trace::{CalcUnit, Kind, Trace, ANY, IREQ};
use crate::job_run::JobRun;
use crate::runner::MIN_MESSAGE_BYTES;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Message, Rank, Workload};
use std::collections::VecDeque;
use std::sync::Arc;

/// No operation.
const NONE: u32 = u32::MAX;

/// An operation's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Status {
    Idle,
    Started,
    Done,
}

/// One rank in progress: its core, its receives and the messages no receive has taken yet.
#[derive(Debug, Default)]
struct RankState {
    /// Operations not done.
    left: u32,
    /// The calc on its core ([`NONE`]: idle) and when it ends (picoseconds).
    running: u32,
    until: u64,
    /// Calcs ready while the core was busy, in the order they became ready.
    queue: VecDeque<u32>,
    /// Receives started and not matched, in posting order.
    posted: Vec<u32>,
    /// Messages arrived and not matched, in arrival order: (source, tag, send).
    unexpected: VecDeque<(u32, u32, u32)>,
}

/// A trace in progress. Per operation: its unmet dependencies and its status (5 bytes); per
/// rank its state; the trace itself is shared, read-only.
pub struct TraceRun {
    trace: Arc<Trace>,
    unit: CalcUnit,
    pending: Vec<u32>,
    status: Vec<Status>,
    ranks: Vec<RankState>,
    done_at: Vec<Time>,
    calc: Vec<Time>,
    remaining: u32,
    /// Operations whose dependencies are met, to start: (rank, operation).
    work: VecDeque<(u32, u32)>,
    messages: u64,
    bytes: u64,
}

impl TraceRun {
    /// A replay of `trace`, each calc unit lasting `unit`.
    pub fn new(trace: Arc<Trace>, unit: CalcUnit) -> Self {
        let n = trace.ranks() as usize;
        let mut pending = vec![0u32; trace.len()];
        for i in 0..trace.len() as u32 {
            for &s in trace.successors(i) {
                pending[(s & !IREQ) as usize] += 1;
            }
        }
        let ranks: Vec<RankState> =
            (0..n as u32).map(|r| RankState { left: trace.range(r).len() as u32, running: NONE, ..Default::default() }).collect();
        let remaining = ranks.iter().filter(|s| s.left > 0).count() as u32;
        TraceRun {
            status: vec![Status::Idle; trace.len()],
            pending,
            ranks,
            done_at: vec![Time::ZERO; n],
            calc: vec![Time::ZERO; n],
            remaining,
            work: VecDeque::new(),
            messages: 0,
            bytes: 0,
            trace,
            unit,
        }
    }

    /// Start every operation whose dependencies are met, and what that releases.
    fn drain(&mut self, api: &mut Api) {
        while let Some((r, i)) = self.work.pop_front() {
            self.begin(r, i, api);
        }
    }

    /// Meet one dependency of each of `i`'s successors of the kind `ireq` says.
    fn release(&mut self, r: u32, i: u32, ireq: bool) {
        let t = Arc::clone(&self.trace);
        for &s in t.successors(i) {
            if (s & IREQ != 0) == ireq {
                let s = s & !IREQ;
                self.pending[s as usize] -= 1;
                if self.pending[s as usize] == 0 {
                    self.work.push_back((r, s));
                }
            }
        }
    }

    fn begin(&mut self, r: u32, i: u32, api: &mut Api) {
        self.status[i as usize] = Status::Started;
        self.release(r, i, true);
        let op = self.trace.op(i);
        match op.kind {
            Kind::Send if op.peer == r => {
                self.complete(r, i, api.now());
                self.arrive(r, r, op.tag, i, api.now());
            }
            Kind::Send => {
                let bytes = op.size.max(MIN_MESSAGE_BYTES);
                self.messages += 1;
                self.bytes += bytes;
                api.post(Message::put(Rank(r), Rank(op.peer), bytes).tag(i as u64));
            }
            Kind::Recv => {
                let s = &mut self.ranks[r as usize];
                let hit = s.unexpected.iter().position(|&(src, tag, _)| (op.peer == ANY || op.peer == src) && (op.tag == ANY || op.tag == tag));
                match hit {
                    Some(k) => {
                        s.unexpected.remove(k);
                        self.complete(r, i, api.now());
                    }
                    None => s.posted.push(i),
                }
            }
            Kind::Calc => {
                let d = self.unit.of(op.size);
                if d == Time::ZERO {
                    self.complete(r, i, api.now());
                } else if self.ranks[r as usize].running == NONE {
                    self.run_calc(r, i, d, api);
                } else {
                    self.ranks[r as usize].queue.push_back(i);
                }
            }
        }
    }

    fn run_calc(&mut self, r: u32, i: u32, d: Time, api: &mut Api) {
        let s = &mut self.ranks[r as usize];
        s.running = i;
        s.until = (api.now() + d).ps();
        self.calc[r as usize] += d;
        api.wake_at(Rank(r), api.now() + d);
    }

    fn complete(&mut self, r: u32, i: u32, now: Time) {
        self.status[i as usize] = Status::Done;
        let s = &mut self.ranks[r as usize];
        s.left -= 1;
        if s.left == 0 {
            self.done_at[r as usize] = now;
            self.remaining -= 1;
        }
        self.release(r, i, false);
    }

    /// Send `j`'s message (from `src`, tagged `tag`) has arrived at `r`: the first posted
    /// receive it matches takes it, or it waits for one.
    fn arrive(&mut self, r: u32, src: u32, tag: u32, j: u32, now: Time) {
        let t = &self.trace;
        let s = &mut self.ranks[r as usize];
        let hit = s.posted.iter().position(|&k| {
            let o = t.op(k);
            (o.peer == ANY || o.peer == src) && (o.tag == ANY || o.tag == tag)
        });
        match hit {
            Some(p) => {
                let k = s.posted.remove(p);
                self.complete(r, k, now);
            }
            None => s.unexpected.push_back((src, tag, j)),
        }
    }

    /// Sends whose message arrived and no receive took: (receiving rank, send), at most `max`.
    pub fn unreceived(&self, max: usize) -> Vec<(u32, u32)> {
        self.ranks.iter().enumerate().flat_map(|(r, s)| s.unexpected.iter().map(move |&(_, _, j)| (r as u32, j))).take(max).collect()
    }

    /// Why rank `r` is not done: its first operation started and not done (a receive never
    /// matched, a message in flight), else its first one not started.
    pub fn blocked_at(&self, r: u32) -> Option<(u32, String)> {
        let range = self.trace.range(r);
        let started = range.clone().find(|&i| self.status[i as usize] == Status::Started);
        let i = started.or_else(|| range.clone().find(|&i| self.status[i as usize] == Status::Idle))?;
        let o = self.trace.op(i);
        let any = |v: u32| if v == ANY { "-1 (any)".to_string() } else { v.to_string() };
        let what = match (self.status[i as usize], o.kind) {
            (Status::Started, Kind::Recv) => format!("recv {}b from {} tag {} is never matched", o.size, any(o.peer), any(o.tag)),
            (Status::Started, Kind::Send) => format!("send {}b to {} tag {} never arrived", o.size, o.peer, o.tag),
            (Status::Started, Kind::Calc) => format!("calc {} never ended", o.size),
            _ => "waits for dependencies that never complete".to_string(),
        };
        Some((i, what))
    }
}

/// Stuck ranks a deadlock report names one by one (the rest are counted).
const STUCK_SHOWN: usize = 8;

impl JobRun for TraceRun {
    fn done_at(&self) -> &[Time] {
        &self.done_at
    }
    fn traffic(&self) -> (u64, u64) {
        (self.messages, self.bytes)
    }
    fn stuck(&self) -> Option<String> {
        let stuck: Vec<u32> = (0..self.trace.ranks()).filter(|&r| self.ranks[r as usize].left > 0).collect();
        if stuck.is_empty() {
            return None;
        }
        let mut s = format!("deadlock: {} rank(s) of the trace never finished:", stuck.len());
        for &r in stuck.iter().take(STUCK_SHOWN) {
            if let Some((i, what)) = self.blocked_at(r) {
                s += &format!("\n  rank {r} (line {}, operation {}): {what}", self.trace.line(i), i - self.trace.range(r).start);
            }
        }
        if stuck.len() > STUCK_SHOWN {
            s += &format!("\n  and {} more ranks", stuck.len() - STUCK_SHOWN);
        }
        Some(s)
    }
    fn calc_time(&self) -> Option<&[Time]> {
        Some(&self.calc)
    }
}

impl Workload for TraceRun {
    fn start(&mut self, api: &mut Api) {
        for r in 0..self.trace.ranks() {
            for i in self.trace.range(r) {
                if self.pending[i as usize] == 0 {
                    self.work.push_back((r, i));
                }
            }
        }
        self.drain(api);
    }

    fn wake(&mut self, rank: Rank, api: &mut Api) {
        let r = rank.0;
        let s = &mut self.ranks[r as usize];
        if s.running == NONE || s.until > api.now().ps() {
            return;
        }
        let i = std::mem::replace(&mut s.running, NONE);
        if let Some(k) = s.queue.pop_front() {
            let d = self.unit.of(self.trace.op(k).size);
            self.run_calc(r, k, d, api);
        }
        self.complete(r, i, api.now());
        self.drain(api);
    }

    fn delivered(&mut self, d: &Delivered, api: &mut Api) {
        let j = d.tag as u32;
        let (src, dst) = (d.src.0, d.dst.0);
        self.complete(src, j, api.now());
        let tag = self.trace.op(j).tag;
        self.arrive(dst, src, tag, j, api.now());
        self.drain(api);
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }
}

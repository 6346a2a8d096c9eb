//! Replays a trace (any [`Source`]) over the NIC interface: the [`Workload`] that starts each operation
//! once its dependencies allow, turns sends into Puts, matches arrivals to receives as MPI
//! does, and runs calcs on the rank's core.

use super::source::{OpReader, Rec, Source};
use super::trace::{CalcUnit, Kind, ANY, IREQ};
use crate::job_run::JobRun;
use crate::runner::MIN_MESSAGE_BYTES;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, Message, Rank, Workload};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

/// No operation.
const NONE: u32 = u32::MAX;

/// Hashes an operation index with one multiplication (the maps are keyed by indices the
/// trace chose, not by an adversary).
#[derive(Default, Clone, Copy)]
struct IndexHash(u64);

impl std::hash::Hasher for IndexHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.0 = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type IndexMap<V> = HashMap<u32, V, std::hash::BuildHasherDefault<IndexHash>>;

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
    /// Receives started and not matched, in posting order: (receive, source, tag).
    posted: Vec<(u32, u32, u32)>,
    /// Messages arrived and not matched, in arrival order: (source, tag, send).
    unexpected: VecDeque<(u32, u32, u32)>,
    /// Its first operation not done (all before it are), and those after it that are done.
    low: u32,
    done: BTreeSet<u32>,
}

/// A trace in progress. It holds only the operations in flight: those started and not done
/// (their records), those with some but not all dependencies met (a count), those ready to
/// start, and per rank those done ahead of its first one not done. Every other operation is
/// read from the [`Source`] when it is needed.
pub struct TraceRun {
    trace: Arc<dyn Source>,
    reader: RefCell<Box<dyn OpReader>>,
    unit: CalcUnit,
    /// Operations with dependencies met in part: how many are left.
    pending: IndexMap<u32>,
    /// Operations started and not done.
    live: IndexMap<Rec>,
    ranks: Vec<RankState>,
    done_at: Vec<Time>,
    calc: Vec<Time>,
    remaining: u32,
    /// Operations whose dependencies are met, to start: (rank, operation).
    work: VecDeque<(u32, u32)>,
    messages: u64,
    bytes: u64,
    /// Operations done ahead of their rank's first one not done, over all ranks.
    ahead: usize,
    /// The most operations held at once.
    peak: usize,
    succ: Vec<u32>,
}

impl TraceRun {
    /// A replay of `trace`, each calc unit lasting `unit`.
    pub fn new(trace: Arc<dyn Source>, unit: CalcUnit) -> Self {
        let n = trace.ranks() as usize;
        let ranks: Vec<RankState> = (0..n as u32)
            .map(|r| {
                let range = trace.range(r);
                RankState { left: range.len() as u32, running: NONE, low: range.start, ..Default::default() }
            })
            .collect();
        let remaining = ranks.iter().filter(|s| s.left > 0).count() as u32;
        TraceRun {
            reader: RefCell::new(Arc::clone(&trace).reader()),
            pending: IndexMap::default(),
            live: IndexMap::default(),
            ranks,
            done_at: vec![Time::ZERO; n],
            calc: vec![Time::ZERO; n],
            remaining,
            work: VecDeque::new(),
            messages: 0,
            bytes: 0,
            ahead: 0,
            peak: 0,
            succ: Vec::new(),
            trace,
            unit,
        }
    }

    /// Operations held now: started and not done, met in part, ready to start, and done
    /// ahead of their rank's first one not done.
    pub fn held(&self) -> usize {
        self.live.len() + self.pending.len() + self.work.len() + self.ahead
    }

    /// The most operations held at once so far (see [`TraceRun::held`]).
    pub fn peak_held(&self) -> usize {
        self.peak
    }

    /// Operation `i`'s record: from those in flight, else read.
    fn rec(&self, i: u32) -> Rec {
        match self.live.get(&i) {
            Some(r) => *r,
            None => self.reader.borrow_mut().rec(i),
        }
    }

    /// The line of the file operation `i` was read from.
    pub fn line(&self, i: u32) -> u32 {
        self.rec(i).line
    }

    /// Operation `i`.
    pub fn op(&self, i: u32) -> super::trace::GoalOp {
        self.rec(i).op
    }

    /// Start every operation whose dependencies are met, and what that releases.
    fn drain(&mut self, api: &mut Api) {
        while let Some((r, i)) = self.work.pop_front() {
            self.begin(r, i, api);
        }
    }

    /// Meet one dependency of each of `rec`'s successors of the kind `ireq` says.
    fn release(&mut self, r: u32, rec: &Rec, ireq: bool) {
        let mut succ = std::mem::take(&mut self.succ);
        let reader = self.reader.get_mut();
        reader.successors(rec, &mut succ);
        for &s in &succ {
            if (s & IREQ != 0) == ireq {
                let s = s & !IREQ;
                let left = self.pending.entry(s).or_insert_with(|| reader.rec(s).deps);
                *left -= 1;
                if *left == 0 {
                    self.pending.remove(&s);
                    self.work.push_back((r, s));
                }
            }
        }
        self.succ = succ;
    }

    fn begin(&mut self, r: u32, i: u32, api: &mut Api) {
        let rec = self.reader.get_mut().rec(i);
        self.live.insert(i, rec);
        self.peak = self.peak.max(self.held());
        self.release(r, &rec, true);
        let op = rec.op;
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
                    None => s.posted.push((i, op.peer, op.tag)),
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
        let rec = self.live.remove(&i).expect("an operation completes once, after it started");
        let s = &mut self.ranks[r as usize];
        s.left -= 1;
        if s.left == 0 {
            self.done_at[r as usize] = now;
            self.remaining -= 1;
        }
        if i == s.low {
            s.low += 1;
            while s.done.remove(&s.low) {
                s.low += 1;
                self.ahead -= 1;
            }
        } else {
            s.done.insert(i);
            self.ahead += 1;
        }
        self.release(r, &rec, false);
    }

    /// Send `j`'s message (from `src`, tagged `tag`) has arrived at `r`: the first posted
    /// receive it matches takes it, or it waits for one.
    fn arrive(&mut self, r: u32, src: u32, tag: u32, j: u32, now: Time) {
        let s = &mut self.ranks[r as usize];
        let hit = s.posted.iter().position(|&(_, peer, t)| (peer == ANY || peer == src) && (t == ANY || t == tag));
        match hit {
            Some(p) => {
                let (k, _, _) = s.posted.remove(p);
                self.complete(r, k, now);
            }
            None => s.unexpected.push_back((src, tag, j)),
        }
    }

    /// Ranks not done.
    pub fn unfinished(&self) -> usize {
        self.ranks.iter().filter(|s| s.left > 0).count()
    }

    /// Sends whose message arrived and no receive took: (receiving rank, send), at most `max`.
    pub fn unreceived(&self, max: usize) -> Vec<(u32, u32)> {
        self.ranks.iter().enumerate().flat_map(|(r, s)| s.unexpected.iter().map(move |&(_, _, j)| (r as u32, j))).take(max).collect()
    }

    /// Why rank `r` is not done: its first operation started and not done (a receive never
    /// matched, a message in flight), else its first one not started.
    pub fn blocked_at(&self, r: u32) -> Option<(u32, String)> {
        let range = self.trace.range(r);
        let started = self.live.keys().copied().filter(|i| range.contains(i)).min();
        let low = self.ranks[r as usize].low;
        let i = started.or(Some(low).filter(|&i| i < range.end))?;
        let o = self.rec(i).op;
        let any = |v: u32| if v == ANY { "-1 (any)".to_string() } else { v.to_string() };
        let what = match (started.is_some(), o.kind) {
            (true, Kind::Recv) => format!("recv {}b from {} tag {} is never matched", o.size, any(o.peer), any(o.tag)),
            (true, Kind::Send) => format!("send {}b to {} tag {} never arrived", o.size, o.peer, o.tag),
            (true, Kind::Calc) => format!("calc {} never ended", o.size),
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
                s += &format!("\n  rank {r} (line {}, operation {}): {what}", self.line(i), i - self.trace.range(r).start);
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
        // Operations without dependencies start first, by rank, in file order.
        let mut roots = Vec::new();
        for r in 0..self.trace.ranks() {
            self.reader.get_mut().roots(r, self.trace.range(r), &mut roots);
            self.work.extend(roots.iter().map(|&i| (r, i)));
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
            let d = self.unit.of(self.live[&k].op.size);
            self.run_calc(r, k, d, api);
        }
        self.complete(r, i, api.now());
        self.drain(api);
    }

    fn delivered(&mut self, d: &Delivered, api: &mut Api) {
        let j = d.tag as u32;
        let (src, dst) = (d.src.0, d.dst.0);
        let tag = self.live[&j].op.tag;
        self.complete(src, j, api.now());
        self.arrive(dst, src, tag, j, api.now());
        self.drain(api);
    }

    fn finished(&self) -> bool {
        self.remaining == 0
    }
}

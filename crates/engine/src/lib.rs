//! The discrete-event engine: a priority queue of timestamped events with a deterministic
//! tie-break. Events at the same time come out in the order they were scheduled (FIFO), so a run
//! is a pure function of its inputs and seed.
//!
//! The engine knows nothing about networks: the payload type `E` is the caller's (the network
//! layer uses a small `Copy` enum). A later partitioned parallel engine would keep one queue per
//! partition and exchange cross-partition events at lookahead boundaries (the minimum link
//! latency), which is why events carry only plain data.

use fabricsim_core::Time;
use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

struct Entry<E> {
    time: u64,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.time.cmp(&self.time).then_with(|| o.seq.cmp(&self.seq))
    }
}

const EMPTY: u128 = u128::MAX;

/// Most lanes a queue can have (a fixed array keeps the per-pop scan branch-light).
pub const MAX_LANES: usize = 8;

/// (time, seq) as one integer, ordered like the pair.
#[inline]
fn key(time: u64, seq: u64) -> u128 {
    ((time as u128) << 64) | seq as u128
}

/// A deterministic event queue built from FIFO *lanes* plus a heap.
///
/// A simulator schedules most events a fixed delay after "now" (a link latency, a router
/// pipeline, a credit return), so events of one kind arrive already in time order. Each such
/// kind gets a lane, a FIFO where push and pop are O(1) over contiguous memory; an event that
/// would break a lane's order, or that names no lane, goes to a binary heap. Popping takes the
/// smallest (time, sequence) among the lane fronts and the heap top, so the order is exactly that
/// of a single global heap: time first, then scheduling order.
pub struct EventQueue<E> {
    lanes: Vec<VecDeque<Entry<E>>>,
    /// (time, seq) of each lane's front, `(u64::MAX, u64::MAX)` when empty: scanning this
    /// compact array is much cheaper than touching every lane's buffer on each pop.
    fronts: [u128; MAX_LANES],
    heap: BinaryHeap<Entry<E>>,
    seq: u64,
    now: Time,
    popped: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    /// A queue with no lanes (everything in the heap).
    pub fn new() -> Self {
        Self::with_lanes(0)
    }

    /// A queue with `lanes` FIFO lanes (at most [`MAX_LANES`]), numbered from 0.
    pub fn with_lanes(lanes: usize) -> Self {
        assert!(lanes <= MAX_LANES, "at most {MAX_LANES} lanes");
        EventQueue {
            lanes: (0..lanes).map(|_| VecDeque::with_capacity(1024)).collect(),
            fronts: [EMPTY; MAX_LANES],
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            now: Time::ZERO,
            popped: 0,
        }
    }

    /// Current simulated time: the time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    #[inline]
    fn entry(&mut self, at: Time, event: E) -> Entry<E> {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        Entry { time: at.0.max(self.now.0), seq: self.seq, event }
    }

    /// Schedule `event` at absolute time `at` (in the heap). Scheduling in the past is a logic
    /// error and is clamped to `now` in release builds.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        let e = self.entry(at, event);
        self.heap.push(e);
    }

    /// Schedule `event` at `at` on `lane`; falls back to the heap if that would put the lane out
    /// of time order. The result is the same as [`schedule`](Self::schedule), only faster.
    #[inline]
    pub fn schedule_on(&mut self, lane: usize, at: Time, event: E) {
        let e = self.entry(at, event);
        let l = &mut self.lanes[lane];
        if l.is_empty() {
            self.fronts[lane] = key(e.time, e.seq);
            l.push_back(e);
        } else if l.back().is_some_and(|b| b.time <= e.time) {
            l.push_back(e);
        } else {
            self.heap.push(e);
        }
    }

    /// Schedule `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Where the next event is: `Some(lane)`, or `None` for the heap (or nothing at all).
    #[inline]
    fn next_source(&self) -> Option<usize> {
        let mut best = self.heap.peek().map_or(EMPTY, |e| key(e.time, e.seq));
        let mut src = usize::MAX;
        for (i, &f) in self.fronts.iter().enumerate() {
            if f < best {
                best = f;
                src = i;
            }
        }
        (src != usize::MAX).then_some(src)
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        match self.next_source() {
            Some(l) => self.lanes[l].front().map(|e| Time(e.time)),
            None => self.heap.peek().map(|e| Time(e.time)),
        }
    }

    /// Remove the next event and advance `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = match self.next_source() {
            Some(l) => {
                let e = self.lanes[l].pop_front()?;
                self.fronts[l] = self.lanes[l].front().map_or(EMPTY, |f| key(f.time, f.seq));
                e
            }
            None => self.heap.pop()?,
        };
        self.now = Time(e.time);
        self.popped += 1;
        Some((self.now, e.event))
    }

    /// Pop the next event only if it happens no later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        match self.peek_time() {
            Some(t) if t <= limit => self.pop(),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(|l| l.len()).sum::<usize>()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_time_events_are_fifo() {
        let mut q = EventQueue::new();
        q.schedule(Time(10), 'a');
        q.schedule(Time(5), 'b');
        q.schedule(Time(10), 'c');
        q.schedule(Time(5), 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), Time(10));
        assert_eq!(q.events_processed(), 4);
    }

    #[test]
    fn pop_until_respects_limit() {
        let mut q = EventQueue::new();
        q.schedule(Time(3), 1);
        q.schedule(Time(9), 2);
        assert_eq!(q.pop_until(Time(5)), Some((Time(3), 1)));
        assert_eq!(q.pop_until(Time(5)), None);
        assert_eq!(q.len(), 1);
    }

    #[test]
    fn far_future_and_interleaved_scheduling_keep_order() {
        // Mix events inside the current bucket, in the wheel and beyond the horizon, and
        // schedule new ones while draining, as a simulation does.
        let mut q = EventQueue::with_lanes(2);
        let mut expected = Vec::new();
        for (i, t) in [5u64, 1 << 30, 300, 70_000, 1 << 40, 300, 2].into_iter().enumerate() {
            q.schedule_on(i % 2, Time(t), i);
            expected.push((t, i));
        }
        let mut got = Vec::new();
        let mut extra = 100;
        while let Some((t, e)) = q.pop() {
            got.push((t.0, e));
            if extra < 110 {
                q.schedule_on(extra % 2, Time(t.0 + 1000 * (extra as u64 % 3)), extra);
                expected.push((t.0 + 1000 * (extra as u64 % 3), extra));
                extra += 1;
            }
        }
        // Events scheduled later at the same time come after earlier-scheduled ones.
        let mut order: Vec<(u64, usize, usize)> = Vec::new();
        for (k, (t, i)) in expected.iter().enumerate() {
            order.push((*t, k, *i));
        }
        order.sort();
        let want: Vec<(u64, usize)> = order.into_iter().map(|(t, _, i)| (t, i)).collect();
        assert_eq!(got, want);
    }

    proptest::proptest! {
        #[test]
        fn pops_in_time_then_insertion_order(times in proptest::collection::vec(0u64..5_000_000_000, 0..300)) {
            // Spread over lanes and the heap: lanes see out-of-order pushes and must fall back.
            let mut q = EventQueue::with_lanes(3);
            for (i, t) in times.iter().enumerate() {
                match i % 4 {
                    3 => q.schedule(Time(*t), i),
                    l => q.schedule_on(l, Time(*t), i),
                }
            }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            expected.sort();
            let got: Vec<(u64, usize)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }
}

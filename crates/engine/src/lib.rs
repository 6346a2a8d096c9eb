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
use std::collections::BinaryHeap;

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

/// Width of a calendar bucket: 2^8 ps = 256 ps.
const BUCKET_SHIFT: u32 = 8;
/// Buckets in the wheel: 2^14, a horizon of about 4.2 us; later events wait in an overflow heap.
const WHEEL: u64 = 1 << 14;

/// A deterministic event queue: a calendar queue (Brown 1988). Events are bucketed by time into
/// a wheel of narrow buckets; only the bucket being drained is ordered (sorted once, then popped
/// from the end), so the work per event stays small and cache-resident even with millions of
/// pending events. Order is exactly (time, insertion sequence), as with a single global heap.
pub struct EventQueue<E> {
    /// The current bucket, sorted so that the next event is last.
    cur: Vec<Entry<E>>,
    cur_bucket: u64,
    wheel: Vec<Vec<Entry<E>>>,
    wheel_len: usize,
    far: BinaryHeap<Entry<E>>,
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
    pub fn new() -> Self {
        EventQueue {
            cur: Vec::with_capacity(256),
            cur_bucket: 0,
            wheel: (0..WHEEL).map(|_| Vec::new()).collect(),
            wheel_len: 0,
            far: BinaryHeap::new(),
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

    /// Schedule `event` at absolute time `at`. Scheduling in the past is a logic error and is
    /// clamped to `now` in release builds.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let time = at.0.max(self.now.0);
        self.seq += 1;
        let e = Entry { time, seq: self.seq, event };
        let b = time >> BUCKET_SHIFT;
        if b <= self.cur_bucket {
            // Rare: an event inside the bucket being drained. Entry's order is reversed, so
            // `cur` is ascending in Ord terms; insert after everything that comes later.
            let pos = self.cur.partition_point(|x| x < &e);
            self.cur.insert(pos, e);
        } else if b < self.cur_bucket + WHEEL {
            self.wheel[(b % WHEEL) as usize].push(e);
            self.wheel_len += 1;
        } else {
            self.far.push(e);
        }
    }

    /// Schedule `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Make `cur` hold the earliest pending bucket. Returns false when nothing is pending.
    fn refill(&mut self) -> bool {
        if !self.cur.is_empty() {
            return true;
        }
        if self.wheel_len == 0 && self.far.is_empty() {
            return false;
        }
        let far_bucket = self.far.peek().map(|e| e.time >> BUCKET_SHIFT).unwrap_or(u64::MAX);
        let mut next = far_bucket;
        if self.wheel_len > 0 {
            let mut b = self.cur_bucket + 1;
            while b < far_bucket {
                if !self.wheel[(b % WHEEL) as usize].is_empty() {
                    break;
                }
                b += 1;
            }
            next = next.min(b);
        }
        self.cur_bucket = next;
        let slot = (next % WHEEL) as usize;
        if !self.wheel[slot].is_empty() {
            self.wheel_len -= self.wheel[slot].len();
            // Swap the (empty) current vector into the slot so both keep their capacity.
            std::mem::swap(&mut self.cur, &mut self.wheel[slot]);
        }
        while self.far.peek().is_some_and(|e| e.time >> BUCKET_SHIFT <= next) {
            let e = self.far.pop().expect("peeked");
            self.cur.push(e);
        }
        // Keys (time, seq) are unique, so an unstable sort is deterministic.
        self.cur.sort_unstable();
        // Far events that now fall inside the wheel's horizon move into it.
        while self.far.peek().is_some_and(|e| e.time >> BUCKET_SHIFT < next + WHEEL) {
            let e = self.far.pop().expect("peeked");
            self.wheel[((e.time >> BUCKET_SHIFT) % WHEEL) as usize].push(e);
            self.wheel_len += 1;
        }
        true
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        if !self.refill() {
            return None;
        }
        self.cur.last().map(|e| Time(e.time))
    }

    /// Remove the next event and advance `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        if !self.refill() {
            return None;
        }
        let e = self.cur.pop()?;
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
        self.cur.len() + self.wheel_len + self.far.len()
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
        let mut q = EventQueue::new();
        let mut expected = Vec::new();
        for (i, t) in [5u64, 1 << 30, 300, 70_000, 1 << 40, 300, 2].into_iter().enumerate() {
            q.schedule(Time(t), i);
            expected.push((t, i));
        }
        let mut got = Vec::new();
        let mut extra = 100;
        while let Some((t, e)) = q.pop() {
            got.push((t.0, e));
            if extra < 110 {
                q.schedule(Time(t.0 + 1000 * (extra as u64 % 3)), extra);
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
            let mut q = EventQueue::new();
            for (i, t) in times.iter().enumerate() {
                q.schedule(Time(*t), i);
            }
            let mut expected: Vec<(u64, usize)> = times.iter().copied().zip(0..).collect();
            expected.sort();
            let got: Vec<(u64, usize)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
            proptest::prop_assert_eq!(got, expected);
        }
    }
}

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

/// A deterministic event queue.
pub struct EventQueue<E> {
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
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0, now: Time::ZERO, popped: 0 }
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
        self.heap.push(Entry { time, seq: self.seq, event });
    }

    /// Schedule `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time(e.time))
    }

    /// Remove the next event and advance `now` to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let e = self.heap.pop()?;
        self.now = Time(e.time);
        self.popped += 1;
        Some((self.now, e.event))
    }

    /// Pop the next event only if it happens no later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        match self.heap.peek() {
            Some(e) if e.time <= limit.0 => self.pop(),
            _ => None,
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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

    proptest::proptest! {
        #[test]
        fn pops_in_time_then_insertion_order(times in proptest::collection::vec(0u64..50, 0..200)) {
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

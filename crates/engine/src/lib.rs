//! The discrete-event engine: a priority queue of timestamped events with a deterministic
//! tie-break, so a run is a pure function of its inputs and seed.
//!
//! The engine knows nothing about networks: the payload type `E` is the caller's (the network
//! layer uses a small `Copy` enum). A later partitioned parallel engine would keep one queue per
//! partition and exchange cross-partition events at lookahead boundaries (the minimum link
//! latency), which is why events carry only plain data.

use fabricsim_core::Time;
use std::collections::BinaryHeap;

mod entry;
mod ring;
mod split_mix;
mod wheel;
use entry::{HeapEntry, LaneEntry};
use ring::Ring;
use split_mix::SplitMix;

const EMPTY: u64 = u64::MAX;

/// Most lanes a queue can have (a fixed array keeps the per-pop scan branch-light).
pub const MAX_LANES: usize = 8;

/// Bits of an ordering key that hold the rank (0 for heap-only events, lane + 1 for a lane's).
const RANK_BITS: u32 = 4;
// `next_source` reads a lane off the rank bits and takes the minimum of exactly 8 fronts.
const _: () = assert!(MAX_LANES < (1 << RANK_BITS) && MAX_LANES == 8);
/// The latest time the queue can hold: 2^60 ps, about 13 days. Later times are clamped to it
/// (a simulator must stop before; the network layer refuses runs that could reach it).
pub const MAX_TIME: Time = Time((1 << (64 - RANK_BITS)) - 1);

/// (time, rank) as one integer, ordered like the pair. `time` is at most [`MAX_TIME`].
#[inline]
fn key(time: u64, rank: usize) -> u64 {
    (time << RANK_BITS) | rank as u64
}

#[inline]
fn time_of(key: u64) -> u64 {
    key >> RANK_BITS
}

/// A deterministic event queue built from FIFO *lanes* plus a heap.
///
/// A simulator schedules most events a fixed delay after "now" (a link latency, a router
/// pipeline, a credit return), so events of one kind arrive already in time order. Each such
/// kind gets a lane, a FIFO where push and pop are O(1) over contiguous memory; an event that
/// would break a lane's order, or that names no lane, goes to a timing wheel when it falls in
/// the near future (`wheel.rs`), else to a binary heap. Wheel and heap keep one order (below);
/// "the heap" in what follows means both.
///
/// **Order.** Events come out in time order. Events at the same time come out by *rank*: first
/// those scheduled with [`schedule`](Self::schedule) (rank 0), then those of lane 0, lane 1, ...
/// (rank lane + 1), whether they sit in their lane or fell back to the heap; within one rank,
/// fallen-back events first, then the lane, each in scheduling order. So a caller can order
/// same-time events by choosing lane numbers, and the order is a deterministic function of the
/// calls made. Comparing one `u64` (time and rank) instead of a global sequence number keeps the
/// per-pop scan over the lane fronts cheap.
pub struct EventQueue<E> {
    /// Always `MAX_LANES` rings (a fixed array: indexing by a masked lane number needs no bound
    /// check); those past `lane_count` stay empty.
    lanes: [Ring<LaneEntry<E>>; MAX_LANES],
    lane_count: usize,
    /// Ordering key of each lane's front, `u64::MAX` when empty: scanning this compact array is
    /// much cheaper than touching every lane's buffer on each pop.
    fronts: [u64; MAX_LANES],
    /// A copy of each lane's front event (a stale value, or `E::default()`, when the lane is
    /// empty): a pop takes the event it returns from here, right after the scan, instead of
    /// through the lane's ring, so the caller's dispatch on it waits on fewer loads.
    front_events: [E; MAX_LANES],
    /// Ordering key of each lane's last event, 0 when the lane is empty (keys are never 0: a
    /// lane's rank is at least 1). A push compares against this instead of reading the lane.
    backs: [u64; MAX_LANES],
    /// Ordering key of the earliest event outside the lanes (in the wheel or the heap),
    /// `u64::MAX` when there is none.
    off_lane_key: u64,
    /// Ordering key of the next event (the least of `fronts` and `off_lane_key`), `u64::MAX`
    /// when the queue is empty: kept up to date by every push and pop, so asking what comes next
    /// (is the instant over? when is the next event?) is one load, not a scan.
    next: u64,
    /// Events outside the lanes: the near future in a timing wheel, the rest in a heap.
    wheel: wheel::Wheel<E>,
    heap: BinaryHeap<HeapEntry<E>>,
    seq: u64,
    /// Test mode: a random tie-break among same-key events (see [`shuffle_ties`](Self::shuffle_ties)).
    shuffle: Option<SplitMix>,
    now: Time,
    /// Ordering key of the event last popped.
    current: u64,
    popped: u64,
}

impl<E: Copy + Default> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy + Default> EventQueue<E> {
    /// A queue with no lanes (everything in the heap).
    pub fn new() -> Self {
        Self::with_lanes(0)
    }

    /// A queue with `lanes` FIFO lanes (at most [`MAX_LANES`]), numbered from 0.
    pub fn with_lanes(lanes: usize) -> Self {
        assert!(lanes <= MAX_LANES, "at most {MAX_LANES} lanes");
        EventQueue {
            lanes: std::array::from_fn(|_| Ring::new()),
            lane_count: lanes,
            fronts: [EMPTY; MAX_LANES],
            front_events: [E::default(); MAX_LANES],
            backs: [0; MAX_LANES],
            off_lane_key: EMPTY,
            next: EMPTY,
            wheel: wheel::Wheel::new(),
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            shuffle: None,
            now: Time::ZERO,
            current: 0,
            popped: 0,
        }
    }

    /// Current simulated time: the time of the last event popped.
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Clamp `at` to now (scheduling in the past is a logic error; debug builds assert) and to
    /// [`MAX_TIME`].
    #[inline]
    fn at(&self, at: Time) -> u64 {
        debug_assert!(at >= self.now, "event scheduled in the past");
        at.0.max(self.now.0).min(MAX_TIME.0)
    }

    /// Schedule `event` at absolute time `at` (in the heap). Scheduling in the past is a logic
    /// error and is clamped to `now` in release builds.
    #[inline]
    pub fn schedule(&mut self, at: Time, event: E) {
        let time = self.at(at);
        self.push_heap(time, 0, event);
    }

    /// Test mode: events with the same ordering key (same time and rank) come out in a random
    /// order drawn from `seed` instead of their scheduling order. Every lane is bypassed (all
    /// events go through the heap and the wheel), so it is slower. A model whose results do not
    /// depend on the order of simultaneous events gives the same results in this mode; tests use
    /// it to check that. Call it before scheduling anything.
    pub fn shuffle_ties(&mut self, seed: u64) {
        assert!(self.is_empty(), "shuffle_ties on a queue that holds events");
        self.shuffle = Some(SplitMix(seed));
        // A lane takes a push only at or after its back's key: none is at or after u64::MAX.
        self.backs = [u64::MAX; MAX_LANES];
    }

    /// Whether same-key events come out in a random order (see [`shuffle_ties`](Self::shuffle_ties)).
    pub fn shuffles_ties(&self) -> bool {
        self.shuffle.is_some()
    }

    #[inline(never)]
    fn push_heap(&mut self, time: u64, rank: usize, event: E) {
        self.seq += 1;
        let k = key(time, rank);
        self.off_lane_key = self.off_lane_key.min(k);
        self.next = self.next.min(k);
        // The tie-break below the key: scheduling order, or in shuffle mode a random draw above
        // the sequence number's low half (which keeps every order distinct, as the wheel needs).
        let tie = match &mut self.shuffle {
            None => self.seq as u128,
            Some(r) => ((r.next() >> 32) << 32 | (self.seq & 0xFFFF_FFFF)) as u128,
        };
        let order = (k as u128) << 64 | tie;
        if let Err(event) = self.wheel.push(self.now.0, order, event) {
            self.heap.push(HeapEntry { order, event });
        }
    }

    /// Order of the heap's top (`u128::MAX`: empty).
    #[inline]
    fn heap_top(&self) -> u128 {
        self.heap.peek().map_or(u128::MAX, |e| e.order)
    }

    /// Schedule `event` at `at` on `lane`; falls back to the heap if that would put the lane out
    /// of time order.
    #[inline(always)]
    pub fn schedule_on(&mut self, lane: usize, at: Time, event: E) {
        let time = self.at(at);
        debug_assert!(lane < self.lane_count, "lane {lane} of a queue with {} lanes", self.lane_count);
        let k = key(time, lane + 1);
        if k >= self.backs[lane] {
            if self.backs[lane] == 0 {
                self.fronts[lane] = k;
                self.front_events[lane] = event;
                self.next = self.next.min(k);
            }
            self.backs[lane] = k;
            self.lanes[lane].push_back(LaneEntry { key: k, event });
        } else {
            self.push_heap(time, lane + 1, event);
        }
    }

    /// Schedule `event` after `delay` from now.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: E) {
        self.schedule(self.now + delay, event);
    }

    /// Where the next event is: `Some(lane)`, or `None` for the heap (or nothing at all).
    ///
    /// The winner is read off the next key: a lane front's low bits are its rank (lane + 1), and
    /// ranks of lane fronts are distinct. The heap wins a tie (its events of a rank come before
    /// the lane's).
    #[inline]
    fn next_source(&self) -> Option<usize> {
        // `next < off_lane_key` also rules out "everything empty" (`off_lane_key` is at most
        // EMPTY), and means a lane front is the least.
        if self.next < self.off_lane_key {
            Some(((self.next & ((1 << RANK_BITS) - 1)) as usize).wrapping_sub(1) & (MAX_LANES - 1))
        } else {
            None
        }
    }

    /// The least of the lane fronts and the off-lane key: a pairwise minimum (a shallow tree the
    /// CPU evaluates in parallel, rather than a chain of dependent compares).
    #[inline(always)]
    fn least_key(&self) -> u64 {
        let f = &self.fronts;
        let m = f[0].min(f[1]).min(f[2].min(f[3])).min(f[4].min(f[5]).min(f[6].min(f[7])));
        m.min(self.off_lane_key)
    }

    /// Ordering key of an event scheduled on `lane` at `time`: events come out in increasing key
    /// order (see the type's docs), so an event compares with the one being processed by key.
    #[inline]
    pub fn lane_key(time: Time, lane: usize) -> u64 {
        key(time.0.min(MAX_TIME.0), lane + 1)
    }

    /// The time of an ordering key.
    #[inline]
    pub fn key_time(key: u64) -> Time {
        Time(time_of(key))
    }

    /// Ordering key of the event being processed (the last one popped): an event with a key at
    /// most this would already have come out.
    #[inline]
    pub fn current_key(&self) -> u64 {
        self.current
    }

    /// Whether an event at the current time is still pending (scheduled events at `now` not
    /// yet popped): a caller that acts once an instant is over asks this after each event.
    #[inline]
    pub fn instant_pending(&self) -> bool {
        time_of(self.next) == self.now.0 && self.next != EMPTY
    }

    /// Make the current ordering key the last one of the current instant, as if an event after
    /// every rank of this time were being processed: a caller acting at the end of an instant
    /// then compares keys (see [`current_key`](Self::current_key)) as that event would. Events
    /// scheduled at the current time afterwards still come out next (they are the least).
    #[inline]
    pub fn end_of_instant(&mut self) {
        self.current = key(self.now.0, (1 << RANK_BITS) - 1);
    }

    /// Time of the next event, if any.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        (self.next != EMPTY).then(|| Time(time_of(self.next)))
    }

    /// The event `k` places behind the front of `lane` (0: its front), if there is one. Lane
    /// events come out in this order, so a caller can prefetch what a coming event will touch
    /// while the current one is handled.
    #[inline]
    pub fn lane_ahead(&self, lane: usize, k: u32) -> Option<&E> {
        self.lanes[lane].get(k).map(|e| &e.event)
    }

    /// The next event outside the lanes (events scheduled without a lane, and lane events that
    /// fell back), if any.
    #[inline]
    pub fn off_lane_front(&self) -> Option<&E> {
        if self.wheel.front() < self.heap_top() {
            self.wheel.peek()
        } else {
            self.heap.peek().map(|e| &e.event)
        }
    }

    /// Remove the next event and advance `now` to its time. Always inlined: it sits in the
    /// caller's event loop, whose dispatch waits on it (out of line it cost 5% of the hop
    /// benchmark, BENCHMARKS.md session 8).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        // `time` holds the popped event's ordering key until its time is taken from it.
        let (time, event) = match self.next_source() {
            Some(l) => {
                let (key, event) = (self.fronts[l], self.front_events[l]);
                let lane = &mut self.lanes[l];
                lane.skip_front();
                match lane.front() {
                    Some(f) => (self.fronts[l], self.front_events[l]) = (f.key, f.event),
                    None => (self.fronts[l], self.backs[l]) = (EMPTY, 0),
                }
                (key, event)
            }
            None => {
                let (order, event) = if self.wheel.front() < self.heap_top() {
                    self.wheel.pop()?
                } else {
                    let e = self.heap.pop()?;
                    (e.order, e.event)
                };
                self.off_lane_key = (self.wheel.front().min(self.heap_top()) >> 64) as u64;
                ((order >> 64) as u64, event)
            }
        };
        self.next = self.least_key();
        self.current = time;
        let time = time_of(time);
        self.now = Time(time);
        self.popped += 1;
        Some((self.now, event))
    }

    /// Pop the next event only if it happens no later than `limit`.
    #[inline]
    pub fn pop_until(&mut self, limit: Time) -> Option<(Time, E)> {
        match self.peek_time() {
            Some(t) if t <= limit => self.pop(),
            _ => None,
        }
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.heap.len() + self.wheel.len() + self.lanes.iter().map(|l| l.len()).sum::<usize>()
    }
    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests;

//! The discrete-event engine: a priority queue of timestamped events with a deterministic
//! tie-break, so a run is a pure function of its inputs and seed.
//!
//! The engine knows nothing about networks: the payload type `E` is the caller's (the network
//! layer uses a small `Copy` enum). A later partitioned parallel engine would keep one queue per
//! partition and exchange cross-partition events at lookahead boundaries (the minimum link
//! latency), which is why events carry only plain data.

use fabricsim_core::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

mod ring;
mod wheel;
use ring::Ring;

/// An event in the heap. `order` packs the ordering key (high 64 bits) and a sequence number
/// (low 64 bits), so one `u128` compare orders by key and keeps equal keys in scheduling order.
struct HeapEntry<E> {
    order: u128,
    event: E,
}

impl<E> PartialEq for HeapEntry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.order == o.order
    }
}
impl<E> Eq for HeapEntry<E> {}
impl<E> PartialOrd for HeapEntry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for HeapEntry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the least order first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.order.cmp(&self.order)
    }
}

/// An event in a lane: lanes are FIFO, so no sequence number is needed. `key` is the ordering
/// key (time and rank), from which the time is recovered.
#[derive(Clone, Copy)]
struct LaneEntry<E> {
    key: u64,
    event: E,
}

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

/// SplitMix64: a tiny seeded generator for the shuffle test mode (no dependency, no global).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffled_ties_keep_time_and_rank_order_but_vary_within_a_key() {
        // 20 events at one time on lane 0 and 20 on lane 1, plus earlier and later ones: the
        // shuffled queue keeps (time, rank) order, and within a key the order depends on the seed.
        let run = |seed: Option<u64>| {
            let mut q = EventQueue::with_lanes(2);
            if let Some(s) = seed {
                q.shuffle_ties(s);
            }
            for i in 0..20 {
                q.schedule_on(1, Time(50), 100 + i);
                q.schedule_on(0, Time(50), i);
            }
            q.schedule(Time(50), 999);
            q.schedule_on(1, Time(10), 500);
            q.schedule_on(0, Time(90), 600);
            std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect::<Vec<_>>()
        };
        let fixed = run(None);
        for seed in [1, 2] {
            let got = run(Some(seed));
            assert_eq!(got.len(), fixed.len());
            assert_eq!((got[0], got[1], got[42]), ((10, 500), (50, 999), (90, 600)));
            let lane0: Vec<_> = got[2..22].iter().map(|e| e.1).collect();
            let lane1: Vec<_> = got[22..42].iter().map(|e| e.1).collect();
            let (mut s0, mut s1) = (lane0.clone(), lane1.clone());
            s0.sort();
            s1.sort();
            assert_eq!((s0, s1), ((0..20).collect::<Vec<_>>(), (100..120).collect::<Vec<_>>()));
            assert_ne!(lane0, (0..20).collect::<Vec<_>>(), "seed {seed} left lane 0's ties in order");
        }
        assert_ne!(run(Some(1)), run(Some(2)));
        assert_eq!(run(Some(3)), run(Some(3)));
    }

    #[test]
    fn instant_pending_tells_whether_the_current_time_has_more_events() {
        let mut q = EventQueue::with_lanes(1);
        q.schedule_on(0, Time(5), 'a');
        q.schedule(Time(5), 'b');
        q.schedule(Time(7), 'c');
        assert_eq!(q.pop(), Some((Time(5), 'b')));
        assert!(q.instant_pending());
        assert_eq!(q.pop(), Some((Time(5), 'a')));
        assert!(!q.instant_pending());
        q.end_of_instant();
        q.schedule_on(0, Time(5), 'd');
        assert!(q.instant_pending(), "an event scheduled at now after the instant's end");
        assert_eq!(q.pop(), Some((Time(5), 'd')));
        assert_eq!(q.pop(), Some((Time(7), 'c')));
        assert!(!q.instant_pending());
    }

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
    fn lane_ahead_and_off_lane_front_show_what_comes_next() {
        let mut q = EventQueue::with_lanes(2);
        for (t, e) in [(10, 'a'), (20, 'b'), (30, 'c')] {
            q.schedule_on(1, Time(t), e);
        }
        // Out of the lane's order: falls back to the heap, behind the earlier heap event.
        q.schedule_on(1, Time(15), 'x');
        q.schedule(Time(12), 'h');
        let ahead = |q: &EventQueue<char>| (0..4).map(|k| q.lane_ahead(1, k).copied()).collect::<Vec<_>>();
        assert_eq!(ahead(&q), vec![Some('a'), Some('b'), Some('c'), None]);
        assert_eq!(q.lane_ahead(0, 0), None);
        assert_eq!(q.off_lane_front(), Some(&'h'));
        assert_eq!(q.pop(), Some((Time(10), 'a')));
        assert_eq!(ahead(&q), vec![Some('b'), Some('c'), None, None]);
        assert_eq!(q.pop(), Some((Time(12), 'h')));
        assert_eq!(q.off_lane_front(), Some(&'x'));
        let rest: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(rest, vec!['x', 'b', 'c']);
        assert_eq!((q.off_lane_front(), q.lane_ahead(1, 0)), (None, None));
    }

    #[test]
    fn a_lane_emptied_and_refilled_gives_its_new_events() {
        // Pops take a lane's front from a copy kept beside the lane keys; the copy of an emptied
        // lane is stale until the lane is pushed to again.
        let mut q = EventQueue::with_lanes(2);
        q.schedule_on(0, Time(1), 'a');
        q.schedule_on(1, Time(2), 'b');
        q.schedule_on(1, Time(3), 'c');
        assert_eq!(q.pop(), Some((Time(1), 'a')));
        q.schedule_on(0, Time(2), 'd');
        q.schedule_on(0, Time(4), 'e');
        let rest: Vec<(u64, char)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
        assert_eq!(rest, vec![(2, 'd'), (2, 'b'), (3, 'c'), (4, 'e')]);
        q.schedule_on(1, Time(9), 'f');
        assert_eq!(q.pop(), Some((Time(9), 'f')));
        assert_eq!(q.pop(), None);
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
    fn same_time_events_come_heap_first_then_by_lane() {
        let mut q = EventQueue::with_lanes(3);
        q.schedule_on(2, Time(7), "lane2");
        q.schedule_on(0, Time(7), "lane0-a");
        q.schedule(Time(7), "heap-a");
        q.schedule_on(1, Time(7), "lane1");
        q.schedule_on(0, Time(7), "lane0-b");
        q.schedule(Time(7), "heap-b");
        q.schedule_on(1, Time(3), "early");
        q.schedule_on(2, Time(5), "lane2-late");
        q.schedule_on(2, Time(7), "lane2-again");
        let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        // "early" would break lane 1's order and "lane2-late" lane 2's, so both went to the heap;
        // they still come out by time, and a fallen-back event keeps its lane's rank.
        assert_eq!(order, vec!["early", "lane2-late", "heap-a", "heap-b", "lane0-a", "lane0-b", "lane1", "lane2", "lane2-again"]);
    }

    /// A slow reference: the same lanes-or-heap placement rule, and a pop that searches every
    /// pending event for the least (time, source rank, scheduling order).
    #[derive(Default)]
    struct Reference {
        lanes: Vec<Vec<(u64, usize)>>,
        /// (time, rank, seq, event)
        heap: Vec<(u64, usize, usize, usize)>,
        next: usize,
    }

    impl Reference {
        fn schedule_on(&mut self, lane: Option<usize>, t: u64, ev: usize) {
            self.next += 1;
            match lane {
                Some(l) if self.lanes[l].last().is_none_or(|&(b, _)| b <= t) => self.lanes[l].push((t, ev)),
                Some(l) => self.heap.push((t, l + 1, self.next, ev)),
                None => self.heap.push((t, 0, self.next, ev)),
            }
        }
        fn pop(&mut self) -> Option<(u64, usize)> {
            // (time, rank, source, seq): source 0 = heap, 1 = lane; the least wins.
            let heap = self.heap.iter().enumerate().map(|(i, &(t, rank, seq, _))| ((t, rank, 0, seq), i));
            let lanes = self.lanes.iter().enumerate().filter_map(|(l, lane)| lane.first().map(|&(t, _)| ((t, l + 1, 1, 0), l)));
            let ((_, _, source, _), at) = heap.chain(lanes).min_by_key(|&(k, _)| k)?;
            Some(if source == 0 {
                let (t, _, _, ev) = self.heap.remove(at);
                (t, ev)
            } else {
                self.lanes[at].remove(0)
            })
        }
    }

    #[test]
    fn far_future_and_interleaved_scheduling_match_the_reference() {
        // Far-apart times, lane order violations, and new events scheduled while draining.
        let mut q = EventQueue::with_lanes(2);
        let mut r = Reference { lanes: vec![Vec::new(); 2], ..Default::default() };
        for (i, t) in [5u64, 1 << 30, 300, 70_000, 1 << 40, 300, 2].into_iter().enumerate() {
            q.schedule_on(i % 2, Time(t), i);
            r.schedule_on(Some(i % 2), t, i);
        }
        let mut extra = 100;
        loop {
            let got = q.pop().map(|(t, e)| (t.0, e));
            assert_eq!(got, r.pop());
            let Some((t, _)) = got else { break };
            if extra < 110 {
                let at = t + 1000 * (extra as u64 % 3);
                q.schedule_on(extra % 2, Time(at), extra);
                r.schedule_on(Some(extra % 2), at, extra);
                extra += 1;
            }
        }
        assert!(q.is_empty());
    }

    #[test]
    fn many_pending_timers_come_out_in_order() {
        // One timer per "node" for 50,000 nodes, each re-armed a pseudo-random interval ahead
        // when it fires (like open-loop traffic on a large machine): the wheel grows finer and
        // shares the events with the heap; the order must stay (time, scheduling order).
        use std::collections::BTreeSet;
        let mut q = EventQueue::new();
        let mut want = BTreeSet::new();
        let mut seq = 0u64;
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |range: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % range
        };
        for node in 0..50_000u64 {
            let t = next(400_000);
            q.schedule(Time(t), node);
            want.insert((t, seq, node));
            seq += 1;
        }
        for _ in 0..200_000 {
            let (t, node) = q.pop().unwrap();
            let first = want.pop_first().unwrap();
            assert_eq!((t.0, node), (first.0, first.2));
            let at = t.0 + 1 + next(400_000);
            q.schedule(Time(at), node);
            want.insert((at, seq, node));
            seq += 1;
        }
        assert!(q.wheel.heads.len() > wheel::BUCKETS, "the wheel grew: {} buckets", q.wheel.heads.len());
        while let Some((t, node)) = q.pop() {
            let first = want.pop_first().unwrap();
            assert_eq!((t.0, node), (first.0, first.2));
        }
        assert!(want.is_empty());
    }

    proptest::proptest! {
        #[test]
        fn pops_like_the_reference(
            ops in proptest::collection::vec((0u64..2_000, 0usize..4, proptest::bool::ANY), 0..300),
            spread in proptest::sample::select(vec![1u64, 1_500, 3_000]),
        ) {
            // Times are offsets from now, many of them equal; a quarter of the events name no
            // lane; a pop follows some pushes, so lanes drain and refill. `spread` 1 crowds the
            // timing wheel's buckets (the rest goes to the heap); 1,500 and 3,000 spread events
            // over about one and two turns of the wheel (beyond it: the heap).
            let mut q = EventQueue::with_lanes(3);
            let mut r = Reference { lanes: vec![Vec::new(); 3], ..Default::default() };
            for (i, &(dt, lane, pop)) in ops.iter().enumerate() {
                let t = q.now().0 + dt / 100 * 100 * spread;
                match lane {
                    3 => q.schedule(Time(t), i),
                    l => q.schedule_on(l, Time(t), i),
                }
                r.schedule_on((lane < 3).then_some(lane), t, i);
                if pop {
                    proptest::prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), r.pop());
                }
            }
            loop {
                // What comes next, asked without popping, agrees with what the pop gives.
                let (ahead, pending, before) = (q.peek_time(), q.instant_pending(), q.now());
                let got = q.pop().map(|(t, e)| (t.0, e));
                proptest::prop_assert_eq!(ahead.map(|t| t.0), got.map(|g| g.0));
                proptest::prop_assert_eq!(pending, got.is_some_and(|g| g.0 == before.0));
                proptest::prop_assert_eq!(got, r.pop());
                if got.is_none() {
                    break;
                }
            }
        }
    }
}

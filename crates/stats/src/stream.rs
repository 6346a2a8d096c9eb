//! A streaming per-port series: the same intervals as [`crate::PortSeries`], handed to a sink
//! as soon as no later event can change them, so memory holds only the few intervals that
//! transmissions in progress still overlap, whatever the run's length.
//!
//! Hops are reported when they start ([`Observer::on_hop`] is called at the simulated time
//! `start`, which never goes back), so once a hop starts in interval `i`, every interval
//! before `i` is final.
//!
//! The intervals held live in one flat ring of `slots x ports` counts (slots a power of two,
//! doubled when a long hop needs more), a port's busy time beside its packets. A hop that starts
//! and ends inside the interval of the latest start, most of them, is counted with two
//! comparisons and two additions: no division, no bookkeeping.

use crate::Observer;
use fabricsim_core::{PortId, Time};
use std::cell::RefCell;

/// One port's counts in one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortCount {
    /// Busy picoseconds (at most the interval, which fits 32 bits).
    pub busy_ps: u32,
    /// Packets whose transmission started in the interval.
    pub packets: u32,
}

/// Where finished intervals go, in order from interval 0, none skipped.
pub trait SeriesSink {
    /// Interval `i` is final: each port's counts in it, by global port id.
    fn interval(&mut self, i: usize, counts: &[PortCount]);
    /// Why the sink cannot take more intervals (a write failed), if so: the run watching
    /// the series stops (see [`Observer::failed`]).
    fn failed(&self) -> Option<String> {
        None
    }
}

#[derive(Debug)]
struct Inner<S> {
    interval_ps: u64,
    ports: usize,
    /// The intervals held: interval `i`'s counts are `cells[slot(i) * ports..][..ports]`.
    /// Slots of intervals not held are all zero.
    cells: Vec<PortCount>,
    /// Slots in the ring: 0 before the first hop, then a power of two.
    slots: usize,
    /// The first interval held, and how many are held from it.
    base: usize,
    held: usize,
    /// The end, ps, of the interval the latest hop started in, and where its counts start in
    /// `cells` (0 before the first hop, and once the series is cut short, so every hop then
    /// takes the general path).
    cur_end_ps: u64,
    cur_at: usize,
    /// Most intervals held at once (for tests and the docs' memory claim).
    peak_held: usize,
    /// Intervals written at most, and whether the run went on past them.
    max_intervals: usize,
    /// Bytes the ring may take at most.
    max_bytes: usize,
    truncated: bool,
    sink: S,
}

/// A per-port series that streams its finished intervals to `S` (see the module docs).
#[derive(Debug)]
pub struct StreamSeries<S: SeriesSink> {
    inner: RefCell<Inner<S>>,
}

impl<S: SeriesSink> StreamSeries<S> {
    /// A series of `ports` output ports at `interval` (positive, at most 4 ms) into `sink`.
    pub fn new(ports: usize, interval: Time, sink: S) -> Result<Self, String> {
        if interval.ps() == 0 || interval.ps() > u32::MAX as u64 {
            return Err(format!("{interval} must be positive and at most 4ms"));
        }
        let inner = Inner {
            interval_ps: interval.ps(),
            ports,
            cells: Vec::new(),
            slots: 0,
            base: 0,
            held: 0,
            cur_end_ps: 0,
            cur_at: 0,
            peak_held: 0,
            max_intervals: usize::MAX,
            max_bytes: usize::MAX,
            truncated: false,
            sink,
        };
        Ok(StreamSeries { inner: RefCell::new(inner) })
    }

    /// Write at most `n` intervals (at least one), as [`crate::PortSeries::with_max_intervals`]
    /// keeps at most `n`: a bound on the file when the run's end is not known in advance.
    pub fn with_max_intervals(self, n: usize) -> Self {
        self.inner.borrow_mut().max_intervals = n.max(1);
        self
    }

    /// Let the ring take at most `bytes` (at least one interval's counts): a hop spanning more
    /// intervals than that holds cuts the series short there, as a full memory cuts
    /// [`crate::PortSeries`] short.
    pub fn with_max_bytes(self, bytes: usize) -> Self {
        self.inner.borrow_mut().max_bytes = bytes;
        self
    }

    /// Whether the run went on past the last interval written.
    pub fn truncated(&self) -> bool {
        self.inner.borrow().truncated
    }

    /// Hand every interval still held to the sink (at the end of the run; intervals after the
    /// last one reached are not written, as in [`crate::PortSeries`]).
    pub fn finish(&self) {
        let mut s = self.inner.borrow_mut();
        let upto = s.base + s.held;
        s.flush_before(upto);
        s.cur_end_ps = 0;
    }

    /// Intervals handed to the sink so far plus those held.
    pub fn intervals(&self) -> usize {
        let s = self.inner.borrow();
        s.base + s.held
    }

    /// The most intervals held at once.
    pub fn peak_held(&self) -> usize {
        self.inner.borrow().peak_held
    }

    /// Run `f` on the sink (after [`StreamSeries::finish`], to close it).
    pub fn with_sink<T>(&self, f: impl FnOnce(&mut S) -> T) -> T {
        f(&mut self.inner.borrow_mut().sink)
    }
}

impl<S: SeriesSink> Inner<S> {
    /// Where interval `i`'s counts start in `cells` (`i` held).
    fn at(&self, i: usize) -> usize {
        (i & (self.slots - 1)) * self.ports
    }

    /// Pass on every interval before `i`: those held, then zeros for those never reached.
    fn flush_before(&mut self, i: usize) {
        while self.base < i {
            if self.held == 0 {
                // Every slot is zero: each interval left before `i` was reached empty.
                let zeros = if self.slots == 0 { vec![PortCount::default(); self.ports] } else { Vec::new() };
                let counts = if self.slots == 0 { &zeros[..] } else { &self.cells[..self.ports] };
                while self.base < i {
                    self.sink.interval(self.base, counts);
                    self.base += 1;
                }
                return;
            }
            let at = self.at(self.base);
            let counts = &mut self.cells[at..at + self.ports];
            self.sink.interval(self.base, counts);
            counts.fill(PortCount::default());
            self.held -= 1;
            self.base += 1;
        }
    }

    /// Hold every interval up to `i` (from `base`), doubling the ring when it is too small;
    /// false, and the series cut short, when `i` is past the last interval it may write or the
    /// ring may not grow that far.
    fn hold(&mut self, i: usize) -> bool {
        let need = i + 1 - self.base;
        if need <= self.held {
            return true;
        }
        if need > self.slots && i < self.max_intervals {
            let slots = need.next_power_of_two();
            if self.slots > 0 && slots.saturating_mul(self.ports * std::mem::size_of::<PortCount>()) > self.max_bytes {
                self.max_intervals = self.base + self.slots;
            } else {
                let mut cells = vec![PortCount::default(); slots * self.ports];
                for j in self.base..self.base + self.held {
                    let (from, to) = (self.at(j), (j & (slots - 1)) * self.ports);
                    cells[to..to + self.ports].copy_from_slice(&self.cells[from..from + self.ports]);
                }
                (self.cells, self.slots) = (cells, slots);
            }
        }
        if i >= self.max_intervals {
            self.truncated = true;
            return false;
        }
        self.held = need;
        self.peak_held = self.peak_held.max(need);
        true
    }

    /// Count a hop that does not lie inside the interval of the latest start: it starts a
    /// later interval, spans several, or the series was cut short.
    #[cold]
    #[inline(never)]
    fn count_across(&mut self, p: usize, start: u64, end: u64) {
        let w = self.interval_ps;
        let first = (start / w) as usize;
        if first >= self.max_intervals {
            self.truncated = true;
            self.cur_end_ps = 0;
            return;
        }
        // Every interval before this one is final.
        self.flush_before(first);
        if !self.hold(first) {
            self.cur_end_ps = 0;
            return;
        }
        let at = self.at(first);
        self.cells[at + p].packets += 1;
        let mut t = start;
        while t < end {
            let i = (t / w) as usize;
            if !self.hold(i) {
                break;
            }
            let until = ((i as u64 + 1) * w).min(end);
            let at = self.at(i);
            self.cells[at + p].busy_ps += (until - t) as u32;
            t = until;
        }
        (self.cur_end_ps, self.cur_at) = ((first as u64 + 1) * w, self.at(first));
    }
}

impl<S: SeriesSink> Observer for StreamSeries<S> {
    #[inline]
    fn on_hop(&mut self, port: PortId, start: Time, end: Time, _bytes: u32) {
        let s = self.inner.get_mut();
        let (start, end) = (start.ps(), end.ps());
        // Starts never go back, so a hop starting before the end of the latest start's
        // interval starts in it.
        if start < s.cur_end_ps && end <= s.cur_end_ps {
            let c = &mut s.cells[s.cur_at + port.index()];
            c.busy_ps += (end - start) as u32;
            c.packets += 1;
            return;
        }
        s.count_across(port.index(), start, end);
    }

    fn failed(&self) -> Option<String> {
        self.inner.borrow().sink.failed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PortSeries;

    #[derive(Default)]
    struct Keep(Vec<(usize, Vec<PortCount>)>);
    impl SeriesSink for Keep {
        fn interval(&mut self, i: usize, counts: &[PortCount]) {
            self.0.push((i, counts.to_vec()));
        }
    }

    /// Feed the same hops to the in-memory series and a stream; the stream's intervals.
    fn both(ports: usize, w: u64, max: usize, hops: &[(u32, u64, u64)]) -> (PortSeries, StreamSeries<Keep>) {
        let mut a = PortSeries::new(ports, Time(w)).unwrap().with_max_intervals(max);
        let mut b = StreamSeries::new(ports, Time(w), Keep::default()).unwrap().with_max_intervals(max);
        for &(p, s, e) in hops {
            a.on_hop(PortId(p), Time(s), Time(e), 64);
            b.on_hop(PortId(p), Time(s), Time(e), 64);
        }
        b.finish();
        (a, b)
    }

    fn assert_same(a: &PortSeries, b: &StreamSeries<Keep>, ports: usize) {
        assert_eq!((b.intervals(), b.truncated()), (a.intervals(), a.truncated()));
        let got = b.with_sink(|k| std::mem::take(&mut k.0));
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), (0..a.intervals()).collect::<Vec<_>>());
        for (i, counts) in &got {
            for (p, c) in counts.iter().enumerate().take(ports) {
                assert_eq!((c.busy_ps as u64, c.packets), (a.busy_ps(*i, p), a.packets(*i, p)), "interval {i} port {p}");
            }
        }
    }

    #[test]
    fn it_streams_what_the_in_memory_series_holds_keeping_few_intervals() {
        // Hops in time order of their start, some spanning intervals, with a gap of empty ones.
        let hops = [(1, 50, 320), (2, 100, 200), (1, 320, 330), (0, 330, 900), (2, 1500, 1510), (1, 1505, 1700)];
        let (a, b) = both(3, 100, usize::MAX, &hops);
        assert!(b.peak_held() <= 7, "held {} intervals: a hop of 570 ps spans 7", b.peak_held());
        assert_same(&a, &b, 3);
        // Bounded as the in-memory series is: the same intervals kept, the same flag.
        let (a, b) = both(1, 100, 2, &[(0, 150, 190), (0, 190, 260), (0, 900, 950)]);
        assert!(b.truncated());
        assert_same(&a, &b, 1);
    }

    #[test]
    fn random_hops_give_the_in_memory_series_through_ring_growth_gaps_and_cuts() {
        // A small xorshift: hops with non-decreasing starts, lengths from a few ps to many
        // intervals (the ring doubles), idle gaps, and a cut in some cases.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for case in 0..200 {
            let (ports, w) = (1 + next(5) as usize, 10 + next(200));
            let max = if case % 4 == 0 { 1 + next(30) as usize } else { usize::MAX };
            let mut t = 0;
            let hops: Vec<(u32, u64, u64)> = (0..next(60))
                .map(|_| {
                    t += if next(10) == 0 { next(20 * w) } else { next(w / 2) };
                    let len = if next(8) == 0 { next(12 * w) } else { 1 + next(w) };
                    (next(ports as u64) as u32, t, t + len)
                })
                .collect();
            let (a, b) = both(ports, w, max, &hops);
            assert_same(&a, &b, ports);
        }
    }

    #[test]
    fn a_ring_that_may_not_grow_cuts_the_series_where_memory_ends() {
        // Two ports, 8 bytes each a slot: 32 bytes hold two slots, so a hop over four intervals
        // is cut after the second, and later hops only mark the series cut short.
        let mut b = StreamSeries::new(2, Time(100), Keep::default()).unwrap().with_max_bytes(32);
        b.on_hop(PortId(0), Time(50), Time(120), 64);
        b.on_hop(PortId(1), Time(150), Time(550), 64);
        b.on_hop(PortId(0), Time(600), Time(610), 64);
        b.finish();
        assert!(b.truncated());
        assert_eq!(b.peak_held(), 2);
        let got = b.with_sink(|k| std::mem::take(&mut k.0));
        let busy: Vec<Vec<u32>> = got.iter().map(|(_, c)| c.iter().map(|c| c.busy_ps).collect()).collect();
        assert_eq!(busy, vec![vec![50, 0], vec![20, 50], vec![0, 100]]);
    }
}

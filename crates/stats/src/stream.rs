//! A streaming per-port series: the same intervals as [`crate::PortSeries`], handed to a sink
//! as soon as no later event can change them, so memory holds only the few intervals that
//! transmissions in progress still overlap, whatever the run's length.
//!
//! Hops are reported when they start ([`Observer::on_hop`] is called at the simulated time
//! `start`), so once a hop starts in interval `i`, every interval before `i` is final.

use crate::Observer;
use fabricsim_core::{PortId, Time};
use std::cell::RefCell;
use std::collections::VecDeque;

/// Where finished intervals go, in order from interval 0, none skipped.
pub trait SeriesSink {
    /// Interval `i` is final: each port's busy picoseconds and packets started in it.
    fn interval(&mut self, i: usize, busy_ps: &[u32], packets: &[u32]);
}

#[derive(Debug)]
struct Inner<S> {
    /// The first interval still held.
    base: usize,
    busy: VecDeque<Vec<u32>>,
    packets: VecDeque<Vec<u32>>,
    /// Most intervals held at once (for tests and the docs' memory claim).
    peak_held: usize,
    /// Intervals written at most, and whether the run went on past them.
    max_intervals: usize,
    truncated: bool,
    sink: S,
}

/// A per-port series that streams its finished intervals to `S` (see the module docs).
#[derive(Debug)]
pub struct StreamSeries<S: SeriesSink> {
    interval_ps: u64,
    ports: usize,
    inner: RefCell<Inner<S>>,
}

impl<S: SeriesSink> StreamSeries<S> {
    /// A series of `ports` output ports at `interval` (positive, at most 4 ms) into `sink`.
    pub fn new(ports: usize, interval: Time, sink: S) -> Result<Self, String> {
        if interval.ps() == 0 || interval.ps() > u32::MAX as u64 {
            return Err(format!("{interval} must be positive and at most 4ms"));
        }
        let inner =
            Inner { base: 0, busy: VecDeque::new(), packets: VecDeque::new(), peak_held: 0, max_intervals: usize::MAX, truncated: false, sink };
        Ok(StreamSeries { interval_ps: interval.ps(), ports, inner: RefCell::new(inner) })
    }

    /// Write at most `n` intervals (at least one), as [`crate::PortSeries::with_max_intervals`]
    /// keeps at most `n`: a bound on the file when the run's end is not known in advance.
    pub fn with_max_intervals(self, n: usize) -> Self {
        self.inner.borrow_mut().max_intervals = n.max(1);
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
        let upto = s.base + s.busy.len();
        s.flush_before(upto);
    }

    /// Intervals handed to the sink so far plus those held.
    pub fn intervals(&self) -> usize {
        let s = self.inner.borrow();
        s.base + s.busy.len()
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
    /// Pass on every interval before `i`, zeros for those never reached in between.
    fn flush_before(&mut self, i: usize) {
        while self.base < i {
            match (self.busy.pop_front(), self.packets.pop_front()) {
                (Some(b), Some(p)) => self.sink.interval(self.base, &b, &p),
                _ => return,
            }
            self.base += 1;
        }
    }

    fn grow(&mut self, i: usize, ports: usize) {
        while self.base + self.busy.len() <= i {
            self.busy.push_back(vec![0; ports]);
            self.packets.push_back(vec![0; ports]);
        }
        self.peak_held = self.peak_held.max(self.busy.len());
    }
}

impl<S: SeriesSink> Observer for StreamSeries<S> {
    fn on_hop(&mut self, port: PortId, start: Time, end: Time, _bytes: u32) {
        let (p, w, ports) = (port.index(), self.interval_ps, self.ports);
        let s = self.inner.get_mut();
        let first = (start.ps() / w) as usize;
        // Most hops lie inside one interval already held: counted in place. (Intervals before
        // it that are final are handed on by the next hop that needs a new interval, so the
        // intervals held stay those that transmissions in progress span.)
        let at = first.wrapping_sub(s.base);
        if at < s.busy.len() && end.ps() <= (first as u64 + 1) * w {
            s.packets[at][p] += 1;
            s.busy[at][p] += (end.ps() - start.ps()) as u32;
            return;
        }
        if first >= s.max_intervals {
            s.truncated = true;
            return;
        }
        // Every interval before this one is final; those between the last held and this one
        // were reached empty.
        s.flush_before(first);
        if s.base < first {
            let zeros = vec![0; ports];
            while s.base < first {
                s.sink.interval(s.base, &zeros, &zeros);
                s.base += 1;
            }
        }
        s.grow(first, ports);
        s.packets[first - s.base][p] += 1;
        let mut t = start.ps();
        while t < end.ps() {
            let i = (t / w) as usize;
            if i >= s.max_intervals {
                s.truncated = true;
                break;
            }
            let until = ((i as u64 + 1) * w).min(end.ps());
            s.grow(i, ports);
            let at = i - s.base;
            s.busy[at][p] += (until - t) as u32;
            t = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PortSeries;

    #[derive(Default)]
    struct Keep(Vec<(usize, Vec<u32>, Vec<u32>)>);
    impl SeriesSink for Keep {
        fn interval(&mut self, i: usize, busy: &[u32], packets: &[u32]) {
            self.0.push((i, busy.to_vec(), packets.to_vec()));
        }
    }

    #[test]
    fn it_streams_what_the_in_memory_series_holds_keeping_few_intervals() {
        let mut a = PortSeries::new(3, Time(100)).unwrap();
        let mut b = StreamSeries::new(3, Time(100), Keep::default()).unwrap();
        // Hops in time order of their start, some spanning intervals, with a gap of empty ones.
        let hops = [(1, 50, 320), (2, 100, 200), (1, 320, 330), (0, 330, 900), (2, 1500, 1510), (1, 1505, 1700)];
        for (p, s, e) in hops {
            a.on_hop(PortId(p), Time(s), Time(e), 64);
            b.on_hop(PortId(p), Time(s), Time(e), 64);
        }
        b.finish();
        assert_eq!(b.intervals(), a.intervals());
        let got = b.with_sink(|k| std::mem::take(&mut k.0));
        assert_eq!(got.len(), a.intervals());
        for (i, busy, packets) in &got {
            for p in 0..3 {
                assert_eq!((busy[p] as u64, packets[p]), (a.busy_ps(*i, p), a.packets(*i, p)), "interval {i} port {p}");
            }
        }
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), (0..a.intervals()).collect::<Vec<_>>());
        assert!(b.peak_held() <= 7, "held {} intervals: a hop of 570 ps spans 7", b.peak_held());
        // Bounded as the in-memory series is: the same intervals kept, the same flag.
        let mut a = PortSeries::new(1, Time(100)).unwrap().with_max_intervals(2);
        let mut b = StreamSeries::new(1, Time(100), Keep::default()).unwrap().with_max_intervals(2);
        for (s, e) in [(150, 190), (190, 260), (900, 950)] {
            a.on_hop(PortId(0), Time(s), Time(e), 64);
            b.on_hop(PortId(0), Time(s), Time(e), 64);
        }
        b.finish();
        assert_eq!((b.intervals(), b.truncated()), (a.intervals(), a.truncated()));
        let got = b.with_sink(|k| std::mem::take(&mut k.0));
        assert_eq!(got.iter().map(|g| g.1[0] as u64).collect::<Vec<_>>(), vec![a.busy_ps(0, 0), a.busy_ps(1, 0)]);
    }
}

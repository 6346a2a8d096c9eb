//! A sampling observer: per-port busy time and packets in fixed intervals of simulated time.
//!
//! Each output's busy interval (from [`Observer::on_hop`]) is split over the intervals it
//! overlaps, so a port's busy time in an interval is exact, not sampled; packets count in the
//! interval where their transmission starts. Memory: two 32-bit counters per port for each
//! interval the run reaches.

use crate::Observer;
use fabricsim_core::{PortId, Time};

/// Per-port utilisation and packet counts in intervals of `interval` (see the module docs).
#[derive(Debug, Clone)]
pub struct PortSeries {
    interval_ps: u64,
    ports: usize,
    /// Per interval: busy picoseconds of each port (at most `interval_ps`, which fits 32 bits).
    busy: Vec<Vec<u32>>,
    /// Per interval: packets each port started sending.
    packets: Vec<Vec<u32>>,
    /// Intervals kept at most; what happens after the last is not recorded.
    max_intervals: usize,
    /// Whether the run went on past the last interval kept.
    truncated: bool,
}

/// One (interval, port) sample.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Sample {
    /// Start of the interval, ns.
    pub t_ns: f64,
    /// Global port id.
    pub port: u32,
    /// Busy fraction of the interval.
    pub utilization: f64,
    /// Packets the port started sending in the interval.
    pub packets: u32,
}

impl PortSeries {
    /// A series for `ports` output ports at `interval` (positive, at most 4 ms: a port's busy
    /// picoseconds in one interval are kept in 32 bits).
    pub fn new(ports: usize, interval: Time) -> Result<Self, String> {
        if interval.ps() == 0 || interval.ps() > u32::MAX as u64 {
            return Err(format!("{interval} must be positive and at most 4ms"));
        }
        Ok(PortSeries { interval_ps: interval.ps(), ports, busy: Vec::new(), packets: Vec::new(), max_intervals: usize::MAX, truncated: false })
    }

    /// Keep at most `n` intervals (at least one): a bound on the series' memory when the end of
    /// the run is not known in advance. [`PortSeries::truncated`] says whether the run went on.
    pub fn with_max_intervals(mut self, n: usize) -> Self {
        self.max_intervals = n.max(1);
        self
    }

    /// Whether the run went on past the last interval kept (see [`PortSeries::with_max_intervals`]).
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// Length of each interval.
    pub fn interval(&self) -> Time {
        Time(self.interval_ps)
    }

    /// Intervals the run reached.
    pub fn intervals(&self) -> usize {
        self.busy.len()
    }

    /// Busy picoseconds of `port` in interval `i`.
    pub fn busy_ps(&self, i: usize, port: usize) -> u64 {
        self.busy.get(i).map_or(0, |b| b[port] as u64)
    }

    /// Packets `port` started sending in interval `i`.
    pub fn packets(&self, i: usize, port: usize) -> u32 {
        self.packets.get(i).map_or(0, |b| b[port])
    }

    /// Every (interval, port) sample with `keep(port)`, in time then port order.
    pub fn samples(&self, keep: impl Fn(u32) -> bool) -> Vec<Sample> {
        let mut out = Vec::new();
        for i in 0..self.intervals() {
            for p in (0..self.ports as u32).filter(|&p| keep(p)) {
                let busy = self.busy_ps(i, p as usize);
                out.push(Sample {
                    t_ns: (i as u64 * self.interval_ps) as f64 / 1e3,
                    port: p,
                    utilization: busy as f64 / self.interval_ps as f64,
                    packets: self.packets(i, p as usize),
                });
            }
        }
        out
    }

    fn grow(&mut self, i: usize) {
        while self.busy.len() <= i {
            self.busy.push(vec![0; self.ports]);
            self.packets.push(vec![0; self.ports]);
        }
    }
}

impl Observer for PortSeries {
    fn on_hop(&mut self, port: PortId, start: Time, end: Time, _bytes: u32) {
        let (p, w) = (port.index(), self.interval_ps);
        let first = (start.ps() / w) as usize;
        if first >= self.max_intervals {
            self.truncated = true;
            return;
        }
        self.grow(first);
        self.packets[first][p] += 1;
        let mut t = start.ps();
        while t < end.ps() {
            let i = (t / w) as usize;
            if i >= self.max_intervals {
                self.truncated = true;
                break;
            }
            let until = ((i as u64 + 1) * w).min(end.ps());
            self.grow(i);
            self.busy[i][p] += (until - t) as u32;
            t = until;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_time_is_split_exactly_over_the_intervals() {
        let mut s = PortSeries::new(3, Time(100)).unwrap();
        s.on_hop(PortId(1), Time(50), Time(320), 64); // 50 + 100 + 100 + 20
        s.on_hop(PortId(2), Time(100), Time(200), 64);
        s.on_hop(PortId(1), Time(320), Time(330), 64);
        assert_eq!(s.intervals(), 4);
        assert_eq!((0..4).map(|i| s.busy_ps(i, 1)).collect::<Vec<_>>(), vec![50, 100, 100, 30]);
        assert_eq!((0..4).map(|i| s.busy_ps(i, 2)).collect::<Vec<_>>(), vec![0, 100, 0, 0]);
        assert_eq!((s.packets(0, 1), s.packets(3, 1), s.packets(1, 2)), (1, 1, 1));
        let rows = s.samples(|p| p == 1);
        assert_eq!(rows.len(), 4);
        assert_eq!((rows[3].t_ns, rows[3].utilization), (0.3, 0.3));
        assert!(PortSeries::new(1, Time(0)).is_err());
        // Bounded: intervals past the last kept are not recorded, and that is said.
        let mut s = PortSeries::new(1, Time(100)).unwrap().with_max_intervals(2);
        s.on_hop(PortId(0), Time(150), Time(190), 64);
        assert!(!s.truncated());
        s.on_hop(PortId(0), Time(190), Time(260), 64);
        assert_eq!((s.intervals(), s.busy_ps(1, 0), s.truncated()), (2, 50, true));
        s.on_hop(PortId(0), Time(900), Time(950), 64);
        assert_eq!(s.intervals(), 2);
    }
}

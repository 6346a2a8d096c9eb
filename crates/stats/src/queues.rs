//! Queue-length time integrals per output port and VC, the counters Blue Gene/Q keeps beside its
//! packet counts: from them come a queue's mean occupancy over a window and, by Little's law, the
//! mean time a packet waited in it.
//!
//! **Which queue.** A packet is in the queue of output `port`, VC `vc`, from the moment its head
//! has passed the router's pipeline (it could leave if the output, its VC's credit and the packets
//! ahead of it allowed) until the output grants it. It sits in one of the router's input buffers
//! meanwhile: this is the output's virtual output queue, what hardware counts when it adds the
//! occupancy of a queue to a register every cycle.
//!
//! **How it is counted.** Hardware adds the occupancy every cycle; an event simulation gets the
//! same integral exactly by adding each packet's stay, clipped to the measurement window, when the
//! packet leaves (the integral of a queue's length over a window is the sum over packets of the
//! part of their stay inside it). [`Observer::on_queue_wait`] reports each stay; nothing else on
//! the hot path changes, and a run without this observer pays nothing.
//!
//! **Little's law.** Over a window of length `T` in which `N` packets left a queue whose
//! integral is `A`, the mean occupancy is `L = A / T`, the throughput `λ = N / T`, and the mean
//! wait `W = L / λ = A / N`. Packets still queued at either edge of the window make this an
//! estimate whose error shrinks as the window grows against the waits.

use crate::Observer;
use fabricsim_core::{PortId, Time};

/// Per (output port, VC): the queue-length integral inside a window (see the module docs).
#[derive(Debug, Clone)]
pub struct QueueMeter {
    vcs: usize,
    from_ps: u64,
    to_ps: u64,
    /// Packet-picoseconds inside the window, indexed `port * vcs + vc`.
    packet_ps: Vec<u64>,
    /// Byte-picoseconds (wire bytes) inside the window, indexed like `packet_ps`.
    byte_ps: Vec<u128>,
    /// Packets granted inside the window (their wait ended in it), indexed like `packet_ps`.
    granted: Vec<u64>,
    /// The sum of those packets' whole waits, ps (for comparing with Little's law).
    wait_ps: Vec<u64>,
}

/// One port's queue counters over a window, summed over its VCs (and per VC).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueCounters {
    /// Packet-picoseconds: the integral of the queue's length over the window.
    pub packet_ps: u64,
    /// Byte-picoseconds (wire bytes).
    pub byte_ps: u128,
    /// Packets whose wait ended in the window.
    pub granted: u64,
    /// Their waits, whole (not clipped to the window), ps.
    pub wait_ps: u64,
    /// `packet_ps` of each VC.
    pub vc_packet_ps: Vec<u64>,
}

impl QueueMeter {
    /// A meter of `ports` output ports with `vcs` VCs each, counting inside the window
    /// `[from, to)` of simulated time.
    pub fn new(ports: usize, vcs: usize, from: Time, to: Time) -> Self {
        let n = ports * vcs.max(1);
        QueueMeter {
            vcs: vcs.max(1),
            from_ps: from.ps(),
            to_ps: to.ps().max(from.ps()),
            packet_ps: vec![0; n],
            byte_ps: vec![0; n],
            granted: vec![0; n],
            wait_ps: vec![0; n],
        }
    }

    /// VCs per port.
    pub fn vcs(&self) -> usize {
        self.vcs
    }

    /// Ports metered.
    pub fn ports(&self) -> usize {
        self.packet_ps.len() / self.vcs
    }

    /// The counters of `port` (a global port id).
    pub fn port(&self, port: usize) -> QueueCounters {
        let r = port * self.vcs..(port + 1) * self.vcs;
        QueueCounters {
            packet_ps: self.packet_ps[r.clone()].iter().sum(),
            byte_ps: self.byte_ps[r.clone()].iter().sum(),
            granted: self.granted[r.clone()].iter().sum(),
            wait_ps: self.wait_ps[r.clone()].iter().sum(),
            vc_packet_ps: self.packet_ps[r].to_vec(),
        }
    }
}

impl Observer for QueueMeter {
    #[inline]
    fn on_queue_wait(&mut self, port: PortId, vc: u8, ready: Time, granted: Time, bytes: u32) {
        let (r, g) = (ready.ps(), granted.ps());
        let (a, b) = (r.max(self.from_ps), g.min(self.to_ps));
        let i = port.index() * self.vcs + (vc as usize).min(self.vcs - 1);
        if b > a {
            self.packet_ps[i] += b - a;
            self.byte_ps[i] += (b - a) as u128 * bytes as u128;
        }
        if g >= self.from_ps && g < self.to_ps {
            self.granted[i] += 1;
            self.wait_ps[i] += g.saturating_sub(r);
        }
    }
}

/// One port's queue counters for a report (fields of its per-port record).
#[derive(Debug, Clone, serde::Serialize, PartialEq)]
pub struct QueueReport {
    /// The queue-length time integral over the window, packet-nanoseconds.
    pub queue_packet_ns: f64,
    /// The same in wire bytes, byte-nanoseconds.
    pub queue_byte_ns: f64,
    /// Mean occupancy over the window, packets: the integral over the window's length.
    pub queue_mean_packets: f64,
    /// Mean wait by Little's law, ns: the integral over the packets the port sent in the window
    /// (0 when it sent none).
    pub queue_wait_ns: f64,
    /// `queue_packet_ns` per VC of the port.
    pub queue_vc_packet_ns: Vec<f64>,
}

impl QueueReport {
    /// The report of counters `c` over a window `window_ps` long in which the port sent
    /// `packets` packets (its port counter).
    pub fn new(c: &QueueCounters, window_ps: u64, packets: u64) -> Self {
        let ns = |ps: u64| ps as f64 / 1e3;
        QueueReport {
            queue_packet_ns: ns(c.packet_ps),
            queue_byte_ns: c.byte_ps as f64 / 1e3,
            queue_mean_packets: if window_ps == 0 { 0.0 } else { c.packet_ps as f64 / window_ps as f64 },
            queue_wait_ns: if packets == 0 { 0.0 } else { ns(c.packet_ps) / packets as f64 },
            queue_vc_packet_ns: c.vc_packet_ps.iter().map(|&x| ns(x)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_are_clipped_to_the_window_and_summed_per_vc() {
        let mut m = QueueMeter::new(2, 2, Time(100), Time(200));
        m.on_queue_wait(PortId(1), 0, Time(50), Time(150), 10); // 50 inside
        m.on_queue_wait(PortId(1), 1, Time(120), Time(130), 4); // 10 inside
        m.on_queue_wait(PortId(1), 1, Time(190), Time(400), 1); // 10 inside, granted after
        m.on_queue_wait(PortId(0), 0, Time(10), Time(90), 1); // before the window
        let c = m.port(1);
        assert_eq!((c.packet_ps, c.byte_ps, c.vc_packet_ps.clone()), (70, 50 * 10 + 10 * 4 + 10, vec![50, 20]));
        assert_eq!((c.granted, c.wait_ps), (2, 100 + 10));
        assert_eq!(m.port(0), QueueCounters { vc_packet_ps: vec![0, 0], ..Default::default() });
        // A stay spanning the whole window counts the window's length.
        m.on_queue_wait(PortId(0), 1, Time(0), Time(1000), 1);
        assert_eq!(m.port(0).packet_ps, 100);
    }

    #[test]
    fn littles_law_holds_for_a_steady_queue() {
        // A queue where one packet arrives every 10 ps and waits 35 ps: about 3.5 are waiting at
        // any time; the integral over a window gives the occupancy and, divided by the packets
        // that left, the wait.
        let mut m = QueueMeter::new(1, 1, Time(1000), Time(11_000));
        for k in 0..2000u64 {
            m.on_queue_wait(PortId(0), 0, Time(k * 10), Time(k * 10 + 35), 8);
        }
        let c = m.port(0);
        let occupancy = c.packet_ps as f64 / 10_000.0;
        assert!((occupancy - 3.5).abs() < 1e-9, "{occupancy}");
        let little = c.packet_ps as f64 / c.granted as f64;
        assert!((little - c.wait_ps as f64 / c.granted as f64).abs() < 1e-9);
    }
}

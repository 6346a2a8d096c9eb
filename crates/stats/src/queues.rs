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
//!
//! **Credit stalls per VC.** The meter also keeps, per output port and VC, how long the output
//! waited for that VC's credit ([`crate::credit_waits`]), in the same window.

use crate::credit_waits::CreditWaits;
use crate::Observer;
use fabricsim_core::{PortId, Time};

/// Per (output port, VC): the queue-length integral inside a window (see the module docs).
#[derive(Debug, Clone)]
pub struct QueueMeter {
    vcs: usize,
    from_ps: u64,
    to_ps: u64,
    /// Per `port * vcs + vc`: packet-picoseconds and byte-picoseconds (wire bytes) inside the
    /// window, side by side (a wait touches one 16-byte cell). Bytes times picoseconds stay
    /// below 2^64 for a megabyte queued over ten seconds of simulated time.
    cells: Vec<[u64; 2]>,
    /// Credit-stall time per port and VC.
    credit: CreditWaits,
}

/// One port's queue counters over a window, summed over its VCs (and per VC).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueueCounters {
    /// Packet-picoseconds: the integral of the queue's length over the window.
    pub packet_ps: u64,
    /// Byte-picoseconds (wire bytes).
    pub byte_ps: u64,
    /// `packet_ps` of each VC.
    pub vc_packet_ps: Vec<u64>,
    /// Credit-stall picoseconds of each VC (see [`crate::credit_waits`]).
    pub vc_credit_stall_ps: Vec<u64>,
}

impl QueueMeter {
    /// A meter of `ports` output ports with `vcs` VCs each, counting inside the window
    /// `[from, to)` of simulated time.
    pub fn new(ports: usize, vcs: usize, from: Time, to: Time) -> Self {
        let vcs = vcs.max(1);
        QueueMeter {
            vcs,
            from_ps: from.ps(),
            to_ps: to.ps().max(from.ps()),
            cells: vec![[0; 2]; ports * vcs],
            credit: CreditWaits::new(ports, vcs, from, to),
        }
    }

    /// VCs per port.
    pub fn vcs(&self) -> usize {
        self.vcs
    }

    /// Ports metered.
    pub fn ports(&self) -> usize {
        self.cells.len() / self.vcs
    }

    /// End the credit waits still open at `at`, the end of the run (a run that stops with
    /// packets waiting for credit, such as a saturated one, leaves some open).
    pub fn close_credit_waits(&mut self, at: Time) {
        self.credit.close(at);
    }

    /// The counters of `port` (a global port id).
    pub fn port(&self, port: usize) -> QueueCounters {
        let cells = &self.cells[port * self.vcs..(port + 1) * self.vcs];
        QueueCounters {
            packet_ps: cells.iter().map(|c| c[0]).sum(),
            byte_ps: cells.iter().map(|c| c[1]).sum(),
            vc_packet_ps: cells.iter().map(|c| c[0]).collect(),
            vc_credit_stall_ps: self.credit.port(port),
        }
    }
}

impl Observer for QueueMeter {
    /// Add the part of the stay inside the window (branch-free: most stays are short and
    /// inside it, but not predictably).
    #[inline(always)]
    fn on_queue_wait(&mut self, port: PortId, vc: u8, ready: Time, granted: Time, bytes: u32) {
        debug_assert!((vc as usize) < self.vcs, "VC {vc} of {}", self.vcs);
        let inside = granted.ps().min(self.to_ps).saturating_sub(ready.ps().max(self.from_ps));
        let c = &mut self.cells[port.index() * self.vcs + vc as usize];
        c[0] += inside;
        c[1] += inside * bytes as u64;
    }
    fn on_credit_wait(&mut self, port: PortId, vc: u8, at: Time) {
        self.credit.start(port, vc, at);
    }
    fn on_credit_back(&mut self, port: PortId, vc: u8, at: Time) {
        self.credit.end(port, vc, at);
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
    /// Credit-stall time per VC of the port, ns: how long it had a packet for the VC that
    /// waited for the VC's credit (see [`crate::credit_waits`]).
    pub credit_stall_vc_ns: Vec<f64>,
}

impl QueueReport {
    /// The report of counters `c` over a window `window_ps` long in which the port sent
    /// `packets` packets (its port counter).
    pub fn new(c: &QueueCounters, window_ps: u64, packets: u64) -> Self {
        let ns = |ps: u64| ps as f64 / 1e3;
        QueueReport {
            queue_packet_ns: ns(c.packet_ps),
            queue_byte_ns: ns(c.byte_ps),
            queue_mean_packets: if window_ps == 0 { 0.0 } else { c.packet_ps as f64 / window_ps as f64 },
            queue_wait_ns: if packets == 0 { 0.0 } else { ns(c.packet_ps) / packets as f64 },
            queue_vc_packet_ns: c.vc_packet_ps.iter().map(|&x| ns(x)).collect(),
            credit_stall_vc_ns: c.vc_credit_stall_ps.iter().map(|&x| ns(x)).collect(),
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
        m.on_queue_wait(PortId(0), 0, Time(250), Time(290), 1); // after it
        let c = m.port(1);
        assert_eq!((c.packet_ps, c.byte_ps, c.vc_packet_ps), (70, 50 * 10 + 10 * 4 + 10, vec![50, 20]));
        assert_eq!(m.port(0), QueueCounters { vc_packet_ps: vec![0, 0], vc_credit_stall_ps: vec![0, 0], ..Default::default() });
        // A stay spanning the whole window counts the window's length.
        m.on_queue_wait(PortId(0), 1, Time(0), Time(1000), 1);
        assert_eq!(m.port(0).packet_ps, 100);
    }

    #[test]
    fn littles_law_holds_for_a_steady_queue() {
        // A packet arrives every 10 ps and waits 35 ps: 3.5 wait at any time. Over a window
        // the integral gives that occupancy and, divided by the packets that left in the
        // window, the wait.
        let (window, gap, wait) = ((1000u64, 11_000u64), 10u64, 35u64);
        let mut m = QueueMeter::new(1, 1, Time(window.0), Time(window.1));
        let mut left = 0;
        for k in 0..2000u64 {
            let (r, g) = (k * gap, k * gap + wait);
            m.on_queue_wait(PortId(0), 0, Time(r), Time(g), 8);
            left += (window.0..window.1).contains(&g) as u64;
        }
        let r = QueueReport::new(&m.port(0), window.1 - window.0, left);
        assert!((r.queue_mean_packets - wait as f64 / gap as f64).abs() < 1e-9, "{r:?}");
        assert!((r.queue_wait_ns * 1e3 - wait as f64).abs() < 1e-9, "{r:?}");
        assert!((r.queue_byte_ns - 8.0 * r.queue_packet_ns).abs() < 1e-9);
    }
}

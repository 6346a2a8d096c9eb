//! Per-port counters, modelled on the Tofu performance-analysis counters: bytes sent, busy time,
//! idle time and time stalled waiting for credits (buffer depletion downstream).

use serde::Serialize;

/// Raw counters of one output port, in picoseconds and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortCounters {
    /// Wire bytes (headers included) of the packets the port sent.
    pub bytes: u64,
    /// Packets the port sent.
    pub packets: u64,
    /// Time spent sending, from the start of each packet's transmission to its end (which may
    /// wait for a cut-through packet's tail beyond its serialisation time).
    pub busy_ps: u64,
    /// Time with at least one packet waiting and none sendable for lack of credits.
    pub stall_ps: u64,
}

impl PortCounters {
    /// What was counted between `earlier` (a snapshot of the same port) and `self`.
    pub fn since(&self, earlier: &PortCounters) -> PortCounters {
        PortCounters {
            bytes: self.bytes - earlier.bytes,
            packets: self.packets - earlier.packets,
            busy_ps: self.busy_ps - earlier.busy_ps,
            stall_ps: self.stall_ps - earlier.stall_ps,
        }
    }
}

/// One port's counters for a report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PortReport {
    /// Router id of the router the port belongs to.
    pub router: u32,
    /// The port's local index at its router.
    pub port: u32,
    /// "network" or "terminal".
    pub kind: &'static str,
    /// Axis and direction (`X+`) for torus ports, `up`/`down` for fat-tree ports.
    pub label: String,
    /// Wire bytes sent in the measured window.
    pub bytes: u64,
    /// Packets sent in the measured window.
    pub packets: u64,
    /// Time spent sending in the window (at most the window's length).
    pub busy_ns: f64,
    /// The rest of the window: its length minus `busy_ns`.
    pub idle_ns: f64,
    /// Time with packets waiting and none sendable for lack of credits (see
    /// [`PortCounters::stall_ps`]); the port is idle meanwhile, so this is part of `idle_ns`.
    pub credit_stall_ns: f64,
    /// Busy fraction of the window, 0 to 1 (0 for an empty window).
    pub utilization: f64,
    /// Coordinates of the router (torus and mesh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<u32>>,
    /// Queue counters of the port's output queue (`run --queues`; see [`crate::QueueMeter`]).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub queue: Option<crate::queues::QueueReport>,
}

impl PortReport {
    /// The report of port `port` (local index) of router `router`, from the counters `c` of a
    /// window `elapsed_ps` long; `coords` is left `None` for the caller to fill.
    pub fn new(router: u32, port: u32, kind: &'static str, label: String, c: &PortCounters, elapsed_ps: u64) -> Self {
        let busy = c.busy_ps.min(elapsed_ps);
        PortReport {
            router,
            port,
            kind,
            label,
            bytes: c.bytes,
            packets: c.packets,
            busy_ns: busy as f64 / 1e3,
            idle_ns: (elapsed_ps - busy) as f64 / 1e3,
            credit_stall_ns: c.stall_ps as f64 / 1e3,
            utilization: if elapsed_ps == 0 { 0.0 } else { busy as f64 / elapsed_ps as f64 },
            coords: None,
            queue: None,
        }
    }
}

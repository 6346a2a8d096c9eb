//! Per-port counters, modelled on the Tofu performance-analysis counters: bytes sent, busy time,
//! idle time and time stalled waiting for credits (buffer depletion downstream).

use serde::Serialize;

/// Raw counters of one output port, in picoseconds and bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PortCounters {
    pub bytes: u64,
    pub packets: u64,
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
    pub router: u32,
    pub port: u32,
    /// "network" or "terminal".
    pub kind: &'static str,
    /// Axis and direction (`X+`) for torus ports, `up`/`down` for fat-tree ports.
    pub label: String,
    pub bytes: u64,
    pub packets: u64,
    pub busy_ns: f64,
    pub idle_ns: f64,
    pub credit_stall_ns: f64,
    pub utilization: f64,
    /// Coordinates of the router (torus and mesh).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coords: Option<Vec<u32>>,
}

impl PortReport {
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
        }
    }
}

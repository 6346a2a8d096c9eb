//! Channel classes: every sender (router output or NIC engine) belongs to one class, and all
//! senders of a class share their timing (latency, bandwidth, credit delay). The hot path looks
//! timing up by class instead of re-deriving it from the port graph on every hop, and caches the
//! last serialisation time per class (packets of one size repeat, so the division is rare).

use crate::params::NetworkParams;
use fabricsim_core::Bandwidth;
use fabricsim_topology::{PortGraph, PortKind};

/// A network link between routers (electrical, or the only kind without packaging).
pub(crate) const NETWORK: u8 = 0;
/// A network link that leaves its packaging block (optical).
pub(crate) const OPTICAL: u8 = 1;
/// A router's ejection port into a NIC reception engine.
pub(crate) const TERMINAL: u8 = 2;
/// A NIC injection engine (a pseudo-port feeding its router).
pub(crate) const ENGINE: u8 = 3;
/// An unconnected port (never used).
pub(crate) const NONE: u8 = 4;
const CLASSES: usize = 5;
/// Per-class tables have a power-of-two length, indexed by the class masked to it: a lookup
/// then needs no bounds check (entries past [`CLASSES`] are never used).
const TABLE: usize = 8;

#[inline]
fn slot(class: u8) -> usize {
    class as usize & (TABLE - 1)
}

#[derive(Debug, Clone)]
pub(crate) struct ChannelTiming {
    /// Time from a packet's head leaving the sender to arriving at the receiver, ps.
    latency: [u64; TABLE],
    /// Time for credits to travel back to the sender, ps.
    credit_latency: [u64; TABLE],
    bandwidth: [Bandwidth; TABLE],
    /// Last (bytes, serialisation ps) per class.
    ser_cache: [(u32, u64); TABLE],
}

impl ChannelTiming {
    pub(crate) fn new(p: &NetworkParams) -> Self {
        let link = p.link_latency.ps();
        let optical = p.optical_latency.map_or(link, |t| t.ps());
        let term = p.terminal_latency.ps();
        let pad = |v: [u64; CLASSES]| std::array::from_fn(|i| v.get(i).copied().unwrap_or(0));
        let bw = p.terminal_bandwidth;
        ChannelTiming {
            latency: pad([link, optical, term, p.nic_latency.ps() + term, 0]),
            credit_latency: pad([link, optical, term, term, 0]),
            bandwidth: [p.link_bandwidth, p.link_bandwidth, bw, bw, bw, bw, bw, bw],
            ser_cache: [(u32::MAX, 0); TABLE],
        }
    }

    /// Class of router port `port`.
    pub(crate) fn of_port(graph: &PortGraph, port: usize, has_optical_latency: bool) -> u8 {
        match graph.kind[port] {
            PortKind::Network if has_optical_latency && graph.optical.get(port).copied().unwrap_or(false) => OPTICAL,
            PortKind::Network => NETWORK,
            PortKind::Terminal => TERMINAL,
            PortKind::Unconnected => NONE,
        }
    }

    #[inline]
    pub(crate) fn latency(&self, class: u8) -> u64 {
        self.latency[slot(class)]
    }

    #[inline]
    pub(crate) fn credit_latency(&self, class: u8) -> u64 {
        self.credit_latency[slot(class)]
    }

    /// Time to send `bytes` on a channel of `class`.
    #[inline]
    pub(crate) fn serialization(&mut self, class: u8, bytes: u32) -> u64 {
        let c = &mut self.ser_cache[slot(class)];
        if c.0 != bytes {
            *c = (bytes, self.bandwidth[slot(class)].serialization(bytes as u64).ps());
        }
        c.1
    }
}

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
/// First class of network links with a latency of their own (cables of different lengths,
/// see `fabricsim_topology::packaging`): one class per distinct latency, up to class 255. They
/// send at the link bandwidth; their latency (each way alike) is kept in the credit-latency
/// table, the one table with an entry for every class, so the fixed classes' tables stay small.
const CABLES: u8 = 5;
/// The fixed classes' tables have a power-of-two length, indexed by the class masked to it: a
/// lookup then needs no bounds check (entries past [`CABLES`] are never used).
const TABLE: usize = 8;

#[inline]
fn slot(class: u8) -> usize {
    class as usize & (TABLE - 1)
}

/// Whether router port `port`'s link has a latency of its own: a cable (a length from the floor
/// layout) or a loopback with its own latency.
fn has_own_latency(graph: &PortGraph, port: usize, p: &NetworkParams) -> bool {
    graph.cable_m.get(port).is_some_and(|&m| m > 0.0) || (p.loopback_latency.is_some() && graph.loopback.get(port).copied().unwrap_or(false))
}

#[derive(Debug, Clone)]
pub(crate) struct ChannelTiming {
    /// Time from a packet's head leaving the sender to arriving at the receiver, ps.
    latency: [u64; TABLE],
    /// Time for credits to travel back to the sender, ps, for every class (cables included:
    /// a credit return has no other record at hand to read it from).
    credit_latency: Box<[u64; 256]>,
    bandwidth: [Bandwidth; TABLE],
    /// Last (bytes, serialisation ps) per class.
    ser_cache: [(u32, u64); TABLE],
    /// Classes in use: cable classes are `CABLES..next`.
    next: usize,
}

impl ChannelTiming {
    pub(crate) fn new(p: &NetworkParams) -> Self {
        let link = p.link_latency.ps();
        let optical = p.optical_latency.map_or(link, |t| t.ps());
        let term = p.terminal_latency.ps();
        let fixed = [link, optical, term, p.nic_latency.ps() + term, 0];
        let credit = [link, optical, term, term, 0];
        let bw = p.terminal_bandwidth;
        let mut bandwidth = [bw; TABLE];
        (bandwidth[NETWORK as usize], bandwidth[OPTICAL as usize]) = (p.link_bandwidth, p.link_bandwidth);
        ChannelTiming {
            latency: std::array::from_fn(|i| fixed.get(i).copied().unwrap_or(0)),
            credit_latency: Box::new(std::array::from_fn(|i| credit.get(i).copied().unwrap_or(0))),
            bandwidth,
            ser_cache: [(u32::MAX, 0); TABLE],
            next: CABLES as usize,
        }
    }

    /// Class of router port `port`: a cable of its own length (`graph.cable_m`) or a loopback
    /// link gets the class of its latency (`NetworkParams::link_latency_of`; a new class for a new latency);
    /// `None` when there are more distinct latencies than classes.
    pub(crate) fn of_port(&mut self, graph: &PortGraph, port: usize, p: &NetworkParams) -> Option<u8> {
        Some(match graph.kind[port] {
            PortKind::Network if has_own_latency(graph, port, p) => {
                let ps = p.link_latency_of(graph, port);
                match (CABLES as usize..self.next).find(|&c| self.credit_latency[c] == ps) {
                    Some(c) => c as u8,
                    None if self.next < self.credit_latency.len() => {
                        self.credit_latency[self.next] = ps;
                        self.next += 1;
                        (self.next - 1) as u8
                    }
                    None => return None,
                }
            }
            PortKind::Network if p.optical_latency.is_some() && graph.optical.get(port).copied().unwrap_or(false) => OPTICAL,
            PortKind::Network => NETWORK,
            PortKind::Terminal => TERMINAL,
            PortKind::Unconnected => NONE,
        })
    }

    #[inline]
    pub(crate) fn latency(&self, class: u8) -> u64 {
        if class < CABLES {
            self.latency[slot(class)]
        } else {
            self.credit_latency[class as usize]
        }
    }

    #[inline]
    pub(crate) fn credit_latency(&self, class: u8) -> u64 {
        self.credit_latency[class as usize]
    }

    /// Time to send `bytes` on a channel of `class` (a cable: at the link bandwidth).
    #[inline]
    pub(crate) fn serialization(&mut self, class: u8, bytes: u32) -> u64 {
        let k = if class < CABLES { slot(class) } else { NETWORK as usize };
        let c = &mut self.ser_cache[k];
        if c.0 != bytes {
            *c = (bytes, self.bandwidth[k].serialization(bytes as u64).ps());
        }
        c.1
    }
}

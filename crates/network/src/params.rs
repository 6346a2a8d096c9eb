//! Parameters of the network model, with their meaning and checks.

use fabricsim_core::{Bandwidth, ConfigError, Time};

/// Everything the network model needs besides the topology and routing.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkParams {
    /// Router-to-router link bandwidth (one direction).
    pub link_bandwidth: Bandwidth,
    /// Router-to-router link latency (wire + SerDes), one direction.
    pub link_latency: Time,
    /// Router pipeline delay, paid when a packet arrives at a router over a network link.
    pub router_delay: Time,
    /// Bandwidth of each NIC engine's path into and out of its router.
    pub terminal_bandwidth: Bandwidth,
    /// Latency of the NIC-router links: 0 when the NIC sits on the router chip (torus), a cable
    /// otherwise (fat-tree).
    pub terminal_latency: Time,
    /// Router pipeline delay for packets arriving from a NIC. 0 on a direct network (folded into
    /// `nic_latency`), `router_delay` on a fat-tree.
    pub terminal_router_delay: Time,
    /// Time from an engine starting a packet to its head leaving the NIC.
    pub nic_latency: Time,
    /// Injection (and reception) engines per node. For a fat-tree this is the rail count.
    pub engines: u32,
    /// Virtual channels per port.
    pub vcs: u8,
    /// Input buffer per VC, bytes.
    pub buffer_bytes: u32,
    /// Largest packet on the wire, bytes (header included).
    pub max_packet_bytes: u32,
    /// Header bytes added to each packet's payload.
    pub header_bytes: u32,
    /// Deadlock watchdog: error if packets are buffered and nothing moves for this long.
    pub watchdog: Time,
}

impl NetworkParams {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.engines == 0 || self.engines > 64 {
            return Err(ConfigError::new("nic.injection_engines", format!("{} must be between 1 and 64", self.engines)));
        }
        if self.header_bytes >= self.max_packet_bytes {
            return Err(ConfigError::new(
                "workload.packet_size",
                format!("{}B leaves no room for payload after a {}B header", self.max_packet_bytes, self.header_bytes),
            ));
        }
        if self.buffer_bytes < self.max_packet_bytes {
            return Err(ConfigError::new(
                "router.buffer",
                format!(
                    "{}B per VC cannot hold one {}B packet; virtual cut-through needs room for a whole packet",
                    self.buffer_bytes, self.max_packet_bytes
                ),
            ));
        }
        if self.watchdog == Time::ZERO {
            return Err(ConfigError::new("sim.watchdog", "must be positive"));
        }
        Ok(())
    }

    /// Largest payload a packet carries.
    pub fn max_payload(&self) -> u32 {
        self.max_packet_bytes - self.header_bytes
    }
}

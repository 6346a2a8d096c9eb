//! What the network crate's integration tests share.

use fabricsim_core::{Bandwidth, Time};
use fabricsim_network::NetworkParams;

pub mod rounds;

/// Small-network parameters: 5 GB/s links of 20 ns, a 40 ns router, one engine per node,
/// `vcs` VCs with one 256-byte packet of buffer each, no NIC overheads, a 5 us watchdog.
#[allow(dead_code)] // not every test binary uses every helper
pub fn params(vcs: u8) -> NetworkParams {
    NetworkParams {
        link_bandwidth: Bandwidth(5_000_000_000),
        link_latency: Time::from_ns(20),
        optical_latency: None,
        router_delay: Time::from_ns(40),
        terminal_bandwidth: Bandwidth(5_000_000_000),
        terminal_latency: Time::ZERO,
        terminal_router_delay: Time::ZERO,
        nic_latency: Time::from_ns(100),
        engines: 1,
        vcs,
        cable_delay: Time::ZERO,
        buffer_bytes: 256,
        class_buffer_bytes: None,
        format: fabricsim_network::PacketFormat::simple(256, 0),
        tx_overhead: Time::ZERO,
        software_overhead: Time::ZERO,
        poll_overhead: Time::ZERO,
        rx_overhead: Time::ZERO,
        host_bandwidth: None,
        host_packet_overhead: Time::ZERO,
        memory_bandwidth: None,
        cache_bytes: 0,
        watchdog: Time::from_us(5),
        selection: Default::default(),
        engine_choice: Default::default(),
        shared_crossbar: false,
        gates: None,
        class_routes: None,
        switch_barrier: None,
        multicast: None,
    }
}

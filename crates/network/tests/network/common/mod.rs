//! What the network crate's integration tests share.

use fabricsim_core::Time;
use fabricsim_network::NetworkParams;

pub(crate) mod rounds;

/// Small-network parameters: 5 GB/s links of 20 ns, a 40 ns router, one engine per node,
/// `vcs` VCs with one 256-byte packet of buffer each, no NIC overheads, a 5 us watchdog.
pub(crate) fn params(vcs: u8) -> NetworkParams {
    NetworkParams {
        vcs,
        buffer_bytes: 256,
        format: fabricsim_network::PacketFormat::simple(256, 0),
        watchdog: Time::from_us(5),
        ..NetworkParams::default()
    }
}

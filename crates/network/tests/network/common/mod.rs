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

/// Run `w` until it has finished (within 1 ms) on a mesh of `shape` (no wrap-around links, one
/// node per router, dimension-order routing on one VC) with `params`; `shuffle`: same-instant
/// events in an order drawn from that seed.
pub(crate) fn run_on_mesh<W: fabricsim_network::Workload>(
    shape: Vec<u32>,
    params: NetworkParams,
    w: W,
    shuffle: Option<u64>,
) -> fabricsim_network::Simulation<W> {
    let wraps = vec![false; shape.len()];
    let t = fabricsim_topology::Torus::new(shape, Some(wraps), None).unwrap();
    let g = t.build_graph(1);
    let r = fabricsim_routing::Routing::from(fabricsim_routing::DimensionOrder::new(t, None, 1, 1).unwrap());
    let mut sim = fabricsim_network::Simulation::new(g, r, params, w).unwrap();
    if let Some(seed) = shuffle {
        sim = sim.with_tie_shuffle(seed);
    }
    let limits = fabricsim_network::RunLimits { warmup: Time::ZERO, measure: Time::from_us(1000), drain: Time::ZERO };
    sim.run(limits, |_| {}).unwrap();
    assert!(sim.workload().finished());
    sim
}

//! How much memory a scenario needs, estimated before anything is built, so a shape too large
//! for the machine is refused with a message instead of aborting on allocation.
//!
//! The figures come from the data layout (BENCHMARKS.md, "Memory per element"): every port
//! (router ports, NIC engines) holds an output record, its counters and snapshots, its graph
//! entries and one input-VC record per VC; every node its coordinates, NIC queues and
//! per-rank state. Checked against the measured 158,976-node TofuD run (6.6 KB per node with 16
//! router ports, 6 engines and 2 VCs: the formula gives 6.6 KB).

use crate::scenario::TopologySpec;
use crate::Error;
use fabricsim_core::{Bytes, ConfigError};

/// Bytes per port, plus this per VC.
const PER_PORT: u64 = 190;
const PER_PORT_VC: u64 = 32;
/// Bytes per node besides its ports.
const PER_NODE: u64 = 1024;
/// Fixed part (tables, event queue, the process itself).
const BASE: u64 = 64 << 20;

/// Nodes and ports (router ports and NIC engines) of a topology, counted without building it
/// (`None` for the port count of a fat-tree, whose counts its own builder checks).
fn counts(t: &TopologySpec, engines: u64) -> Option<(u64, u64)> {
    match t {
        TopologySpec::Torus(s) | TopologySpec::Mesh(s) => {
            let nodes = s.shape.iter().try_fold(1u64, |a, &k| a.checked_mul(k as u64))?;
            let per_router: u64 = s.shape.iter().map(|&k| if k > 1 { 2 } else { 0 }).sum::<u64>() + 2 * engines;
            Some((nodes, nodes.checked_mul(per_router)?))
        }
        TopologySpec::FatTree(_) => None,
    }
}

/// Bytes of a message waiting at a NIC (its slab record).
const PER_MESSAGE: u64 = 64;

/// The estimate for `nodes` nodes and `ports` ports with `vcs` VCs, each node's NIC holding up
/// to `queue` messages (an open-loop source's bound, `nic.queue_limit`).
pub fn estimate(nodes: u64, ports: u64, vcs: u64, queue: u64) -> u64 {
    let per_node = PER_NODE + PER_MESSAGE * queue;
    BASE.saturating_add(ports.saturating_mul(PER_PORT + PER_PORT_VC * vcs)).saturating_add(nodes.saturating_mul(per_node))
}

/// Memory this process may use: `sim.max_memory` if set, else what the machine has available
/// (`MemAvailable` in /proc/meminfo), else 8 GiB.
pub fn limit(set: Option<Bytes>) -> (u64, &'static str) {
    if let Some(b) = set {
        return (b.get(), "sim.max_memory");
    }
    let avail = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines().find(|l| l.starts_with("MemAvailable:")).and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok()).map(|kb| kb * 1024)
    });
    match avail {
        Some(b) => (b, "the memory available on this machine; set sim.max_memory to change it"),
        None => (8 << 30, "a default of 8 GiB; set sim.max_memory to change it"),
    }
}

/// Refuse a torus or mesh whose simulation would not fit in memory (fat-trees are checked once
/// their switch counts are known, by [`check_counts`]).
pub fn check(t: &TopologySpec, engines: u64, vcs: u64, queue: u64, set: Option<Bytes>) -> Result<(), Error> {
    let Some((nodes, ports)) = counts(t, engines) else { return Ok(()) };
    check_counts("topology.shape", nodes, ports, vcs, queue, set)
}

/// Refuse `nodes` nodes and `ports` ports if their estimate exceeds the limit; `field` names
/// the key to blame.
pub fn check_counts(field: &str, nodes: u64, ports: u64, vcs: u64, queue: u64, set: Option<Bytes>) -> Result<(), Error> {
    let need = estimate(nodes, ports, vcs, queue);
    let (have, why) = limit(set);
    if need > have {
        return Err(ConfigError::new(
            field,
            format!(
                "{nodes} nodes and {ports} ports need about {:.1} GB to simulate, more than {:.1} GB ({why})",
                need as f64 / 1e9,
                have as f64 / 1e9
            ),
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_matches_the_measured_tofud_node() {
        // 158,976 nodes, 10 network + 6 terminal ports and 6 engines each, 2 VCs: 1.04 GB
        // measured for the idle network.
        let nodes = 158_976;
        let per_node = estimate(nodes, nodes * 22, 2, 0) as f64 / nodes as f64;
        assert!((6000.0..7500.0).contains(&per_node), "{per_node} B per node");
    }
}

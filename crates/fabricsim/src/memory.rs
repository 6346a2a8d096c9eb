//! How much memory a scenario needs, estimated before anything is built, so a shape too large
//! for the machine is refused with a message instead of aborting on allocation.
//!
//! The figures come from the data layout (BENCHMARKS.md, "Memory per element"): every port
//! (router ports, NIC engines) holds an output record, its counters and snapshots, its graph
//! entries and one input-VC record per VC; every node its coordinates, NIC queues and
//! per-rank state. Checked against the measured 158,976-node TofuD run (6.6 KB per node with 16
//! router ports, 6 engines and 2 VCs: the formula gives 6.6 KB).

use crate::scenario::{Scenario, TopologySpec};
use crate::Error;
use fabricsim_core::{Bytes, ConfigError};
use fabricsim_topology::FatTree;

/// Bytes per port, plus this per VC.
const PER_PORT: u64 = 190;
const PER_PORT_VC: u64 = 32;
/// Bytes per node besides its ports.
const PER_NODE: u64 = 1024;
/// Fixed part (tables, event queue, the process itself).
const BASE: u64 = 64 << 20;

/// What a scenario's network would take, counted without building it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    pub nodes: u64,
    /// Router ports and NIC engines.
    pub ports: u64,
    /// Estimated bytes to simulate it.
    pub bytes: u64,
    /// The key that sets the size (named when the estimate is refused).
    pub field: &'static str,
}

/// Count the nodes and ports of the scenario's network and estimate its memory, without
/// building it (a fat-tree's shape is checked on the way, which is cheap).
pub fn footprint(s: &Scenario) -> Result<Footprint, Error> {
    let (vcs, queue) = (s.router.total_vcs() as u64, s.nic.queue_limit as u64);
    let (nodes, ports, field) = match &s.topology {
        TopologySpec::Torus(t) | TopologySpec::Mesh(t) => {
            let engines = s.nic.injection_engines.unwrap_or(1) as u64;
            let nodes = t.shape.iter().fold(1u64, |a, &k| a.saturating_mul(k as u64));
            let wraps = s.topology.axis_wraps()?;
            let net: u64 = t.shape.iter().zip(wraps).map(|(&k, w)| fabricsim_topology::torus::axis_port_count(k, w) as u64).sum();
            (nodes, nodes.saturating_mul(net + 2 * engines), "topology.shape")
        }
        TopologySpec::FatTree(f) => {
            let ft = FatTree::new(f.radix, f.levels, f.rails, f.full_radix_top)?;
            let ports = ft.switches() as u64 * f.radix as u64 + 2 * ft.nodes() as u64 * ft.rails() as u64;
            (ft.nodes() as u64, ports, "topology.radix")
        }
    };
    let copies = s.sim.threads.max(1) as u64;
    Ok(Footprint { nodes, ports, bytes: estimate(nodes, ports, vcs, queue, copies), field })
}

/// Bytes of a message waiting at a NIC (its slab record).
const PER_MESSAGE: u64 = 64;

/// The estimate for `nodes` nodes and `ports` ports with `vcs` VCs, each node's NIC holding up
/// to `queue` messages (an open-loop source's bound, `nic.queue_limit`), with `copies` copies of
/// the network's arrays (a partitioned run's blocks each hold them all, for now; the messages
/// are each in one block).
pub fn estimate(nodes: u64, ports: u64, vcs: u64, queue: u64, copies: u64) -> u64 {
    let arrays = ports.saturating_mul(PER_PORT + PER_PORT_VC * vcs).saturating_add(nodes.saturating_mul(PER_NODE));
    BASE.saturating_add(arrays.saturating_mul(copies)).saturating_add(nodes.saturating_mul(PER_MESSAGE * queue))
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

/// Refuse a scenario whose simulation would not fit in memory (the limit is `sim.max_memory`,
/// else what the machine has), naming the key that sets its size.
pub fn check(s: &Scenario) -> Result<Footprint, Error> {
    let f = footprint(s)?;
    let (have, why) = limit(s.sim.max_memory);
    if f.bytes > have {
        return Err(ConfigError::new(
            f.field,
            format!(
                "{} nodes and {} ports need about {:.1} GB to simulate, more than {:.1} GB ({why})",
                f.nodes,
                f.ports,
                f.bytes as f64 / 1e9,
                have as f64 / 1e9
            ),
        )
        .into());
    }
    Ok(f)
}

/// Networks from this many nodes, or this many estimated bytes, are announced before they are
/// built (building one takes a while; nothing else would be said until the first progress).
pub const NOTICE_NODES: u64 = 100_000;
pub const NOTICE_BYTES: u64 = 1_000_000_000;

/// A line announcing a large network before it is built: its nodes, ports and memory estimate;
/// `None` for a smaller one.
pub fn notice(f: &Footprint) -> Option<String> {
    (f.nodes >= NOTICE_NODES || f.bytes >= NOTICE_BYTES).then(|| {
        format!(
            "building a network of {} nodes and {} ports (about {:.1} GB to simulate; {} s or more to build)",
            f.nodes,
            f.ports,
            f.bytes as f64 / 1e9,
            (f.ports / 20_000_000).max(1)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_networks_are_announced() {
        let mut s = Scenario::default();
        assert_eq!(notice(&footprint(&s).unwrap()), None, "8x8x8");
        // 20 axes of 2: a million nodes.
        s.set("topology.shape", &format!("[{}]", vec!["2"; 20].join(","))).unwrap();
        let f = footprint(&s).unwrap();
        assert_eq!(f.nodes, 1 << 20);
        let n = notice(&f).unwrap();
        assert!(n.contains("1048576 nodes") && n.contains("GB"), "{n}");
    }

    #[test]
    fn the_estimate_matches_the_measured_tofud_node() {
        // 158,976 nodes, 10 network + 6 terminal ports and 6 engines each, 2 VCs: 1.04 GB
        // measured for the idle network.
        let nodes = 158_976;
        let per_node = estimate(nodes, nodes * 22, 2, 0, 1) as f64 / nodes as f64;
        assert!((6000.0..7500.0).contains(&per_node), "{per_node} B per node");
    }
}

//! Open MPI's rankfile: `rank R=HOST slot=S` per line.

use super::HostPattern;
use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// One line per rank, in rank order; a node's ranks take slots 0, 1, ... in rank order.
pub(super) fn write(topo: &Topology, map: &[NodeId], hosts: &HostPattern) -> String {
    let mut used = vec![0u32; topo.nodes() as usize];
    map.iter()
        .enumerate()
        .map(|(r, &n)| {
            let slot = used[n.index()];
            used[n.index()] += 1;
            format!("rank {r}={} slot={slot}\n", hosts.name(n))
        })
        .collect()
}

/// `rank R=HOST slot=...` lines in any order; every rank `0..n` once.
pub(super) fn read(topo: &Topology, text: &str, hosts: &HostPattern, field: &str) -> Result<Vec<NodeId>, ConfigError> {
    let mut pairs = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |m: String| ConfigError::new(format!("{field} line {}", no + 1), m);
        let rest = line.strip_prefix("rank").ok_or_else(|| at(format!("'{line}' is not 'rank R=HOST slot=S'")))?;
        let (r, host) = rest.split_once('=').ok_or_else(|| at(format!("'{line}' is not 'rank R=HOST slot=S'")))?;
        let r = r.trim().parse::<u32>().map_err(|_| at(format!("'{}' is not a rank", r.trim())))?;
        let host = host.split_whitespace().next().unwrap_or("");
        pairs.push((r, hosts.node(host, topo.nodes()).map_err(at)?, no + 1));
    }
    let n = pairs.len();
    let mut map = vec![None; n];
    for (r, node, line) in pairs {
        let at = |m: String| ConfigError::new(format!("{field} line {line}"), m);
        match map.get_mut(r as usize) {
            Some(m @ None) => *m = Some(node),
            Some(Some(_)) => return Err(at(format!("rank {r} appears twice"))),
            None => return Err(at(format!("rank {r} is beyond the {n} ranks listed"))),
        }
    }
    Ok(map.into_iter().map(|m| m.expect("n distinct ranks below n fill every slot")).collect())
}

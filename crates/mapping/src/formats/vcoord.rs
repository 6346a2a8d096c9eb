//! Fujitsu MPI's vcoord file: one coordinate tuple `(x,y,z,...)` per rank, rank 0 first.

use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// One `(c0,c1,...)` line per rank.
pub(super) fn write(topo: &Topology, map: &[NodeId]) -> String {
    map.iter().map(|&n| format!("({})\n", crate::placement::coords_of(topo, n).iter().map(u32::to_string).collect::<Vec<_>>().join(","))).collect()
}

/// Lines of coordinates, with or without the parentheses; `#` starts a comment.
pub(super) fn read(topo: &Topology, text: &str, field: &str) -> Result<Vec<NodeId>, ConfigError> {
    let mut map = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |m: String| ConfigError::new(format!("{field} line {}", no + 1), m);
        let inner = line.trim_start_matches('(').trim_end_matches(')');
        let coords = inner
            .split([',', ' '])
            .filter(|w| !w.is_empty())
            .map(|w| w.trim().parse::<u32>().map_err(|_| at(format!("'{w}' is not a coordinate"))))
            .collect::<Result<Vec<u32>, _>>()?;
        map.push(crate::placement::node_at(topo, &coords).map_err(at)?);
    }
    Ok(map)
}

//! Where a job's ranks run, as plain data: ranks filling nodes in order, the node at a tuple of
//! coordinates, and the project's own rank-map file (one node per rank).

use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// Ranks filling `nodes` nodes in order, `per_node` on each (ranks `0..per_node` on node 0, and
/// so on): the node of every rank.
pub fn fill_in_order(nodes: u32, per_node: u32) -> Vec<NodeId> {
    (0..nodes.saturating_mul(per_node)).map(|r| NodeId(r / per_node.max(1))).collect()
}

/// The node at `coords` on `topo`: coordinates on a torus or mesh, `[node id]` on a fat-tree; the
/// error says which coordinate is wrong.
pub fn node_at(topo: &Topology, coords: &[u32]) -> Result<NodeId, String> {
    match topo {
        Topology::Torus(t) => t.node_at(coords),
        Topology::FatTree(f) => match coords {
            [n] if *n < f.nodes() => Ok(NodeId(*n)),
            _ => Err(format!("{coords:?} is not a single node id below {}", f.nodes())),
        },
    }
}

/// The coordinates of `node` as a rank-map line writes them (a node id on a fat-tree).
pub fn coords_of(topo: &Topology, node: NodeId) -> Vec<u32> {
    match topo {
        Topology::Torus(t) => t.coords(node),
        Topology::FatTree(_) => vec![node.0],
    }
}

/// Read a rank map: one line per rank (rank 0 first) giving its node, as coordinates separated
/// by spaces or commas on a torus or mesh, or a node id on a fat-tree; `#` starts a comment.
/// A node may hold at most `per_node` ranks. Errors name the line (`rank map line N`).
pub fn parse_rank_map(topo: &Topology, text: &str, per_node: u32) -> Result<Vec<NodeId>, ConfigError> {
    if per_node == 0 {
        return Err(ConfigError::new("--ranks-per-node", "0 is not a rank count"));
    }
    let mut map = Vec::new();
    let mut held = vec![0u32; topo.nodes() as usize];
    for (no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let field = format!("rank map line {}", no + 1);
        let coords = line
            .split([' ', ',', '\t'])
            .filter(|w| !w.is_empty())
            .map(|w| w.parse::<u32>().map_err(|_| ConfigError::new(field.clone(), format!("'{w}' is not a coordinate"))))
            .collect::<Result<Vec<u32>, _>>()?;
        let node = node_at(topo, &coords).map_err(|m| ConfigError::new(field.clone(), m))?;
        held[node.index()] += 1;
        if held[node.index()] > per_node {
            return Err(ConfigError::new(field, format!("node {line} already holds {per_node} rank(s), the most per node")));
        }
        map.push(node);
    }
    if map.is_empty() {
        return Err(ConfigError::new("rank map", "lists no rank"));
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_topology::Torus;

    #[test]
    fn a_rank_map_names_its_bad_line() {
        let topo = Topology::Torus(Torus::new(vec![4, 4], None, None).unwrap());
        assert_eq!(parse_rank_map(&topo, "0 0\n1,0 # two\n\n3 3\n", 1).unwrap(), vec![NodeId(0), NodeId(1), NodeId(15)]);
        let e = parse_rank_map(&topo, "0 0\n0 0\n", 1).unwrap_err();
        assert_eq!(e.field, "rank map line 2");
        let e = parse_rank_map(&topo, "0 x\n", 1).unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("rank map line 1", "'x' is not a coordinate"));
        assert!(parse_rank_map(&topo, "0 4\n", 1).unwrap_err().message.contains("outside 0..4"));
        assert_eq!(fill_in_order(3, 2), vec![NodeId(0), NodeId(0), NodeId(1), NodeId(1), NodeId(2), NodeId(2)]);
    }
}

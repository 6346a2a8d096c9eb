//! Cray/HPE MPICH's `MPICH_RANK_ORDER`: the ranks in the order the job's nodes are filled,
//! comma-separated (ranges `a-b` allowed when read).

use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// The ranks on each used node (in rank order), nodes in id order, sixteen to a line.
pub(super) fn write(map: &[NodeId]) -> String {
    let mut by_node: Vec<(NodeId, usize)> = map.iter().copied().zip(0..).collect();
    by_node.sort();
    let ranks: Vec<String> = by_node.iter().map(|&(_, r)| r.to_string()).collect();
    ranks.chunks(16).map(|c| c.join(",") + "\n").collect::<Vec<_>>().join("")
}

/// The `i`-th rank listed goes to node `i / per_node` (node ids in order); every rank `0..n`
/// once.
pub(super) fn read(topo: &Topology, text: &str, per_node: u32, field: &str) -> Result<Vec<NodeId>, ConfigError> {
    let mut order = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let at = |m: String| ConfigError::new(format!("{field} line {}", no + 1), m);
        for w in line.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let num = |x: &str| x.trim().parse::<u32>().map_err(|_| at(format!("'{w}' is not a rank or a range a-b")));
            match w.split_once('-') {
                Some((a, b)) => {
                    let (a, b) = (num(a)?, num(b)?);
                    if b < a {
                        return Err(at(format!("'{w}' is an empty range")));
                    }
                    order.extend(a..=b);
                }
                None => order.push(num(w)?),
            }
        }
    }
    if order.len() as u64 > topo.nodes() as u64 * per_node as u64 {
        return Err(ConfigError::new(field, format!("lists {} ranks for {} nodes of {per_node} rank(s)", order.len(), topo.nodes())));
    }
    let n = order.len();
    let mut map = vec![None; n];
    for (slot, &r) in order.iter().enumerate() {
        match map.get_mut(r as usize) {
            Some(m @ None) => *m = Some(NodeId(slot as u32 / per_node)),
            Some(Some(_)) => return Err(ConfigError::new(field, format!("rank {r} is listed twice"))),
            None => return Err(ConfigError::new(field, format!("rank {r} is beyond the {n} ranks listed"))),
        }
    }
    Ok(map.into_iter().map(|m| m.expect("n distinct ranks below n fill every slot")).collect())
}

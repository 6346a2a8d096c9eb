//! Hop-bytes: the sum over flows of bytes times the minimal hop distance between the nodes of
//! the two ranks (what the network carries in all, link by link, under minimal routing).

use crate::Pattern;
use fabricsim_core::NodeId;
use fabricsim_topology::Topology;

/// The hop-bytes of `pattern` with rank `r` on node `map[r]` (`map` covers every rank).
pub fn hop_bytes(topo: &Topology, pattern: &Pattern, map: &[NodeId]) -> u64 {
    pattern.flows().iter().map(|f| f.bytes * topo.distance(map[f.src as usize], map[f.dst as usize]) as u64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::simple::ring;
    use fabricsim_topology::Torus;

    #[test]
    fn a_ring_laid_in_order_costs_one_hop_per_byte_but_the_wrap() {
        let topo = Topology::Torus(Torus::new(vec![8], Some(vec![false]), None).unwrap());
        let map: Vec<NodeId> = (0..8).map(NodeId).collect();
        // 7 steps of one hop, the wrap message 7 hops on a line.
        assert_eq!(hop_bytes(&topo, &ring(8, 10), &map), 10 * (7 + 7));
    }
}

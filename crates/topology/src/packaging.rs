//! Packaging of a torus into blocks (a chassis, a half rack): links whose two ends lie in the same
//! block are electrical, links between blocks optical. The block is a shape dividing the torus
//! shape axis by axis; node `n` is in block `coords(n) / block` (component-wise).

use crate::{PortGraph, PortKind, Torus};
use fabricsim_core::ConfigError;
use serde::Serialize;

#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LinkKinds {
    pub links_electrical: u64,
    pub links_optical: u64,
    pub optical_link_fraction: f64,
}

/// Check that `block` fits `torus` (same number of axes, each block length divides the axis).
pub fn check_block(torus: &Torus, block: &[u32]) -> Result<(), ConfigError> {
    if block.len() != torus.dims() {
        return Err(ConfigError::new("packaging.block", format!("{block:?} has {} axes but the shape has {}", block.len(), torus.dims())));
    }
    for (a, (&b, &k)) in block.iter().zip(torus.shape()).enumerate() {
        if b == 0 || k % b != 0 {
            return Err(ConfigError::new("packaging.block", format!("length {b} on axis {} does not divide the shape's {k}", torus.names()[a])));
        }
    }
    Ok(())
}

/// Whether each global port's link is optical (false for terminal and unconnected ports).
pub fn optical_ports(torus: &Torus, graph: &PortGraph, block: &[u32]) -> Vec<bool> {
    let mut v = vec![false; graph.total_ports() as usize];
    for p in 0..graph.total_ports() {
        if graph.kind[p as usize] != PortKind::Network {
            continue;
        }
        let a = Torus::node_on(graph.owner[p as usize]);
        let b = Torus::node_on(graph.owner[graph.peer[p as usize] as usize]);
        v[p as usize] = (0..torus.dims()).any(|ax| torus.coord(a, ax) / block[ax] != torus.coord(b, ax) / block[ax]);
    }
    v
}

/// Count electrical and optical links (each bidirectional link once).
pub fn count(graph: &PortGraph, optical: &[bool]) -> LinkKinds {
    let mut e = 0;
    let mut o = 0;
    for (p, &is_optical) in optical.iter().enumerate().take(graph.total_ports() as usize) {
        if graph.kind[p] == PortKind::Network && (p as u32) < graph.peer[p] {
            if is_optical {
                o += 1;
            } else {
                e += 1;
            }
        }
    }
    LinkKinds { links_electrical: e, links_optical: o, optical_link_fraction: if e + o == 0 { 0.0 } else { o as f64 / (e + o) as f64 } }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_is_all_electrical_and_unit_blocks_all_optical() {
        let t = Torus::new(vec![4, 2, 3], Some(vec![true, false, true]), None).unwrap();
        let g = t.build_graph(1);
        let all = count(&g, &optical_ports(&t, &g, &[4, 2, 3]));
        assert_eq!(all.links_optical, 0);
        assert_eq!(all.links_electrical, g.network_links());
        let none = count(&g, &optical_ports(&t, &g, &[1, 1, 1]));
        assert_eq!(none.links_electrical, 0);
        assert_eq!(none.optical_link_fraction, 1.0);
    }

    #[test]
    fn half_blocks_split_one_axis() {
        // An 8-ring cut into two blocks of 4: the 2 links crossing the cuts are optical.
        let t = Torus::new(vec![8], None, None).unwrap();
        let g = t.build_graph(1);
        let k = count(&g, &optical_ports(&t, &g, &[4]));
        assert_eq!((k.links_electrical, k.links_optical), (6, 2));
        assert!(check_block(&t, &[3]).is_err());
    }
}

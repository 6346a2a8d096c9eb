//! Packaging of a torus into blocks (a chassis, a half rack): links whose two ends lie in the same
//! block are electrical, links between blocks optical. The block is a shape dividing the torus
//! shape axis by axis; node `n` is in block `coords(n) / block` (component-wise).

use crate::{PortGraph, PortKind, Torus};
use fabricsim_core::{ConfigError, NodeId};
use serde::Serialize;

/// Link counts by kind, from [`count`]; each bidirectional router-to-router link counted once.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct LinkKinds {
    /// Links whose two ends lie in the same block.
    pub links_electrical: u64,
    /// Links between two blocks.
    pub links_optical: u64,
    /// `links_optical` over all links (0 when there are none).
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

/// Where the racks stand, for cable lengths. The torus is cut into racks of `rack` nodes per
/// axis (a block never spans two racks; the last rack along an axis may be partial); the grid of racks (the shape divided by `rack`, axis by
/// axis) is numbered with its first axis fastest, each axis optionally `folded` (0, n-1, 1,
/// n-2, ...: ring neighbours stand at most two racks apart, as machine rooms lay rings out),
/// and placed `racks_per_row` to a row. A link leaving its block is a cable of `slack_m` (the
/// runs inside the two racks) plus the distance between the racks along the row
/// (`rack_pitch_m` per rack) and across rows (`row_pitch_m` per row).
#[derive(Debug, Clone, PartialEq)]
pub struct Floor {
    /// Nodes per rack along each axis, one entry per torus axis; a multiple of the block.
    pub rack: Vec<u32>,
    /// Racks placed side by side in one row (positive).
    pub racks_per_row: u32,
    /// Metres between two neighbouring racks of a row.
    pub rack_pitch_m: f64,
    /// Metres between two neighbouring rows.
    pub row_pitch_m: f64,
    /// Metres every inter-block cable adds for its runs inside its two racks.
    pub slack_m: f64,
    /// Whether each axis of the rack grid is numbered folded (0, n-1, 1, n-2, ...) rather than
    /// in order.
    pub folded: bool,
}

impl Floor {
    /// Check the layout against `torus` and its packaging `block`, naming the scenario key
    /// (`packaging.<key>`) at fault.
    pub fn check(&self, torus: &Torus, block: &[u32]) -> Result<(), ConfigError> {
        if self.rack.len() != torus.dims() {
            return Err(ConfigError::new(
                "packaging.rack",
                format!("{:?} has {} axes but the shape has {}", self.rack, self.rack.len(), torus.dims()),
            ));
        }
        for a in 0..torus.dims() {
            let (r, k, b) = (self.rack[a], torus.shape()[a], block.get(a).copied().unwrap_or(1));
            if r == 0 || r > k || r % b != 0 {
                return Err(ConfigError::new(
                    "packaging.rack",
                    format!("length {r} on axis {} must be at most the shape's {k} and a multiple of the block's {b}", torus.names()[a]),
                ));
            }
        }
        if self.racks_per_row == 0 {
            return Err(ConfigError::new("packaging.racks_per_row", "must be positive"));
        }
        for (key, v) in [("rack_pitch_m", self.rack_pitch_m), ("row_pitch_m", self.row_pitch_m), ("cable_slack_m", self.slack_m)] {
            if !(v.is_finite() && (0.0..=1000.0).contains(&v)) {
                return Err(ConfigError::new(format!("packaging.{key}"), format!("{v} must be between 0 and 1000 metres")));
            }
        }
        Ok(())
    }

    /// Racks along each axis of the rack grid.
    fn grid(&self, torus: &Torus) -> Vec<u32> {
        torus.shape().iter().zip(&self.rack).map(|(k, r)| k.div_ceil(*r)).collect()
    }

    /// Row and position in the row of the rack holding `node`.
    pub fn rack_place(&self, torus: &Torus, node: NodeId) -> (u32, u32) {
        let grid = self.grid(torus);
        let mut index = 0u64;
        for a in (0..torus.dims()).rev() {
            let (n, c) = (grid[a], torus.coord(node, a) / self.rack[a]);
            let c = if self.folded && n > 2 {
                if c < n.div_ceil(2) {
                    2 * c
                } else {
                    2 * (n - 1 - c) + 1
                }
            } else {
                c
            };
            index = index * n as u64 + c as u64;
        }
        ((index / self.racks_per_row as u64) as u32, (index % self.racks_per_row as u64) as u32)
    }

    /// Metres of cable between the racks of `a` and `b`.
    pub fn cable_m(&self, torus: &Torus, a: NodeId, b: NodeId) -> f64 {
        let ((ra, pa), (rb, pb)) = (self.rack_place(torus, a), self.rack_place(torus, b));
        self.slack_m + pa.abs_diff(pb) as f64 * self.rack_pitch_m + ra.abs_diff(rb) as f64 * self.row_pitch_m
    }
}

/// Cable length of each global port's link: links leaving their `block` are cables laid out by
/// `floor`; every other port 0.
pub fn cable_metres(torus: &Torus, graph: &PortGraph, block: &[u32], floor: &Floor) -> Vec<f32> {
    let optical = optical_ports(torus, graph, block);
    (0..graph.total_ports() as usize)
        .map(|p| {
            if !optical[p] {
                return 0.0;
            }
            let a = Torus::node_on(graph.owner[p]);
            let b = Torus::node_on(graph.owner[graph.peer[p] as usize]);
            floor.cable_m(torus, a, b) as f32
        })
        .collect()
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

    #[test]
    fn cables_follow_the_floor_layout() {
        // An 8-ring of racks of one node each (block = rack), four racks per row, rows 2 m
        // apart, racks 0.5 m apart, 1 m of slack.
        let t = Torus::new(vec![8], None, None).unwrap();
        let g = t.build_graph(1);
        let floor = Floor { rack: vec![1], racks_per_row: 4, rack_pitch_m: 0.5, row_pitch_m: 2.0, slack_m: 1.0, folded: false };
        floor.check(&t, &[1]).unwrap();
        let m = |a: u32, b: u32| floor.cable_m(&t, NodeId(a), NodeId(b));
        assert_eq!(m(0, 1), 1.5);
        assert_eq!(m(3, 4), 1.0 + 3.0 * 0.5 + 2.0, "from the end of row 0 to the start of row 1");
        assert_eq!(m(7, 0), 1.0 + 3.0 * 0.5 + 2.0, "the wrap-around link spans a row");
        // Folded: 0, 7, 1, 6 | 2, 5, 3, 4: ring neighbours are at most two places apart.
        let folded = Floor { folded: true, ..floor.clone() };
        assert_eq!(folded.rack_place(&t, NodeId(7)), (0, 1));
        assert_eq!(folded.rack_place(&t, NodeId(4)), (1, 3));
        assert_eq!(folded.cable_m(&t, NodeId(7), NodeId(0)), 1.5);
        // Per port: every link is a cable here, each direction the same length.
        let c = cable_metres(&t, &g, &[1], &floor);
        let total: f32 = c.iter().sum();
        assert_eq!(total, 2.0 * (6.0 * 1.5 + 2.0 * 4.5));
        // A block spanning two racks is refused, as is a rack that does not divide the shape.
        assert!(Floor { rack: vec![2], ..floor.clone() }.check(&t, &[4]).unwrap_err().to_string().starts_with("packaging.rack"));
        assert!(Floor { rack: vec![9], ..floor.clone() }.check(&t, &[1]).is_err());
        // Racks of 3 on an 8-ring: the last one holds two nodes.
        let threes = Floor { rack: vec![3], ..floor.clone() };
        threes.check(&t, &[1]).unwrap();
        assert_eq!((0..8).map(|n| threes.rack_place(&t, NodeId(n)).1).collect::<Vec<_>>(), [0, 0, 0, 1, 1, 1, 2, 2]);
        assert!(Floor { racks_per_row: 0, ..floor }.check(&t, &[1]).unwrap_err().to_string().starts_with("packaging.racks_per_row"));
    }
}

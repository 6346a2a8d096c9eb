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
    /// Wrap links closed inside their block through a loopback (not counted as electrical).
    pub links_loopback: u64,
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

/// Whether each global port's link is a loopback: the wrap link of a ring on one of `axes` that
/// the block spans whole, so it leaves the block's face and comes straight back in (on Blue
/// Gene/Q, through a link chip looping a midplane's surface back onto itself). `axes[a]` says
/// whether axis `a`'s face links pass such hardware; links inside a board do not.
pub fn loopback_ports(torus: &Torus, graph: &PortGraph, block: &[u32], axes: &[bool]) -> Vec<bool> {
    let mut v = vec![false; graph.total_ports() as usize];
    for p in 0..graph.total_ports() {
        if graph.kind[p as usize] != PortKind::Network {
            continue;
        }
        let router = graph.owner[p as usize];
        let local = graph.local(fabricsim_core::PortId(p));
        let Some((axis, delta)) = torus.port_axis(local) else { continue };
        let whole = block[axis] == torus.shape()[axis];
        v[p as usize] = axes[axis] && whole && torus.crosses_dateline(Torus::node_on(router), axis, delta);
    }
    v
}

/// Count electrical, optical and loopback links (each bidirectional link once; loopbacks as
/// `graph.loopback` marks them).
pub fn count(graph: &PortGraph, optical: &[bool]) -> LinkKinds {
    let (mut e, mut o, mut l) = (0, 0, 0);
    for (p, &is_optical) in optical.iter().enumerate().take(graph.total_ports() as usize) {
        if graph.kind[p] == PortKind::Network && (p as u32) < graph.peer[p] {
            if is_optical {
                o += 1;
            } else if graph.loopback.get(p).copied().unwrap_or(false) {
                l += 1;
            } else {
                e += 1;
            }
        }
    }
    let all = e + o + l;
    LinkKinds { links_electrical: e, links_optical: o, links_loopback: l, optical_link_fraction: if all == 0 { 0.0 } else { o as f64 / all as f64 } }
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
    fn loopbacks_are_the_wrap_links_of_rings_a_block_spans() {
        // A 4x4x2 torus in one block: each 4-ring closes through one loopback link (both its
        // directions), the 2-ring only where asked; a mesh axis has none.
        let t = Torus::new(vec![4, 4, 2], None, None).unwrap();
        let g = t.build_graph(1);
        let ports = |axes: &[bool]| loopback_ports(&t, &g, &[4, 4, 2], axes).iter().filter(|&&b| b).count();
        // Axis A: 8 rings (4 x 2 nodes) x 2 directions.
        assert_eq!(ports(&[true, false, false]), 16);
        assert_eq!(ports(&[true, true, false]), 32);
        // Every loopback port's peer is one too, on the same axis.
        let lb = loopback_ports(&t, &g, &[4, 4, 2], &[true, true, true]);
        for p in (0..lb.len()).filter(|&p| lb[p]) {
            assert!(lb[g.peer[p] as usize]);
            let a = Torus::node_on(g.owner[p]);
            let b = Torus::node_on(g.owner[g.peer[p] as usize]);
            assert_eq!(t.distance(a, b), 1);
        }
        // A block that does not span the axis makes its wrap link an inter-block (optical) one.
        assert_eq!(loopback_ports(&t, &g, &[2, 4, 2], &[true, false, false]).iter().filter(|&&b| b).count(), 0);
        let mesh = Torus::new(vec![4, 4, 2], Some(vec![false, true, true]), None).unwrap();
        let gm = mesh.build_graph(1);
        assert_eq!(loopback_ports(&mesh, &gm, &[4, 4, 2], &[true, false, false]).iter().filter(|&&b| b).count(), 0);
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

//! n-dimensional mesh/torus.
//!
//! Each axis has a length and a wrap flag. Ports per router follow the shape:
//! * length 1: no port;
//! * length 2 without wrap (Tofu's A and C): one port, to the other node;
//! * length 2 with wrap: two ports, `+` and `-`, **both to the same neighbour**: two physical
//!   links between the pair, as on Blue Gene/Q's E axis. Shortest-direction routing sees a tie
//!   and splits it by parity (see the routing crate's dimension order), so both links carry
//!   traffic both ways;
//! * length >= 3: two ports, `+` and `-`. On a mesh the `+` port of the last coordinate and the
//!   `-` port of coordinate 0 are unconnected.
//!
//! After the network ports come `engines` terminal ports, one per NIC injection/reception engine.

use crate::graph::{PortGraph, PortKind, UNCONNECTED};
use fabricsim_core::{ConfigError, NodeId, RouterId};

/// Network ports a router has along an axis of length `len` (see the module docs): none on a
/// length-1 axis, one on a length-2 axis without wrap, two otherwise.
pub fn axis_port_count(len: u32, wrap: bool) -> u32 {
    match (len, wrap) {
        (1, _) => 0,
        (2, false) => 1,
        _ => 2,
    }
}

/// Where the ports of one axis sit in a router's port list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AxisPorts {
    /// Local index of the `+` port (or the single port of a length-2 mesh axis).
    pub first: u32,
    /// 0, 1 or 2.
    pub count: u32,
}

/// An n-dimensional torus or mesh (see the module docs): axis lengths, wrap flags and names,
/// with one router per node and node ids as mixed-radix coordinates, axis 0 fastest.
#[derive(Debug, Clone)]
pub struct Torus {
    shape: Vec<u32>,
    wrap: Vec<bool>,
    names: Vec<String>,
    strides: Vec<u32>,
    axis_ports: Vec<AxisPorts>,
    net_ports: u32,
    nodes: u32,
    /// Coordinates of every node, `coords[node * dims + axis]`: routing reads these on every
    /// hop, and a table lookup is far cheaper than a division per axis.
    coord_table: std::sync::Arc<[u16]>,
}

impl Torus {
    /// Build a shape. `wrap` defaults to all `true`; `names` default to `d0, d1, ...`.
    pub fn new(shape: Vec<u32>, wrap: Option<Vec<bool>>, names: Option<Vec<String>>) -> Result<Self, ConfigError> {
        if shape.is_empty() {
            return Err(ConfigError::new("topology.shape", "is empty; give at least one axis length"));
        }
        if let Some(i) = shape.iter().position(|&k| k == 0) {
            return Err(ConfigError::new("topology.shape", format!("axis {i} has length 0")));
        }
        let nodes = shape.iter().try_fold(1u64, |acc, &k| {
            let v = acc * k as u64;
            (v <= u32::MAX as u64 / 2).then_some(v)
        });
        let nodes = nodes.ok_or_else(|| ConfigError::new("topology.shape", format!("{shape:?} has too many nodes")))? as u32;
        if nodes < 2 {
            return Err(ConfigError::new("topology.shape", format!("{shape:?} has a single node; a network needs two")));
        }
        let wrap = wrap.unwrap_or_else(|| vec![true; shape.len()]);
        if wrap.len() != shape.len() {
            return Err(ConfigError::new("topology.wrap", format!("has {} entries but topology.shape has {} axes", wrap.len(), shape.len())));
        }
        let names = match names {
            Some(n) => {
                if n.len() != shape.len() {
                    return Err(ConfigError::new("topology.axes", format!("has {} names but topology.shape has {} axes", n.len(), shape.len())));
                }
                for (i, a) in n.iter().enumerate() {
                    if n[..i].contains(a) {
                        return Err(ConfigError::new("topology.axes", format!("name '{a}' is repeated")));
                    }
                }
                n
            }
            None => Torus::default_names(shape.len()),
        };
        let mut strides = Vec::with_capacity(shape.len());
        let mut s = 1u32;
        for &k in &shape {
            strides.push(s);
            s *= k;
        }
        let mut axis_ports = Vec::with_capacity(shape.len());
        let mut p = 0;
        for (i, &k) in shape.iter().enumerate() {
            let count = axis_port_count(k, wrap[i]);
            axis_ports.push(AxisPorts { first: p, count });
            p += count;
        }
        if shape.iter().any(|&k| k > u16::MAX as u32) {
            return Err(ConfigError::new("topology.shape", format!("{shape:?} has an axis longer than {}", u16::MAX)));
        }
        let dims = shape.len();
        let mut table = Vec::with_capacity(nodes as usize * dims);
        for n in 0..nodes {
            for a in 0..dims {
                table.push(((n / strides[a]) % shape[a]) as u16);
            }
        }
        Ok(Torus { shape, wrap, names, strides, axis_ports, net_ports: p, nodes, coord_table: table.into() })
    }

    /// The axis names of a torus of `dims` axes that names none: `d0`, `d1`, ...
    pub fn default_names(dims: usize) -> Vec<String> {
        (0..dims).map(|i| format!("d{i}")).collect()
    }

    /// Length of each axis.
    pub fn shape(&self) -> &[u32] {
        &self.shape
    }
    /// Per axis, whether it wraps around (a ring) rather than ending (a line of a mesh).
    pub fn wrap(&self) -> &[bool] {
        &self.wrap
    }
    /// Name of each axis, as scenarios refer to it.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Number of axes.
    pub fn dims(&self) -> usize {
        self.shape.len()
    }
    /// Number of nodes (the product of the axis lengths), also the number of routers.
    pub fn nodes(&self) -> u32 {
        self.nodes
    }
    /// Network ports per router (terminal ports excluded).
    pub fn net_ports(&self) -> u32 {
        self.net_ports
    }
    /// Where the network ports of `axis` sit among a router's local ports.
    pub fn axis_ports(&self, axis: usize) -> AxisPorts {
        self.axis_ports[axis]
    }
    /// Whether the axis behaves as a ring (wrap and length >= 2).
    pub fn is_ring(&self, axis: usize) -> bool {
        self.wrap[axis] && self.shape[axis] >= 2
    }

    /// Index of the axis named `name`.
    pub fn axis_index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Coordinate of `node` along `axis`.
    #[inline]
    pub fn coord(&self, node: NodeId, axis: usize) -> u32 {
        self.coord_table[node.index() * self.shape.len() + axis] as u32
    }

    /// The coordinates of `node`, one per axis, straight from the coordinate table.
    #[inline]
    pub fn coord_row(&self, node: NodeId) -> &[u16] {
        let d = self.shape.len();
        &self.coord_table[node.index() * d..][..d]
    }

    /// All coordinates of `node`, one per axis.
    pub fn coords(&self, node: NodeId) -> Vec<u32> {
        (0..self.dims()).map(|a| self.coord(node, a)).collect()
    }

    /// Node at `coords`, or an error naming the bad coordinate.
    pub fn node_at(&self, coords: &[u32]) -> Result<NodeId, String> {
        if coords.len() != self.dims() {
            return Err(format!("{coords:?} has {} coordinates but the shape has {} axes", coords.len(), self.dims()));
        }
        let mut id = 0;
        for (a, &c) in coords.iter().enumerate() {
            if c >= self.shape[a] {
                return Err(format!("{coords:?}: coordinate {c} on axis {} is outside 0..{}", self.names[a], self.shape[a]));
            }
            id += c * self.strides[a];
        }
        Ok(NodeId(id))
    }

    /// How far apart in node id two nodes one step apart along `axis` are.
    #[inline]
    pub fn stride(&self, axis: usize) -> u32 {
        self.strides[axis]
    }

    /// Node reached by moving `delta` (+1 or -1) along `axis`, if that link exists.
    #[inline]
    pub fn step(&self, node: NodeId, axis: usize, delta: i32) -> Option<NodeId> {
        let k = self.shape[axis];
        let c = self.coord(node, axis);
        let nc = if delta > 0 {
            if c + 1 < k {
                c + 1
            } else if self.wrap[axis] && k >= 2 {
                0
            } else {
                return None;
            }
        } else if c > 0 {
            c - 1
        } else if self.wrap[axis] && k >= 2 {
            k - 1
        } else {
            return None;
        };
        Some(NodeId(node.0 - c * self.strides[axis] + nc * self.strides[axis]))
    }

    /// Signed minimal offset from `a` to `b` along `axis`. On a ring, a tie between the two
    /// directions (offset exactly half the ring) resolves to the positive direction here (the
    /// magnitude is what callers use; dimension-order routing splits such ties by parity).
    #[inline]
    pub fn offset(&self, a: NodeId, b: NodeId, axis: usize) -> i32 {
        let k = self.shape[axis] as i32;
        let d = self.coord(b, axis) as i32 - self.coord(a, axis) as i32;
        if !self.wrap[axis] || k < 3 {
            // mesh, or a 2-ring where both ways are one hop: positive when b is "after" a.
            if self.wrap[axis] && k == 2 && d != 0 {
                return 1;
            }
            return d;
        }
        // |d| < k, so one conditional add gives d mod k (no division on the routing path).
        let fwd = if d < 0 { d + k } else { d };
        let back = fwd - k;
        if fwd <= -back {
            fwd
        } else {
            back
        }
    }

    /// Minimal hop distance.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        (0..self.dims()).map(|ax| self.offset(a, b, ax).unsigned_abs()).sum()
    }

    /// Local port used to leave along `axis` in direction `delta` (+1/-1) from a node whose
    /// coordinate on that axis is `c`. For a length-2 mesh axis the single port serves both.
    #[inline]
    pub fn port_for(&self, axis: usize, delta: i32) -> u32 {
        let ap = self.axis_ports[axis];
        if ap.count == 1 || delta > 0 {
            ap.first
        } else {
            ap.first + 1
        }
    }

    /// (axis, direction) of a local network port. Direction of the single port of a length-2
    /// mesh axis is reported as +1.
    pub fn port_axis(&self, port: u32) -> Option<(usize, i32)> {
        self.axis_ports
            .iter()
            .enumerate()
            .find_map(|(a, ap)| (port >= ap.first && port < ap.first + ap.count).then_some((a, if port == ap.first { 1 } else { -1 })))
    }

    /// Does leaving `node` along `axis` in direction `delta` cross the ring's dateline (the wrap
    /// link between coordinate k-1 and 0)?
    #[inline]
    pub fn crosses_dateline(&self, node: NodeId, axis: usize, delta: i32) -> bool {
        if !self.wrap[axis] {
            return false;
        }
        let c = self.coord(node, axis);
        let k = self.shape[axis];
        (delta > 0 && c == k - 1) || (delta < 0 && c == 0)
    }

    /// The router a node sits on: a torus has one router per node, with the same number.
    #[inline(always)]
    pub const fn router_of(node: NodeId) -> RouterId {
        RouterId(node.0)
    }

    /// The node on a router (the inverse of [`Torus::router_of`]).
    #[inline(always)]
    pub const fn node_on(router: RouterId) -> NodeId {
        NodeId(router.0)
    }

    /// The port graph with `engines` terminal ports per router, after its network ports: router
    /// `r` carries node `r`, and engine `e` of a node attaches to local port
    /// [`net_ports`](Self::net_ports)`() + e`. Mesh edge ports are unconnected.
    pub fn build_graph(&self, engines: u32) -> PortGraph {
        let n = self.nodes;
        let ppr = self.net_ports + engines;
        let mut g = PortGraph::with_uniform_ports(n, n, ppr, engines);
        for id in 0..n {
            let (node, router) = (NodeId(id), Torus::router_of(NodeId(id)));
            for (axis, ap) in self.axis_ports.iter().enumerate() {
                for j in 0..ap.count {
                    let local = ap.first + j;
                    let delta = if j == 0 { 1 } else { -1 };
                    let target = if ap.count == 1 {
                        // length-2 mesh: the single port goes to the other coordinate.
                        let c = self.coord(node, axis);
                        Some(NodeId(if c == 0 { id + self.strides[axis] } else { id - self.strides[axis] }))
                    } else {
                        self.step(node, axis, delta)
                    };
                    let gp = g.port(router, local);
                    match target {
                        Some(t) => {
                            // Arrive on the peer's port of the opposite direction.
                            let back = if ap.count == 1 { ap.first } else { ap.first + 1 - j };
                            g.peer[gp.index()] = g.port(Torus::router_of(t), back).0;
                            g.kind[gp.index()] = PortKind::Network;
                        }
                        None => {
                            g.peer[gp.index()] = UNCONNECTED;
                            g.kind[gp.index()] = PortKind::Unconnected;
                        }
                    }
                }
            }
            for e in 0..engines {
                let gp = g.port(router, self.net_ports + e);
                g.kind[gp.index()] = PortKind::Terminal;
                g.peer[gp.index()] = id;
                g.attach[(id * engines + e) as usize] = gp;
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(shape: &[u32], wrap: &[bool]) -> Torus {
        Torus::new(shape.to_vec(), Some(wrap.to_vec()), None).unwrap()
    }

    #[test]
    fn ports_follow_the_shape() {
        let k = t(&[24, 18, 16, 2, 3, 2], &[true, false, true, false, true, false]);
        assert_eq!(k.net_ports(), 10);
        let bgq = t(&[4, 4, 4, 4, 2], &[true; 5]);
        assert_eq!(bgq.net_ports(), 10);
        assert_eq!(t(&[1, 5], &[true, true]).net_ports(), 2);
    }

    #[test]
    fn offsets_take_the_short_way_and_break_ties_positive() {
        let r = t(&[8], &[true]);
        assert_eq!(r.offset(NodeId(0), NodeId(3), 0), 3);
        assert_eq!(r.offset(NodeId(0), NodeId(5), 0), -3);
        assert_eq!(r.offset(NodeId(0), NodeId(4), 0), 4);
        assert_eq!(r.offset(NodeId(6), NodeId(2), 0), 4);
        let m = t(&[8], &[false]);
        assert_eq!(m.offset(NodeId(7), NodeId(0), 0), -7);
        let two = t(&[2], &[true]);
        assert_eq!(two.offset(NodeId(1), NodeId(0), 0), 1);
        assert_eq!(two.offset(NodeId(0), NodeId(1), 0), 1);
    }

    #[test]
    fn graph_links_are_symmetric() {
        for (shape, wrap) in [(vec![4, 3, 2], vec![true, false, false]), (vec![2, 2, 5], vec![true, false, true]), (vec![3, 3], vec![false, true])] {
            let tor = t(&shape, &wrap);
            let g = tor.build_graph(2);
            for p in 0..g.total_ports() {
                if g.kind[p as usize] == PortKind::Network {
                    let q = g.peer[p as usize];
                    assert_eq!(g.peer[q as usize], p, "shape {shape:?} port {p}");
                    assert_eq!(g.kind[q as usize], PortKind::Network);
                }
            }
        }
    }

    #[test]
    fn bad_shapes_name_the_field() {
        assert_eq!(Torus::new(vec![4, 0], None, None).unwrap_err().field, "topology.shape");
        assert_eq!(Torus::new(vec![4, 4], Some(vec![true]), None).unwrap_err().field, "topology.wrap");
        let e = Torus::new(vec![4, 4], None, Some(vec!["X".into(), "X".into()])).unwrap_err();
        assert_eq!(e.field, "topology.axes");
    }
}

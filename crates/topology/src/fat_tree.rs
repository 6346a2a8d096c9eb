//! Fat-trees as extended generalized fat-trees (XGFT), with optional multi-rail planes.
//!
//! A tree of `h` switch levels is given by `children[i]` (down ports of a level-`i+1` switch) and
//! `parents[i]` (up links of a level-`i` element, nodes being level 0). A k-ary n-tree of radix
//! `R = 2k` switches has `children = [k; n]`, `parents = [1, k, ..., k]`, so `k^n` nodes and
//! `n k^(n-1)` switches. With `full_radix_top` the top switches use all `R` ports downwards
//! (`children[n-1] = 2k`), doubling the node count with the same switch chip: a 3-level tree of
//! 16-port switches then holds 1024 nodes, as in the Dawning 5000 prototype.
//!
//! `rails` identical planes are built side by side; every node attaches to each plane once.
//!
//! Labels: an element at level `i` has index `a + A_i * b` where `a` (mixed radix over
//! `children[i..]`) says which subtree it serves and `b` (mixed radix over `parents[..i]`) which
//! of the equivalent copies it is. A node's index is its `a`.

use crate::graph::{PortGraph, PortKind};
use fabricsim_core::{ConfigError, NodeId, PortId, RouterId};

/// A fat-tree shape (see the module docs): switch radix, levels, rails and the derived counts.
/// Router ids number the switches rail by rail, and within a rail level by level from the leaves.
#[derive(Debug, Clone)]
pub struct FatTree {
    radix: u32,
    levels: u32,
    rails: u32,
    children: Vec<u32>,
    parents: Vec<u32>,
    /// Elements per level (index 0 = nodes) within one rail.
    count: Vec<u32>,
    /// First router id of each switch level (1..=h) within rail 0; index 0 unused.
    level_base: Vec<u32>,
    switches_per_rail: u32,
    nodes: u32,
}

impl FatTree {
    /// A k-ary n-tree of `levels` levels of `radix`-port switches, repeated over `rails` planes;
    /// `full_radix_top` gives the top switches all `radix` ports downwards (see the module docs).
    /// Fails if `radix` is odd or below 2, `levels` is not in 1..=8, `rails` not in 1..=16, or
    /// the tree would have too many nodes.
    pub fn new(radix: u32, levels: u32, rails: u32, full_radix_top: bool) -> Result<Self, ConfigError> {
        if radix < 2 || !radix.is_multiple_of(2) {
            return Err(ConfigError::new("topology.radix", format!("{radix} must be an even number >= 2")));
        }
        if levels == 0 || levels > 8 {
            return Err(ConfigError::new("topology.levels", format!("{levels} must be between 1 and 8")));
        }
        if rails == 0 || rails > 16 {
            return Err(ConfigError::new("topology.rails", format!("{rails} must be between 1 and 16")));
        }
        let k = radix / 2;
        let h = levels as usize;
        let mut children = vec![k; h];
        if full_radix_top || h == 1 {
            children[h - 1] = radix;
        }
        let mut parents = vec![k; h];
        parents[0] = 1;
        let nodes64: u64 = children.iter().map(|&c| c as u64).product();
        if nodes64 > (u32::MAX / 4) as u64 {
            return Err(ConfigError::new("topology.levels", format!("{levels} levels of radix {radix} is too many nodes")));
        }
        let mut count = Vec::with_capacity(h + 1);
        for i in 0..=h {
            let a: u32 = children[i..].iter().product();
            let b: u32 = parents[..i].iter().product();
            count.push(a * b);
        }
        let mut level_base = vec![0; h + 1];
        let mut base = 0;
        for i in 1..=h {
            level_base[i] = base;
            base += count[i];
        }
        Ok(FatTree { radix, levels, rails, children, parents, count, level_base, switches_per_rail: base, nodes: nodes64 as u32 })
    }

    /// Ports per switch.
    pub fn radix(&self) -> u32 {
        self.radix
    }
    /// Switch levels `h` (1 = the leaf switches nodes attach to).
    pub fn levels(&self) -> u32 {
        self.levels
    }
    /// Number of identical planes; each node has one NIC attachment per rail.
    pub fn rails(&self) -> u32 {
        self.rails
    }
    /// Number of nodes (the same in every rail).
    pub fn nodes(&self) -> u32 {
        self.nodes
    }
    /// Number of switches over all rails (the router count).
    pub fn switches(&self) -> u32 {
        self.switches_per_rail * self.rails
    }
    /// `children[i]`: down ports used by a switch of level `i + 1`, one entry per level.
    pub fn children(&self) -> &[u32] {
        &self.children
    }
    /// `parents[i]`: up links of an element of level `i` (nodes being level 0, whose entry is 1).
    pub fn parents(&self) -> &[u32] {
        &self.parents
    }
    /// Elements at a level (0 = nodes) in one rail.
    pub fn level_count(&self, level: usize) -> u32 {
        self.count[level]
    }

    /// Router id of the switch at `level` (1-based), index `idx`, in `rail`.
    #[inline]
    pub fn router(&self, rail: u32, level: usize, idx: u32) -> RouterId {
        RouterId(rail * self.switches_per_rail + self.level_base[level] + idx)
    }

    /// (rail, level, index) of a router id.
    #[inline]
    pub fn locate(&self, router: RouterId) -> (u32, usize, u32) {
        let rail = router.0 / self.switches_per_rail;
        let r = router.0 % self.switches_per_rail;
        let mut level = self.levels as usize;
        while self.level_base[level] > r {
            level -= 1;
        }
        (rail, level, r - self.level_base[level])
    }

    /// Number of nodes below one switch of `level`.
    #[inline]
    pub fn span(&self, level: usize) -> u32 {
        self.children[..level].iter().product()
    }

    /// Digit `i` (1-based level) of a node's subtree address.
    #[inline]
    pub fn digit(&self, node: NodeId, level: usize) -> u32 {
        (node.0 / self.span(level - 1)) % self.children[level - 1]
    }

    /// Highest level at which the addresses of `a` and `b` differ (0 if equal).
    pub fn lca_level(&self, a: NodeId, b: NodeId) -> usize {
        (1..=self.levels as usize).rev().find(|&l| self.digit(a, l) != self.digit(b, l)).unwrap_or(0)
    }

    /// Hops between nodes, counting both NIC links.
    pub fn distance(&self, a: NodeId, b: NodeId) -> u32 {
        2 * self.lca_level(a, b) as u32
    }

    /// Does the switch (level, idx) have `node` below it?
    #[inline]
    pub fn covers(&self, level: usize, idx: u32, node: NodeId) -> bool {
        let a_count: u32 = self.count[level] / self.parents[..level].iter().product::<u32>();
        let a = idx % a_count;
        node.0 / self.span(level) == a
    }

    /// Local port of the up link `j` of a switch at `level`.
    #[inline]
    pub fn up_port(&self, level: usize, j: u32) -> u32 {
        self.children[level - 1] + j
    }

    /// Up links of an element at `level` (switch levels 1..h; 0 above the top).
    pub fn ups(&self, level: usize) -> u32 {
        if level < self.levels as usize {
            self.parents[level]
        } else {
            0
        }
    }

    /// The port graph: every switch has `radix` ports, down ports first (local `0..children`,
    /// port `d` leading to the child with subtree digit `d`), then up ports
    /// ([`up_port`](Self::up_port)); each node's engine `e` attaches to a leaf switch of rail `e`.
    /// Unused ports are unconnected.
    pub fn build_graph(&self) -> PortGraph {
        let routers = self.switches();
        let mut g = PortGraph::with_uniform_ports(routers, self.nodes, self.radix, self.rails);
        let h = self.levels as usize;
        for rail in 0..self.rails {
            // Nodes to leaf switches.
            let m1 = self.children[0];
            for node in 0..self.nodes {
                let leaf = self.router(rail, 1, node / m1);
                let gp = g.port(leaf, node % m1);
                g.kind[gp.index()] = PortKind::Terminal;
                g.peer[gp.index()] = node;
                g.attach[(node * self.rails + rail) as usize] = gp;
            }
            // Switch level i-1 to level i, for i in 2..=h.
            for i in 2..=h {
                let lower_a = self.count[i - 1] / self.parents[..i - 1].iter().product::<u32>();
                let upper_a = self.count[i] / self.parents[..i].iter().product::<u32>();
                for idx in 0..self.count[i - 1] {
                    let (a, b) = (idx % lower_a, idx / lower_a);
                    let digit = a % self.children[i - 1];
                    let pa = a / self.children[i - 1];
                    let lower_bcount: u32 = self.parents[..i - 1].iter().product();
                    for j in 0..self.parents[i - 1] {
                        let pb = b + lower_bcount * j;
                        let parent = self.router(rail, i, pa + upper_a * pb);
                        let child = self.router(rail, i - 1, idx);
                        let up: PortId = g.port(child, self.up_port(i - 1, j));
                        let down: PortId = g.port(parent, digit);
                        g.kind[up.index()] = PortKind::Network;
                        g.kind[down.index()] = PortKind::Network;
                        g.peer[up.index()] = down.0;
                        g.peer[down.index()] = up.0;
                    }
                }
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_ary_n_tree_counts() {
        let f = FatTree::new(8, 3, 1, false).unwrap();
        assert_eq!(f.nodes(), 64);
        assert_eq!(f.switches(), 3 * 16);
        let g = f.build_graph();
        assert_eq!(g.terminal_links(), 64);
        assert_eq!(g.network_links(), 2 * 64);
    }

    #[test]
    fn dawning_shape_has_1024_nodes_per_rail() {
        let f = FatTree::new(16, 3, 4, true).unwrap();
        assert_eq!(f.nodes(), 1024);
        assert_eq!(f.switches(), 4 * (128 + 128 + 64));
        let g = f.build_graph();
        assert_eq!(g.terminal_links(), 4 * 1024);
        for p in 0..g.total_ports() as usize {
            if g.kind[p] == PortKind::Network {
                assert_eq!(g.peer[g.peer[p] as usize] as usize, p);
            }
        }
    }

    #[test]
    fn locate_inverts_router() {
        let f = FatTree::new(4, 3, 2, false).unwrap();
        for r in 0..f.switches() {
            let (rail, level, idx) = f.locate(RouterId(r));
            assert_eq!(f.router(rail, level, idx), RouterId(r));
        }
    }

    #[test]
    fn distances() {
        let f = FatTree::new(4, 3, 1, false).unwrap();
        assert_eq!(f.distance(NodeId(0), NodeId(1)), 2);
        assert_eq!(f.distance(NodeId(0), NodeId(2)), 4);
        assert_eq!(f.distance(NodeId(0), NodeId(7)), 6);
        assert_eq!(f.distance(NodeId(5), NodeId(5)), 0);
    }

    #[test]
    fn rejects_odd_radix() {
        assert_eq!(FatTree::new(7, 2, 1, false).unwrap_err().field, "topology.radix");
    }
}

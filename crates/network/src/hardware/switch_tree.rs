//! A tree of switches over a set of nodes on one fat-tree plane: Dawning's barrier trees and
//! multicast trees.
//!
//! Its root is a switch of the lowest level with every member below it (the members' leaf
//! switch when they share one; otherwise one of the equivalent switches of that level). Its
//! branches are the down paths from the root to the members, unique in a k-ary n-tree: each
//! switch on them is an element whose children are the switches (or member nodes) its down
//! ports lead to on those paths.

use fabricsim_core::{NodeId, RouterId};
use fabricsim_topology::{FatTree, PortGraph, PortKind};
use std::collections::HashMap;

/// Where an element of the tree is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A switch (the root or an inner element).
    Switch(RouterId),
    /// A member's node (its NIC's barrier logic).
    Node(NodeId),
}

/// One element of a tree.
#[derive(Debug, Clone)]
pub struct Element {
    /// Where it is.
    pub at: At,
    /// Its parent element (`usize::MAX`: the root).
    pub parent: usize,
    /// A switch's global output port toward its parent (unused for a node: its NIC sends on the
    /// plane's engine, and for the root).
    pub up_port: u32,
    /// Its children: (element, this switch's global output port toward it).
    pub children: Vec<(usize, u32)>,
}

/// A tree of switches.
#[derive(Debug, Clone)]
pub struct SwitchTree {
    /// Its elements; [`Element::parent`] and [`Element::children`] index into it.
    pub elements: Vec<Element>,
    /// Index of the root element in `elements`.
    pub root: usize,
    /// The root's level (1: the members' leaf switch).
    pub root_level: usize,
}

impl SwitchTree {
    /// The tree of member `nodes` (distinct) on `rail`, rooted at the `pick`-th (mod their
    /// number) of the lowest switches that have them all below.
    pub fn build(f: &FatTree, g: &PortGraph, rail: u32, nodes: &[u32], pick: u32) -> Result<SwitchTree, String> {
        let roots = Self::roots(f, rail, nodes)?;
        Self::from_root(f, g, roots[pick as usize % roots.len()], nodes)
    }

    /// The lowest switches of `rail` that have every one of `nodes` below them (equivalent
    /// roots: one in each copy of that level's subtree).
    pub fn roots(f: &FatTree, rail: u32, nodes: &[u32]) -> Result<Vec<RouterId>, String> {
        let first = *nodes.first().ok_or("a switch tree needs at least one member")?;
        let levels = f.levels() as usize;
        let level = (1..=levels).find(|&l| nodes.iter().all(|&n| n / f.span(l) == first / f.span(l))).unwrap_or(levels);
        let copies: u32 = f.parents()[..level].iter().product();
        let a_count = f.level_count(level) / copies;
        Ok((0..copies).map(|b| f.router(rail, level, first / f.span(level) + a_count * b)).collect())
    }

    /// The tree of member `nodes` (distinct) rooted at switch `root_router`, which has them all
    /// below it.
    pub fn from_root(f: &FatTree, g: &PortGraph, root_router: RouterId, nodes: &[u32]) -> Result<SwitchTree, String> {
        let (_, level, idx) = f.locate(root_router);
        if let Some(n) = nodes.iter().find(|&&n| !f.covers(level, idx, NodeId(n))) {
            return Err(format!("node {n} is not below switch {}", root_router.0));
        }
        let mut elements = vec![Element { at: At::Switch(root_router), parent: usize::MAX, up_port: u32::MAX, children: Vec::new() }];
        let mut of_router: HashMap<u32, usize> = HashMap::from([(root_router.0, 0)]);
        let mut seen = std::collections::HashSet::new();
        for &n in nodes {
            if !seen.insert(n) {
                return Err(format!("node {n} holds two members: a switch tree takes one rank per node"));
            }
            let (mut cur, mut router) = (0usize, root_router);
            for l in (1..=level).rev() {
                let port = g.port(router, f.digit(NodeId(n), l));
                let child = if l == 1 {
                    debug_assert_eq!(g.kind[port.index()], PortKind::Terminal);
                    elements.push(Element { at: At::Node(NodeId(n)), parent: cur, up_port: u32::MAX, children: Vec::new() });
                    elements.len() - 1
                } else {
                    let peer = g.peer_port(port);
                    router = g.owner[peer.index()];
                    match of_router.get(&router.0) {
                        Some(&e) => e,
                        None => {
                            elements.push(Element { at: At::Switch(router), parent: cur, up_port: peer.0, children: Vec::new() });
                            of_router.insert(router.0, elements.len() - 1);
                            elements.len() - 1
                        }
                    }
                };
                if !elements[cur].children.iter().any(|&(c, _)| c == child) {
                    elements[cur].children.push((child, port.0));
                }
                cur = child;
            }
        }
        Ok(SwitchTree { elements, root: 0, root_level: level })
    }

    /// The tree's switches and their elements.
    pub fn switch_elements(&self) -> impl Iterator<Item = (RouterId, &Element)> {
        self.elements.iter().filter_map(|e| if let At::Switch(r) = e.at { Some((r, e)) } else { None })
    }

    /// Switches in the tree.
    pub fn switches(&self) -> usize {
        self.switch_elements().count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dawning() -> (FatTree, PortGraph) {
        let f = FatTree::new(16, 3, 4, true).unwrap();
        let g = f.build_graph();
        (f, g)
    }

    #[test]
    fn members_of_one_leaf_switch_make_a_one_switch_tree() {
        let (f, g) = dawning();
        let t = SwitchTree::build(&f, &g, 0, &[0, 1, 2, 3, 4, 5, 6, 7], 0).unwrap();
        assert_eq!(t.root_level, 1);
        assert_eq!(t.switches(), 1);
        assert_eq!(t.elements[t.root].children.len(), 8);
        for &(c, port) in &t.elements[t.root].children {
            let At::Node(n) = t.elements[c].at else { panic!("a leaf switch's children are nodes") };
            assert_eq!(g.terminal_node(fabricsim_core::PortId(port)), Some(n));
        }
    }

    #[test]
    fn whole_machine_tree_reaches_every_member_through_linked_ports() {
        let (f, g) = dawning();
        let nodes: Vec<u32> = (0..1024).collect();
        for rail in [0, 3] {
            let t = SwitchTree::build(&f, &g, rail, &nodes, 5).unwrap();
            assert_eq!(t.root_level, 3);
            // 1 top switch, 16 middle switches (one per 64-node subtree), 128 leaf switches.
            assert_eq!(t.switches(), 1 + 16 + 128);
            let mut members = 0;
            for (i, e) in t.elements.iter().enumerate() {
                for &(c, port) in &e.children {
                    assert_eq!(t.elements[c].parent, i);
                    match t.elements[c].at {
                        At::Node(n) => {
                            members += 1;
                            assert_eq!(g.terminal_node(fabricsim_core::PortId(port)), Some(n));
                        }
                        At::Switch(r) => {
                            // The child's up port and the parent's down port are the two ends of one link.
                            assert_eq!(g.peer[port as usize], t.elements[c].up_port);
                            assert_eq!(g.owner[t.elements[c].up_port as usize], r);
                        }
                    }
                }
                if let At::Switch(r) = e.at {
                    assert_eq!(f.locate(r).0, rail);
                }
            }
            assert_eq!(members, 1024);
        }
    }

    #[test]
    fn a_shared_node_is_refused() {
        let (f, g) = dawning();
        assert!(SwitchTree::build(&f, &g, 0, &[3, 9, 3], 0).unwrap_err().contains("node 3"));
    }
}

//! Greedy graph growing: rank 0 goes to node 0; then, again and again, the unplaced rank with the
//! most bytes to ranks already placed goes to the free node, among the nearest free nodes to its
//! heaviest placed partner (found by a breadth-first search over links), that costs the least
//! hop-bytes to its placed partners. A rank with no placed partner (a new component of the
//! pattern) starts next to the last rank placed.

use super::Mapped;
use crate::{cost, Pattern};
use fabricsim_core::NodeId;
use fabricsim_topology::Topology;
use std::collections::{BinaryHeap, VecDeque};

/// Free nodes weighed for each rank.
const CANDIDATES: usize = 16;
const FREE: u32 = u32::MAX;

/// The nodes one link from `n` (torus; a fat-tree counts every node as near).
fn near(topo: &Topology, n: NodeId, out: &mut Vec<NodeId>) {
    out.clear();
    match topo {
        Topology::Torus(t) => {
            for a in 0..t.dims() {
                for d in [1, -1] {
                    if let Some(m) = t.step(n, a, d) {
                        out.push(m);
                    }
                }
            }
        }
        Topology::FatTree(f) => out.extend((0..f.nodes()).map(NodeId)),
    }
}

/// The greedy map of `pattern` on `topo` (ranks at most nodes).
pub fn greedy(topo: &Topology, pattern: &Pattern) -> Mapped {
    let nb = pattern.neighbours();
    let ranks = pattern.ranks() as usize;
    let nodes = topo.nodes() as usize;
    let mut node_of = vec![FREE; ranks];
    let mut held = vec![false; nodes];
    let mut bound = vec![0u64; ranks];
    let mut heap: BinaryHeap<(u64, std::cmp::Reverse<u32>)> = BinaryHeap::new();
    let mut seen = vec![0u32; nodes];
    let mut epoch = 0u32;
    let mut queue = VecDeque::new();
    let mut adj = Vec::new();
    let mut free = Vec::with_capacity(CANDIDATES);
    let (mut last, mut next_start) = (NodeId(0), 0usize);
    for _ in 0..ranks {
        // The next rank: the most bound unplaced one, or the lowest unplaced.
        let r = loop {
            match heap.pop() {
                Some((w, std::cmp::Reverse(r))) if node_of[r as usize] == FREE && bound[r as usize] == w => break r as usize,
                Some(_) => continue,
                None => {
                    while node_of[next_start] != FREE {
                        next_start += 1;
                    }
                    break next_start;
                }
            }
        };
        // Where to search from: the heaviest placed partner's node, or the last placed.
        let from = nb
            .of(r as u32)
            .iter()
            .filter(|(x, _)| node_of[*x as usize] != FREE)
            .max_by_key(|(_, w)| *w)
            .map_or(last, |(x, _)| NodeId(node_of[*x as usize]));
        epoch += 1;
        free.clear();
        queue.clear();
        queue.push_back(from);
        seen[from.index()] = epoch;
        while let Some(n) = queue.pop_front() {
            if !held[n.index()] {
                free.push(n);
                if free.len() == CANDIDATES {
                    break;
                }
            }
            near(topo, n, &mut adj);
            for &m in &adj {
                if seen[m.index()] != epoch {
                    seen[m.index()] = epoch;
                    queue.push_back(m);
                }
            }
        }
        if free.is_empty() {
            // Disconnected leftovers: the lowest free node.
            free.push(NodeId(held.iter().position(|h| !h).expect("ranks fit the nodes") as u32));
        }
        let cost = |n: NodeId| -> u64 {
            nb.of(r as u32)
                .iter()
                .filter(|(x, _)| node_of[*x as usize] != FREE)
                .map(|&(x, w)| w * topo.distance(n, NodeId(node_of[x as usize])) as u64)
                .sum()
        };
        let best = free.iter().copied().min_by_key(|&n| (cost(n), n.0)).expect("a free node");
        node_of[r] = best.0;
        held[best.index()] = true;
        last = best;
        for &(x, w) in nb.of(r as u32) {
            if node_of[x as usize] == FREE {
                bound[x as usize] += w;
                heap.push((bound[x as usize], std::cmp::Reverse(x)));
            }
        }
    }
    let map: Vec<NodeId> = node_of.into_iter().map(NodeId).collect();
    Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail: format!("graph growing, {CANDIDATES} candidate nodes per rank") }
}

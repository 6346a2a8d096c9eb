//! Channel-dependency graph check (Dally and Seitz): a routing with its VC scheme is free of
//! routing deadlock if the graph whose vertices are (port, VC) channels, with an edge from each
//! channel to every channel a packet holding it may request next, has no cycle.

use crate::{Candidates, Routing};
use fabricsim_core::NodeId;
use fabricsim_topology::{PortGraph, PortKind};
use std::collections::{HashMap, HashSet};

/// Build the dependency graph over all (src, dst) pairs given, following **every** candidate,
/// and return a cycle if one exists.
pub fn find_cycle(graph: &PortGraph, routing: &Routing, pairs: &[(NodeId, NodeId)]) -> Option<Vec<(u32, u8)>> {
    let mut edges: HashMap<(u32, u8), HashSet<(u32, u8)>> = HashMap::new();
    let mut cands = Candidates::default();
    for &(src, dst) in pairs {
        if src == dst {
            continue;
        }
        // Explore all candidate branches from the injection channel.
        let start = graph.attach[(src * graph.engines) as usize];
        let mut stack = vec![(start, routing.injection_vc(), None::<(u32, u8)>)];
        let mut seen = HashSet::new();
        while let Some((in_port, vc, from)) = stack.pop() {
            if !seen.insert((in_port, vc, from)) {
                continue;
            }
            let router = graph.owner[in_port as usize];
            routing.route(router, graph.local(in_port), vc, dst, &mut cands);
            for h in cands.as_slice() {
                let out = graph.port(router, h.port);
                let ch = (out, h.vc);
                if let Some(f) = from {
                    edges.entry(f).or_default().insert(ch);
                }
                if graph.kind[out as usize] == PortKind::Network {
                    stack.push((graph.peer[out as usize], h.vc, Some(ch)));
                }
            }
        }
    }
    // Iterative DFS with colours.
    type Channel = (u32, u8);
    let mut colour: HashMap<(u32, u8), u8> = HashMap::new();
    let verts: Vec<(u32, u8)> = edges.keys().copied().collect();
    for v in verts {
        if colour.get(&v).copied().unwrap_or(0) != 0 {
            continue;
        }
        // Each entry: a channel (port, VC) and the successors still to visit.
        let mut stack: Vec<(Channel, Vec<Channel>)> = vec![(v, edges[&v].iter().copied().collect())];
        colour.insert(v, 1);
        while let Some((node, next)) = stack.last_mut() {
            if let Some(w) = next.pop() {
                match colour.get(&w).copied().unwrap_or(0) {
                    0 => {
                        colour.insert(w, 1);
                        let succ = edges.get(&w).map(|s| s.iter().copied().collect()).unwrap_or_default();
                        stack.push((w, succ));
                    }
                    1 => {
                        let mut cycle: Vec<(u32, u8)> = stack.iter().map(|(n, _)| *n).collect();
                        let pos = cycle.iter().position(|&n| n == w).unwrap_or(0);
                        cycle.drain(..pos);
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                colour.insert(*node, 2);
                stack.pop();
            }
        }
    }
    None
}

//! Channel-dependency graph check (Dally and Seitz): a routing with its VC scheme is free of
//! routing deadlock if the graph whose vertices are (port, VC) channels, with an edge from each
//! channel to every channel a packet holding it may request next, has no cycle.

use crate::{Candidates, Header, Routing};
use fabricsim_core::{NodeId, PortId};
use fabricsim_topology::{PortGraph, PortKind};
use std::collections::{HashMap, HashSet};

/// Build the dependency graph over all (src, dst) pairs given, following **every** candidate,
/// and return a cycle if one exists. A deterministic routing must pass this.
pub fn find_cycle(graph: &PortGraph, routing: &Routing, pairs: &[(NodeId, NodeId)]) -> Option<Vec<Channel>> {
    cycle_in(&dependencies(graph, routing, pairs, false, None))
}

/// [`find_cycle`] for the routes around the links `dead` names (a router and its local port;
/// see [`Routing::route_around`]). Pairs with no live route add the dependencies of the way
/// they get before they are stopped.
pub fn find_cycle_around(graph: &PortGraph, routing: &Routing, pairs: &[(NodeId, NodeId)], dead: crate::detour::Dead) -> Option<Vec<Channel>> {
    cycle_in(&dependencies(graph, routing, pairs, false, Some(dead)))
}

/// The check escape-channel theory (Duato) asks of an adaptive routing: the *extended*
/// dependency graph of its escape sub-network is acyclic. Its vertices are escape channels; an
/// edge goes from an escape channel to each escape channel a packet holding it may request
/// next, directly or after any number of adaptive hops (adaptive channels may be held in
/// between). A routing whose hops are all escape hops gets the plain check.
pub fn find_escape_cycle(graph: &PortGraph, routing: &Routing, pairs: &[(NodeId, NodeId)]) -> Option<Vec<Channel>> {
    cycle_in(&dependencies(graph, routing, pairs, true, None))
}

/// A channel: a global output port and a VC on it.
pub type Channel = (PortId, u8);

/// Channel dependencies of the routes between `pairs`, following every candidate. With
/// `escape_only`, vertices are escape channels and a dependency runs from the last escape
/// channel held across adaptive hops. With `dead`, the routes go around the links it names.
fn dependencies(
    graph: &PortGraph,
    routing: &Routing,
    pairs: &[(NodeId, NodeId)],
    escape_only: bool,
    dead: Option<crate::detour::Dead>,
) -> HashMap<Channel, HashSet<Channel>> {
    let mut edges: HashMap<Channel, HashSet<Channel>> = HashMap::new();
    let mut cands = Candidates::default();
    for &(src, dst) in pairs {
        if src == dst {
            continue;
        }
        // Explore all candidate branches from the injection channel: (input port, VC, the
        // channel the dependency runs from, whether the packet is on the escape network).
        let start = graph.attach_of(src, 0);
        let mut stack: Vec<_> = routing.injection_vcs(0).map(|vc| (start, vc, None::<Channel>, false)).collect();
        let mut seen = HashSet::new();
        while let Some((in_port, vc, from, escaped)) = stack.pop() {
            if !seen.insert((in_port, vc, from, escaped)) {
                continue;
            }
            let router = graph.owner[in_port.index()];
            let hdr = Header { escaped, ..Header::new(src, dst) };
            match dead {
                Some(d) => {
                    routing.route_around(router, graph.local(in_port), vc, &hdr, d, &mut cands);
                }
                None => routing.route(router, graph.local(in_port), vc, &hdr, &mut cands),
            }
            for h in cands.as_slice() {
                let out = graph.port(router, h.port);
                let ch = (out, h.vc);
                let counts = !escape_only || h.escape;
                if let (Some(f), true) = (from, counts) {
                    edges.entry(f).or_default().insert(ch);
                }
                if graph.kind[out.index()] == PortKind::Network {
                    let next_from = if counts { Some(ch) } else { from };
                    let next_escaped = escaped || (h.escape && routing.is_adaptive());
                    stack.push((graph.peer_port(out), h.vc, next_from, next_escaped));
                }
            }
        }
    }
    edges
}

/// A cycle of the dependency graph `edges`, if it has one.
fn cycle_in(edges: &HashMap<Channel, HashSet<Channel>>) -> Option<Vec<Channel>> {
    // Iterative DFS with colours.
    let mut colour: HashMap<Channel, u8> = HashMap::new();
    let verts: Vec<Channel> = edges.keys().copied().collect();
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
                        let mut cycle: Vec<Channel> = stack.iter().map(|(n, _)| *n).collect();
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

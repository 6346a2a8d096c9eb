//! Following a route through the port graph, taking the first candidate at each hop. Used by
//! tests, by closed-form latency checks and by the channel-dependency checker.

use crate::{Candidates, Header, Routing};
use fabricsim_core::{NodeId, PortId};
use fabricsim_topology::{PortGraph, PortKind};

/// One channel a packet occupies: the global output port it leaves on and the VC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Channel {
    /// Global id of the output port in the port graph.
    pub port: PortId,
    /// The VC on that port.
    pub vc: u8,
}

/// Route from `src` to `dst` (injection on `src`'s engine 0). Returns the channels traversed,
/// the last one being the ejection port, or an error if the route loops or dead-ends.
pub fn trace(graph: &PortGraph, routing: &Routing, src: NodeId, dst: NodeId) -> Result<Vec<Channel>, String> {
    Ok(trace_with(graph, routing, src, dst, None)?.expect("only a route around dead links can end with no way"))
}

/// [`trace`] around the links `dead` names (see [`Routing::route_around`]): `None` when the
/// routing finds no live way on at some router.
pub fn trace_around(
    graph: &PortGraph,
    routing: &Routing,
    src: NodeId,
    dst: NodeId,
    dead: crate::detour::Dead,
) -> Result<Option<Vec<Channel>>, String> {
    trace_with(graph, routing, src, dst, Some(dead))
}

fn trace_with(
    graph: &PortGraph,
    routing: &Routing,
    src: NodeId,
    dst: NodeId,
    dead: Option<crate::detour::Dead>,
) -> Result<Option<Vec<Channel>>, String> {
    let mut at = graph.attach_of(src, 0);
    let mut vc = routing.injection_vcs(0).start;
    let mut path = Vec::new();
    let mut cands = Candidates::default();
    let limit = graph.routers as usize * 4 + 8;
    loop {
        let router = graph.owner[at.index()];
        let hdr = Header::new(src, dst);
        match dead {
            Some(d) if !routing.route_around(router, graph.local(at), vc, &hdr, d, &mut cands) => return Ok(None),
            Some(_) => {}
            None => routing.route(router, graph.local(at), vc, &hdr, &mut cands),
        }
        let Some(h) = cands.as_slice().first().copied() else {
            return Err(format!("no candidate at router {router} for destination {dst}"));
        };
        let out = graph.port(router, h.port);
        path.push(Channel { port: out, vc: h.vc });
        match graph.kind[out.index()] {
            PortKind::Terminal => {
                let n = graph.terminal_node(out).expect("a terminal port has a node");
                return if n == dst { Ok(Some(path)) } else { Err(format!("ejected at node {n}, wanted {dst}")) };
            }
            PortKind::Unconnected => return Err(format!("routed into unconnected port {out}")),
            PortKind::Network => {
                at = graph.peer_port(out);
                vc = h.vc;
            }
        }
        if path.len() > limit {
            return Err(format!("route from {src} to {dst} does not terminate"));
        }
    }
}

/// Number of links crossed by a traced path, as counted by the topology's distance (terminal
/// links of fat-trees included; a direct network's on-chip ejection excluded).
pub fn link_hops(graph: &PortGraph, path: &[Channel], terminal_links: bool) -> u32 {
    let net = path.iter().filter(|c| graph.kind[c.port.index()] == PortKind::Network).count() as u32;
    if terminal_links {
        net + 2
    } else {
        net
    }
}

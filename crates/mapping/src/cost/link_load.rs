//! Link loads: the bytes every network link carries when each flow follows the machine's own
//! routing through the port graph.
//!
//! Each flow starts at its source's NIC (engine 0, the first injection VC) and asks the routing
//! for its candidates at every router, as a packet would. A deterministic routing (dimension
//! order, with its parity rule for half-ring ties) offers one output port: the flow's bytes all
//! go there. An adaptive routing (or up/down with several up ports) offers several: the bytes
//! are split equally among the distinct output ports offered, hop by hop, so a flow spreads over
//! its minimal paths as a uniformly choosing router would spread it. Fractions that meet again
//! at the same input port and VC are merged, so a flow costs at most the links of its minimal
//! box. Loads are bytes per link direction (per output port); the mean is over every network
//! link of the graph, idle ones included.

use crate::Pattern;
use fabricsim_core::{NodeId, PortId};
use fabricsim_routing::{Candidates, Header, Routing};
use fabricsim_topology::{PortGraph, PortKind, Topology};

/// The loads of every network link and their summary.
#[derive(Debug, Clone)]
pub struct LinkLoads {
    /// Bytes per global port id (0 on terminal and unconnected ports).
    pub bytes: Vec<f64>,
    /// The most any link carries.
    pub max: f64,
    /// The mean over every network link.
    pub mean: f64,
    /// Network links in the graph.
    pub links: u64,
}

impl LinkLoads {
    /// The `k` busiest links, busiest first (ties by port id), with their bytes.
    pub fn busiest(&self, k: usize) -> Vec<(PortId, f64)> {
        let mut v: Vec<(PortId, f64)> = self.bytes.iter().enumerate().filter(|(_, &b)| b > 0.0).map(|(p, &b)| (PortId(p as u32), b)).collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0 .0.cmp(&b.0 .0)));
        v.truncate(k);
        v
    }
}

/// Route every flow of `pattern` (rank `r` on node `map[r]`) through `graph` with `routing`
/// (see the module docs); an error names a flow whose route dead-ends or loops.
pub fn link_loads(graph: &PortGraph, routing: &Routing, pattern: &Pattern, map: &[NodeId]) -> Result<LinkLoads, String> {
    let mut bytes = vec![0.0f64; graph.kind.len()];
    let mut tracer = Tracer::default();
    for f in pattern.flows() {
        let (src, dst) = (map[f.src as usize], map[f.dst as usize]);
        if src == dst || f.bytes == 0 {
            continue;
        }
        tracer.trace(graph, routing, src, dst, |out, part| bytes[out] += part * f.bytes as f64)?;
    }
    let links = graph.kind.iter().filter(|k| **k == PortKind::Network).count() as u64;
    let max = bytes.iter().copied().fold(0.0, f64::max);
    let mean = if links == 0 { 0.0 } else { bytes.iter().sum::<f64>() / links as f64 };
    Ok(LinkLoads { bytes, max, mean, links })
}

/// Follows one flow's route through the port graph (reusing its buffers between flows).
#[derive(Debug, Default)]
pub struct Tracer {
    cands: Candidates,
    frontier: Vec<(PortId, u8, f64)>,
    next: Vec<(PortId, u8, f64)>,
    ports: Vec<(u32, u8)>,
}

impl Tracer {
    /// Route a flow from node `src` to node `dst` (distinct) as the module docs say: `visit`
    /// sees every network link it uses (its global port index) with the share of the flow's
    /// bytes crossing it. An error names a route that dead-ends, loops or leaves by an
    /// unconnected port.
    pub fn trace(&mut self, graph: &PortGraph, routing: &Routing, src: NodeId, dst: NodeId, mut visit: impl FnMut(usize, f64)) -> Result<(), String> {
        let limit = graph.routers as usize * 4 + 8;
        let hdr = Header::new(src, dst);
        self.frontier.clear();
        self.frontier.push((graph.attach_of(src, 0), routing.injection_vcs(0).start, 1.0));
        let mut hops = 0;
        while !self.frontier.is_empty() {
            hops += 1;
            if hops > limit {
                return Err(format!("the route from node {src} to node {dst} does not end"));
            }
            self.next.clear();
            for &(at, vc, share) in &self.frontier {
                let router = graph.owner[at.index()];
                routing.route(router, graph.local(at), vc, &hdr, &mut self.cands);
                self.ports.clear();
                for h in self.cands.as_slice() {
                    if !self.ports.iter().any(|p| p.0 == h.port) {
                        self.ports.push((h.port, h.vc));
                    }
                }
                if self.ports.is_empty() {
                    return Err(format!("no route from node {src} to node {dst} at router {router}"));
                }
                let part = share / self.ports.len() as f64;
                for &(p, pvc) in &self.ports {
                    let out = graph.port(router, p);
                    match graph.kind[out.index()] {
                        PortKind::Terminal => {}
                        PortKind::Unconnected => return Err(format!("the route from node {src} to node {dst} leaves by an unconnected port")),
                        PortKind::Network => {
                            visit(out.index(), part);
                            let peer = graph.peer_port(out);
                            match self.next.iter_mut().find(|e| e.0 == peer && e.1 == pvc) {
                                Some(e) => e.2 += part,
                                None => self.next.push((peer, pvc, part)),
                            }
                        }
                    }
                }
            }
            std::mem::swap(&mut self.frontier, &mut self.next);
        }
        Ok(())
    }
}

/// A link's name: on a torus the node it leaves and the axis and direction (`(3,0,1) X+`); on a
/// fat-tree the switch and port.
pub fn link_name(topo: &Topology, graph: &PortGraph, port: PortId) -> String {
    let router = graph.owner[port.index()];
    let local = graph.local(port);
    match topo {
        Topology::Torus(t) => {
            let coords: Vec<String> = t.coords(NodeId(router.0)).iter().map(u32::to_string).collect();
            match t.port_axis(local) {
                Some((a, d)) => format!("({}) {}{}", coords.join(","), t.names()[a], if d > 0 { '+' } else { '-' }),
                None => format!("({}) port {local}", coords.join(",")),
            }
        }
        Topology::FatTree(_) => format!("switch {} port {local}", router.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::simple::ring;
    use fabricsim_routing::RoutingSpec;
    use fabricsim_topology::Torus;

    #[test]
    fn a_ring_on_a_ring_loads_each_forward_link_once() {
        let topo = Topology::Torus(Torus::new(vec![8], None, Some(vec!["X".into()])).unwrap());
        let graph = topo.build_graph(1);
        let routing = Routing::build(&RoutingSpec::DimensionOrder(Default::default()), &topo, 1, 2).unwrap();
        let map: Vec<NodeId> = (0..8).map(NodeId).collect();
        let l = link_loads(&graph, &routing, &ring(8, 100), &map).unwrap();
        assert_eq!((l.max, l.links), (100.0, 16));
        assert_eq!(l.mean, 50.0, "the + links carry everything, the - links nothing");
        let (p, b) = l.busiest(1)[0];
        assert_eq!((link_name(&topo, &graph, p).as_str(), b), ("(0) X+", 100.0));
        // Reversed order: every message goes the - way.
        let rev: Vec<NodeId> = (0..8).map(|r| NodeId((8 - r) % 8)).collect();
        let l = link_loads(&graph, &routing, &ring(8, 100), &rev).unwrap();
        assert!(l.busiest(8).iter().all(|&(p, _)| link_name(&topo, &graph, p).ends_with("X-")));
    }

    #[test]
    fn adaptive_routing_spreads_a_flow_over_its_minimal_paths() {
        let topo = Topology::Torus(Torus::new(vec![4, 4], Some(vec![false, false]), None).unwrap());
        let graph = topo.build_graph(1);
        let spec = RoutingSpec::Adaptive(Default::default());
        let routing = Routing::build(&spec, &topo, 1, 2).unwrap();
        let p = Pattern::new(16, vec![crate::pattern::Flow { src: 0, dst: 5, bytes: 100 }], "t").unwrap();
        let map: Vec<NodeId> = (0..16).map(NodeId).collect();
        let l = link_loads(&graph, &routing, &p, &map).unwrap();
        // (0,0) -> (1,1): two minimal paths of two hops, 50 bytes on each of four links.
        assert_eq!((l.max, l.bytes.iter().sum::<f64>()), (50.0, 200.0));
    }
}

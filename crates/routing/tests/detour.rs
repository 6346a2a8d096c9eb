//! Routing around dead links: routes never use one, arrive whenever the rule leaves a way,
//! and the channel-dependency graph of dimension order around them stays acyclic.

use fabricsim_core::{NodeId, PortId, RouterId};
use fabricsim_routing::fat_tree_updown::UpPort;
use fabricsim_routing::{cdg, path, Candidates, DimensionOrderSpec, Header, Routing, RoutingSpec, UpDownSpec};
use fabricsim_topology::{FatTree, PortGraph, PortKind, Topology, Torus};
use proptest::prelude::*;
use std::collections::HashSet;

fn all_pairs(n: u32) -> Vec<(NodeId, NodeId)> {
    (0..n).flat_map(|a| (0..n).map(move |b| (NodeId(a), NodeId(b)))).filter(|(a, b)| a != b).collect()
}

/// `count` links drawn from `seed` among the network ports, each dead in both directions (as
/// a failed link is).
fn dead_links(g: &PortGraph, count: usize, mut seed: u64) -> HashSet<PortId> {
    let net: Vec<PortId> = (0..g.total_ports()).map(PortId).filter(|p| g.kind[p.index()] == PortKind::Network).collect();
    let mut dead = HashSet::new();
    for _ in 0..count.min(net.len()) {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let p = net[(seed >> 33) as usize % net.len()];
        dead.insert(p);
        dead.insert(g.peer_port(p));
    }
    dead
}

/// Whether dimension order around `dead` can take a packet from `src` to `dst` (the rule of
/// `fabricsim_routing::detour`, worked out independently): on each axis in order, one way
/// along it whose every link is alive (a ring has two ways, a mesh axis one).
fn dor_reachable(t: &Torus, g: &PortGraph, dead: &HashSet<PortId>, src: NodeId, dst: NodeId) -> bool {
    let mut at = src;
    for a in 0..t.dims() {
        let target = t.coord(dst, a);
        if t.coord(at, a) == target {
            continue;
        }
        let ways: Vec<i32> = if t.wrap()[a] {
            vec![1, -1]
        } else if target > t.coord(at, a) {
            vec![1]
        } else {
            vec![-1]
        };
        let alive = |delta: i32| {
            let mut n = at;
            while t.coord(n, a) != target {
                if dead.contains(&g.port(Torus::router_of(n), t.port_for(a, delta))) {
                    return false;
                }
                n = t.step(n, a, delta).expect("a way along the axis");
            }
            true
        };
        if !ways.into_iter().any(alive) {
            return false;
        }
        let mut coords = t.coords(at);
        coords[a] = target;
        at = t.node_at(&coords).unwrap();
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn dimension_order_goes_around_dead_links_without_a_dependency_cycle(
        shape in proptest::collection::vec(1u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
        count in 0usize..5,
        seed in any::<u64>(),
    ) {
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let tt = Torus::new(shape.clone(), Some(wraps[..shape.len()].to_vec()), None).unwrap();
        let t = Topology::Torus(tt.clone());
        let r = Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec::default()), &t, 2, 2).unwrap();
        let g = t.build_graph(2);
        let dead = dead_links(&g, count, seed);
        let is_dead = |r: RouterId, l: u32| dead.contains(&g.port(r, l));
        let pairs = all_pairs(t.nodes());
        for &(s, d) in &pairs {
            let p = path::trace_around(&g, &r, s, d, &is_dead).map_err(TestCaseError::fail)?;
            prop_assert_eq!(p.is_some(), dor_reachable(&tt, &g, &dead, s, d), "{} -> {} with dead {:?}", s, d, dead);
            if let Some(p) = p {
                prop_assert!(p.iter().all(|c| !dead.contains(&c.port)), "{} -> {} took a dead link", s, d);
                // Never longer than going once round every axis.
                prop_assert!(path::link_hops(&g, &p, false) <= shape.iter().sum::<u32>());
            }
        }
        prop_assert_eq!(cdg::find_cycle_around(&g, &r, &pairs, &is_dead), None);
    }

    #[test]
    fn adaptive_hops_around_dead_links_are_live_and_walks_arrive(
        shape in proptest::collection::vec(2u32..6, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
        count in 0usize..4,
        seed in any::<u64>(),
    ) {
        // Tori and meshes (length-2 mesh axes included): a walk taking random live candidates,
        // switching to the escape network for good once it takes an escape hop, arrives
        // whenever dimension order alone could, and never takes a dead link.
        let tt = Torus::new(shape.clone(), Some(wraps[..shape.len()].to_vec()), None).unwrap();
        let t = Topology::Torus(tt.clone());
        let r = Routing::build(&RoutingSpec::Adaptive(Default::default()), &t, 2, 4).unwrap();
        let g = t.build_graph(2);
        let dead = dead_links(&g, count, seed);
        let is_dead = |r: RouterId, l: u32| dead.contains(&g.port(r, l));
        let mut cands = Candidates::default();
        let mut rng = seed;
        for (s, d) in all_pairs(t.nodes()) {
            let (mut at, mut vc, mut escaped, mut hops) = (g.attach_of(s, 0), 0u8, false, 0);
            let arrived = loop {
                let router = g.owner[at.index()];
                let hdr = Header { escaped, ..Header::new(s, d) };
                let found = r.route_around(router, g.local(at), vc, &hdr, &is_dead, &mut cands);
                prop_assert_eq!(found, !cands.is_empty());
                if !found {
                    break false;
                }
                prop_assert!(cands.as_slice().iter().all(|h| !is_dead(router, h.port)));
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let h = cands.as_slice()[(rng >> 33) as usize % cands.len()];
                let out = g.port(router, h.port);
                if g.kind[out.index()] != PortKind::Network {
                    prop_assert_eq!(Torus::node_on(router), d);
                    break true;
                }
                escaped |= h.escape;
                (at, vc, hops) = (g.peer_port(out), h.vc, hops + 1);
                prop_assert!(hops <= 4 * tt.nodes(), "{} -> {} does not arrive", s, d);
            };
            // Adaptive hops lead only where the escape sub-network can still deliver, so a
            // pair dimension order connects always arrives (adaptive hops may find more).
            if dor_reachable(&tt, &g, &dead, s, d) {
                prop_assert!(arrived, "{} -> {} stopped", s, d);
            }
        }
    }
}

#[test]
fn one_dead_link_on_a_ring_sends_the_packets_that_needed_it_the_long_way() {
    let tt = Torus::new(vec![8], None, None).unwrap();
    let t = Topology::Torus(tt.clone());
    let r = Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec::default()), &t, 1, 2).unwrap();
    let g = t.build_graph(1);
    // The link between nodes 2 and 3, both directions.
    let p = g.port(RouterId(2), tt.port_for(0, 1));
    let dead: HashSet<PortId> = [p, g.peer_port(p)].into();
    let is_dead = |r: RouterId, l: u32| dead.contains(&g.port(r, l));
    for (s, d) in all_pairs(8) {
        let p = path::trace_around(&g, &r, s, d, &is_dead).unwrap().expect("a ring with one dead link is a line");
        let hops = path::link_hops(&g, &p, false);
        // The way that avoids the link: going + from s crosses it when 3 lies in (s, d].
        let fwd = (d.0 + 8 - s.0) % 8;
        let plus_crosses = (1..=fwd).any(|k| (s.0 + k) % 8 == 3);
        let short = fwd.min(8 - fwd);
        let expected = match (plus_crosses, fwd <= 8 - fwd) {
            (true, _) => 8 - fwd,
            (false, true) => fwd,
            (false, false) => {
                if (1..=8 - fwd).any(|k| (s.0 + 8 - k) % 8 == 2) {
                    fwd
                } else {
                    short
                }
            }
        };
        assert_eq!(hops, expected, "{s} -> {d}");
    }
}

#[test]
fn up_down_climbs_through_a_live_up_link_and_stops_where_the_way_down_is_dead() {
    for up in [UpPort::Destination, UpPort::Random, UpPort::Adaptive] {
        let ft = FatTree::new(4, 2, 1, false).unwrap();
        let t = Topology::FatTree(ft.clone());
        let r = Routing::build(&RoutingSpec::UpDown(UpDownSpec { up_port: up, ..Default::default() }), &t, 1, 1).unwrap();
        let g = t.build_graph(1);
        // Leaf switch 0's first up link dies (both directions): its nodes still reach every
        // other leaf through the other up link; the packets for its nodes that climb to the
        // top switch on the dead link's far end find the one way down dead (the up choice
        // does not look ahead) and stop there, the others arrive.
        let leaf = ft.router(0, 1, 0);
        let p = g.port(leaf, ft.up_port(1, 0));
        let dead: HashSet<PortId> = [p, g.peer_port(p)].into();
        let is_dead = |r: RouterId, l: u32| dead.contains(&g.port(r, l));
        let mut stopped = 0;
        for (s, d) in all_pairs(ft.nodes()) {
            match path::trace_around(&g, &r, s, d, &is_dead).unwrap() {
                Some(p) => {
                    assert!(p.iter().all(|c| !dead.contains(&c.port)), "{up:?}: {s} -> {d}");
                    assert_eq!(path::link_hops(&g, &p, true), t.distance(s, d), "{up:?}: still minimal");
                }
                None => {
                    assert!(ft.covers(1, 0, d) && !ft.covers(1, 0, s), "{up:?}: {s} -> {d} stopped");
                    stopped += 1;
                }
            }
        }
        assert!(
            stopped > 0 && stopped < (ft.nodes() - 2) * 2,
            "{up:?}: {stopped} stopped: some packets for leaf 0 come down the live top switch, some the dead one"
        );
    }
}

//! Properties of the routing functions: routes reach their destination in the topology's
//! distance, and every routing + VC scheme has an acyclic channel-dependency graph.

use fabricsim_core::{NodeId, RouterId};
use fabricsim_routing::{cdg, path, Candidates, DimensionOrder, DimensionOrderSpec, Header, Routing, RoutingSpec, UpDownSpec, NO_HINT};
use fabricsim_topology::{FatTree, Topology, Torus};
use proptest::prelude::*;

fn torus(shape: Vec<u32>, wrap: Vec<bool>) -> Topology {
    Topology::Torus(Torus::new(shape, Some(wrap), None).unwrap())
}

fn all_pairs(n: u32) -> Vec<(NodeId, NodeId)> {
    (0..n).flat_map(|a| (0..n).map(move |b| (NodeId(a), NodeId(b)))).collect()
}

fn dor(t: &Topology, order: Option<Vec<String>>, vcs: u8) -> Routing {
    Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec { order, ..Default::default() }), t, 2, vcs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn dor_routes_are_minimal(
        shape in proptest::collection::vec(1u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
        rev in any::<bool>(),
    ) {
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let wrap = wraps[..shape.len()].to_vec();
        let t = torus(shape.clone(), wrap);
        let Topology::Torus(tt) = &t else { unreachable!() };
        let mut names: Vec<String> = tt.names().to_vec();
        if rev { names.reverse(); }
        let r = dor(&t, Some(names), 2);
        let g = t.build_graph(2);
        for (s, d) in all_pairs(t.nodes()) {
            if s == d { continue; }
            let p = path::trace(&g, &r, s, d).map_err(TestCaseError::fail)?;
            prop_assert_eq!(path::link_hops(&g, &p, false), t.distance(s, d));
        }
    }

    #[test]
    fn dor_dateline_cdg_is_acyclic(
        shape in proptest::collection::vec(1u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
    ) {
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let t = torus(shape.clone(), wraps[..shape.len()].to_vec());
        let r = dor(&t, None, 2);
        let g = t.build_graph(2);
        prop_assert_eq!(cdg::find_cycle(&g, &r, &all_pairs(t.nodes())), None);
        // Every hop of dimension order is an escape hop: its escape sub-network is all of it.
        prop_assert_eq!(cdg::find_escape_cycle(&g, &r, &all_pairs(t.nodes())), None);
    }
}

#[test]
fn the_escape_check_finds_the_ring_cycle_without_dateline_too() {
    let t = torus(vec![8], vec![true]);
    let g = t.build_graph(2);
    let Topology::Torus(tt) = &t else { unreachable!() };
    let without = Routing::from(DimensionOrder::new(tt.clone(), None, 2, 2).unwrap().with_dateline(false));
    assert!(cdg::find_escape_cycle(&g, &without, &all_pairs(8)).is_some());
    assert!(!without.is_adaptive());
}

#[test]
fn a_hint_forces_the_first_hop_only_where_the_packet_enters_from_its_nic() {
    // 6-ring, node 0 to node 1: the route goes +; a hint for the - port (local port 1) forces
    // the first hop there from the NIC's port, and is ignored on a network port.
    let t = torus(vec![6], vec![true]);
    let r = dor(&t, None, 2);
    let (mut c, nic_port, minus) = (Candidates::default(), 2, 1);
    r.route(RouterId(0), nic_port, 0, &Header { hint: minus as u8, ..Header::new(NodeId(0), NodeId(1)) }, &mut c);
    assert!(c.as_slice().iter().all(|h| h.port == minus && h.escape), "{:?}", c.as_slice());
    r.route(RouterId(0), nic_port, 0, &Header::new(NodeId(0), NodeId(1)), &mut c);
    assert!(c.as_slice().iter().all(|h| h.port == 0), "{:?}", c.as_slice());
    r.route(RouterId(0), minus, 0, &Header { hint: minus as u8, ..Header::new(NodeId(0), NodeId(1)) }, &mut c);
    assert!(c.as_slice().iter().all(|h| h.port == 0), "a hint is for the first hop: {:?}", c.as_slice());
    // A hint that names no network port is ignored.
    r.route(RouterId(0), nic_port, 0, &Header { hint: 9, ..Header::new(NodeId(0), NodeId(1)) }, &mut c);
    assert!(c.as_slice().iter().all(|h| h.port == 0));
    assert_ne!(NO_HINT, minus as u8);
    assert_eq!((r.vcs(), r.engines()), (2, 2));
}

#[test]
fn one_vc_on_a_ring_is_rejected() {
    let t = torus(vec![6], vec![true]);
    let err = Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec { order: None, ..Default::default() }), &t, 1, 1).unwrap_err();
    assert_eq!(err.field, "router.vcs");
    assert!(err.message.contains("length 6"), "{}", err.message);
    // A mesh needs no dateline: one VC is accepted.
    assert!(Routing::build(
        &RoutingSpec::DimensionOrder(DimensionOrderSpec { order: None, ..Default::default() }),
        &torus(vec![6], vec![false]),
        1,
        1
    )
    .is_ok());
}

#[test]
fn cdg_checker_finds_the_ring_cycle_without_dateline() {
    let t = torus(vec![8], vec![true]);
    let Topology::Torus(tt) = &t else { unreachable!() };
    let g = t.build_graph(1);
    let with = Routing::from(DimensionOrder::new(tt.clone(), None, 1, 2).unwrap());
    assert_eq!(cdg::find_cycle(&g, &with, &all_pairs(8)), None);
    let without = Routing::from(DimensionOrder::new(tt.clone(), None, 1, 2).unwrap().with_dateline(false));
    let cycle = cdg::find_cycle(&g, &without, &all_pairs(8)).expect("ring without dateline must have a cycle");
    assert!(cycle.len() >= 2);
}

#[test]
fn routing_order_is_checked() {
    let t = Topology::Torus(Torus::new(vec![4, 4], None, Some(vec!["X".into(), "Y".into()])).unwrap());
    let e = Routing::build(
        &RoutingSpec::DimensionOrder(DimensionOrderSpec { order: Some(vec!["X".into(), "Q".into()]), ..Default::default() }),
        &t,
        1,
        2,
    )
    .unwrap_err();
    assert_eq!(e.field, "routing.order");
    assert!(e.message.contains("'Q'"));
    let e = Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec { order: Some(vec!["X".into()]), ..Default::default() }), &t, 1, 2)
        .unwrap_err();
    assert!(e.message.contains("misses"));
    let f = Topology::FatTree(FatTree::new(4, 2, 1, false).unwrap());
    let e = Routing::build(&RoutingSpec::DimensionOrder(DimensionOrderSpec { order: None, ..Default::default() }), &f, 1, 2).unwrap_err();
    assert_eq!(e.field, "routing.type");
}

#[test]
fn routing_order_changes_the_path() {
    let t = Topology::Torus(Torus::new(vec![4, 4], None, Some(vec!["X".into(), "Y".into()])).unwrap());
    let g = t.build_graph(1);
    let xy = dor(&t, Some(vec!["X".into(), "Y".into()]), 2);
    let yx = dor(&t, Some(vec!["Y".into(), "X".into()]), 2);
    let (s, d) = (NodeId(0), NodeId(1 + 4)); // (0,0) -> (1,1)
    let p1 = path::trace(&g, &xy, s, d).unwrap();
    let p2 = path::trace(&g, &yx, s, d).unwrap();
    assert_eq!(g.local(p1[0].port), 0); // X+ first
    assert_eq!(g.local(p2[0].port), 2); // Y+ first
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    #[test]
    fn fat_tree_routes_are_minimal_and_acyclic(half in 1u32..4, levels in 1u32..4, full in any::<bool>(), rails in 1u32..3, up in 0usize..3) {
        // Every up-port choice: D-mod-k, random per pair, adaptive (the cycle check follows
        // every candidate).
        use fabricsim_routing::fat_tree_updown::UpPort;
        let up = [UpPort::Destination, UpPort::Random, UpPort::Adaptive][up];
        let ft = FatTree::new(half * 2, levels, rails, full).unwrap();
        prop_assume!(ft.nodes() <= 256 && ft.nodes() >= 2);
        let t = Topology::FatTree(ft);
        let r = Routing::build(&RoutingSpec::UpDown(UpDownSpec { up_port: up, ..Default::default() }), &t, rails, 2).unwrap();
        let g = t.build_graph(rails);
        let pairs = all_pairs(t.nodes());
        for &(s, d) in &pairs {
            if s == d { continue; }
            let p = path::trace(&g, &r, s, d).map_err(TestCaseError::fail)?;
            prop_assert_eq!(path::link_hops(&g, &p, true), t.distance(s, d));
        }
        prop_assert_eq!(cdg::find_cycle(&g, &r, &pairs), None);
    }
}

#[test]
fn dor_fast_paths_agree_with_the_general_route() {
    // Packed coordinates with tabulated moves (at most 8 axes of length <= 256) and coordinate
    // rows with moves worked out per hop must give the same candidates, and the single-hop
    // shortcut must give exactly the one candidate whenever there is one. The 300-ring and the
    // 9-axis shape cannot be packed: they check that the fallback is taken. The 200x200 torus is
    // packed but too large for move tables (sampled routers).
    let shapes: Vec<(Vec<u32>, Vec<bool>)> = vec![
        (vec![4, 3, 2], vec![true, false, true]),
        (vec![5, 6], vec![true, true]),
        (vec![8, 5], vec![true, false]),
        (vec![200, 200], vec![true, true]),
        (vec![300], vec![true]),
        (vec![2; 9], vec![true; 9]),
    ];
    for (shape, wrap) in shapes {
        for (engines, vcs) in [(1, 2), (2, 2), (1, 4)] {
            let t = Torus::new(shape.clone(), Some(wrap.clone()), None).unwrap();
            let packed = DimensionOrder::new(t.clone(), None, engines, vcs).unwrap();
            let rows = packed.clone().without_packed_coordinates();
            let (packed, rows) = (Routing::from(packed), Routing::from(rows));
            let (mut a, mut b) = (Candidates::default(), Candidates::default());
            let ports = t.net_ports() + engines;
            let step = (t.nodes() / 40).max(1) as usize; // sample routers on the long ring
            let dst_step = (t.nodes() / 500).max(1) as usize; // and destinations on the large torus
            for router in (0..t.nodes()).step_by(step) {
                for dst in (0..t.nodes()).step_by(dst_step) {
                    for in_port in 0..ports {
                        for in_vc in 0..vcs {
                            let (router, dst) = (RouterId(router), NodeId(dst));
                            // Any source will do (the routes need not be consistent paths).
                            let src = NodeId((router.0 * 7 + dst.0 * 3) % t.nodes());
                            packed.route(router, in_port, in_vc, &Header::new(src, dst), &mut a);
                            rows.route(router, in_port, in_vc, &Header::new(src, dst), &mut b);
                            assert_eq!(a.as_slice(), b.as_slice(), "{shape:?} {router}->{dst} in {in_port}/{in_vc}");
                            let single = packed.route_single(router, in_port, in_vc, src, dst);
                            let only = (a.as_slice().len() == 1).then(|| a.as_slice()[0]);
                            assert_eq!(single, only, "{shape:?} {router}->{dst} in {in_port}/{in_vc}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn dimension_order_balances_all_to_all_load_over_both_directions_of_even_rings() {
    // Brute force: route every ordered pair and count the packets on each directed network
    // channel. Every channel of an axis then carries the same number: a half-ring tie that
    // always went + would load the + links of a 4-ring three times as much as the - links, and
    // leave one of the two links of a 2-ring unused in each direction.
    for shape in [vec![4, 4], vec![2, 2, 2], vec![4, 2, 4], vec![8], vec![6, 4], vec![2, 4], vec![4, 4, 2, 2]] {
        let t = torus(shape.clone(), vec![true; shape.len()]);
        let Topology::Torus(tt) = &t else { unreachable!() };
        let r = dor(&t, None, 2);
        let g = t.build_graph(1);
        let mut load = vec![0u32; g.owner.len()];
        for (s, d) in all_pairs(t.nodes()) {
            if s != d {
                for c in path::trace(&g, &r, s, d).unwrap() {
                    load[c.port.index()] += 1;
                }
            }
        }
        for axis in 0..shape.len() {
            let loads: Vec<u32> = (0..g.owner.len())
                .filter(|&p| g.kind[p] == fabricsim_topology::PortKind::Network)
                .filter(|&p| tt.port_axis(g.local(fabricsim_core::PortId(p as u32))).is_some_and(|(a, _)| a == axis))
                .map(|p| load[p])
                .collect();
            assert!(!loads.is_empty());
            assert!(loads.iter().all(|&l| l == loads[0]), "{shape:?} axis {axis}: {loads:?}");
        }
    }
}

fn adaptive(t: &Topology, vcs: u8) -> Routing {
    Routing::build(&RoutingSpec::Adaptive(Default::default()), t, 2, vcs).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn adaptive_hops_are_minimal_and_random_walks_arrive(
        shape in proptest::collection::vec(1u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
        vcs in 3u8..5,
        seed in any::<u64>(),
    ) {
        // Every adaptive candidate brings the packet one hop nearer; the escape candidate is
        // the dimension-order hop on an escape VC. A walk taking random candidates (switching
        // to the escape network for good once it takes an escape hop) arrives in exactly the
        // distance.
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let t = torus(shape.clone(), wraps[..shape.len()].to_vec());
        let r = adaptive(&t, vcs);
        let fabricsim_routing::Kind::Adaptive(a) = r.kind() else { unreachable!() };
        let g = t.build_graph(2);
        let mut cands = Candidates::default();
        let mut rng = seed;
        for (s, d) in all_pairs(t.nodes()) {
            if s == d { continue; }
            let (mut at, mut vc, mut escaped, mut hops) = (g.attach_of(s, 0), 0u8, false, 0);
            loop {
                let router = g.owner[at.index()];
                let hdr = Header { escaped, ..Header::new(s, d) };
                r.route(router, g.local(at), vc, &hdr, &mut cands);
                let here = Torus::node_on(router);
                for h in cands.as_slice() {
                    prop_assert_eq!(h.escape, h.vc < a.escape_vcs(), "{:?}", h);
                    let out = g.port(router, h.port);
                    if g.kind[out.index()] == fabricsim_topology::PortKind::Network {
                        let next = Torus::node_on(g.owner[g.peer_port(out).index()]);
                        prop_assert_eq!(t.distance(next, d) + 1, t.distance(here, d), "{:?} at {} for {}", h, here, d);
                    } else {
                        prop_assert_eq!(here, d);
                    }
                }
                rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let h = cands.as_slice()[(rng >> 33) as usize % cands.as_slice().len()];
                let out = g.port(router, h.port);
                if g.kind[out.index()] != fabricsim_topology::PortKind::Network {
                    break;
                }
                escaped |= h.escape;
                (at, vc, hops) = (g.peer_port(out), h.vc, hops + 1);
            }
            prop_assert_eq!(hops, t.distance(s, d));
        }
    }

    #[test]
    fn the_adaptive_escape_sub_network_is_acyclic(
        shape in proptest::collection::vec(1u32..7, 1..4),
        wraps in proptest::collection::vec(any::<bool>(), 3),
    ) {
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let t = torus(shape.clone(), wraps[..shape.len()].to_vec());
        let r = adaptive(&t, 3);
        let g = t.build_graph(2);
        prop_assert_eq!(cdg::find_escape_cycle(&g, &r, &all_pairs(t.nodes())), None);
    }
}

#[test]
fn adaptive_routing_refuses_too_few_vcs_and_fat_trees() {
    let ring = torus(vec![4, 4], vec![true, true]);
    let e = Routing::build(&RoutingSpec::Adaptive(Default::default()), &ring, 1, 2).unwrap_err();
    assert!(e.to_string().starts_with("router.vcs: 2") && e.to_string().contains("at least 3"), "{e}");
    // Rings of three or less need no dateline: one escape VC and one adaptive suffice.
    let small = torus(vec![3, 2], vec![true, true]);
    assert!(Routing::build(&RoutingSpec::Adaptive(Default::default()), &small, 1, 2).is_ok());
    let tree = Topology::FatTree(FatTree::new(4, 2, 1, false).unwrap());
    let e = Routing::build(&RoutingSpec::Adaptive(Default::default()), &tree, 1, 3).unwrap_err();
    assert!(e.to_string().starts_with("routing.type"), "{e}");
}

#[test]
fn the_all_to_all_peak_is_what_balanced_dimension_order_achieves() {
    // Brute force: route every ordered pair, find the busiest directed channel: its load is the
    // time per message byte (NICs fast enough not to matter). That is the closed-form peak, on
    // tori, meshes, rings of odd and even length and 2-rings.
    let shapes: Vec<(Vec<u32>, Vec<bool>)> = vec![
        (vec![4, 4], vec![true, true]),
        (vec![3, 5], vec![true, true]),
        (vec![4, 4], vec![false, false]),
        (vec![5, 3], vec![false, true]),
        (vec![6], vec![true]),
        (vec![2, 2, 2], vec![true, true, true]),
        (vec![2, 3], vec![false, false]),
    ];
    for (shape, wrap) in shapes {
        let t = torus(shape.clone(), wrap.clone());
        let r = dor(&t, None, 2);
        // (With link-rate NICs, injection bounds the 2x2x2 torus: the formula takes it.)
        let nodes = t.nodes() as f64;
        let with_nic = fabricsim_topology::analysis::all_to_all_peak(&t, 1.0, 1.0);
        assert!(with_nic <= nodes + 1e-9);
        let g = t.build_graph(2);
        let mut load = vec![0u32; g.owner.len()];
        for (s, d) in all_pairs(t.nodes()) {
            if s != d {
                for c in path::trace(&g, &r, s, d).unwrap() {
                    if g.kind[c.port.index()] == fabricsim_topology::PortKind::Network {
                        load[c.port.index()] += 1;
                    }
                }
            }
        }
        let n = t.nodes() as f64;
        let link = 1.0;
        let time = *load.iter().max().unwrap() as f64 / link;
        let brute = n * (n - 1.0) / time;
        let formula = fabricsim_topology::analysis::all_to_all_peak(&t, 1e9, link);
        // A lone 6-ring's tie pairs (three hops either way) cannot split evenly pair by pair:
        // dimension order falls short of the bound there (6 against 6.67), never above it.
        assert!(brute <= formula * (1.0 + 1e-9), "{shape:?}: brute force {brute} above the bound {formula}");
        if shape != [6] {
            assert!((brute - formula).abs() < 1e-9 * brute, "{shape:?} {wrap:?}: brute force {brute}, formula {formula}");
        }
    }
}

#[test]
fn zone_routing_finishes_one_zone_before_the_next_and_deterministic_packets_take_the_escape_hop() {
    // Zone table: entry 0 = [d0] then [d1, d2]; entry 1 = [d2] then [d0, d1].
    let t = torus(vec![4, 4, 4], vec![true, true, true]);
    let Topology::Torus(tt) = &t else { unreachable!() };
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let table = vec![vec![names(&["d0"]), names(&["d1", "d2"])], vec![names(&["d2"]), names(&["d0", "d1"])]];
    let r = Routing::from(
        fabricsim_routing::Adaptive::new(tt.clone(), None, 1, 3, Default::default()).unwrap().with_zones(&table, "routing.zones").unwrap(),
    );
    let mut c = Candidates::default();
    let nic = tt.net_ports();
    for dst in 1..t.nodes() {
        let dst = NodeId(dst);
        let (d0, d2) = (tt.coord(dst, 0) != 0, tt.coord(dst, 2) != 0);
        for (zone, first_axis, first_pending) in [(0u8, 0usize, d0), (1, 2, d2)] {
            r.route(RouterId(0), nic, 0, &Header { zone, ..Header::new(NodeId(0), dst) }, &mut c);
            let axes: Vec<usize> = c.as_slice().iter().filter(|h| !h.escape).map(|h| tt.port_axis(h.port).unwrap().0).collect();
            assert!(!axes.is_empty());
            if first_pending {
                assert!(axes.iter().all(|&a| a == first_axis), "zone list {zone} to {dst}: {axes:?}");
            } else {
                assert!(axes.iter().all(|&a| a != first_axis), "zone list {zone} to {dst}: {axes:?}");
            }
        }
        r.route(RouterId(0), nic, 0, &Header { zone: fabricsim_routing::adaptive::DETERMINISTIC, ..Header::new(NodeId(0), dst) }, &mut c);
        assert!(c.as_slice().iter().all(|h| h.escape), "{:?}", c.as_slice());
    }
    // Bad tables name the setting.
    for bad in
        [vec![vec![names(&["d0", "d1"]), names(&["d1", "d2"])]], vec![vec![names(&["d0", "x"]), names(&["d1", "d2"])]], vec![vec![names(&["d0"])]]]
    {
        let e = fabricsim_routing::Adaptive::new(tt.clone(), None, 1, 3, Default::default()).unwrap().with_zones(&bad, "routing.zones").unwrap_err();
        assert!(e.to_string().starts_with("routing.zones"), "{e}");
    }
}

#[test]
fn ties_by_source_send_every_hop_the_way_the_source_parity_says() {
    // On a 4x4x2 torus, wherever a packet is half a ring from its destination along an axis,
    // its hops along that axis (adaptive and escape alike) go + when its source's coordinates
    // sum to an even number, - otherwise, whatever the router and the destination; by default
    // the adaptive hops go both ways. Dimension order gives the same with packed coordinates
    // and coordinate rows.
    let shape = vec![4, 4, 2];
    let t = Torus::new(shape.clone(), Some(vec![true; 3]), None).unwrap();
    let nic = t.net_ports();
    let build = |source: bool| {
        let a = fabricsim_routing::Adaptive::new(t.clone(), None, 1, 2, fabricsim_routing::adaptive::Escape::Bubble).unwrap();
        Routing::from(a.tying_by_source(source))
    };
    let (by_source, by_pair) = (build(true), build(false));
    let packed = DimensionOrder::new(t.clone(), None, 1, 2).unwrap().tying_by_source(true);
    let (rows, packed) = (Routing::from(packed.clone().without_packed_coordinates()), Routing::from(packed));
    let (mut c, mut d) = (Candidates::default(), Candidates::default());
    let (mut ties, mut both_ways) = (0, 0);
    for router in 0..t.nodes() {
        for dst in 0..t.nodes() {
            for src in [0, 1, 5, 6] {
                let (router, dst, src) = (RouterId(router), NodeId(dst), NodeId(src));
                let even = t.coords(src).iter().sum::<u32>() % 2 == 0;
                let (here, there) = (t.coords(NodeId(router.0)), t.coords(dst));
                by_source.route(router, nic, 0, &Header::new(src, dst), &mut c);
                by_pair.route(router, nic, 0, &Header::new(src, dst), &mut d);
                for a in 0..3 {
                    let tie = (here[a] + shape[a] - there[a]) % shape[a] == shape[a] / 2;
                    let (plus, minus) = (t.port_for(a, 1), t.port_for(a, -1));
                    let on = |cs: &Candidates, p: u32| cs.as_slice().iter().any(|h| h.port == p);
                    if tie {
                        ties += 1;
                        assert_eq!((on(&c, plus), on(&c, minus)), (even, !even), "{router:?}->{dst:?} from {src:?}, axis {a}");
                        both_ways += (on(&d, plus) && on(&d, minus)) as u32;
                    }
                }
                packed.route(router, nic, 0, &Header::new(src, dst), &mut c);
                rows.route(router, nic, 0, &Header::new(src, dst), &mut d);
                assert_eq!(c.as_slice(), d.as_slice(), "{router:?}->{dst:?} from {src:?}");
            }
        }
    }
    assert!(ties > 100 && both_ways > 100, "{ties} ties, {both_ways} offered both ways by default");
}

#[test]
fn a_packet_may_leave_a_bubble_escape_only_when_asked_to() {
    // A packet that took an escape hop is offered its adaptive hops again only with
    // `leaving_escape(true)`, which a dateline escape refuses by name.
    let t = Torus::new(vec![4, 4], Some(vec![true; 2]), None).unwrap();
    let bubble = || fabricsim_routing::Adaptive::new(t.clone(), None, 1, 2, fabricsim_routing::adaptive::Escape::Bubble).unwrap();
    let hdr = Header { escaped: true, ..Header::new(NodeId(0), NodeId(5)) };
    let mut c = Candidates::default();
    for (leave, hops) in [(false, 1), (true, 3)] {
        let r = Routing::from(bubble().leaving_escape(leave, "routing.leave_escape").unwrap());
        r.route(RouterId(0), 0, 0, &hdr, &mut c);
        assert_eq!(c.as_slice().len(), hops, "leave {leave}: {:?}", c.as_slice());
    }
    let dateline = fabricsim_routing::Adaptive::new(t.clone(), None, 1, 3, Default::default()).unwrap();
    let e = dateline.leaving_escape(true, "routing.leave_escape").unwrap_err();
    assert_eq!(e.field, "routing.leave_escape");
}

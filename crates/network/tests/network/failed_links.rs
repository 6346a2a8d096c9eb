//! Failed links and nodes: routing goes around them (dimension order the long way round a
//! ring, adaptive routing by its live hops), pairs they cut off are reported and their packets
//! accounted for, nothing hangs, and the result does not depend on the order of simultaneous
//! events.

use std::collections::HashSet;

use fabricsim_core::{NodeId, PortId, RouterId, SimError, Time};
use fabricsim_network::faults::{Direction, EventKind, FaultCounts, FaultEvent, FaultSpec, LinkRef, LinkSpec, Protection};
use fabricsim_network::{Api, Builder, Delivered, NetworkParams, Outcome, Rank, RunLimits, Workload};
use fabricsim_routing::{path, Adaptive, DimensionOrder, Routing};
use fabricsim_topology::{PortGraph, Torus};

use crate::common::params;

// The fault tests' streams: each node keeps a few one-packet messages outstanding to
// destinations spread over the network (a message that never arrives keeps its slot).
use crate::faults::Streams as Traffic;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Net {
    /// 4x4 torus, dimension order with a dateline.
    Torus,
    /// 4x4 mesh, dimension order.
    Mesh,
    /// 4x4 torus, minimal adaptive.
    Adaptive,
}

fn network(net: Net) -> (Torus, PortGraph, Routing) {
    let t = Torus::new(vec![4, 4], Some(vec![net != Net::Mesh; 2]), None).unwrap();
    let g = t.build_graph(1);
    let r = match net {
        Net::Adaptive => Routing::from(Adaptive::new(t.clone(), None, 1, 3, Default::default()).unwrap()),
        Net::Torus => Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap()),
        Net::Mesh => Routing::from(DimensionOrder::new(t.clone(), None, 1, 1).unwrap()),
    };
    (t, g, r)
}

fn link_down(at_ns: u64, node: [u32; 2], axis: &str, direction: Direction) -> FaultEvent {
    let link = LinkRef { node: Some(node.to_vec()), axis: Some(axis.into()), direction: Some(direction), port: None };
    FaultEvent { at: Time::from_ns(at_ns), kind: EventKind::LinkDown, link: Some(link), node: None, lane: None }
}

fn node_down(at_ns: u64, node: [u32; 2]) -> FaultEvent {
    FaultEvent { at: Time::from_ns(at_ns), kind: EventKind::NodeDown, link: None, node: Some(node.to_vec()), lane: None }
}

fn with_events(events: Vec<FaultEvent>, awareness: Time) -> NetworkParams {
    let mut p = params(2);
    p.buffer_bytes = 1024;
    p.watchdog = Time::from_us(200);
    p.faults = FaultSpec { awareness, events, ..Default::default() };
    p.link = LinkSpec { protection: Protection::Retry, lanes: 1, ..Default::default() };
    p
}

fn run(p: NetworkParams, w: Traffic, net: Net, shuffle: Option<u64>) -> Result<(Outcome, FaultCounts, Traffic), SimError> {
    let (_, g, r) = network(net);
    let mut p = p;
    p.vcs = r.vcs();
    let mut b = Builder::new(g, r, p);
    if let Some(s) = shuffle {
        b = b.tie_shuffle(s);
    }
    let mut sim = b.build(w)?;
    let o = sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(1_000_000), drain: Time::ZERO }, |_| {})?;
    let c = sim.fault_counts().unwrap();
    let w = std::mem::replace(sim.workload_mut(), Traffic::new(2, 0, 0));
    Ok((o, c, w))
}

/// Every packet injected was delivered or stopped on a cut pair, once; every message sent too.
fn conserved(o: &Outcome, c: &FaultCounts, w: &Traffic) {
    assert_eq!(o.packets_injected, o.packets_delivered + c.packets_cut, "{c:?}");
    assert_eq!(c.messages_cut, c.packets_cut, "one-packet messages");
    assert_eq!(w.delivered + c.messages_cut, w.sent.iter().map(|&s| s as u64).sum::<u64>());
    assert_eq!(c.packets_cut, c.cut.iter().map(|p| p.packets).sum::<u64>());
    assert_eq!(c.pairs_cut as usize, c.cut.len());
}

#[test]
fn a_link_down_for_good_is_routed_around_and_every_packet_arrives_once_whatever_the_event_order() {
    for net in [Net::Torus, Net::Adaptive] {
        for awareness in [Time::ZERO, Time::from_ns(500)] {
            let p = || with_events(vec![link_down(1_000, [1, 0], "d0", Direction::Plus)], awareness);
            let (o, c, w) = run(p(), Traffic::new(16, 2_000, 4), net, None).unwrap();
            assert_eq!(w.delivered, 16 * 2_000, "{net:?} {awareness:?}");
            assert_eq!(o.packets_delivered, o.packets_injected);
            assert_eq!((c.packets_cut, c.pairs_cut), (0, 0), "{net:?}: a ring with one dead link is a line");
            assert!(c.reroutes > 0, "{net:?} {awareness:?}: {c:?}");
            // Down for good: its sender holds the frames that would go into it until the
            // routers learn (then they route again), so none is sent into it.
            assert_eq!(c.errors_link_down, 0, "{net:?} {awareness:?}: {c:?}");
            let (b, cb, _) = run(p(), Traffic::new(16, 2_000, 4), net, Some(41)).unwrap();
            assert_eq!((o.sim_time, o.packet_latency.mean(), &c), (b.sim_time, b.packet_latency.mean(), &cb), "{net:?}: event order mattered");
        }
    }
}

#[test]
fn a_mesh_link_down_for_good_cuts_exactly_the_pairs_whose_route_needs_it_and_says_which() {
    // Dimension order on a mesh corrects d0 first, along the source's row: the link between
    // (1,0) and (2,0) carries the pairs whose source is in row 0 and whose columns straddle it.
    let (o, c, w) =
        run(with_events(vec![link_down(1_000, [1, 0], "d0", Direction::Plus)], Time::ZERO), Traffic::new(16, 1_000, 4), Net::Mesh, None).unwrap();
    conserved(&o, &c, &w);
    assert!(c.pairs_cut > 0 && c.reroutes == 0, "{c:?}");
    let t = Torus::new(vec![4, 4], Some(vec![false; 2]), None).unwrap();
    let needs = |s: u32, d: u32| {
        let (sx, sy, dx) = (t.coord(NodeId(s), 0), t.coord(NodeId(s), 1), t.coord(NodeId(d), 0));
        sy == 0 && sx.min(dx) <= 1 && sx.max(dx) >= 2
    };
    for p in &c.cut {
        assert!(needs(p.src, p.dst), "{} -> {} was cut but does not need the link", p.src, p.dst);
        assert!(p.first_ns >= 1_000.0);
    }
    // The sources outside row 0 never need it: all their messages arrive (so they send all).
    for s in 4..16 {
        assert_eq!(w.sent[s], 1_000, "source {s}");
    }
    assert!(c.summary().iter().any(|l| l.contains("packets cut off") && l.contains("->")), "{:?}", c.summary());
}

#[test]
fn a_node_down_cuts_the_pairs_it_ends_and_those_whose_dimension_order_corner_it_is() {
    // Node 5 = (1,1) fails. Dimension order cannot avoid it where it is the corner of a route
    // (the node where d0 is corrected and d1 begins); adaptive hops can, and they lead only
    // where the escape sub-network can still deliver.
    let (_, g, dor) = network(Net::Torus);
    let dead: HashSet<PortId> = (0..4).flat_map(|l| [g.port(RouterId(5), l), g.peer_port(g.port(RouterId(5), l))]).collect();
    let is_dead = |rt: RouterId, l: u32| dead.contains(&g.port(rt, l));
    for net in [Net::Torus, Net::Adaptive] {
        let (o, c, w) = run(with_events(vec![node_down(1_000, [1, 1])], Time::from_ns(200)), Traffic::new(16, 1_000, 4), net, None).unwrap();
        conserved(&o, &c, &w);
        assert!(c.pairs_cut > 0, "{net:?}");
        for p in &c.cut {
            // Any other pair only lost the packets caught inside the node when it failed
            // (stopped there once the routers knew, 200 ns later).
            let caught = p.packets <= 4 && p.first_ns <= 1_200.0;
            let corner = net == Net::Torus && path::trace_around(&g, &dor, NodeId(p.src), NodeId(p.dst), &is_dead).unwrap().is_none();
            assert!(p.src == 5 || p.dst == 5 || caught || corner, "{net:?}: {p:?} cut, but node 5 is not an end");
        }
    }
}

#[test]
fn failures_in_the_middle_of_heavy_traffic_never_deadlock_and_do_not_depend_on_event_order() {
    // Sets of two or three links, or a node, failing at once for good in the middle of traffic
    // with 8 messages outstanding per node, on a torus with dimension order and with adaptive
    // routing: the watchdog stays silent, every packet is delivered or, if the failures cut
    // its pair off, stopped and counted, a pair is cut repeatedly only if dimension order has
    // no way around, and shuffling simultaneous events changes nothing.
    let (t, g, r) = network(Net::Torus);
    let mut seed = 17u64;
    for case in 0..12u64 {
        let mut events = Vec::new();
        let mut dead = HashSet::new();
        if case % 4 == 3 {
            let node = [(case as u32 / 4) % 4, (case as u32 + 1) % 4];
            let n = t.node_at(&node).unwrap().0;
            for l in 0..t.net_ports() {
                dead.insert(g.port(RouterId(n), l));
                dead.insert(g.peer_port(g.port(RouterId(n), l)));
            }
            events.push(node_down(2_000, node));
        }
        for _ in 0..(2 + case % 2) * (case % 4 != 3) as u64 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let node = [(seed >> 40) as u32 % 4, (seed >> 50) as u32 % 4];
            let (axis, a) = if seed >> 20 & 1 == 0 { ("d0", 0) } else { ("d1", 1) };
            let dir = if seed >> 21 & 1 == 0 { Direction::Plus } else { Direction::Minus };
            let n = t.node_at(&node).unwrap();
            let p = g.port(RouterId(n.0), t.port_for(a, if dir == Direction::Plus { 1 } else { -1 }));
            if dead.insert(p) {
                dead.insert(g.peer_port(p));
                events.push(link_down(2_000, node, axis, dir));
            }
        }
        let is_dead = |rt: RouterId, l: u32| dead.contains(&g.port(rt, l));
        for net in [Net::Torus, Net::Adaptive] {
            let go = |shuffle| {
                let res = run(with_events(events.clone(), Time::from_ns(100 * (case % 3))), Traffic::new(16, 600, 8), net, shuffle);
                res.unwrap_or_else(|e| panic!("case {case} {net:?} {events:?}: {e}"))
            };
            let (o, c, w) = go(None);
            conserved(&o, &c, &w);
            for p in &c.cut {
                let route = path::trace_around(&g, &r, NodeId(p.src), NodeId(p.dst), &is_dead).unwrap();
                // Stopped on the way (in flight when the links failed), or not routable at all.
                assert!(route.is_none() || p.packets <= 8, "case {case} {net:?}: {} -> {} cut {} times", p.src, p.dst, p.packets);
            }
            let (b, cb, _) = go(Some(case));
            assert_eq!(
                (o.sim_time, o.packet_latency.mean(), &c),
                (b.sim_time, b.packet_latency.mean(), &cb),
                "case {case} {net:?}: event order mattered"
            );
        }
    }
}

#[test]
fn priority_packets_on_a_class_vc_go_around_a_dead_link_too() {
    // An 8-ring, dimension order on 2 VCs and one class VC (bubble flow control): the link
    // between nodes 2 and 3 is dead from the start, so a class-1 message from 2 to 3 goes the
    // long way, 7 hops, and arrives.
    struct One(Option<Time>);
    impl Workload for One {
        fn start(&mut self, api: &mut Api) {
            api.post(fabricsim_nic::Message::put(Rank(2), Rank(3), 200).class(1));
        }
        fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
            self.0 = Some(m.delivered - m.created);
        }
        fn finished(&self) -> bool {
            self.0.is_some()
        }
    }
    let latency = |events: Vec<FaultEvent>| {
        let t = Torus::new(vec![8], None, None).unwrap();
        let g = t.build_graph(1);
        let topo = fabricsim_topology::Topology::Torus(t.clone());
        let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap()).with_class_vcs(&topo, 1).unwrap();
        let mut p = with_events(events, Time::ZERO);
        p.vcs = r.vcs();
        let mut sim = Builder::new(g, r, p).build(One(None)).unwrap();
        sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }, |_| {}).unwrap();
        (sim.workload().0.expect("the class message arrived"), sim.fault_counts().unwrap())
    };
    let (direct, _) = latency(vec![FaultEvent { at: Time::from_us(50), ..link_down_on_ring() }]);
    let (around, c) = latency(vec![link_down_on_ring()]);
    assert_eq!(c.packets_cut, 0);
    assert!(c.reroutes > 0);
    // Six more hops, each at least a link's and a router's delay.
    let p = params(2);
    assert!(around.ps() >= direct.ps() + 6 * (p.link_latency.ps() + p.router_delay.ps()), "{around} vs {direct}");
}

/// The link between nodes 2 and 3 of an 8-ring, down from the start.
fn link_down_on_ring() -> FaultEvent {
    let link = LinkRef { node: Some(vec![2]), axis: Some("d0".into()), direction: Some(Direction::Plus), port: None };
    FaultEvent { at: Time::ZERO, kind: EventKind::LinkDown, link: Some(link), node: None, lane: None }
}

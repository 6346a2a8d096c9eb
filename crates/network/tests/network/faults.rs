//! Faulty lanes and link protection: nothing lost or duplicated with retry, slicing and
//! degrade (in order where the routing keeps order), losses counted with none, runs that do not
//! depend on event order, and failures that end in an error rather than a hang.

use std::collections::HashMap;

use fabricsim_core::{Bytes, PortId, SimError, Time};
use fabricsim_network::faults::{Direction, EventKind, FaultCounts, FaultEvent, FaultSpec, LinkRef, LinkSpec, Protection};
use fabricsim_network::{Api, Builder, Delivered, NetworkParams, Outcome, Rank, RunLimits, Workload};
use fabricsim_routing::{Adaptive, DimensionOrder, Routing};
use fabricsim_topology::Torus;

use crate::common::params;

/// Every node sends `per_node` one-packet messages, `depth` outstanding at a time, to
/// destinations spread over the network; the receivers record, per pair, the order tags arrive.
pub(crate) struct Streams {
    n: u32,
    per_node: u32,
    depth: u32,
    pub(crate) sent: Vec<u32>,
    /// Per (src, dst): tags in delivery order.
    got: HashMap<(u32, u32), Vec<u64>>,
    pub(crate) delivered: u64,
}

impl Streams {
    pub(crate) fn new(n: u32, per_node: u32, depth: u32) -> Self {
        Streams { n, per_node, depth, sent: vec![0; n as usize], got: HashMap::new(), delivered: 0 }
    }

    fn send(&mut self, src: u32, api: &mut Api) {
        let k = self.sent[src as usize];
        if k >= self.per_node {
            return;
        }
        self.sent[src as usize] += 1;
        let dst = (src + 1 + (k * 5 + src) % (self.n - 1)) % self.n;
        api.send(Rank(src), Rank(dst), 200, k as u64);
    }

    /// Every pair's tags arrived in increasing order.
    fn in_order(&self) -> bool {
        self.got.values().all(|v| v.windows(2).all(|w| w[0] < w[1]))
    }
}

impl Workload for Streams {
    fn start(&mut self, api: &mut Api) {
        for s in 0..self.n {
            for _ in 0..self.depth {
                self.send(s, api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.delivered += 1;
        self.got.entry((m.src.0, m.dst.0)).or_default().push(m.tag);
        self.send(m.src.0, api);
    }
    fn finished(&self) -> bool {
        self.sent.iter().all(|&s| s >= self.per_node)
    }
}

fn long_run() -> RunLimits {
    RunLimits { warmup: Time::ZERO, measure: Time::from_us(1_000_000), drain: Time::ZERO }
}

/// Parameters of a 4x4 torus with 2 VCs (dateline), faults `faults`, protection `protection` on
/// `lanes` lanes.
fn faulty(faults: FaultSpec, protection: Protection, lanes: u32) -> NetworkParams {
    let mut p = params(2);
    p.buffer_bytes = 1024;
    p.watchdog = Time::from_us(200);
    p.faults = faults;
    p.link = LinkSpec { protection, lanes, ..Default::default() };
    p
}

fn ber(x: f64) -> FaultSpec {
    FaultSpec { lane_ber: x, ..Default::default() }
}

/// Which network a test runs on.
#[derive(Clone, Copy, PartialEq)]
enum Net {
    /// A 4x4 torus, dimension order with a dateline (2 VCs: a pair's packets may enter on
    /// either, so order is not promised).
    Torus,
    /// A 4x4 mesh, dimension order on one VC: one path and one queue per pair, in order.
    Mesh,
    /// A 4x4 torus, minimal adaptive routing.
    Adaptive,
}

/// Run `w` on `net` with `p`; optionally shuffled ties.
fn run(p: NetworkParams, w: Streams, net: Net, shuffle: Option<u64>) -> Result<(Outcome, Option<FaultCounts>, Streams), SimError> {
    let t = Torus::new(vec![4, 4], Some(vec![net != Net::Mesh; 2]), None).unwrap();
    let g = t.build_graph(1);
    let r = match net {
        Net::Adaptive => Routing::from(Adaptive::new(t, None, 1, 3, Default::default()).unwrap()),
        Net::Torus => Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap()),
        Net::Mesh => Routing::from(DimensionOrder::new(t, None, 1, 1).unwrap()),
    };
    let mut p = p;
    p.vcs = r.vcs();
    let mut b = Builder::new(g, r, p);
    if let Some(s) = shuffle {
        b = b.tie_shuffle(s);
    }
    let mut sim = b.build(w)?;
    let o = sim.run(long_run(), |_| {})?;
    let c = sim.fault_counts();
    let w = std::mem::replace(sim.workload_mut(), Streams::new(2, 0, 0));
    Ok((o, c, w))
}

#[test]
fn retry_slicing_and_degrade_deliver_every_packet_exactly_once_and_in_order_over_a_million_lane_errors() {
    // A lane BER of 3e-4 corrupts about a quarter of the 1 KiB-bit slices of a 2-lane frame.
    // Each packet is counted once by the delivery check (a second delivery stops the run with
    // an error), the conservation check balances injected against delivered, and dimension
    // order on one VC of a mesh keeps each pair's order.
    let mut errors = 0;
    for protection in [Protection::Retry, Protection::Slicing, Protection::Degrade] {
        let (o, c, w) = run(faulty(ber(3e-4), protection, 2), Streams::new(16, 25_000, 4), Net::Mesh, None).unwrap();
        let c = c.unwrap();
        assert_eq!(w.delivered, 16 * 25_000, "{protection:?}");
        assert_eq!(o.packets_delivered, o.packets_injected, "{protection:?}");
        assert_eq!((o.packets_lost, c.packets_lost, c.messages_lost, c.packets_duplicated), (0, 0, 0, 0), "{protection:?}");
        assert!(w.in_order(), "{protection:?}: a pair's messages overtook each other");
        assert!(c.frames_retransmitted > 0 && c.naks > 0, "{protection:?}: {c:?}");
        errors += c.errors();
    }
    assert!(errors >= 1_000_000, "only {errors} lane errors injected");
}

#[test]
fn adaptive_routing_delivers_every_packet_exactly_once_under_errors() {
    let (o, c, w) = run(faulty(ber(3e-4), Protection::Retry, 2), Streams::new(16, 2_000, 4), Net::Adaptive, None).unwrap();
    assert_eq!(w.delivered, 16 * 2_000);
    assert_eq!(o.packets_delivered, o.packets_injected);
    assert!(c.unwrap().frames_retransmitted > 0);
}

#[test]
fn without_protection_failed_frames_are_lost_packets_counted_and_their_messages_never_complete() {
    let (o, c, w) = run(faulty(ber(1e-4), Protection::None, 1), Streams::new(16, 2_000, 4), Net::Torus, None).unwrap();
    let c = c.unwrap();
    assert!(c.packets_lost > 0);
    assert_eq!(o.packets_lost, c.packets_lost);
    assert_eq!(c.messages_lost, c.packets_lost, "one-packet messages");
    assert_eq!(o.packets_injected, o.packets_delivered + o.packets_lost);
    assert_eq!(w.delivered + c.messages_lost, o.packets_injected);
    assert_eq!(c.frames_retransmitted, 0);
}

#[test]
fn fault_draws_do_not_depend_on_the_order_of_simultaneous_events() {
    let p = || faulty(FaultSpec { lane_ber: 2e-4, burst_rate: 2e5, burst_length: Time::from_ns(50), ..Default::default() }, Protection::Slicing, 2);
    let (a, ca, _) = run(p(), Streams::new(16, 1_000, 4), Net::Torus, None).unwrap();
    let (b, cb, _) = run(p(), Streams::new(16, 1_000, 4), Net::Torus, Some(99)).unwrap();
    assert_eq!(ca, cb);
    assert!(ca.unwrap().errors_burst > 0);
    assert_eq!((a.sim_time, a.packet_latency.mean()), (b.sim_time, b.packet_latency.mean()));
    let mut other = p();
    other.seed = 2;
    let (_, cc, _) = run(other, Streams::new(16, 1_000, 4), Net::Torus, None).unwrap();
    assert_ne!(ca_errors(&cb), ca_errors(&cc), "another seed draws other errors");
}

fn ca_errors(c: &Option<FaultCounts>) -> u64 {
    c.as_ref().unwrap().errors_random
}

/// A lane event on the link leaving node (0,0) in direction + of axis d0.
fn lane_event(at_ns: u64, kind: EventKind) -> FaultEvent {
    let link = LinkRef { node: Some(vec![0, 0]), axis: Some("d0".into()), direction: Some(Direction::Plus), port: None };
    FaultEvent { at: Time::from_ns(at_ns), kind, link: Some(link), node: None, lane: Some(1) }
}

#[test]
fn clean_lanes_cost_slicing_nothing_it_stays_in_split_mode() {
    // Faults configured but no error ever drawn: the same run, to the picosecond, as a perfect
    // network.
    let (a, c, _) = run(faulty(ber(1e-30), Protection::Slicing, 2), Streams::new(16, 500, 4), Net::Torus, None).unwrap();
    let (b, none, wb) = run(params_like_faulty(), Streams::new(16, 500, 4), Net::Torus, None).unwrap();
    assert!(none.is_none());
    assert!(wb.in_order(), "perfect network out of order");
    let c = c.unwrap();
    assert_eq!((c.frames_duplicated, c.switches_to_duplicate, c.errors()), (0, 0, 0));
    assert_eq!((a.sim_time, a.packet_latency.mean(), a.packet_hops), (b.sim_time, b.packet_latency.mean(), b.packet_hops));
}

fn params_like_faulty() -> NetworkParams {
    faulty(FaultSpec::default(), Protection::Slicing, 2)
}

#[test]
fn slicing_goes_to_duplicate_mode_when_a_lane_goes_dark_and_back_when_it_returns() {
    let f = FaultSpec {
        lane_ber: 1e-30,
        events: vec![lane_event(2_000, EventKind::LaneDown), lane_event(20_000, EventKind::LaneUp)],
        ..Default::default()
    };
    let (o, c, w) = run(faulty(f, Protection::Slicing, 2), Streams::new(16, 3_000, 4), Net::Torus, None).unwrap();
    let c = c.unwrap();
    assert_eq!(w.delivered, 16 * 3_000);
    assert_eq!(o.packets_lost, 0);
    assert!(c.errors_dark_lane > 0, "{c:?}");
    assert_eq!((c.switches_to_duplicate, c.switches_to_split), (1, 1), "{c:?}");
    assert!(c.frames_duplicated > 0);
    let r = &c.recovery[0];
    assert!(r.recovered_after_ns.is_some_and(|t| t > 0.0 && t < 18_000.0), "{r:?}");
}

#[test]
fn degrade_drops_a_dark_lane_for_good_and_runs_on_the_others() {
    let f = FaultSpec {
        lane_ber: 1e-30,
        events: vec![lane_event(2_000, EventKind::LaneDown), lane_event(10_000, EventKind::LaneUp)],
        ..Default::default()
    };
    let (o, c, w) = run(faulty(f, Protection::Degrade, 4), Streams::new(16, 3_000, 4), Net::Torus, None).unwrap();
    let c = c.unwrap();
    assert_eq!(w.delivered, 16 * 3_000);
    assert_eq!(o.packets_lost, 0);
    assert_eq!((c.lanes_dropped, c.degraded_links), (1, 1), "{c:?}");
    // Dropped for good: once gone, the lane's return changes nothing and its errors stop.
    assert!(c.errors_dark_lane >= 8 && c.errors_dark_lane < 64, "{c:?}");
}

#[test]
fn retry_with_a_dark_lane_and_no_recovery_is_an_error_not_a_hang() {
    let f = FaultSpec { lane_ber: 1e-30, events: vec![lane_event(1_000, EventKind::LaneDown)], ..Default::default() };
    let mut p = faulty(f, Protection::Retry, 2);
    p.link.retry.max_attempts = 50;
    match run(p, Streams::new(16, 3_000, 4), Net::Torus, None) {
        Err(SimError::LinkFailed(m)) => assert!(m.contains("attempts"), "{m}"),
        Err(e) => panic!("another error: {e}"),
        Ok((o, ..)) => panic!("delivered {} packets over a dead lane", o.packets_delivered),
    }
}

#[test]
fn both_ends_of_a_link_agree_and_traffic_both_ways_gets_past_a_failure() {
    let mut down = lane_event(3_000, EventKind::LinkDown);
    let mut up = lane_event(8_000, EventKind::LinkUp);
    (down.lane, up.lane) = (None, None);
    // The routers learn of it 300 ns late: frames sent into the dead link meanwhile wait for
    // it (the link layer resends them until it is back); later packets go the long way round.
    let f = FaultSpec { lane_ber: 1e-30, awareness: Time::from_ns(300), events: vec![down, up], ..Default::default() };
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let g = t.build_graph(1);
    let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap());
    let mut sim = Builder::new(g, r, faulty(f, Protection::Retry, 1)).build(Streams::new(16, 3_000, 8)).unwrap();
    let port = sim.graph().port(fabricsim_core::RouterId(0), 0);
    let back = sim.graph().peer_port(port);
    for ns in (0..12_000).step_by(250) {
        let at = Time::from_ns(ns);
        assert_eq!(sim.link_down_at(port, at), sim.link_down_at(back, at), "at {ns} ns");
        assert_eq!(sim.link_down_at(port, at), (3_000..8_000).contains(&ns), "at {ns} ns");
    }
    let o = sim.run(long_run(), |_| {}).unwrap();
    assert_eq!(o.packets_delivered, o.packets_injected);
    assert_eq!(sim.workload().delivered, 16 * 3_000);
    let c = sim.fault_counts().unwrap();
    assert!(c.errors_link_down > 0 && c.reroutes > 0, "{c:?}");
    assert_eq!(c.packets_cut, 0);
    for r in &c.recovery {
        assert!(r.recovered_after_ns.is_some_and(|x| x >= 8_000.0 - r.at_ns), "{r:?}");
    }
    let _ = PortId(0);
}

#[test]
fn a_retry_buffer_smaller_than_the_round_trip_costs_bandwidth() {
    // One 256 B frame in flight at most, over 200 ns links: the sender waits for each ACK.
    let stream = |buffer: u64| {
        let mut p = faulty(ber(1e-30), Protection::Retry, 1);
        p.link_latency = Time::from_ns(200);
        p.link.retry.buffer = Bytes(buffer);
        let (o, c, _) = run(p, Streams::new(16, 500, 4), Net::Torus, None).unwrap();
        (o.sim_time, c.unwrap().retry_buffer_wait_ns)
    };
    let (small, wait_small) = stream(256);
    let (large, wait_large) = stream(1 << 20);
    assert_eq!(wait_large, 0.0);
    assert!(wait_small > 0.0 && small > large, "{small:?} {large:?}");
}

#[test]
fn bad_fault_input_names_the_key() {
    let build = |f: FaultSpec, link: LinkSpec| {
        let t = Torus::new(vec![4, 4], Some(vec![false, true]), None).unwrap();
        let g = t.build_graph(1);
        let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap());
        let mut p = params(2);
        p.vcs = r.vcs();
        p.faults = f;
        p.link = link;
        match Builder::new(g, r, p).build(Streams::new(16, 1, 1)) {
            Err(SimError::Config(c)) => format!("{}: {}", c.field, c.message),
            Err(e) => panic!("{e}"),
            Ok(_) => "accepted".into(),
        }
    };
    let ev = |node: Vec<u32>, axis: &str, dir, at| FaultEvent {
        at: Time::from_ns(at),
        kind: EventKind::LinkDown,
        link: Some(LinkRef { node: Some(node), axis: Some(axis.into()), direction: Some(dir), port: None }),
        node: None,
        lane: None,
    };
    let with = |events| FaultSpec { events, ..Default::default() };
    let e = build(ber(1.0), LinkSpec::default());
    assert!(e.starts_with("faults.lane_ber: 1 is outside"), "{e}");
    let e = build(ber(1e-9), LinkSpec { protection: Protection::Slicing, lanes: 1, ..Default::default() });
    assert!(e.starts_with("link.protection: 'slicing'"), "{e}");
    let e = build(with(vec![ev(vec![4, 0], "d0", Direction::Plus, 10)]), LinkSpec::default());
    assert!(e.starts_with("faults.events[0].link.node") && e.contains("outside"), "{e}");
    // d0 is a mesh axis: node 3 has no + link on it.
    let e = build(with(vec![ev(vec![3, 0], "d0", Direction::Plus, 10)]), LinkSpec::default());
    assert!(e.starts_with("faults.events[0].link: node [3, 0] has no link"), "{e}");
    let e = build(with(vec![ev(vec![0, 0], "d7", Direction::Plus, 10)]), LinkSpec::default());
    assert!(e.starts_with("faults.events[0].link.axis"), "{e}");
    let e = build(with(vec![ev(vec![0, 0], "d1", Direction::Plus, 20), ev(vec![0, 0], "d1", Direction::Plus, 10)]), LinkSpec::default());
    assert!(e.starts_with("faults.events[1].at") && e.contains("time order"), "{e}");
    let mut by_port = ev(vec![0, 0], "d1", Direction::Plus, 10);
    by_port.link = Some(LinkRef { port: Some(100_000), ..Default::default() });
    let e = build(with(vec![by_port]), LinkSpec::default());
    assert!(e.starts_with("faults.events[0].link.port: 100000"), "{e}");
    assert_eq!(build(with(vec![ev(vec![2, 0], "d0", Direction::Plus, 10)]), LinkSpec::default()), "accepted");
}

#[test]
fn adaptive_routing_steers_around_a_link_it_knows_is_down_and_not_before_it_knows() {
    let mut down = lane_event(2_000, EventKind::LinkDown);
    let mut up = lane_event(40_000, EventKind::LinkUp);
    (down.lane, up.lane) = (None, None);
    let with = |awareness: Time| {
        let f = FaultSpec { lane_ber: 1e-30, awareness, events: vec![down.clone(), up.clone()], ..Default::default() };
        let (o, c, w) = run(faulty(f, Protection::Retry, 1), Streams::new(16, 2_000, 4), Net::Adaptive, None).unwrap();
        assert_eq!(w.delivered, 16 * 2_000);
        assert_eq!(o.packets_delivered, o.packets_injected);
        c.unwrap()
    };
    let aware = with(Time::ZERO);
    let unaware = with(Time::from_us(1_000));
    assert!(aware.reroutes > 0, "{aware:?}");
    assert_eq!(unaware.reroutes, 0, "it never learns during the outage");
    // Knowing at once, no router sends a frame into the dead link; not knowing, some do (the
    // first one holds the output until the link is back, and adaptive packets then pass it by
    // for lack of credit).
    assert_eq!(aware.errors_link_down, 0, "{aware:?}");
    assert!(unaware.errors_link_down > 0, "{unaware:?}");
}

//! A run stepped by instants or paused at given times ends exactly as one run straight through.

use fabricsim_core::{SimError, Time};
use fabricsim_network::{Api, Builder, Delivered, Rank, RunLimits, RunState, Simulation, Workload};
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::Torus;

use crate::common::params;

/// Every node keeps four messages of 600 B (three packets) to a node `shift` away in flight.
struct Pairs {
    n: u32,
    shift: u32,
}

impl Workload for Pairs {
    fn start(&mut self, api: &mut Api) {
        for s in 0..self.n {
            for _ in 0..4 {
                api.send(Rank(s), Rank((s + self.shift) % self.n), 600, 0);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        api.send(m.src, Rank((m.src.0 + self.shift) % self.n), 600, 0);
    }
}

fn sim() -> Simulation<Pairs> {
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let g = t.build_graph(1);
    let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap());
    Builder::new(g, r, params(2)).build(Pairs { n: 16, shift: 5 }).unwrap()
}

fn limits() -> RunLimits {
    RunLimits { warmup: Time::from_us(1), measure: Time::from_us(4), drain: Time::from_us(2) }
}

/// What a run reports, as text (every field of the outcome and every port counter).
fn report(sim: &mut Simulation<Pairs>, out: fabricsim_network::Outcome) -> String {
    format!("{out:?} {:?}", sim.port_counters())
}

#[test]
fn paused_and_stepped_runs_end_as_a_straight_run() {
    let mut straight = sim();
    let whole = straight.run(limits(), |_| {}).unwrap();
    assert!(whole.packets_delivered > 500, "the run moves traffic: {}", whole.packets_delivered);
    let expected = report(&mut straight, whole);

    // Paused at uneven times, including one inside the warm-up and one past the window.
    let mut paused = sim();
    paused.start(limits()).unwrap();
    for ns in [1, 333, 1000, 2500, 2501, 4999, 5600] {
        assert_eq!(paused.run_until(Time::from_ns(ns)).unwrap(), RunState::Running);
        assert!(paused.now() <= Time::from_ns(ns), "nothing after the pause time is handled");
    }
    assert_eq!(paused.run_to_end(|_| {}).unwrap(), RunState::Ended);
    let out = paused.finish().unwrap();
    assert_eq!(report(&mut paused, out), expected);

    // One instant at a time.
    let mut stepped = sim();
    stepped.start(limits()).unwrap();
    let mut steps = 0u64;
    let mut last = Time::ZERO;
    while stepped.step().unwrap() == RunState::Running {
        assert!(stepped.now() >= last, "time never goes back");
        last = stepped.now();
        steps += 1;
    }
    assert!(steps > 100, "{steps} instants");
    let out = stepped.finish().unwrap();
    assert_eq!(report(&mut stepped, out), expected);
}

#[test]
fn stepping_out_of_order_is_an_error_not_a_panic() {
    let mut s = sim();
    assert!(matches!(s.run_until(Time::from_ns(10)), Err(SimError::Usage(_))));
    assert!(matches!(s.finish(), Err(SimError::Usage(_))));
    s.start(limits()).unwrap();
    assert!(matches!(s.start(limits()), Err(SimError::Usage(_))));
    assert_eq!(s.run_to_end(|_| {}).unwrap(), RunState::Ended);
    assert_eq!(s.step().unwrap(), RunState::Ended, "an ended run stays ended");
}

#[test]
fn the_lookahead_is_the_smallest_link_latency() {
    // What a partitioned run may advance by: the smallest latency between routers (20 ns here),
    // zero when a link has none (which such a run must refuse).
    assert_eq!(sim().lookahead(), Some(Time::from_ns(20)));
    assert_eq!(sim().partition_lookahead().unwrap(), Time::from_ns(20));
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let p = fabricsim_network::NetworkParams { link_latency: Time::ZERO, ..params(2) };
    let s = Builder::new(t.build_graph(1), r, p).build(Pairs { n: 16, shift: 5 }).unwrap();
    assert_eq!(s.lookahead(), Some(Time::ZERO));
    let e = s.partition_lookahead().unwrap_err().to_string();
    assert!(e.contains("topology.link_latency") && e.contains("router 0 port"), "{e}");
}

/// [`Pairs`], remembering when the last message posted inside the measurement window arrived.
struct Watched {
    pairs: Pairs,
    window: (Time, Time),
    last_measured: Time,
}

impl Workload for Watched {
    fn start(&mut self, api: &mut Api) {
        self.pairs.start(api)
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        if m.created >= self.window.0 && m.created < self.window.1 {
            self.last_measured = self.last_measured.max(m.delivered);
        }
        self.pairs.delivered(m, api)
    }
}

#[test]
fn stopping_rules_are_judged_at_multiples_of_the_lookahead() {
    // The run drains after its window: it may stop only once every measured message has
    // arrived, and only where the lookahead's grid is crossed (where the blocks of a
    // partitioned run meet), so it handles the traffic that follows until then.
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let l = limits();
    let w = Watched { pairs: Pairs { n: 16, shift: 5 }, window: (l.warmup, l.warmup + l.measure), last_measured: Time::ZERO };
    let mut s = Builder::new(t.build_graph(1), r, params(2)).build(w).unwrap();
    let q = s.lookahead().unwrap().ps();
    let out = s.run(l, |_| {}).unwrap();
    let last = s.workload().last_measured.ps();
    let end = out.sim_time.ps();
    assert!(out.drained && last > l.warmup.ps(), "the window's messages drained: {last}");
    assert!(end > last, "traffic after the last measured arrival is handled until the grid: {end} vs {last}");
    assert_eq!(end / q, last / q, "the run stops at the first multiple of {q} ps after {last}, not at {end}");
}

/// An observer whose file "fails" at the first hop after `at`.
struct FailsAt {
    at: Time,
    failed_at: Option<Time>,
    last_hop: Time,
}

impl fabricsim_stats::Observer for FailsAt {
    fn on_hop(&mut self, _port: fabricsim_core::PortId, start: Time, _end: Time, _bytes: u32) {
        self.last_hop = start;
        if start >= self.at && self.failed_at.is_none() {
            self.failed_at = Some(start);
        }
    }
    fn failed(&self) -> Option<String> {
        self.failed_at.map(|t| format!("disk full at {t}"))
    }
}

#[test]
fn an_observer_that_fails_stops_the_run_soon_after() {
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let obs = FailsAt { at: Time::from_us(2), failed_at: None, last_hop: Time::ZERO };
    let mut s = Builder::new(t.build_graph(1), r, params(2)).observer(obs).build(Pairs { n: 16, shift: 5 }).unwrap();
    let long = RunLimits { warmup: Time::from_us(1), measure: Time::from_us(1000), drain: Time::from_us(2) };
    let e = s.run(long, |_| {}).unwrap_err();
    assert!(matches!(&e, SimError::Observer(m) if m.starts_with("disk full at 2")), "{e}");
    // Stopped within one check period (a few thousand events), not at the run's end.
    let (failed, last) = (s.observer().failed_at.unwrap(), s.observer().last_hop);
    assert!(last < failed + Time::from_us(2), "failed at {failed}, last hop at {last}");
}

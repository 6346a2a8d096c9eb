//! Flit multiplexing of a link's VCs (`NetworkParams::flit_bytes`): a higher-priority packet
//! takes a busy link at the next flit boundary of the lower-priority packet under way, which
//! resumes after it; equal priorities still go packet by packet.

use fabricsim_core::Time;
use fabricsim_network::{Api, Delivered, NetworkParams, PacketFormat, Rank, RunLimits, Simulation, Workload};
use fabricsim_nic::Message;
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::{Topology, Torus};

use crate::common;

const BIG: u64 = 1;
const PRIORITY: u64 = 2;

/// Node 0 sends one 1 KiB normal message to node 3 at time 0; node 1 sends a 32 B class-1
/// message to node 3 at `at`. Latencies by tag.
struct Overtake {
    at: Option<Time>,
    big: Option<Time>,
    priority: Option<Time>,
}

impl Workload for Overtake {
    fn start(&mut self, api: &mut Api) {
        api.post(Message::put(Rank(0), Rank(3), 1024).tag(BIG));
        if let Some(at) = self.at {
            api.wake_at(Rank(1), at);
        }
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        api.post(Message::put(rank, Rank(3), 32).class(1).tag(PRIORITY));
    }
    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        let l = Some(m.delivered - m.created);
        match m.tag {
            BIG => self.big = l,
            _ => self.priority = l,
        }
    }
    fn finished(&self) -> bool {
        self.big.is_some() && (self.at.is_none() || self.priority.is_some())
    }
}

/// One routing VC and one class VC, 1 KiB packets without header, 5 GB/s links.
fn params(flit: u32) -> NetworkParams {
    NetworkParams { buffer_bytes: 2048, format: PacketFormat::simple(1024, 0), flit_bytes: flit, ..common::params(2) }
}

fn sim<W: Workload>(t: Torus, p: NetworkParams, w: W) -> Simulation<W> {
    let g = t.build_graph(1);
    let topo = Topology::Torus(t.clone());
    let r = Routing::from(DimensionOrder::new(t, None, 1, p.vcs - 1).unwrap()).with_class_vcs(&topo, 1).unwrap();
    Simulation::new(g, r, p, w).unwrap()
}

fn limits() -> RunLimits {
    RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }
}

/// (big message's latency, priority message's latency, suspensions) on a 4-node line.
fn overtake(at: Option<Time>, flit: u32) -> (Time, Option<Time>, u64) {
    let line = Torus::new(vec![4], Some(vec![false]), None).unwrap();
    let mut s = sim(line, params(flit), Overtake { at, big: None, priority: None });
    s.run(limits(), |_| {}).unwrap();
    let w = s.workload();
    assert!(w.finished(), "both messages arrive");
    (w.big.unwrap(), w.priority, s.flit_counts().map_or(0, |c| c.preemptions))
}

#[test]
fn a_priority_packet_takes_the_link_at_a_flit_boundary_and_the_big_one_waits_its_wire_time() {
    let ps_per_byte = 200; // 5 GB/s
    let flit = 16u32;
    let (big_alone, _, _) = overtake(None, flit);
    assert_eq!(big_alone, overtake(None, 0).0, "alone, flits change nothing");
    let small = 32 * ps_per_byte; // the priority packet's wire time
    let mut overlapped = 0;
    let mut worst_whole = 0;
    // The priority message leaves node 1 at every 25 ns from 0 to 500 ns: its way to node 3
    // (links 1->2, 2->3 and the ejection port) meets the big packet somewhere for many of them.
    for k in 0..=20u64 {
        let at = Time::from_ns(25 * k);
        let (big_whole, prio_whole, none) = overtake(Some(at), 0);
        let (big_flit, prio_flit, suspended) = overtake(Some(at), flit);
        assert_eq!(none, 0, "whole packets: nothing is suspended");
        let (prio_whole, prio_flit) = (prio_whole.unwrap(), prio_flit.unwrap());
        assert!(prio_flit <= prio_whole, "at {at}: flits never make the priority packet later");
        // The big packet is late by the priority packet's wire time at each link it was
        // suspended on whose delay reached its delivery: a whole multiple of it, at most one
        // per suspension.
        assert!(big_flit >= big_alone, "at {at}: flits never make the suspended packet earlier");
        let late = big_flit.ps() - big_alone.ps();
        assert_eq!(late % small, 0, "at {at}: late by {late} ps");
        assert!(late / small <= suspended, "at {at}: {late} ps late after {suspended} suspensions");
        assert_eq!(big_whole.ps().max(big_alone.ps()), big_whole.ps());
        if suspended > 0 {
            overlapped += 1;
            assert!(late > 0, "at {at}: the suspended packet arrives later");
            // It waited at most a flit at each of its three links, not a 205 ns packet.
            let idle = overtake_alone(at, flit);
            assert!(prio_flit.ps() <= idle.ps() + 3 * flit as u64 * ps_per_byte, "at {at}: {prio_flit} vs idle {idle}");
            worst_whole = worst_whole.max(prio_whole.ps() - idle.ps());
        }
    }
    assert!(overlapped >= 5, "the priority packet met the big one {overlapped} times");
    // Without flits it waited up to most of the big packet's 205 ns at some link.
    assert!(worst_whole >= 100_000, "whole packets: at worst {worst_whole} ps behind");
}

/// The priority message's latency with nothing else on the line.
fn overtake_alone(at: Time, flit: u32) -> Time {
    struct Alone {
        at: Time,
        l: Option<Time>,
    }
    impl Workload for Alone {
        fn start(&mut self, api: &mut Api) {
            api.wake_at(Rank(1), self.at);
        }
        fn wake(&mut self, rank: Rank, api: &mut Api) {
            api.post(Message::put(rank, Rank(3), 32).class(1).tag(PRIORITY));
        }
        fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
            self.l = Some(m.delivered - m.created);
        }
        fn finished(&self) -> bool {
            self.l.is_some()
        }
    }
    let line = Torus::new(vec![4], Some(vec![false]), None).unwrap();
    let mut s = sim(line, params(flit), Alone { at, l: None });
    s.run(limits(), |_| {}).unwrap();
    s.workload().l.unwrap()
}

/// Every node sends `count` normal messages of 100-3000 B to pseudo-random nodes at the
/// start; with `probes`, each node also sends a 32 B class-1 message to a pseudo-random node
/// every 300 ns (from a staggered start), `probes` times. Every delivery is recorded.
struct Mixed {
    nodes: u32,
    count: u32,
    probes: u32,
    log: Vec<(u32, u64, Time, Time)>,
    sent: u32,
    probed: Vec<u32>,
    x: u64,
}

impl Mixed {
    fn draw(&mut self) -> u64 {
        self.x ^= self.x << 13;
        self.x ^= self.x >> 7;
        self.x ^= self.x << 17;
        self.x
    }
    fn partner(&mut self, src: u32) -> u32 {
        (src + 1 + (self.draw() % (self.nodes as u64 - 1)) as u32) % self.nodes
    }
}

/// Tags of class messages start here.
const PROBE: u64 = 1 << 32;

impl Workload for Mixed {
    fn start(&mut self, api: &mut Api) {
        for i in 0..self.nodes * self.count {
            let src = i % self.nodes;
            let dst = self.partner(src);
            let bytes = 100 + (self.draw() >> 20) % 2900;
            api.post(Message::put(Rank(src), Rank(dst), bytes).tag(i as u64));
            self.sent += 1;
        }
        if self.probes > 0 {
            for n in 0..self.nodes {
                api.wake_at(Rank(n), Time::from_ns(200 + 17 * n as u64));
            }
        }
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        let k = self.sent;
        let dst = self.partner(rank.0);
        api.post(Message::put(rank, Rank(dst), 32).class(1).tag(PROBE + k as u64));
        self.sent += 1;
        self.probed[rank.0 as usize] += 1;
        if self.probed[rank.0 as usize] < self.probes {
            api.wake_at(rank, api.now() + Time::from_ns(300));
        }
    }
    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        self.log.push((m.src.0, m.tag, m.created, m.delivered));
    }
    fn finished(&self) -> bool {
        self.log.len() as u32 == self.nodes * (self.count + self.probes)
    }
}

/// The sorted deliveries and the suspension count of `Mixed` on a 4x4 torus.
fn mixed(probes: u32, flit: u32, shuffle: Option<u64>) -> (Vec<(u32, u64, Time, Time)>, u64) {
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let p = NetworkParams {
        buffer_bytes: 2048,
        format: PacketFormat::simple(512, 16),
        flit_bytes: flit,
        watchdog: Time::from_us(50),
        ..common::params(3)
    };
    let g = t.build_graph(1);
    let topo = Topology::Torus(t.clone());
    let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap()).with_class_vcs(&topo, 1).unwrap();
    let w = Mixed { nodes: 16, count: 12, probes, log: Vec::new(), sent: 0, probed: vec![0; 16], x: 0x9E37_79B9_7F4A_7C15 };
    let mut s = Simulation::new(g, r, p, w).unwrap();
    if let Some(seed) = shuffle {
        s = s.with_tie_shuffle(seed);
    }
    s.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(1000), drain: Time::ZERO }, |_| {}).unwrap();
    assert!(s.workload().finished(), "every message arrives");
    let mut log = s.workload().log.clone();
    log.sort_unstable();
    (log, s.flit_counts().map_or(0, |c| c.preemptions))
}

#[test]
fn equal_priorities_go_packet_by_packet_with_or_without_flits() {
    let (whole, _) = mixed(0, 0, None);
    let (flits, suspended) = mixed(0, 16, None);
    assert_eq!(suspended, 0);
    assert_eq!(whole, flits, "no class traffic: flits change nothing");
}

#[test]
fn mixed_priorities_under_load_are_delivered_and_do_not_depend_on_tie_order() {
    let (whole, _) = mixed(6, 0, None);
    let (flits, suspended) = mixed(6, 16, None);
    assert!(suspended > 0, "class packets suspended normal ones");
    assert_eq!(whole.len(), flits.len());
    // Class messages cross the loaded torus sooner: they no longer wait out 512 B packets.
    let class_latency = |log: &[(u32, u64, Time, Time)]| log.iter().filter(|e| e.1 >= PROBE).map(|e| (e.3 - e.2).ps()).sum::<u64>();
    let (f, w) = (class_latency(&flits), class_latency(&whole));
    assert!(f < w, "class latency with flits {f} ps vs whole packets {w} ps ({suspended} suspensions)");
    for seed in 1..=3 {
        assert_eq!(mixed(6, 16, Some(seed)), (flits.clone(), suspended), "shuffle seed {seed}");
    }
}

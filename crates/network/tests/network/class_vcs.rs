//! Dedicated class VCs: a priority message bypasses the normal traffic queued in the buffers
//! (with a shared VC it only wins arbitration, and waits behind the queue), class messages are
//! cut to fit a small class buffer, and class traffic on a ring (one VC, bubble flow control)
//! does not deadlock.

use fabricsim_core::Time;
use fabricsim_network::{Api, Delivered, NetworkParams, PacketFormat, Rank, RunLimits, Simulation, Workload};
use fabricsim_nic::Message;
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::{Topology, Torus};

use crate::common;

/// Tag of the priority message.
const PRIORITY: u64 = 1;

/// Background streams of normal 256 B messages (`(source, destination, count)`), and at `at`
/// one class-1 message of 200 B from `probe.0` to `probe.1`, whose latency it records.
struct Probe {
    streams: Vec<(u32, u32, u32)>,
    probe: (u32, u32),
    at: Time,
    latency: Option<Time>,
    delivered: u32,
}

impl Probe {
    fn new(streams: Vec<(u32, u32, u32)>, probe: (u32, u32), at: Time) -> Self {
        Probe { streams, probe, at, latency: None, delivered: 0 }
    }
}

impl Workload for Probe {
    fn start(&mut self, api: &mut Api) {
        for &(src, dst, count) in &self.streams {
            for _ in 0..count {
                api.send(Rank(src), Rank(dst), 256, 0);
            }
        }
        api.wake_at(Rank(self.probe.0), self.at);
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        api.post(Message::put(rank, Rank(self.probe.1), 200).class(1).tag(PRIORITY));
    }
    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        self.delivered += 1;
        if m.tag == PRIORITY {
            self.latency = Some(m.delivered - m.created);
        }
    }
    fn finished(&self) -> bool {
        self.delivered == self.streams.iter().map(|s| s.2).sum::<u32>() + 1
    }
}

fn line() -> Torus {
    Torus::new(vec![8], Some(vec![false]), None).unwrap()
}

/// A simulation of `w` on `t` with one routing VC and `class_vcs` class VCs.
fn sim<W: Workload>(t: Torus, class_vcs: u8, p: NetworkParams, w: W) -> Simulation<W> {
    let g = t.build_graph(1);
    let topo = Topology::Torus(t.clone());
    let r = Routing::from(DimensionOrder::new(t, None, 1, p.vcs - class_vcs).unwrap()).with_class_vcs(&topo, class_vcs).unwrap();
    Simulation::new(g, r, p, w).unwrap()
}

fn limits() -> RunLimits {
    RunLimits { warmup: Time::ZERO, measure: Time::from_us(1000), drain: Time::ZERO }
}

/// On an 8-node line, nodes 0, 1 and 7 each post `background` normal messages to node 6: node
/// 6's ejection takes a third of what arrives, so the buffers from 1 to 6 fill. At 3 us node 2
/// posts the class-1 probe to node 6.
fn priority_latency(background: u32, class_vcs: u8) -> Time {
    let p = NetworkParams { buffer_bytes: 1024, ..common::params(1 + class_vcs) };
    let w = Probe::new(vec![(0, 6, background), (1, 6, background), (7, 6, background)], (2, 6), Time::from_us(3));
    let mut s = sim(line(), class_vcs, p, w);
    s.run(limits(), |_| {}).unwrap();
    assert!(s.workload().finished(), "every message arrives");
    s.workload().latency.expect("the priority message arrived")
}

#[test]
fn a_class_vc_lets_priority_packets_bypass_queued_traffic() {
    let idle = priority_latency(0, 1);
    assert_eq!(idle, priority_latency(0, 0), "an idle network: the same path either way");
    let packet = Time::from_ns(51); // 256 B at 5 GB/s
    let shared = priority_latency(400, 0);
    let dedicated = priority_latency(400, 1);
    // On its own VC the packet waits at most for the transmission under way at each of its
    // four routers and at the ejection port; on the shared VC behind the four-packet queues.
    assert!(dedicated.ps() <= idle.ps() + 5 * packet.ps() + 5, "dedicated {dedicated} vs idle {idle}");
    assert!(shared.ps() >= idle.ps() + 10 * packet.ps(), "shared {shared} vs idle {idle}");
}

/// Node 0 posts one `bytes`-byte class-1 message to node 3.
struct One {
    bytes: u64,
    done: bool,
}

impl Workload for One {
    fn start(&mut self, api: &mut Api) {
        api.post(Message::put(Rank(0), Rank(3), self.bytes).class(1));
    }
    fn delivered(&mut self, m: &Delivered, _api: &mut Api) {
        self.done = m.bytes == self.bytes;
    }
    fn finished(&self) -> bool {
        self.done
    }
}

#[test]
fn class_messages_are_cut_to_fit_the_class_buffer() {
    let format = PacketFormat { payload_align: 16, ..PacketFormat::simple(256, 16) };
    let p = NetworkParams { class_buffer_bytes: Some(72), format, buffer_bytes: 512, ..common::params(2) };
    let mut s = sim(line(), 1, p, One { bytes: 1000, done: false });
    let out = s.run(limits(), |_| {}).unwrap();
    assert!(s.workload().done);
    // 72 B holds a 16 B header and 48 B of payload (whole 16 B units): 21 packets.
    assert_eq!(out.packets_injected, 21);
    // The normal VC keeps full packets: the same message unclassed takes 4.
    let p = NetworkParams { format, buffer_bytes: 512, ..common::params(1) };
    let mut s = sim(line(), 0, p, One { bytes: 1000, done: false });
    assert_eq!(s.run(limits(), |_| {}).unwrap().packets_injected, 4);

    let p = NetworkParams { class_buffer_bytes: Some(16), format, buffer_bytes: 512, ..common::params(2) };
    let g = line().build_graph(1);
    let r = Routing::from(DimensionOrder::new(line(), None, 1, 1).unwrap()).with_class_vcs(&Topology::Torus(line()), 1).unwrap();
    let e = Simulation::new(g, r, p, One { bytes: 1, done: false }).err().unwrap().to_string();
    assert!(e.contains("router.class_buffer"), "{e}");
}

/// Every node of a ring keeps `depth` class-1 messages to pseudo-random destinations in flight
/// until `total` have arrived.
struct ClassStorm {
    n: u32,
    depth: u32,
    total: u64,
    posted: u64,
    arrived: u64,
    state: u64,
}

impl ClassStorm {
    fn post(&mut self, src: u32, api: &mut Api) {
        if self.posted == self.total {
            return;
        }
        self.posted += 1;
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let dst = (src + 1 + (self.state >> 33) as u32 % (self.n - 1)) % self.n;
        // Mixed sizes: bubbles must hold with packets of every size.
        let bytes = [24, 256, 100][(self.state >> 20) as usize % 3];
        api.post(Message::put(Rank(src), Rank(dst), bytes).class(1));
    }
}

impl Workload for ClassStorm {
    fn start(&mut self, api: &mut Api) {
        for src in 0..self.n {
            for _ in 0..self.depth {
                self.post(src, api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.arrived += 1;
        self.post(m.src.0, api);
    }
    fn finished(&self) -> bool {
        self.arrived == self.total
    }
}

#[test]
fn class_traffic_on_a_ring_flows_on_one_vc_with_bubbles() {
    let ring = || Torus::new(vec![8], None, None).unwrap();
    let storm = || ClassStorm { n: 8, depth: 12, total: 4000, posted: 0, arrived: 0, state: 7 };
    let routing = || Routing::from(DimensionOrder::new(ring(), None, 1, 2).unwrap()).with_class_vcs(&Topology::Torus(ring()), 1).unwrap();
    assert_eq!(routing().bubble_vcs(), 0b100, "the class VC relies on bubbles, the dateline VCs do not");
    // A class buffer of two full packets (the least bubbles allow), then a smaller one: class
    // messages are cut into packets of half of it (100 B), and slots and bubbles are theirs.
    for (buffer, packets) in [(512, 4000..=4000), (200, 6000..=7300)] {
        let p = NetworkParams { class_buffer_bytes: Some(buffer), ..common::params(3) };
        let mut s = Simulation::new(ring().build_graph(1), routing(), p, storm()).unwrap();
        let out = s.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(2000), drain: Time::ZERO }, |_| {}).unwrap();
        assert!(s.workload().finished(), "class buffer {buffer}: the storm completes without the watchdog");
        assert_eq!(out.packets_injected, out.packets_delivered);
        // 4000 messages of 24, 256 and 100 B in about equal shares: one packet each with
        // 256 B packets, 5/3 on average with 100 B packets.
        assert!(packets.contains(&(out.packets_injected as u32)), "class buffer {buffer}: {} packets", out.packets_injected);
    }
    let p = NetworkParams { class_buffer_bytes: Some(1), ..common::params(3) };
    let e = Simulation::new(ring().build_graph(1), routing(), p, storm()).err().unwrap().to_string();
    assert!(e.contains("router.class_buffer"), "{e}");
}

#[test]
fn class_vc_counts_are_checked() {
    let t = line();
    let r = || Routing::from(DimensionOrder::new(t.clone(), None, 1, 4).unwrap());
    let topo = Topology::Torus(t.clone());
    assert_eq!(r().with_class_vcs(&topo, 2).unwrap().vcs(), 6);
    for bad in [5, 6] {
        let e = r().with_class_vcs(&topo, bad).unwrap_err().to_string();
        assert!(e.contains("router.class_vcs"), "{e}");
    }
}

#[test]
fn a_shared_crossbar_input_serves_the_higher_class_first() {
    // On a 4-node line, node 0 streams `background` normal messages to node 2, and node 3 sends
    // it 40 at first: while node 2's ejection serves both, node 0's stream backs up through
    // router 1; then it flows at full speed with a standing queue there. At 6 us node 0 posts
    // the class-1 probe to node 1: at router 1 it shares its input port with that queue, whose
    // next packet finds its output free whenever the input frees.
    let t = || Torus::new(vec![4], Some(vec![false]), None).unwrap();
    let run = |background: u32, shared: bool, shuffle: Option<u64>| {
        let p = NetworkParams { buffer_bytes: 1024, shared_crossbar: shared, ..common::params(2) };
        let w = Probe::new(vec![(0, 2, background), (3, 2, 40.min(background))], (0, 1), Time::from_us(6));
        let mut s = sim(t(), 1, p, w);
        if let Some(seed) = shuffle {
            s = s.with_tie_shuffle(seed);
        }
        s.run(limits(), |_| {}).unwrap();
        assert!(s.workload().finished(), "every message arrives");
        s.workload().latency.unwrap()
    };
    let idle = run(0, true, None);
    let packet = Time::from_ns(51);
    for shared in [false, true] {
        let busy = run(400, shared, None);
        // At router 1 the class packet waits at most for the stream's packet under way on its
        // input port (shared) and for the ejection port's.
        assert!(busy.ps() <= idle.ps() + 2 * packet.ps() + 5, "shared crossbar {shared}: {busy} vs idle {idle}");
        for seed in 1..=3 {
            assert_eq!(run(400, shared, Some(seed)), busy, "shuffled ties, seed {seed}");
        }
    }
}

//! The NIC interface: Gets answered by the target's NIC, local completions, the posting core's
//! software cost, ranks placed on nodes.

use fabricsim_core::{NodeId, Time};
use fabricsim_network::{Api, Delivered, Message, Op, Rank, RunLimits, Simulation, Workload};
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::Torus;

use crate::common;

/// Posts `messages` at time zero from rank 0 to rank `to`, and records every callback.
#[derive(Default)]
struct Recorder {
    to: Rank,
    messages: Vec<Message>,
    delivered: Vec<Delivered>,
    sent: Vec<Delivered>,
    wakes: Vec<(Rank, Time)>,
    local: bool,
    /// When each completion reached the workload.
    heard: Vec<Time>,
}

impl Workload for Recorder {
    fn start(&mut self, api: &mut Api) {
        for &m in &self.messages {
            api.post(m);
        }
        api.wake_at(self.to, Time::from_ns(5));
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        self.wakes.push((rank, api.now()));
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.delivered.push(*m);
        self.heard.push(api.now());
    }
    fn sent(&mut self, m: &Delivered, _api: &mut Api) {
        self.sent.push(*m);
    }
    fn wants_local_completion(&self) -> bool {
        self.local
    }
    fn finished(&self) -> bool {
        self.delivered.len() == self.messages.len()
    }
}

/// Run `w` on an 8-ring with `p` tweaked by `tweak`; `ranks`: an optional rank map.
fn run(w: Recorder, tweak: impl Fn(&mut fabricsim_network::NetworkParams), ranks: Option<Vec<NodeId>>) -> Recorder {
    let t = Torus::new(vec![8], Some(vec![true]), None).unwrap();
    let mut p = common::params(2);
    p.buffer_bytes = 1024;
    tweak(&mut p);
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let mut sim = Simulation::new(t.build_graph(1), r, p, w).unwrap();
    if let Some(map) = ranks {
        sim = sim.with_rank_map(map).unwrap();
    }
    sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }, |_| {}).unwrap();
    assert!(sim.workload().finished());
    std::mem::take(sim.workload_mut())
}

#[test]
fn a_get_is_answered_by_the_target_nic_and_completes_at_the_initiator() {
    let w = Recorder {
        to: Rank(3),
        messages: vec![Message::get(Rank(0), Rank(3), 2048).tag(7), Message::put(Rank(0), Rank(3), 64).tag(8)],
        ..Default::default()
    };
    let r = run(w, |_| {}, None);
    // Two completions only: the Get's (its data at rank 0) and the Put's; the target's workload
    // never sees the Get's request.
    let get = r.delivered.iter().find(|d| d.op == Op::Get).unwrap();
    assert_eq!((get.src, get.dst, get.bytes, get.tag, get.created), (Rank(0), Rank(3), 2048, 7, Time::ZERO));
    let put = r.delivered.iter().find(|d| d.op == Op::Put).unwrap();
    assert_eq!((put.src, put.dst, put.tag), (Rank(0), Rank(3), 8));
    assert_eq!(r.delivered.len(), 2);
    // Request one way (64 B) and 2 KiB back: longer than the Put of 64 B one way.
    assert!(get.delivered > put.delivered);
}

#[test]
fn local_completion_comes_when_the_last_packet_leaves_and_only_when_asked() {
    let msgs = vec![Message::put(Rank(0), Rank(3), 1000).tag(1), Message::put(Rank(0), Rank(3), 10).tag(2)];
    let r = run(Recorder { to: Rank(3), messages: msgs.clone(), local: true, ..Default::default() }, |_| {}, None);
    assert_eq!(r.sent.len(), 2);
    for s in &r.sent {
        let d = r.delivered.iter().find(|d| d.tag == s.tag).unwrap();
        assert!(s.delivered < d.delivered, "left the sender before arriving: {s:?} {d:?}");
        assert_eq!((s.src, s.dst, s.bytes, s.op), (d.src, d.dst, d.bytes, Op::Put));
    }
    // 1000 B at 5 GB/s (packets of 256, 256, 256 and 232 B, no headers): the last packet has
    // left the engine 200 ns after the first started.
    assert_eq!(r.sent.iter().find(|s| s.tag == 1).unwrap().delivered, Time(200_000));
    let quiet = run(Recorder { to: Rank(3), messages: msgs, local: false, ..Default::default() }, |_| {}, None);
    assert!(quiet.sent.is_empty());
}

#[test]
fn the_posting_core_pays_software_costs_one_after_another_and_the_nic_overlaps_its_own() {
    // Twenty one-packet messages posted at once to a neighbour.
    let last = |software: u64, nic: u64| {
        let w = Recorder { to: Rank(1), messages: (0..20).map(|i| Message::put(Rank(0), Rank(1), 64).tag(i)).collect(), ..Default::default() };
        let r = run(
            w,
            |p| {
                p.software_overhead = Time::from_ns(software);
                p.tx_overhead = Time::from_ns(nic);
            },
            None,
        );
        r.delivered.iter().map(|d| d.delivered).max().unwrap()
    };
    let base = last(0, 0);
    // Without costs the engine sends the twenty 64-byte packets back to back (12.8 ns each): the
    // last leaves at 19 x 12.8 ns. With 100 ns of software per message on the core, the last
    // is posted to the NIC at 20 x 100 ns and leaves then.
    assert_eq!(last(100, 0), base - Time(19 * 12_800) + Time::from_ns(2000));
    // The NIC's own 100 ns overlaps across messages: everything shifts by 100 ns once.
    assert_eq!(last(0, 100), base + Time::from_ns(100));
}

#[test]
fn ranks_sit_on_nodes_by_the_rank_map_and_timers_are_per_rank() {
    // Ranks 0,1 on node 0 and ranks 2,3 on node 5: traffic between ranks goes between their
    // nodes, completions and timers name ranks.
    let map = [0, 0, 5, 5].map(NodeId).to_vec();
    let w = Recorder {
        to: Rank(3),
        messages: vec![Message::put(Rank(1), Rank(3), 64).tag(1), Message::put(Rank(0), Rank(1), 64).tag(2)],
        ..Default::default()
    };
    let r = run(w, |_| {}, Some(map));
    let far = r.delivered.iter().find(|d| d.tag == 1).unwrap();
    let near = r.delivered.iter().find(|d| d.tag == 2).unwrap();
    assert_eq!((far.src, far.dst, near.src, near.dst), (Rank(1), Rank(3), Rank(0), Rank(1)));
    assert!(far.delivered > near.delivered, "node 0 to node 5 is farther than within node 0");
    assert_eq!(r.wakes, vec![(Rank(3), Time::from_ns(5))]);
    // A rank on a node that does not exist is refused.
    let t = Torus::new(vec![8], Some(vec![true]), None).unwrap();
    let routing = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let sim = Simulation::new(t.build_graph(1), routing, common::params(2), Recorder::default()).unwrap();
    let e = sim.with_rank_map(vec![NodeId(0), NodeId(8)]).err().unwrap().to_string();
    assert!(e.starts_with("ranks") && e.contains("node 8"), "{e}");
}

#[test]
fn the_receiving_core_polls_completions_one_at_a_time() {
    // Two one-hop Puts into rank 0 from its two neighbours arrive one packet time apart (they
    // share rank 0's ejection port).
    let w = || Recorder {
        to: Rank(3),
        messages: vec![Message::put(Rank(1), Rank(0), 64).tag(1), Message::put(Rank(7), Rank(0), 64).tag(2)],
        ..Default::default()
    };
    let free = run(w(), |_| {}, None);
    let arrivals: Vec<Time> = free.delivered.iter().map(|d| d.delivered).collect();
    assert_eq!(arrivals[1] - arrivals[0], Time(12_800));
    assert_eq!(free.heard, arrivals, "without a polling cost the workload hears of each at once");
    let polled = run(w(), |p| p.poll_overhead = Time::from_ns(100), None);
    assert_eq!(polled.delivered.iter().map(|d| d.delivered).collect::<Vec<_>>(), arrivals, "arrival times are unchanged");
    // The core takes the first 100 ns after it arrives, the second after that.
    assert_eq!(polled.heard, vec![arrivals[0] + Time::from_ns(100), arrivals[0] + Time::from_ns(200)]);
}

#[test]
fn get_data_leaving_one_target_together_is_dealt_in_an_order_of_its_own() {
    // Two Gets from rank 0's two neighbours, on a ring with 2 engines per node: both requests
    // reach rank 0 together and its NIC answers both in the same instant. Same-instant events
    // in any order must give the same completions.
    let t = Torus::new(vec![8], Some(vec![true]), None).unwrap();
    let go = |shuffle: Option<u64>| {
        let mut p = common::params(2);
        (p.engines, p.buffer_bytes, p.tx_overhead) = (2, 1024, Time::from_ns(30));
        let r = Routing::from(DimensionOrder::new(t.clone(), None, 2, 2).unwrap());
        let msgs =
            vec![Message::get(Rank(1), Rank(0), 700).tag(1), Message::get(Rank(7), Rank(0), 300).tag(2), Message::put(Rank(0), Rank(4), 900).tag(3)];
        let mut sim = Simulation::new(t.build_graph(2), r, p, Recorder { to: Rank(3), messages: msgs, ..Default::default() }).unwrap();
        if let Some(seed) = shuffle {
            sim = sim.with_tie_shuffle(seed);
        }
        sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }, |_| {}).unwrap();
        let mut d = sim.workload().delivered.clone();
        d.sort_by_key(|d| d.tag);
        d
    };
    let fixed = go(None);
    assert_eq!(fixed.len(), 3);
    for seed in 1..=6 {
        assert_eq!(go(Some(seed)), fixed, "shuffle seed {seed}");
    }
}

#[test]
fn a_rate_capped_flow_is_injected_at_its_rate() {
    // 64 KiB from rank 0 to its neighbour over 5 GB/s links, once free and once capped at
    // 1 GB/s (packets have no header here, so wire and payload rates agree): the capped
    // transfer takes the bytes at 1 GB/s, give or take one packet.
    let bytes = 64 * 1024;
    let time = |rate: Option<fabricsim_core::Bandwidth>| {
        let w = Recorder { to: Rank(1), messages: vec![Message::put(Rank(0), Rank(1), bytes).rate(rate)], ..Default::default() };
        let r = run(w, |p| p.buffer_bytes = 4096, None);
        r.delivered[0].delivered.as_ns_f64()
    };
    let free = time(None);
    let capped = time(Some(fabricsim_core::Bandwidth(1_000_000_000)));
    let at_rate = bytes as f64 / 1.0; // ns at 1 GB/s
    assert!((capped - at_rate).abs() < 300.0, "capped {capped} ns, {at_rate} ns at the rate");
    assert!(free < 0.3 * capped, "free {free} ns");
}

//! Output arbitration: once per instant among every request of that instant, higher priority
//! class first, round-robin within a class.
//!
//! The four neighbours of node (1,1) of a 3x3 mesh stream one-packet messages to it. Their
//! packets cross one link each and reach the sink's router at the same instants, so its
//! ejection port (as fast as a link) sees four requests at once, again and again.

use fabricsim_core::Time;
use fabricsim_network::{Api, Delivered, NetworkParams, Rank, Workload};

use crate::common;

const SINK: Rank = Rank(4);
const SOURCES: [Rank; 4] = [Rank(1), Rank(3), Rank(5), Rank(7)];

/// Each source keeps `window` messages in flight to the sink until it has sent `count`;
/// `prio[i]` is the class of source `i`. Deliveries are recorded in order.
struct Converge {
    count: u32,
    window: u32,
    prio: [u8; 4],
    sent: [u32; 4],
    order: Vec<(Rank, Time)>,
}

impl Converge {
    fn new(count: u32, prio: [u8; 4]) -> Self {
        // Eight in flight: more than a delivery-to-next-post loop takes (about five packet
        // times), so every source always has a packet waiting at the sink.
        Converge { count, window: 8, prio, sent: [0; 4], order: Vec::new() }
    }
    fn post(&mut self, i: usize, api: &mut Api) {
        if self.sent[i] < self.count {
            self.sent[i] += 1;
            api.send_prio(SOURCES[i], SINK, 256, 0, self.prio[i]);
        }
    }
}

impl Workload for Converge {
    fn start(&mut self, api: &mut Api) {
        for i in 0..4 {
            for _ in 0..self.window {
                self.post(i, api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.order.push((m.src, m.delivered));
        let i = SOURCES.iter().position(|&s| s == m.src).unwrap();
        self.post(i, api);
    }
    fn finished(&self) -> bool {
        self.order.len() as u32 == 4 * self.count
    }
}

/// Run `w` on the 3x3 mesh (one VC per port, so each source is one requester at the sink);
/// `shuffle`: same-instant events in an order drawn from that seed.
fn run(w: Converge, shuffle: Option<u64>) -> Vec<(Rank, Time)> {
    let p = NetworkParams { buffer_bytes: 1024, ..common::params(1) };
    common::run_on_mesh(vec![3, 3], p, w, shuffle).workload().order.clone()
}

#[test]
fn equal_requesters_are_served_in_turn() {
    let order = run(Converge::new(50, [0; 4]), None);
    // The four requests of an instant are all seen: every group of four consecutive grants
    // serves each source once (strict round-robin), from the first grant to the last.
    for (k, group) in order.chunks(4).enumerate() {
        let mut srcs: Vec<Rank> = group.iter().map(|d| d.0).collect();
        srcs.sort();
        assert_eq!(srcs, SOURCES.to_vec(), "grants {}..{} are not one per source: {group:?}", 4 * k, 4 * k + 4);
    }
    // The port never idles while requests wait: one packet time (256 B at 5 GB/s) apart.
    let gaps: Vec<u64> = order.windows(2).skip(4).map(|w| (w[1].1 - w[0].1).ps()).collect();
    assert!(gaps.iter().all(|&g| g == 51_200), "gaps between deliveries: {gaps:?}");
}

#[test]
fn the_order_of_same_instant_events_changes_no_grant() {
    let fixed = run(Converge::new(30, [0, 1, 0, 0]), None);
    for seed in 1..=4 {
        assert_eq!(run(Converge::new(30, [0, 1, 0, 0]), Some(seed)), fixed, "shuffle seed {seed}");
    }
}

#[test]
fn a_higher_class_goes_first_and_the_rest_share_in_turn() {
    // Source 3 (index 1) is in class 1. Whenever its packet waits, it wins; it keeps a packet
    // waiting at every arbitration, so it is served alone until its messages run out.
    let order = run(Converge::new(40, [0, 1, 0, 0]), None);
    let last_high = order.iter().rposition(|d| d.0 == Rank(3)).unwrap();
    let low_before: Vec<&(Rank, Time)> = order[..last_high].iter().filter(|d| d.0 != Rank(3)).collect();
    assert!(low_before.is_empty(), "class-0 packets granted while class 1 waited: {low_before:?}");
    assert_eq!(last_high, 39);
    // The three class-0 sources then share in turn.
    for group in order[40..].chunks(3) {
        let mut srcs: Vec<Rank> = group.iter().map(|d| d.0).collect();
        srcs.sort();
        assert_eq!(srcs, [1, 5, 7].map(Rank).to_vec(), "{group:?}");
    }
}

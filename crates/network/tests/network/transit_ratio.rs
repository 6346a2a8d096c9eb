//! The ratio of grants to packets cutting through and to packets being injected
//! (`NetworkParams::transit_ratio`): on a line of three routers, node 0 and node 1 both stream
//! to node 2, so router 1's output towards node 2 always has a request from its network port
//! (node 0's packets, cutting through) and one from its injection port (node 1's).

use fabricsim_network::{Api, Delivered, NetworkParams, Rank, Workload};

use crate::common;

/// Nodes 0 and 1 each keep eight one-packet messages in flight to node 2 until each has sent
/// `count`; deliveries are recorded in order by source.
struct TwoStreams {
    count: u32,
    sent: [u32; 2],
    order: Vec<u32>,
}

impl TwoStreams {
    fn post(&mut self, i: usize, api: &mut Api) {
        if self.sent[i] < self.count {
            self.sent[i] += 1;
            api.send(Rank(i as u32), Rank(2), 256, 0);
        }
    }
}

impl Workload for TwoStreams {
    fn start(&mut self, api: &mut Api) {
        for i in 0..2 {
            for _ in 0..8 {
                self.post(i, api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.order.push(m.src.0);
        self.post(m.src.0 as usize, api);
    }
    fn finished(&self) -> bool {
        self.order.len() as u32 == 2 * self.count
    }
}

/// The sources of the deliveries, in order, with transit ratio `ratio`; `shuffle`: same-instant
/// events in an order drawn from that seed.
fn run(ratio: u32, shuffle: Option<u64>) -> Vec<u32> {
    let p = NetworkParams { buffer_bytes: 1024, transit_ratio: ratio, ..common::params(1) };
    let w = TwoStreams { count: 120, sent: [0; 2], order: Vec::new() };
    common::run_on_mesh(vec![3], p, w, shuffle).workload().order.clone()
}

/// Lengths of the runs of node 0's deliveries between two of node 1's, while both still send
/// (the first two runs, while node 0's packets are still on their way, and what follows node 0's
/// last delivery left out).
fn transit_runs(order: &[u32]) -> Vec<usize> {
    let last0 = order.iter().rposition(|&s| s == 0).unwrap();
    let ones: Vec<usize> = order[..last0].iter().enumerate().filter(|(_, &s)| s == 1).map(|(i, _)| i).collect();
    ones.windows(2).skip(1).map(|w| w[1] - w[0] - 1).collect()
}

#[test]
fn a_transit_ratio_gives_cut_through_packets_that_many_grants_per_injection() {
    for ratio in [1, 3, 7] {
        let order = run(ratio, None);
        let runs = transit_runs(&order);
        assert!(runs.len() > 10, "ratio {ratio}: both streams competed ({runs:?})");
        assert!(runs.iter().all(|&n| n == ratio as usize), "ratio {ratio}: runs of cut-through grants {runs:?}");
        for seed in [3, 11] {
            assert_eq!(run(ratio, Some(seed)), order, "ratio {ratio}, shuffled ties {seed}");
        }
    }
    // Without a ratio the output takes turns: one cut-through grant per injection.
    let runs = transit_runs(&run(0, None));
    assert!(runs.len() > 10 && runs.iter().all(|&n| n == 1), "round-robin: {runs:?}");
}

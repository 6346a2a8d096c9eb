//! The seam guard (feature `seam-guard`): on small networks under load, every step of the
//! fabric and the NICs changes only its own router's state, apart from what the link code
//! hands across (see the crate's `fabric/guard.rs`). CI runs these with
//! `cargo test --release -p fabricsim-network --features seam-guard`.
#![cfg(feature = "seam-guard")]

use fabricsim_core::Time;
use fabricsim_network::{Api, Delivered, NetworkParams, Rank, RunLimits, Simulation, Workload};
use fabricsim_routing::{Adaptive, DimensionOrder, Routing, UpDown};
use fabricsim_topology::{FatTree, PortGraph, Torus};

use crate::common::params;

/// Every rank keeps `depth` messages of mixed sizes outstanding to destinations spread by a
/// hash, until `total` have been posted.
struct Mix {
    n: u32,
    depth: u32,
    posted: u32,
    total: u32,
    /// Every `class_every`-th message is of class 1 (0: none).
    class_every: u32,
}

impl Mix {
    fn post(&mut self, src: Rank, api: &mut Api) {
        if self.posted == self.total {
            return;
        }
        let k = self.posted;
        self.posted += 1;
        let dst = (src.0 + 1 + k.wrapping_mul(2_654_435_761) % (self.n - 1)) % self.n;
        let class = u8::from(self.class_every > 0 && k.is_multiple_of(self.class_every));
        api.send_prio(src, Rank(dst), [64, 256, 700][k as usize % 3], 0, class);
    }
}

impl Workload for Mix {
    fn start(&mut self, api: &mut Api) {
        for s in 0..self.n {
            for _ in 0..self.depth {
                self.post(Rank(s), api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.post(m.src, api);
    }
    fn finished(&self) -> bool {
        self.posted == self.total
    }
}

/// Run `Mix` on `graph` with `routing` under the guard; the steps it checked.
fn guarded(graph: PortGraph, routing: Routing, p: NetworkParams, shuffle: Option<u64>) -> u64 {
    guarded_mix(graph, routing, p, shuffle, 0).0
}

/// [`guarded`], with every `class_every`-th message of class 1; also the flit suspensions.
fn guarded_mix(graph: PortGraph, routing: Routing, p: NetworkParams, shuffle: Option<u64>, class_every: u32) -> (u64, u64) {
    let n = graph.nodes;
    let mut sim = Simulation::new(graph, routing, p, Mix { n, depth: 4, posted: 0, total: n * 40, class_every }).unwrap().with_seam_guard();
    if let Some(seed) = shuffle {
        sim = sim.with_tie_shuffle(seed);
    }
    let out = sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(200), drain: Time::ZERO }, |_| {}).unwrap();
    assert_eq!(out.messages_delivered, u64::from(n) * 40, "every message delivered");
    let (steps, violations) = sim.seam_guard().unwrap();
    assert!(violations.is_empty(), "{} crossings outside the link code, e.g. {:?}", violations.len(), &violations[..violations.len().min(5)]);
    (steps, sim.flit_counts().map_or(0, |c| c.preemptions))
}

#[test]
fn dimension_order_on_a_torus_crosses_only_at_links() {
    for shuffle in [None, Some(3)] {
        let t = Torus::new(vec![4, 4, 2], None, None).unwrap();
        let g = t.build_graph(2);
        let r = Routing::from(DimensionOrder::new(t, None, 2, 2).unwrap());
        let steps = guarded(g, r, NetworkParams { engines: 2, ..params(2) }, shuffle);
        assert!(steps > 10_000, "{steps} steps checked");
    }
}

#[test]
fn adaptive_routing_with_sleepers_crosses_only_at_links() {
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let g = t.build_graph(1);
    let r = Routing::from(Adaptive::new(t, None, 1, 3, Default::default()).unwrap());
    assert!(r.waits_when_blocked());
    let steps = guarded(g, r, params(3), None);
    assert!(steps > 5_000, "{steps} steps checked");
}

#[test]
fn up_down_on_a_fat_tree_crosses_only_at_links() {
    let f = FatTree::new(4, 2, 1, true).unwrap();
    let g = f.build_graph();
    let r = Routing::from(UpDown::new(f, 2));
    let steps = guarded(g, r, NetworkParams { terminal_latency: Time::from_ns(20), terminal_router_delay: Time::from_ns(40), ..params(2) }, None);
    assert!(steps > 5_000, "{steps} steps checked");
}

#[test]
fn flit_suspensions_cross_only_at_links() {
    // Class-1 messages on a class VC suspend normal packets at flit boundaries: the later tail
    // reaches the next router through the link code.
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let g = t.build_graph(1);
    let topo = fabricsim_topology::Topology::Torus(t.clone());
    let r = Routing::from(DimensionOrder::new(t, None, 1, 2).unwrap()).with_class_vcs(&topo, 1).unwrap();
    let p = NetworkParams { buffer_bytes: 1024, flit_bytes: 16, ..params(3) };
    for shuffle in [None, Some(5)] {
        let (steps, suspended) = guarded_mix(g.clone(), r.clone(), p.clone(), shuffle, 3);
        assert!(steps > 5_000, "{steps} steps checked");
        assert!(suspended > 0, "no suspension checked");
    }
}

//! A partitioned run gives the sequential run's results, whatever the number of blocks and
//! threads: tori under dimension-order and adaptive routing, a fat-tree under up/down routing,
//! light and saturated load, and with same-instant events shuffled.

use fabricsim_core::{RngStreams, Time};
use fabricsim_network::{Builder, NetworkParams, Outcome, RunLimits};
use fabricsim_routing::{Adaptive, DimensionOrder, Routing, UpDown};
use fabricsim_topology::{Blocks, FatTree, PortGraph, Topology, Torus};
use fabricsim_workload::{OpenLoop, Pattern, Shape};

use crate::common::params;

/// One network to run: its topology, routing and parameters.
struct Net {
    topology: Topology,
    routing: Routing,
    params: NetworkParams,
}

impl Net {
    fn graph(&self) -> PortGraph {
        match &self.topology {
            Topology::Torus(t) => t.build_graph(self.params.engines),
            Topology::FatTree(f) => f.build_graph(),
        }
    }

    fn builder(&self, shuffle: Option<u64>) -> Builder {
        let b = Builder::new(self.graph(), self.routing.clone(), self.params.clone());
        match shuffle {
            Some(seed) => b.tie_shuffle(seed),
            None => b,
        }
    }

    fn workload(&self, load: f64) -> OpenLoop {
        let wire = self.params.format.max_wire() as u64;
        let bw = self.params.engines as f64 * self.params.terminal_bandwidth.bytes_per_sec() as f64;
        let payload = self.params.format.max_payload as u64;
        OpenLoop::new(Shape::of(&self.topology), Pattern::UniformRandom, load, payload, wire, bw, RngStreams::new(11)).with_queue_limit(64)
    }
}

fn torus(shape: Vec<u32>, adaptive: bool) -> Net {
    let t = Torus::new(shape, None, None).unwrap();
    let (routing, vcs) = if adaptive {
        (Routing::from(Adaptive::new(t.clone(), None, 1, 3, Default::default()).unwrap()), 3)
    } else {
        (Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap()), 2)
    };
    Net { topology: Topology::Torus(t), routing, params: params(vcs) }
}

fn fat_tree() -> Net {
    let f = FatTree::new(4, 3, 1, true).unwrap();
    let params = NetworkParams { terminal_latency: Time::from_ns(20), terminal_router_delay: Time::from_ns(40), ..params(2) };
    Net { routing: Routing::from(UpDown::new(f.clone(), 2)), topology: Topology::FatTree(f), params }
}

fn limits() -> RunLimits {
    RunLimits { warmup: Time::from_ns(500), measure: Time::from_us(2), drain: Time::from_us(3) }
}

/// Everything a run reports but the engine's own work counters (events, slab high-water marks).
fn results(o: &Outcome, counters: &[fabricsim_stats::PortCounters]) -> String {
    let (m, p) = (&o.message_latency, &o.packet_latency);
    format!(
        "time {:?} injected {} delivered {} bytes {} messages {} hops {} window {:?} {} {} drained {} escaped {} lost {}\n\
         messages {:?} {:?} {:?}\npackets {:?} {:?} {:?}\n{counters:?}",
        o.sim_time,
        o.packets_injected,
        o.packets_delivered,
        o.bytes_delivered,
        o.messages_delivered,
        o.packet_hops,
        o.window,
        o.window_bytes,
        o.window_bytes_first_half,
        o.drained,
        o.packets_escaped,
        o.packets_lost,
        m.mean(),
        m.summary(),
        m.buckets(),
        p.mean(),
        p.summary(),
        p.buckets()
    )
}

fn sequential(net: &Net, load: f64, shuffle: Option<u64>) -> (String, Outcome) {
    let mut sim = net.builder(shuffle).build(net.workload(load)).unwrap();
    let out = sim.run(limits(), |_| {}).unwrap();
    (results(&out, &sim.port_counters()), out)
}

fn partitioned(net: &Net, load: f64, blocks: u32, threads: usize, shuffle: Option<u64>) -> String {
    let cut = Blocks::new(&net.topology, blocks, "blocks").unwrap();
    let mut run = net.builder(shuffle).build_partitioned(cut.of_router, threads, || net.workload(load)).unwrap();
    assert_eq!(run.blocks(), blocks as usize);
    let out = run.run(limits(), |_| {}).unwrap();
    if blocks > 1 {
        assert!(run.cut_links() > 0 && run.packets_crossed() > 50, "{} packets crossed {} cut links", run.packets_crossed(), run.cut_links());
    }
    results(&out, &run.port_counters())
}

/// The sequential run's results, and the same from 1 to 4 blocks on 1 and 2 threads.
fn same_in_every_partition(net: &Net, load: f64) -> Outcome {
    let (expected, out) = sequential(net, load, None);
    for blocks in 1..=4 {
        for threads in [1, 2] {
            let got = partitioned(net, load, blocks, threads, None);
            assert!(got == expected, "{blocks} blocks on {threads} threads differ:\n{got}\nvs\n{expected}");
        }
    }
    out
}

#[test]
fn dimension_order_torus_runs_alike_in_blocks() {
    let out = same_in_every_partition(&torus(vec![8, 8], false), 0.15);
    assert!(out.packets_delivered > 300 && out.drained, "{} delivered, drained {}, ended {:?}", out.packets_delivered, out.drained, out.sim_time);
}

#[test]
fn adaptive_torus_with_sleepers_runs_alike_in_blocks() {
    let out = same_in_every_partition(&torus(vec![4, 4, 2], true), 0.4);
    assert!(out.packets_delivered > 400, "{} delivered", out.packets_delivered);
}

#[test]
fn fat_tree_runs_alike_in_blocks() {
    let out = same_in_every_partition(&fat_tree(), 0.5);
    assert!(out.packets_delivered > 300, "{} delivered", out.packets_delivered);
}

#[test]
fn saturated_torus_runs_alike_in_blocks() {
    let out = same_in_every_partition(&torus(vec![4, 4], false), 1.0);
    assert!(!out.drained || out.packet_latency.summary().max > 1000.0, "the network is overloaded");
}

#[test]
fn shuffled_ties_inside_blocks_change_nothing() {
    let net = torus(vec![4, 4], true);
    let (expected, _) = sequential(&net, 0.5, None);
    for seed in [1, 2] {
        assert_eq!(partitioned(&net, 0.5, 3, 2, Some(seed)), expected, "tie seed {seed}");
    }
}

#[test]
fn what_cannot_be_partitioned_is_refused_by_name() {
    let net = torus(vec![4, 4], false);
    let cut = Blocks::new(&net.topology, 2, "blocks").unwrap();
    let e = net.builder(None).build_partitioned(cut.of_router.clone(), 0, || net.workload(0.1)).err().unwrap().to_string();
    assert!(e.contains("sim.threads") && e.contains('0'), "{e}");
    let mut wrong = cut.of_router.clone();
    wrong.pop();
    let e = net.builder(None).build_partitioned(wrong, 1, || net.workload(0.1)).err().unwrap().to_string();
    assert!(e.contains("15 routers given a block, the network has 16"), "{e}");
    let gap: Vec<u32> = cut.of_router.iter().map(|&b| b * 2).collect();
    let e = net.builder(None).build_partitioned(gap, 1, || net.workload(0.1)).err().unwrap().to_string();
    assert!(e.contains("block 1 of 3 has no router"), "{e}");
    let zero = NetworkParams { link_latency: Time::ZERO, ..params(2) };
    let t = Torus::new(vec![4, 4], None, None).unwrap();
    let r = Routing::from(DimensionOrder::new(t.clone(), None, 1, 2).unwrap());
    let e = Builder::new(t.build_graph(1), r, zero).build_partitioned(cut.of_router, 1, || net.workload(0.1)).err().unwrap().to_string();
    assert!(e.contains("topology.link_latency"), "{e}");
}

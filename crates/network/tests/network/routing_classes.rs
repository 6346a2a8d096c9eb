//! Per-message routing classes of adaptive routing: deterministic packets stay in order.

use fabricsim_core::Time;
use fabricsim_network::{Api, Delivered, Rank, RunLimits, Simulation, Workload};
use fabricsim_nic::Message;
use fabricsim_routing::{Routing, RoutingSpec};
use fabricsim_topology::{Topology, Torus};

use crate::common::params;

/// Node 0 streams `count` one-packet messages to node `far`, tagged 0, 1, 2, ...; every other
/// node keeps `depth` messages to pseudo-random destinations in flight, so the stream's packets
/// meet changing congestion. Records the order in which the stream's tags arrive.
struct StreamInTraffic {
    n: u32,
    far: u32,
    count: u64,
    depth: u32,
    deterministic: bool,
    arrived: Vec<u64>,
    state: u64,
}

impl StreamInTraffic {
    fn background(&mut self, src: u32, api: &mut Api) {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let dst = (src + 1 + (self.state >> 33) as u32 % (self.n - 1)) % self.n;
        api.post(Message::put(Rank(src), Rank(dst), 256).tag(u64::MAX));
    }
}

impl Workload for StreamInTraffic {
    fn start(&mut self, api: &mut Api) {
        for tag in 0..self.count {
            let m = Message::put(Rank(0), Rank(self.far), 200).tag(tag);
            api.post(if self.deterministic { m.deterministic() } else { m });
        }
        for src in 1..self.n {
            for _ in 0..self.depth {
                self.background(src, api);
            }
        }
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        if m.tag == u64::MAX {
            if (self.arrived.len() as u64) < self.count {
                self.background(m.src.0, api);
            }
        } else {
            self.arrived.push(m.tag);
        }
    }
    fn finished(&self) -> bool {
        false
    }
}

fn arrivals(deterministic: bool, engines: u32) -> Vec<u64> {
    let t = Torus::new(vec![4, 4, 4], None, None).unwrap();
    let topo = Topology::Torus(t.clone());
    let g = t.build_graph(engines);
    let mut p = params(3);
    (p.buffer_bytes, p.engines) = (1024, engines);
    let r = Routing::build(&RoutingSpec::Adaptive(Default::default()), &topo, engines, 3).unwrap();
    let w = StreamInTraffic { n: 64, far: t.node_at(&[2, 2, 2]).unwrap().0, count: 200, depth: 6, deterministic, arrived: vec![], state: 7 };
    let mut sim = Simulation::new(g, r, p, w).unwrap();
    let _ = sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100), drain: Time::ZERO }, |_| {});
    sim.workload().arrived.clone()
}

#[test]
fn deterministic_packets_arrive_in_order_where_dynamic_ones_need_not() {
    // With one NIC engine, and with four (a deterministic message keeps to its pair's engine,
    // where others are dealt round-robin and may leave an idle engine first).
    for engines in [1, 4] {
        let det = arrivals(true, engines);
        assert_eq!(det.len(), 200, "the stream did not finish");
        assert!(det.windows(2).all(|w| w[0] < w[1]), "deterministic stream out of order ({engines} engines): {det:?}");
        // The same stream routed dynamically overtakes itself (so the traffic is enough to tell).
        let dynamic = arrivals(false, engines);
        assert!(dynamic.windows(2).any(|w| w[0] > w[1]), "dynamic stream stayed in order ({engines} engines)");
    }
}

//! Annealing's objectives: on a halo where hop-bytes and the busiest link disagree, annealing
//! the busiest link leaves a less loaded busiest link than annealing hop-bytes.

use fabricsim_mapping::tune::{anneal, anneal_links, greedy, LinkModel};
use fabricsim_mapping::{cost, generate};
use fabricsim_routing::{Routing, RoutingSpec};
use fabricsim_topology::{Topology, Torus};

#[test]
fn on_a_tofu_halo_annealing_the_busiest_link_beats_annealing_hop_bytes_on_it() {
    let names = ["X", "Y", "Z", "A", "B", "C"].map(String::from).to_vec();
    let topo = Topology::Torus(Torus::new(vec![8, 6, 4, 2, 3, 2], Some(vec![true, false, true, false, true, false]), Some(names)).unwrap());
    let graph = topo.build_graph(1);
    let routing = Routing::build(&RoutingSpec::DimensionOrder(Default::default()), &topo, 1, 2).unwrap();
    let model = LinkModel { graph: &graph, routing: &routing };
    let p = generate::parse("halo:24x12x8:16KiB", "--generate").unwrap();
    // Greedy: fewer hop-bytes than the default order, a busier busiest link.
    let start = greedy::greedy(&topo, &p).map;
    let loads = |map: &[fabricsim_core::NodeId]| cost::link_loads(&graph, &routing, &p, map).unwrap();
    let opts = anneal::Options { seed: 2, iterations: 60_000, ..Default::default() };
    let t = std::time::Instant::now();
    let hb = anneal::anneal(&topo, &p, &start, &opts);
    let t_hb = t.elapsed();
    let t = std::time::Instant::now();
    let ml = anneal_links::anneal_max_link(model, &topo, &p, &start, &opts).unwrap();
    let t_ml = t.elapsed();
    let (l0, l_hb, l_ml) = (loads(&start), loads(&hb.map), loads(&ml.mapped.map));
    eprintln!(
        "start max {} hb {}; hop-bytes anneal max {} hb {} ({t_hb:?}); max-link anneal max {} hb {} ({t_ml:?})",
        l0.max,
        cost::hop_bytes(&topo, &p, &start),
        l_hb.max,
        hb.hop_bytes,
        l_ml.max,
        ml.mapped.hop_bytes
    );
    assert!(l_ml.max < l_hb.max, "max-link {} vs hop-bytes {}", l_ml.max, l_hb.max);
    assert!(l_ml.max < l0.max);
    // The incremental model's numbers are the full recomputation's.
    assert!((ml.max - l_ml.max).abs() <= 1e-6 * l_ml.max, "{} vs {}", ml.max, l_ml.max);
    let sumsq: f64 = l_ml.bytes.iter().map(|b| b * b).sum();
    assert!((ml.sumsq - sumsq).abs() <= 1e-9 * sumsq, "{} vs {sumsq}", ml.sumsq);
}

//! The tuners: every method returns a bijective map whose reported cost is its true cost, and on
//! NAS CG they beat the default order.

use fabricsim_core::NodeId;
use fabricsim_mapping::tune::{self, anneal, Method};
use fabricsim_mapping::{cost, generate};
use fabricsim_topology::{Topology, Torus};

fn distinct(map: &[NodeId]) -> bool {
    let mut m = map.to_vec();
    m.sort();
    m.dedup();
    m.len() == map.len()
}

#[test]
fn every_method_maps_cg_on_a_torus_bijectively_and_annealing_beats_the_default() {
    let topo = Topology::Torus(Torus::new(vec![8, 8], None, None).unwrap());
    let p = generate::parse("cg:A:64", "--generate").unwrap();
    let opts = anneal::Options { seed: 5, iterations: 200_000, ..Default::default() };
    let rows: Vec<_> = Method::ALL.iter().map(|&m| (m, tune::run(m, &topo, &p, &opts))).collect();
    for (m, r) in &rows {
        assert!(distinct(&r.map), "{}", m.name());
        assert_eq!(r.hop_bytes, cost::hop_bytes(&topo, &p, &r.map), "{}", m.name());
    }
    let default = rows[0].1.hop_bytes;
    let annealed = rows[5].1.hop_bytes;
    assert!(annealed < default * 9 / 10, "anneal {annealed} vs default {default}");
    // Permutations and blocks include the default order among their candidates.
    assert!(rows[1].1.hop_bytes <= default && rows[2].1.hop_bytes <= default);
    // Deterministic for a seed.
    assert_eq!(tune::run(Method::Anneal, &topo, &p, &opts).map, rows[5].1.map);
    assert_eq!(tune::run(Method::Greedy, &topo, &p, &opts).map, rows[4].1.map);
}

#[test]
fn fewer_ranks_than_nodes_leave_nodes_free() {
    let topo = Topology::Torus(Torus::new(vec![4, 4, 2], None, None).unwrap());
    let p = generate::parse("halo:4x3:1KiB", "--generate").unwrap();
    tune::check_fits(&topo, &p, 1, "--generate").unwrap();
    for m in Method::ALL {
        let r = tune::run(m, &topo, &p, &anneal::Options { iterations: 20_000, ..Default::default() });
        assert_eq!(r.map.len(), 12);
        assert!(distinct(&r.map) && r.map.iter().all(|n| n.0 < 32), "{}", m.name());
    }
    let big = generate::parse("ring:33:8", "--generate").unwrap();
    assert!(tune::check_fits(&topo, &big, 1, "--generate").unwrap_err().message.contains("33 ranks do not fit the network's 32 nodes"));
}

#[test]
fn a_halo_on_the_k_computer_as_a_virtual_torus_sends_every_byte_one_hop() {
    let names = ["X", "Y", "Z", "A", "B", "C"].map(String::from).to_vec();
    let topo = Topology::Torus(Torus::new(vec![24, 18, 16, 2, 3, 2], Some(vec![true, true, true, false, true, false]), Some(names)).unwrap());
    let p = generate::parse("halo:54x48x32:1KiB", "--generate").unwrap();
    let v = tune::run(Method::Vtorus, &topo, &p, &Default::default());
    assert_eq!(v.hop_bytes, p.total_bytes(), "{}", v.detail);
    assert!(v.hop_bytes < tune::run(Method::Default, &topo, &p, &Default::default()).hop_bytes);
    // No grid (or one that does not embed): the default order, saying why.
    let small = Topology::Torus(Torus::new(vec![4, 4], None, None).unwrap());
    let p = generate::parse("halo:3x5:8", "--generate").unwrap();
    let v = tune::run(Method::Vtorus, &small, &p, &Default::default());
    assert!(v.detail.starts_with("the default order: the virtual torus [3, 5] holds 15 ranks"), "{}", v.detail);
}

#[test]
fn several_ranks_a_node_fill_each_node_and_cost_no_link_within_it() {
    let topo = Topology::Torus(Torus::new(vec![4, 4], None, None).unwrap());
    let p = generate::parse("halo:8x4:1KiB", "--generate").unwrap();
    assert!(tune::check_fits(&topo, &p, 1, "--generate").is_err(), "32 ranks on 16 nodes need two a node");
    tune::check_fits(&topo, &p, 2, "--generate").unwrap();
    let opts = anneal::Options { iterations: 20_000, per_node: 2, ..Default::default() };
    for m in Method::ALL {
        let r = tune::run(m, &topo, &p, &opts);
        let mut held = [0u32; 16];
        r.map.iter().for_each(|n| held[n.index()] += 1);
        assert!(held.iter().all(|&h| h == 2), "{}: {held:?}", m.name());
        assert_eq!(r.hop_bytes, cost::hop_bytes(&topo, &p, &r.map), "{}", m.name());
    }
    // Ranks 2g and 2g + 1 are halo neighbours along the first axis: on one node their bytes
    // cross no link, so the default order of groups costs less than the pattern's total bytes
    // times one hop.
    let d = tune::run(Method::Default, &topo, &p, &opts);
    assert_eq!(d.map[..4], [NodeId(0), NodeId(0), NodeId(1), NodeId(1)]);
    let on_node: u64 = p.flows().iter().filter(|f| d.map[f.src as usize] == d.map[f.dst as usize]).map(|f| f.bytes).sum();
    assert!(on_node > 0);
    // The 8x4 torus of ranks in pairs is a 4x4 torus of groups: laid with neighbours one link
    // apart, every byte between nodes goes one hop.
    let v = tune::run(Method::Vtorus, &topo, &p, &opts);
    assert_eq!(v.hop_bytes, p.total_bytes() - on_node, "{}", v.detail);
}

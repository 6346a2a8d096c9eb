//! Every format writes a map that reads back as the same map, and bad files name line and value.

use fabricsim_core::NodeId;
use fabricsim_mapping::formats::{Format, HostPattern};
use fabricsim_topology::{Topology, Torus};
use proptest::prelude::*;

fn tofu() -> Topology {
    let names = ["X", "Y", "Z", "A", "B", "C"].map(String::from).to_vec();
    Topology::Torus(Torus::new(vec![3, 2, 2, 2, 3, 2], Some(vec![true, true, true, false, true, false]), Some(names)).unwrap())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn every_format_reads_back_what_it_wrote(seed in any::<u64>(), ranks in 1u32..=144) {
        let topo = tofu();
        // A random placement of `ranks` ranks on distinct nodes, the lowest nodes first for MPICH.
        let mut nodes: Vec<u32> = (0..topo.nodes()).collect();
        let mut s = seed;
        for i in (1..nodes.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            nodes.swap(i, (s >> 33) as usize % (i + 1));
        }
        let map: Vec<NodeId> = nodes[..ranks as usize].iter().map(|&n| NodeId(n)).collect();
        let hosts = HostPattern::parse("fx{:04}-ib").unwrap();
        for f in Format::ALL {
            let text = f.write(&topo, &map, &hosts);
            let back = f.read(&topo, &text, &hosts, 1, "--out").unwrap();
            if f == Format::Mpich {
                // MPICH lists the ranks in the order of the job's nodes: the same order of ranks.
                let mut used: Vec<NodeId> = map.clone();
                used.sort();
                for r in 0..ranks as usize {
                    prop_assert_eq!(used[back[r].index()], map[r]);
                }
            } else {
                prop_assert_eq!(&back, &map, "{}", f.name());
            }
        }
    }
}

#[test]
fn files_look_as_the_machines_expect() {
    let topo = tofu();
    let map = vec![NodeId(1), NodeId(0), NodeId(3)];
    let hosts = HostPattern::default();
    assert_eq!(Format::Vcoord.write(&topo, &map, &hosts), "(1,0,0,0,0,0)\n(0,0,0,0,0,0)\n(0,1,0,0,0,0)\n");
    assert_eq!(Format::Mpich.write(&topo, &map, &hosts), "1,0,2\n");
    assert_eq!(Format::Rankfile.write(&topo, &map, &hosts), "rank 0=nid00001 slot=0\nrank 1=nid00000 slot=0\nrank 2=nid00003 slot=0\n");
    assert_eq!(Format::Slurm.write(&topo, &map, &hosts), "nid00001\nnid00000\nnid00003\n");
    assert_eq!(Format::Rankmap.write(&topo, &map, &hosts), "1 0 0 0 0 0\n0 0 0 0 0 0\n0 1 0 0 0 0\n");
    assert_eq!(
        Format::Mpich.read(&topo, "0-2,4,3\n", &hosts, 1, "f").unwrap(),
        (0..5).map(NodeId).collect::<Vec<_>>()[..3].iter().copied().chain([NodeId(4), NodeId(3)]).collect::<Vec<_>>()
    );
}

#[test]
fn bad_files_name_the_line_and_the_value() {
    let topo = tofu();
    let h = HostPattern::default();
    let e = Format::Vcoord.read(&topo, "(0,0,0,0,0,0)\n(0,0,0,0,0,0)\n", &h, 1, "map.txt").unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("map.txt", "ranks 0, 1 are all on node 0, more than 1 rank(s) per node"));
    let e = Format::Vcoord.read(&topo, "(0,0,0,0,0,0)\n(0,0,9,0,0,0)\n", &h, 1, "map.txt").unwrap_err();
    assert_eq!(e.field, "map.txt line 2");
    assert!(e.message.contains("coordinate 9 on axis Z"), "{e}");
    let e = Format::Mpich.read(&topo, "0,1\n1\n", &h, 1, "order").unwrap_err();
    assert_eq!(e.message, "rank 1 is listed twice");
    let e = Format::Mpich.read(&topo, "0,x\n", &h, 1, "order").unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("order line 1", "'x' is not a rank or a range a-b"));
    let e = Format::Rankfile.read(&topo, "rank 0=nid00001 slot=0\nrank 2=nid00002 slot=0\n", &h, 1, "rf").unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("rf line 2", "rank 2 is beyond the 2 ranks listed"));
    let e = Format::Slurm.read(&topo, "nid00001\nnode7\n", &h, 1, "hosts").unwrap_err();
    assert_eq!((e.field.as_str(), e.message.as_str()), ("hosts line 2", "host 'node7' does not match the host pattern nid{}"));
    let e = Format::Rankmap.read(&topo, "0 0 0 0 0 0\n0 0 0 0 0 0\n", &h, 1, "map.txt").unwrap_err();
    assert_eq!(e.field, "map.txt line 2");
    assert!(Format::parse("csv", "--format").unwrap_err().to_string().contains("'csv' is not a format"));
    assert!(HostPattern::parse("nid").is_err() && HostPattern::parse("n{x}").is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]
    /// With K ranks a node every format reads back what it wrote (MPICH: when every node used
    /// holds K ranks).
    #[test]
    fn every_format_reads_back_several_ranks_a_node(seed in any::<u64>(), k in 2u32..=4, ranks in 1u32..=200) {
        let topo = tofu();
        let mut nodes: Vec<u32> = (0..topo.nodes()).collect();
        let mut s = seed;
        for i in (1..nodes.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            nodes.swap(i, (s >> 33) as usize % (i + 1));
        }
        // Ranks dealt to random nodes, K to a node (a shuffled order of slots).
        let mut slots: Vec<u32> = (0..ranks).collect();
        for i in (1..slots.len()).rev() {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            slots.swap(i, (s >> 33) as usize % (i + 1));
        }
        let map: Vec<NodeId> = slots.iter().map(|&sl| NodeId(nodes[(sl / k) as usize])).collect();
        let hosts = HostPattern::parse("fx{:04}-ib").unwrap();
        for f in Format::ALL {
            let text = f.write(&topo, &map, &hosts);
            let back = f.read(&topo, &text, &hosts, k, "--out").unwrap();
            // MPICH says nothing of a short node other than the last: only full nodes here.
            prop_assert!(f.same_map(&map, &back) || (f == Format::Mpich && ranks % k != 0), "{}", f.name());
            if f != Format::Mpich {
                prop_assert_eq!(&back, &map, "{}", f.name());
            }
            // One rank fewer a node is refused.
            if ranks > k && f != Format::Mpich {
                prop_assert!(f.read(&topo, &text, &hosts, k - 1, "--out").is_err(), "{}", f.name());
            }
        }
    }
}

#[test]
fn several_ranks_a_node_look_as_the_machines_expect() {
    let topo = tofu();
    let map = vec![NodeId(1), NodeId(0), NodeId(1), NodeId(0)];
    let hosts = HostPattern::default();
    assert_eq!(Format::Vcoord.write(&topo, &map, &hosts), "(1,0,0,0,0,0)\n(0,0,0,0,0,0)\n(1,0,0,0,0,0)\n(0,0,0,0,0,0)\n");
    assert_eq!(Format::Mpich.write(&topo, &map, &hosts), "1,3,0,2\n");
    assert_eq!(
        Format::Rankfile.write(&topo, &map, &hosts),
        "rank 0=nid00001 slot=0\nrank 1=nid00000 slot=0\nrank 2=nid00001 slot=1\nrank 3=nid00000 slot=1\n"
    );
    assert_eq!(Format::Mpich.read(&topo, "1,3,0,2\n", &hosts, 2, "f").unwrap(), map);
    // A node short of K ranks before the last cannot be said in MPICH's order.
    let gap = vec![NodeId(0), NodeId(1), NodeId(1)];
    let back = Format::Mpich.read(&topo, &Format::Mpich.write(&topo, &gap, &hosts), &hosts, 2, "f").unwrap();
    assert!(!Format::Mpich.same_map(&gap, &back));
    let e = Format::Slurm.read(&topo, "nid00001\nnid00001\nnid00001\n", &hosts, 2, "hosts").unwrap_err();
    assert_eq!(e.message, "ranks 0, 1, 2 are all on node 1, more than 2 rank(s) per node");
}

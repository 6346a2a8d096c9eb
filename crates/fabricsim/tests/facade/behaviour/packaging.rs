//! Packaging: cables on the machine-room floor and loopbacks closing rings inside a block.

use super::*;

#[test]
fn cables_laid_out_on_the_floor_add_their_length_to_zero_load_latency() {
    // 8x8x8 torus in racks of 2x2x8 nodes, four racks to a row. From (0,0,0) to (3,0,0) the
    // packet crosses one cable (racks 0 and 1 of a row: 2 m of slack + 0.8 m) and two board
    // links; to (0,3,0) one cable across a row (2 m + 2.4 m).
    let one_way = |dst: [u32; 3], floor: bool| {
        let dst = format!("workload.dst=[{},{},{}]", dst[0], dst[1], dst[2]);
        let mut sets = vec!["workload.type=pingpong", "workload.src=[0,0,0]", &dst];
        if floor {
            sets.extend(["packaging.rack=[2,2,8]", "packaging.racks_per_row=4", "packaging.optical_latency=\"50ns\""]);
        }
        Plan::new(&with(&sets)).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap()
    };
    let board = torus(&mut Scenario::default()).link_latency.as_ns_f64();
    for (dst, metres) in [([3, 0, 0], 2.8), ([0, 3, 0], 4.4)] {
        let extra = one_way(dst, true) - one_way(dst, false);
        let want = 50.0 + metres * 5.0 - board;
        assert!((extra - want).abs() < 1e-6, "to {dst:?}: {extra} ns more, want {want}");
    }
    // `info` lists the links by latency: board links, and cables of three lengths.
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[8,8,8]", "packaging.rack=[2,2,8]", "packaging.racks_per_row=4"].map(String::from)).unwrap();
    let info = fabricsim::info(&s).unwrap();
    let links: u64 = info.link_latencies.iter().map(|l| l.links).sum();
    assert_eq!(links, 3 * 512);
    assert_eq!(info.link_latencies.len(), 4, "{:?}", info.link_latencies);
    // A rack that splits a block is refused by name.
    s.apply_overrides(&["packaging.block=[4,4,8]".to_string()]).unwrap();
    let e = Plan::new(&s).err().unwrap().to_string();
    assert!(e.starts_with("packaging.rack"), "{e}");
}

#[test]
fn a_ring_closed_inside_its_block_pays_the_loopback_on_its_wrap_link_only() {
    // A 4x4x4 torus in one block: the wrap links of d0 and d1 close through a loopback of
    // 60 ns (the board links' 20 ns plus 40), d2's do not. From (0,0,0) to (3,0,0) is one hop
    // over d0's wrap link; to (1,0,0) one board link; to (0,0,3) one hop over d2's wrap link.
    let one_way = |dst: &str, loopback: bool| {
        let dst = format!("workload.dst={dst}");
        let mut sets = vec!["topology.shape=[4,4,4]", "workload.type=pingpong", "workload.src=[0,0,0]", &dst];
        if loopback {
            sets.extend(["packaging.block=[4,4,4]", "packaging.loopback_latency=\"60ns\"", "packaging.loopback_axes=[\"d0\",\"d1\"]"]);
        }
        Plan::new(&with(&sets)).unwrap().run().unwrap().workload.one_way_latency_ns.unwrap()
    };
    let board = torus(&mut Scenario::default()).link_latency.as_ns_f64();
    assert!((one_way("[3,0,0]", true) - one_way("[3,0,0]", false) - (60.0 - board)).abs() < 1e-6);
    assert_eq!(one_way("[1,0,0]", true), one_way("[1,0,0]", false));
    assert_eq!(one_way("[0,0,3]", true), one_way("[0,0,3]", false));
    // `info` counts them: 16 rings on each of d0 and d1.
    let mut s = Scenario::default();
    s.apply_overrides(
        &["topology.shape=[4,4,4]", "packaging.block=[4,4,4]", "packaging.loopback_latency=\"60ns\"", "packaging.loopback_axes=[\"d0\",\"d1\"]"]
            .map(String::from),
    )
    .unwrap();
    let kinds = fabricsim::info(&s).unwrap().link_kinds.unwrap();
    assert_eq!((kinds.links_loopback, kinds.links_electrical, kinds.links_optical), (32, 3 * 64 - 32, 0));
    // A bad axis, or axes without a latency, are refused by name.
    s.apply_overrides(&["packaging.loopback_axes=[\"W\"]".to_string()]).unwrap();
    let e = Plan::new(&s).err().unwrap().to_string();
    assert!(e.starts_with("packaging.loopback_axes") && e.contains("\"W\""), "{e}");
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[4,4,4]", "packaging.loopback_axes=[\"d0\"]"].map(String::from)).unwrap();
    assert!(Plan::new(&s).err().unwrap().to_string().starts_with("packaging.loopback_axes"));
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[4,4,4]", "packaging.loopback_latency=\"60ns\""].map(String::from)).unwrap();
    assert!(Plan::new(&s).err().unwrap().to_string().starts_with("packaging.loopback_latency"));
}

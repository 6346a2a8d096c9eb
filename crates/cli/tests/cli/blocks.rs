//! `info --partitions N`: how a partitioned run would cut the network.

use super::fabricsim;

fn partition(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["info", "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = fabricsim(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["partition"].clone()
}

#[test]
fn a_torus_is_cut_into_bricks_and_the_lookahead_is_the_fastest_cut_link() {
    let p = partition(&["--partitions", "4", "--set", "topology.shape=[8,8,4]", "--set", "topology.link_latency=30ns"]);
    assert_eq!(p["grid"], serde_json::json!([2, 2, 1]));
    assert_eq!(p["routers_per_block_min"], 64);
    assert_eq!(p["routers_per_block_max"], 64);
    // Each X ring crosses the X cut twice, each Y ring the Y cut twice: 32 rings each.
    assert_eq!(p["cut_links"], 2 * 32 + 2 * 32);
    assert_eq!(p["lookahead_ns"], 30.0);
    // One block cuts nothing; without the flag there is no partition at all.
    let one = partition(&["--partitions", "1"]);
    assert_eq!(one["cut_links"], 0);
    assert!(one["lookahead_ns"].is_null());
    assert!(partition(&[]).is_null());
}

#[test]
fn cables_set_the_lookahead_of_a_packaged_machine() {
    // A TofuD rack cut in two along Z: the cut links are the cables between the half racks,
    // slower than the links inside a package.
    let whole = partition(&["--partitions", "1", "--set", "machine.preset=tofud", "--set", "topology.shape=[2,2,8,2,3,2]"]);
    assert!(whole["lookahead_ns"].is_null());
    let p = partition(&["--partitions", "2", "--set", "machine.preset=tofud", "--set", "topology.shape=[2,2,8,2,3,2]"]);
    assert_eq!(p["grid"], serde_json::json!([1, 1, 2, 1, 1, 1]));
    let (code, out, _) = fabricsim(&["info", "--json", "--set", "machine.preset=tofud", "--set", "topology.shape=[2,2,8,2,3,2]"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fastest = v["link_latencies"][0]["latency_ns"].as_f64().unwrap();
    assert!(p["lookahead_ns"].as_f64().unwrap() >= fastest);
}

#[test]
fn counts_that_cannot_partition_exit_2_naming_the_value() {
    for (args, needle) in [
        (vec!["info", "--partitions", "0"], "--partitions: 0"),
        (vec!["info", "--partitions", "7", "--set", "topology.shape=[4,4]"], "factor of 7"),
        (vec!["info", "--partitions", "17", "--set", "topology.shape=[4,4]"], "16 routers"),
        (vec!["info", "--partitions", "2", "--set", "topology.link_latency=0ns"], "topology.link_latency"),
    ] {
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

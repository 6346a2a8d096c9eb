//! Presets shrunk to a partition: the preset's packaging follows the partition, from the
//! smallest sensible one to the full machine.

use super::fabricsim;

/// `info --json` of `preset` at `shape` (under uniform random traffic): it must build.
fn info(preset: &str, shape: &str) -> serde_json::Value {
    // The preset's own workload may name nodes outside a small partition: uniform traffic.
    let (preset, shape) = (format!("machine.preset={preset}"), format!("topology.shape={shape}"));
    let (code, out, err) = fabricsim(&["info", "--json", "--set", &preset, "--set", &shape, "--set", "workload.type=uniform_random"]);
    assert_eq!(code, 0, "{preset} {shape}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["not_built"].is_null(), "{preset} {shape}: {v}");
    v
}

#[test]
fn every_preset_runs_at_partitions_from_the_smallest_to_the_full_machine() {
    for (preset, shapes) in [
        ("tofud", &["[1,1,1,2,3,2]", "[2,2,4,2,3,2]", "[2,2,8,2,3,2]", "[4,4,8,2,3,2]"][..]),
        ("tofu-k", &["[1,1,1,2,3,2]", "[2,3,4,2,3,2]", "[24,18,16,2,3,2]"][..]),
        ("tofu-fx10", &["[1,1,1,2,3,2]", "[4,6,4,2,3,2]"][..]),
        ("tofu2-fx100", &["[1,1,1,2,3,2]", "[1,1,3,2,1,2]", "[3,4,6,2,3,2]"][..]),
        ("bgq", &["[1,1,1,1,2]", "[2,2,2,2,2]", "[4,4,4,4,2]"][..]),
        ("bgq-sequoia", &["[2,2,2,2,2]", "[16,16,16,12,2]"][..]),
        ("apenet-quong", &["[2,2,2]", "[4,4,2]"][..]),
    ] {
        for shape in shapes {
            info(preset, shape);
        }
    }
    // TofuD: a partition inside a half rack (one block) has no optical link; a whole rack
    // has the links between its halves; more racks, cables of more lengths between them.
    let optical = |shape: &str| info("tofud", shape)["links_optical"].as_u64().unwrap();
    let latencies = |shape: &str| info("tofud", shape)["link_latencies"].as_array().unwrap().len();
    assert_eq!(optical("[1,1,2,2,3,2]"), 0);
    assert_eq!(optical("[2,2,4,2,3,2]"), 0);
    assert!(optical("[2,2,8,2,3,2]") > 0);
    assert!(latencies("[4,4,8,2,3,2]") > latencies("[2,2,8,2,3,2]"));
    // The case: a collective on a half rack.
    let (code, _, err) = fabricsim(&[
        "collective",
        "--set",
        "machine.preset=tofud",
        "--set",
        "topology.shape=[2,2,4,2,3,2]",
        "--op",
        "barrier",
        "--algorithm",
        "hardware",
    ]);
    assert_eq!(code, 0, "{err}");
    // Packaging written by the user is checked as written.
    let (code, _, err) =
        fabricsim(&["info", "--set", "machine.preset=tofud", "--set", "topology.shape=[2,2,4,2,3,2]", "--set", "packaging.rack=[2,2,8,2,3,2]"]);
    assert_eq!(code, 2);
    assert!(err.contains("packaging.rack"), "{err}");
}

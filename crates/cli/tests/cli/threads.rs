//! `run --threads N`: a partitioned run reports what the one-thread run reports, for every
//! open-loop example; what cannot be partitioned yet is refused by name.

use super::fabricsim;
use serde_json::Value;

/// Fields about the engine's own work: wall time and rates over it, the event count (a credit
/// return may travel as an event in one partition and not in another) and the slabs'
/// high-water marks (summed over blocks).
fn results_only(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| {
                !(k.contains("wall") || k.contains("per_second") || k == "events" || k.starts_with("peak_") || k == "provenance" || k == "parallel")
            });
            m.values_mut().for_each(results_only);
        }
        Value::Array(a) => a.iter_mut().for_each(results_only),
        _ => {}
    }
}

fn run_json(args: &[&str]) -> Value {
    let mut all = vec!["run", "--json", "-"];
    all.extend_from_slice(args);
    let (code, out, err) = fabricsim(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    let mut v: Value = serde_json::from_str(&out).unwrap();
    results_only(&mut v);
    v
}

#[test]
fn open_loop_examples_give_the_same_report_on_two_to_four_threads() {
    let short = ["--set", "sim.duration=1us"];
    for example in ["torus-uniform", "torus-tornado", "fat-tree-hot-region", "mesh-transpose", "torus6d-locality", "torus-cables"] {
        let path = format!("{}/../../examples/{example}.toml", env!("CARGO_MANIFEST_DIR"));
        let one = run_json(&[&path, short[0], short[1]]);
        assert!(one["packets_delivered"].as_u64().unwrap() > 0, "{example} moves traffic");
        for threads in ["2", "3", "4"] {
            let many = run_json(&[&path, short[0], short[1], "--threads", threads]);
            assert!(many == one, "{example} on {threads} threads differs from one thread");
        }
    }
}

#[test]
fn the_default_run_is_the_same_on_two_threads_set_either_way() {
    // (Any override renames the scenario "... with overrides": the one-thread run sets one too.)
    let one = run_json(&["--threads", "1"]);
    assert_eq!(one["name"], "default scenario with overrides");
    assert_eq!(run_json(&["--threads", "2"]), one);
    assert_eq!(run_json(&["--set", "sim.threads=2"]), one);
}

#[test]
fn what_cannot_be_partitioned_is_refused_naming_the_key() {
    let refused = |args: &[&str], key: &str, words: &str| {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let (code, _, err) = fabricsim(&all);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(key) && err.contains(words), "{args:?}: {err}");
    };
    refused(&["--threads", "0"], "sim.threads", "at least one thread");
    refused(&["--threads", "600"], "sim.threads", "600 blocks but the network has 512 routers");
    refused(&["--threads", "2", "--set", "workload.type=all_to_all"], "workload.type", "cannot be partitioned yet");
    refused(&["--threads", "2", "--set", "topology.link_latency=0ns"], "topology.link_latency", "lookahead");
    refused(&["--threads", "2", "--set", "machine.preset=bgq", "--set", "topology.shape=[4,4,4,4,2]"], "hardware.type", "cannot be partitioned yet");
    let (code, _, err) = fabricsim(&["run", "--threads", "2", "--series", "/dev/null"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sim.threads") && err.contains("time series"), "{err}");
}

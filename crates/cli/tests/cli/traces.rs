//! `fabricsim trace check` and `fabricsim collective --goal-out`, run as a user would.

use super::{example, fabricsim};

#[test]
fn trace_check_prints_the_statistics_of_a_trace() {
    let (code, out, err) = fabricsim(&["trace", "check", &example("traces/halo-8.goal")]);
    assert_eq!(code, 0, "{err}");
    for want in ["ranks          8", "operations     208 (96 sends, 96 recvs, 16 calcs)", "bytes sent     393216", "critical path  2.000 us"] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let (code, out, _) = fabricsim(&["trace", "check", &example("traces/halo-8.goal"), "--calc-unit", "2GHz", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["critical_path_ps"], 1_000_000);
}

#[test]
fn a_bad_trace_exits_2_naming_the_file_line_and_value() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (text, want) in [
        ("num_ranks 2\nrank 0 {\nl1: calc 5\nl2 requires l1\n}\n", "line 4: unknown label 'l2' in rank 0"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 7 tag 0\n}\n", "line 3: rank 7 is beyond num_ranks 2"),
        (
            "num_ranks 2\nrank 1 {\nrecv 8b from 0 tag 4\n}\n",
            "line 3: deadlock even without a network: rank 1: recv 8b from 0 tag 4 is never matched",
        ),
    ] {
        let f = dir.join("bad.goal");
        std::fs::write(&f, text).unwrap();
        let (code, _, err) = fabricsim(&["trace", "check", f.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("'{}' {want}", f.display())), "{err}");
    }
}

#[test]
fn a_collective_written_with_goal_out_replays_in_the_same_time() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-goal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let goal = dir.join("ring.goal");
    let shape = "topology.shape=[4,4]";
    let args = ["collective", "--op", "allreduce", "--algorithm", "ring", "--sizes", "64KiB", "--set", shape, "--json", "-", "--goal-out"];
    let (code, out, err) = fabricsim(&[&args[..], &[goal.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scenario = dir.join("replay.toml");
    std::fs::write(&scenario, "[topology]\nshape = [4, 4]\n[workload]\ntype = \"trace\"\nfile = \"ring.goal\"\n").unwrap();
    let (code, out, err) = fabricsim(&["run", scenario.to_str().unwrap(), "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["collective"]["time_ns"], v[0]["time_ns"]);
    assert_eq!(r["collective"]["op"], "trace");
    assert!(r["collective"]["trace"]["rank_done_ns"].as_array().unwrap().len() == 16);
    // Several points cannot be one trace.
    let (code, _, err) = fabricsim(&[
        "collective",
        "--op",
        "allreduce",
        "--algorithm",
        "ring",
        "--sizes",
        "8B,1KiB",
        "--set",
        shape,
        "--goal-out",
        goal.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--goal-out: writes one program: 2 points would run"), "{err}");
}

//! Smaller things a new user meets: what the sweep table compares, intervals of one run,
//! provenance of every JSON, the network's bound, the keys `default` lists, bare words.

use super::fabricsim;

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn the_sweep_shows_what_accepted_should_reach_and_gives_no_interval_for_one_run() {
    let args = ["sweep", "--loads", "0.03", "--set", "machine.preset=tofud", "--set", "workload.type=uniform_random", "--set", "sim.duration=10us"];
    let (code, out, err) = fabricsim(&args);
    assert_eq!(code, 0, "{err}");
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(&header[..3], ["offered", "expected", "accepted"], "{out}");
    // TofuD's headers: the payload of a 0.03 load is below 0.03, and accepted follows it.
    let row: Vec<f64> = out.lines().nth(1).unwrap().split_whitespace().take(3).map(|x| x.parse().unwrap()).collect();
    assert!(row[1] < 0.95 * row[0] && (row[2] - row[1]).abs() < 0.1 * row[1], "{out}");
    let (_, out, _) = fabricsim(&[&args[..], &["--seeds", "1", "--json", "-"]].concat());
    let v = json(&out);
    assert!(v["points"][0]["accepted_fraction_ci95"].is_null() && v["points"][0]["latency_mean_ci95_ns"].is_null(), "{v}");
    assert!(v["provenance"]["scenario"].as_str().unwrap().contains("tofud") && v["provenance"]["seed"] == 1, "{v}");
    assert!(out.contains("\"fabricsim_version\""));
}

#[test]
fn collective_and_size_sweep_json_carry_their_provenance() {
    let (code, out, err) = fabricsim(&["collective", "--op", "barrier", "--set", "topology.shape=[4]", "--set", "sim.seed=7", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let p = &json(&out)[0]["provenance"];
    assert_eq!(p["seed"], 7);
    assert!(p["scenario"].as_str().unwrap().contains("op = \"barrier\""), "{p}");
    let (code, out, err) = fabricsim(&[
        "sweep",
        "--set",
        "topology.shape=[4]",
        "--set",
        "workload.type=pingpong",
        "--set",
        "workload.src=[0]",
        "--set",
        "workload.dst=[2]",
        "--sizes",
        "8B",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(json(&out)[0]["provenance"]["scenario"].as_str().unwrap().contains("message_size = \"8B\""), "{out}");
}

#[test]
fn info_and_the_saturation_verdict_give_the_uniform_random_bound() {
    let (_, out, _) = fabricsim(&["info", "--set", "topology.shape=[4,4]", "--set", "topology.wrap=[false,false]"]);
    // A 4x4 mesh: the cut through the middle of an axis has 8 nodes each side, 8 x 8 pairs to
    // carry each way over 4 links, while each node sends to 15 others: 15 x 4 / 64 of the
    // injection bandwidth at most.
    let line = out.lines().find(|l| l.starts_with("uniform random bound")).unwrap_or_else(|| panic!("{out}"));
    let b: f64 = line.split_whitespace().nth(3).unwrap().parse().unwrap();
    assert!((b - 15.0 * 4.0 / 64.0).abs() < 1e-3, "{line}");
    let (_, out, _) = fabricsim(&["sweep", "--loads", "0.1", "--set", "topology.shape=[4,4]", "--set", "sim.duration=1us"]);
    assert!(out.lines().last().unwrap().contains("uniform random bound of the network 1.0000"), "{out}");
}

#[test]
fn default_lists_the_type_keys_and_set_arrays_take_bare_words() {
    let (_, out, _) = fabricsim(&["default"]);
    for key in ["src", "dst", "message_size", "schedule", "destinations", "escape", "blocked", "up_port"] {
        assert!(out.lines().any(|l| l.starts_with('#') && l.contains(&format!(".{key} = "))), "{key} missing:\n{out}");
    }
    let (code, out, err) = fabricsim(&["show", "--set", "topology.axes=[X,Y,Z]", "--set", "routing.order=[Z,Y,X]"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("axes = [\"X\", \"Y\", \"Z\"]") && out.contains("order = [\"Z\", \"Y\", \"X\"]"), "{out}");
}

#[test]
fn a_reader_that_closed_early_ends_the_command_quietly() {
    // As `fabricsim info | head` does once `head` has its lines: the pipe's read end is closed
    // before the command writes anything, so its first write fails.
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fabricsim"))
        .args(["info", "--set", "topology.shape=[4,4]"])
        .stdout(writer)
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

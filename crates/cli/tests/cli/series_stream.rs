//! `run --series FILE.csv` is written as the run goes: the same rows as the series held in
//! memory (`--series -` prints that one), and `--series-ports` keeps some ports.

use super::{example, fabricsim};

#[test]
fn a_streamed_csv_series_is_the_series_held_in_memory() {
    let d = std::env::temp_dir().join(format!("fabricsim-stream-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for (k, scenario) in ["torus-tornado.toml", "collective-allreduce.toml", "fat-tree-hot-region.toml"].into_iter().enumerate() {
        let file = d.join(format!("s{k}.csv"));
        let (code, _, err) = fabricsim(&["run", &example(scenario), "--series", file.to_str().unwrap(), "--interval", "700ns"]);
        assert_eq!(code, 0, "{err}");
        let (code, held, err) = fabricsim(&["run", &example(scenario), "--series", "-", "--interval", "700ns"]);
        assert_eq!(code, 0, "{err}");
        let streamed = std::fs::read_to_string(&file).unwrap();
        assert!(streamed.lines().count() > 100, "{scenario}: a series of many rows");
        assert_eq!(streamed.trim_end(), held.trim_end(), "{scenario}");
    }
}

#[test]
fn series_ports_keeps_the_ports_named_and_refuses_an_unknown_one() {
    let d = std::env::temp_dir().join(format!("fabricsim-stream-ports-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("f.csv");
    let (code, _, err) = fabricsim(&[
        "run",
        "--set",
        "topology.shape=[4,4]",
        "--series",
        file.to_str().unwrap(),
        "--series-ports",
        "d0+,terminal",
        "--interval",
        "1us",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let mut labels: Vec<&str> = text.lines().skip(1).map(|l| l.split(',').nth(4).unwrap()).collect();
    labels.sort_unstable();
    labels.dedup();
    assert_eq!(labels, ["d0+", "nic0"]);
    // The same filter applies to a series held in memory (JSON).
    let json = d.join("f.json");
    let (code, _, err) =
        fabricsim(&["run", "--set", "topology.shape=[4,4]", "--series", json.to_str().unwrap(), "--series-ports", "d1", "--interval", "1us"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|r| r["label"].as_str().unwrap().starts_with("d1")));
    let (code, _, err) =
        fabricsim(&["run", "--set", "topology.shape=[4,4]", "--series", file.to_str().unwrap(), "--series-ports", "Q+", "--interval", "1us"]);
    assert_eq!(code, 2);
    assert!(err.contains("--series-ports") && err.contains("'Q+'") && err.contains("d0+"), "{err}");
}

/// A series file whose writes fail (a full disk, here `/dev/full` behind the file being
/// written) stops the run with an error naming the file; nothing is left in its place.
#[cfg(target_os = "linux")]
#[test]
fn a_series_write_that_fails_stops_the_run_naming_the_file() {
    let d = std::env::temp_dir().join(format!("fabricsim-stream-full-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("s.csv");
    let partial = d.join("s.csv.partial");
    let _ = std::fs::remove_file(&partial);
    std::os::unix::fs::symlink("/dev/full", &partial).unwrap();
    let args = ["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=500us", "--series", file.to_str().unwrap(), "--interval", "10ns"];
    let (code, _, err) = fabricsim(&args);
    assert_ne!(code, 0, "{err}");
    assert!(err.contains("s.csv: writing the series") && err.contains("No space left"), "{err}");
    assert!(!file.exists() && !partial.exists(), "nothing is left behind");
}

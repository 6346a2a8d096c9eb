//! `sweep --series DIR` and `collective --series DIR` write one series per run, each the
//! series `run --series` writes for the same scenario, and `--perfetto DIR` one trace per run,
//! the trace `run --perfetto` writes; the filters' errors name the flag.

use super::fabricsim;
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-points-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn files(d: &PathBuf) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_sweep_point_writes_the_series_of_the_same_run() {
    let d = temp_dir("sweep");
    let dir = d.join("points");
    let net = ["--set", "topology.shape=[4,4]"];
    let sweep = ["sweep", "--loads", "0.2,0.5", "--seeds", "2", "--set", "sim.seed=7", "--series", dir.to_str().unwrap(), "--interval", "1us"];
    let (code, _, err) = fabricsim(&[&sweep[..], &net[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(files(&dir), ["load0.2-seed7.csv", "load0.2-seed8.csv", "load0.5-seed7.csv", "load0.5-seed8.csv"]);
    let one = d.join("one.csv");
    let (code, _, err) = fabricsim(
        &[&["run", "--set", "workload.load=0.5", "--set", "sim.seed=8", "--series", one.to_str().unwrap(), "--interval", "1us"][..], &net[..]]
            .concat(),
    );
    assert_eq!(code, 0, "{err}");
    let point = std::fs::read_to_string(dir.join("load0.5-seed8.csv")).unwrap();
    assert!(point.lines().count() > 100);
    assert_eq!(point, std::fs::read_to_string(&one).unwrap());
    assert_ne!(point, std::fs::read_to_string(dir.join("load0.5-seed7.csv")).unwrap(), "another seed, another run");
}

#[test]
fn a_collective_point_writes_the_series_of_the_same_run() {
    let d = temp_dir("collective");
    let dir = d.join("points");
    let (code, _, err) = fabricsim(&[
        "collective",
        "--op",
        "broadcast",
        "--algorithm",
        "binomial,chain",
        "--sizes",
        "4KiB",
        "--set",
        "topology.shape=[4,4]",
        "--series",
        dir.to_str().unwrap(),
        "--series-format",
        "parquet",
        "--interval",
        "200ns",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(files(&dir), ["broadcast-binomial-4096B.parquet", "broadcast-chain-4096B.parquet"]);
    let one = d.join("one.parquet");
    let sets = ["workload.type=collective", "workload.op=broadcast", "workload.algorithm=chain", "workload.size=4KiB", "topology.shape=[4,4]"];
    let mut args = vec!["run", "--series", one.to_str().unwrap(), "--interval", "200ns"];
    for s in &sets {
        args.extend(["--set", s]);
    }
    let (code, _, err) = fabricsim(&args);
    assert_eq!(code, 0, "{err}");
    let point = std::fs::read(dir.join("broadcast-chain-4096B.parquet")).unwrap();
    assert!(point.starts_with(b"PAR1") && point.len() > 1000);
    assert_eq!(point, std::fs::read(&one).unwrap());
    let (code, _, err) = fabricsim(&["collective", "--op", "broadcast", "--series", dir.to_str().unwrap(), "--series-format", "xml"]);
    assert_eq!(code, 2);
    assert!(err.contains("--series-format: 'xml'"), "{err}");
}

#[test]
fn region_and_busiest_errors_name_the_flag_and_the_value() {
    let d = temp_dir("errors");
    let csv = d.join("s.csv");
    let csv = csv.to_str().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["--series", csv, "--series-region", "Q=1"], "--series-region: 'Q=1'"),
        (&["--series", csv, "--series-region", "d1=9"], "--series-region: 'd1=9'"),
        (&["--series", "x.json", "--series-busiest", "0"], "--series-busiest: 0"),
    ];
    for (extra, want) in cases {
        let (code, _, err) = fabricsim(&[&["run", "--set", "topology.shape=[4,4]"][..], extra].concat());
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    // Held until the end (embedded), the busiest are kept.
    let json = d.join("r.json");
    let (code, _, err) = fabricsim(&[
        "run",
        "--set",
        "topology.shape=[4,4]",
        "--json",
        json.to_str().unwrap(),
        "--embed-series",
        "--series-busiest",
        "3",
        "--series-region",
        "d0=0..1",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ports = v["series"]["ports"].as_array().unwrap();
    assert_eq!(ports.len(), 3);
    assert!(ports.iter().all(|p| p["router"].as_u64().unwrap() % 4 <= 1), "{ports:?}");
}

#[test]
fn sweep_and_collective_points_write_the_trace_of_the_same_run() {
    let d = temp_dir("traces");
    let dir = d.join("traces");
    let net = ["--set", "topology.shape=[4,4]", "--interval", "1us"];
    let sweep = ["sweep", "--loads", "0.3", "--set", "sim.seed=3", "--perfetto", dir.to_str().unwrap()];
    let (code, _, err) = fabricsim(&[&sweep[..], &net[..]].concat());
    assert_eq!(code, 0, "{err}");
    assert_eq!(files(&dir), ["load0.3-seed3.perfetto.json"]);
    let one = d.join("one.json");
    let run = ["run", "--set", "workload.load=0.3", "--set", "sim.seed=3", "--perfetto", one.to_str().unwrap()];
    let (code, _, err) = fabricsim(&[&run[..], &net[..]].concat());
    assert_eq!(code, 0, "{err}");
    let point = std::fs::read_to_string(dir.join("load0.3-seed3.perfetto.json")).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&point).unwrap();
    assert!(trace["traceEvents"].as_array().unwrap().iter().filter(|e| e["ph"] == "C").count() > 64);
    assert_eq!(point, std::fs::read_to_string(&one).unwrap());
    // A comparison: a trace per algorithm, with the collective's ranks as slices, beside the
    // series when both are asked.
    let (traces, series) = (d.join("ct"), d.join("cs"));
    let (code, _, err) = fabricsim(
        &[
            &["collective", "--op", "broadcast", "--algorithm", "binomial,chain", "--sizes", "4KiB"][..],
            &["--perfetto", traces.to_str().unwrap(), "--series", series.to_str().unwrap()][..],
            &net[..],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(files(&traces), ["broadcast-binomial-4096B.perfetto.json", "broadcast-chain-4096B.perfetto.json"]);
    assert_eq!(files(&series), ["broadcast-binomial-4096B.csv", "broadcast-chain-4096B.csv"]);
    let t: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(traces.join("broadcast-chain-4096B.perfetto.json")).unwrap()).unwrap();
    let ranks = t["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"] == "broadcast (chain)" && e["args"]["rank"].is_u64())
        .count();
    // (A rank that finishes at its start, as a broadcast's root may, has an empty slice, not drawn.)
    assert!((15..=16).contains(&ranks), "{ranks} rank slices");
    // A program runs once: a trace per point is refused, naming the flag.
    let (code, _, err) = fabricsim(&["collective", "--program", "x.txt", "--perfetto", traces.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--perfetto"), "{err}");
}

#[test]
fn two_outputs_into_one_file_are_refused_naming_the_second() {
    let d = temp_dir("same-file");
    let f = d.join("out.json");
    let other = d.join(".").join("out.json");
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--series", f.to_str().unwrap(), "--perfetto", other.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--perfetto") && err.contains("--series"), "{err}");
    assert!(!f.exists(), "nothing written");
}

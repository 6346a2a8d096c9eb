//! Series and traces written as the run goes (`Plan::run_series_files`): a streamed JSON series
//! is the object the held series serialises to, a trace's counter tracks give back the series,
//! and `--series-busiest` (held until the run ends) writes the busiest ports to any format.

use fabricsim::series_stream::{PortFilter, SeriesFiles};
use fabricsim::{Plan, Scenario, Time};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-series-streams-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn plan(toml: &str) -> Plan {
    Plan::new(&Scenario::from_toml_str(toml).unwrap()).unwrap()
}

const TORUS: &str = "[topology]\nshape = [4, 4]\n[workload]\ntype = \"tornado\"\nload = 0.4\n";

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_streamed_json_series_is_the_held_series_serialised() {
    let d = temp_dir("json");
    let p = plan(TORUS);
    let every = Time::from_ns(200);
    let path = d.join("s.json");
    let files = SeriesFiles { series: Some(&path), trace: None };
    let (_, cut) = p.run_series_files(every, &PortFilter::default(), files, |_| {}).unwrap();
    assert_eq!(cut, None);
    let (_, held) = p.run_with_series(every, |_| {}).unwrap();
    assert!(held.rows.len() > 1000, "{} rows", held.rows.len());
    assert_eq!(read_json(&path), serde_json::to_value(&held).unwrap());
}

/// Per counter track (pid, name): its events' (time in us, utilisation), in time order.
fn tracks(ev: &[Value]) -> std::collections::BTreeMap<(u64, String), Vec<(f64, f64)>> {
    let mut t: std::collections::BTreeMap<(u64, String), Vec<(f64, f64)>> = Default::default();
    for e in ev.iter().filter(|e| e["ph"] == "C") {
        let key = (e["pid"].as_u64().unwrap(), e["name"].as_str().unwrap().to_string());
        t.entry(key).or_default().push((e["ts"].as_f64().unwrap(), e["args"]["utilization"].as_f64().unwrap()));
    }
    for v in t.values_mut() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    t
}

#[test]
fn a_streamed_traces_counter_tracks_give_back_the_series_and_the_phases_follow() {
    let d = temp_dir("trace");
    let p = plan(TORUS);
    let every = Time::from_ns(250);
    let (trace, csv) = (d.join("t.json"), d.join("s.csv"));
    let files = SeriesFiles { series: Some(&csv), trace: Some(&trace) };
    let (report, _) = p.run_series_files(every, &PortFilter::default(), files, |_| {}).unwrap();
    let t = read_json(&trace);
    let ev = t["traceEvents"].as_array().unwrap();
    // Every port's utilisation in every interval is the value its track holds at the interval's
    // start (a track has an event where the value changes).
    let tracks = tracks(ev);
    let (_, held) = p.run_with_series(every, |_| {}).unwrap();
    let intervals = held.rows.iter().map(|r| r.t_ns).fold(0.0, f64::max) / 250.0 + 1.0;
    for r in &held.rows {
        let track = &tracks[&(100 + r.router as u64, format!("{} util", r.label))];
        let at = track.iter().rev().find(|e| e.0 <= r.t_ns / 1e3 + 1e-9).expect("a value from the start");
        assert_eq!(at.1, r.utilization, "router {} {} at {} ns", r.router, r.label, r.t_ns);
        // The track ends at the series' end with its last value.
        assert_eq!(track.last().unwrap().0, intervals * 0.25);
    }
    assert_eq!(tracks.len(), held.rows.iter().filter(|r| r.t_ns == 0.0).count());
    // The CSV written beside it in the same run has the held series' rows.
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), held.to_csv());
    // The run's phases, from its report, and a process per router named by its coordinates.
    let slice = |name: &str| ev.iter().find(|e| e["ph"] == "X" && e["name"] == name).unwrap_or_else(|| panic!("{name}")).clone();
    let window = slice("measurement window");
    assert_eq!(window["ts"].as_f64().unwrap() * 1e3, report.warmup_ns);
    assert!((window["dur"].as_f64().unwrap() * 1e3 - report.window_ns).abs() < 1e-6);
    let named = ev.iter().filter(|e| e["ph"] == "M" && e["name"] == "process_name" && e["pid"] == 105).count();
    assert_eq!(named, 1);
    assert!(ev.iter().any(|e| e["pid"] == 105 && e["args"]["name"] == "router 5 (1,1)"));
}

#[test]
fn the_busiest_ports_go_to_a_csv_and_a_trace_held_until_the_run_ends() {
    let d = temp_dir("busiest");
    let p = plan(TORUS);
    let every = Time::from_ns(500);
    let busiest = PortFilter { busiest: Some(3), ..PortFilter::default() };
    let (csv, trace) = (d.join("top.csv"), d.join("top.json"));
    let files = SeriesFiles { series: Some(&csv), trace: Some(&trace) };
    p.run_series_files(every, &busiest, files, |_| {}).unwrap();
    let (_, held) = p.run_with_series_filtered(every, &busiest, |_| {}).unwrap();
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), held.to_csv());
    let mut ports: Vec<(u32, u32)> = held.rows.iter().map(|r| (r.router, r.port)).collect();
    ports.sort_unstable();
    ports.dedup();
    assert_eq!(ports.len(), 3);
    let t = read_json(&trace);
    assert_eq!(tracks(t["traceEvents"].as_array().unwrap()).len(), 3, "one counter track per kept port");
}

#[test]
fn a_run_that_fails_leaves_no_half_written_file_and_one_file_for_two_outputs_is_refused() {
    let d = temp_dir("failed");
    let (series, trace) = (d.join("s.json"), d.join("t.json"));
    std::fs::write(&series, "an older file").unwrap();
    // Refused once the files would be open: a series of a partitioned run.
    let p = plan(&format!("{TORUS}[sim]\nthreads = 2\n"));
    let files = SeriesFiles { series: Some(&series), trace: Some(&trace) };
    assert!(p.run_series_files(Time::from_ns(500), &PortFilter::default(), files, |_| {}).is_err());
    assert_eq!(std::fs::read_to_string(&series).unwrap(), "an older file");
    assert!(!trace.exists());
    let mut left: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
    left.sort();
    assert_eq!(left, ["s.json"], "no partial file left");
    let same = SeriesFiles { series: Some(&trace), trace: Some(&trace) };
    match plan(TORUS).run_series_files(Time::from_ns(500), &PortFilter::default(), same, |_| {}) {
        Err(fabricsim::Error::Config(e)) => assert!(e.to_string().starts_with("--perfetto"), "{e}"),
        other => panic!("not refused: {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_fat_tree_switchs_ports_that_share_a_label_get_a_track_each() {
    let d = temp_dir("fat-tree-tracks");
    let toml =
        "[topology]\ntype = \"fat_tree\"\nradix = 4\nlevels = 2\n[workload]\ntype = \"uniform_random\"\nload = 0.3\n[sim]\nduration = \"2us\"\n";
    let p = plan(toml);
    let every = Time::from_ns(500);
    let trace = d.join("t.json");
    let files = SeriesFiles { series: None, trace: Some(&trace) };
    p.run_series_files(every, &PortFilter::default(), files, |_| {}).unwrap();
    let tracks = tracks(read_json(&trace)["traceEvents"].as_array().unwrap());
    let (_, held) = p.run_with_series(every, |_| {}).unwrap();
    let first: Vec<_> = held.rows.iter().filter(|r| r.t_ns == 0.0).collect();
    // The switches have several up or down ports of one label: without the port number they
    // would share tracks.
    let labels: std::collections::BTreeSet<(u32, &str)> = first.iter().map(|r| (r.router, r.label.as_str())).collect();
    assert!(labels.len() < first.len(), "{} labels for {} ports", labels.len(), first.len());
    assert_eq!(tracks.len(), first.len());
    for r in &first {
        let shared = first.iter().filter(|o| o.router == r.router && o.label == r.label).count() > 1;
        let name = if shared { format!("{} port {} util", r.label, r.port) } else { format!("{} util", r.label) };
        assert!(tracks.contains_key(&(100 + r.router as u64, name.clone())), "{name} of router {}", r.router);
    }
}

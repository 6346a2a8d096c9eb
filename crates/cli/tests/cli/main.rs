//! The command line, run as a user would.

use std::process::Command;

mod blocks;
mod collective_all;
mod docs;
mod faults;
mod friction;
mod input_checks;
mod machine_pages;
mod map;
mod partition;
mod perfetto;
mod plots;
mod queue_points;
mod resources;
mod series_points;
mod series_stream;
mod threads;
mod traces;
mod viewer;

fn fabricsim(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fabricsim")).args(args).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

fn example(name: &str) -> String {
    format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn run_default_prints_a_summary() {
    let (code, out, _) = fabricsim(&["run", "--set", "sim.duration=2us"]);
    assert_eq!(code, 0);
    assert!(out.contains("uniform_random on 512 nodes"), "{out}");
    assert!(out.contains("accepted"), "{out}");
}

#[test]
fn run_json_has_the_documented_keys() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("r.json");
    let (code, _, err) = fabricsim(&["run", &example("torus-uniform.toml"), "--json", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for k in ["sim_time_ns", "packets_injected", "packets_delivered", "bytes_delivered", "wall_seconds", "events", "events_per_second", "packet_hops"]
    {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    for k in ["mean", "p50", "p99", "max"] {
        assert!(v["latency_ns"].get(k).is_some(), "missing latency_ns.{k}");
    }
    assert!(v["accepted_throughput"]["fraction_of_injection"].as_f64().unwrap() > 0.2);
    let port = &v["ports"][0];
    for k in ["bytes", "busy_ns", "idle_ns", "credit_stall_ns"] {
        assert!(port.get(k).is_some(), "missing ports[].{k}");
    }
    // Ports carry their router's coordinates; links are summed by axis and direction, the
    // busiest listed; the latency histogram holds every measured message.
    assert_eq!(port["coords"].as_array().unwrap().len(), 3);
    let dirs = v["link_utilization"].as_array().unwrap();
    assert_eq!(dirs.len(), 6, "three axes, two directions");
    let busiest = v["busiest_links"].as_array().unwrap();
    let max = dirs.iter().map(|d| d["max"].as_f64().unwrap()).fold(0.0, f64::max);
    assert_eq!(busiest[0]["utilization"].as_f64().unwrap(), max);
    let in_buckets: u64 = v["latency_histogram_ns"].as_array().unwrap().iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(in_buckets, v["latency_ns"]["count"].as_u64().unwrap());
}

#[test]
fn info_json_reports_the_analysis() {
    let (code, out, _) =
        fabricsim(&["info", "--json", "--set", "topology.shape=[24,18,16,2,3,2]", "--set", "topology.wrap=[true,false,true,false,true,false]"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes"], 82944);
    assert_eq!(v["ports_per_node"], 10);
    for k in ["links", "diameter", "average_hops", "bisection_bandwidth", "total_injection_bandwidth"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    for args in [
        vec!["run", "--set", "topology.shap=[4]"],
        vec!["run", "--set", "router.delay=fast"],
        vec!["run", "--set", "topology.shape=[4,0]"],
        vec!["run", "--set", "routing.order=[\"d0\",\"d7\"]"],
        vec!["run", "/no/such/file.toml"],
        vec!["info", "--set", "nonsense"],
        vec!["run", "--set", "workload.load=0"],
    ] {
        let (code, out, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{err}");
        assert!(!err.contains("panicked"));
    }
}

#[test]
fn sweep_writes_csv_and_finds_saturation() {
    let dir = std::env::temp_dir().join(format!("fabricsim-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("s.csv");
    let (code, out, err) = fabricsim(&[
        "sweep",
        &example("torus-uniform.toml"),
        "--loads",
        "0.1,0.95",
        "--set",
        "workload.type=tornado",
        "--set",
        "topology.shape=[8,8]",
        "--csv",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("SATURATED"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.starts_with("offered_load,expected_fraction,accepted_fraction"), "{text}");
}

#[test]
fn every_example_runs() {
    let dir = format!("{}/../../examples", env!("CARGO_MANIFEST_DIR"));
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            let (code, _, err) = fabricsim(&["run", p.to_str().unwrap()]);
            assert_eq!(code, 0, "{}: {err}", p.display());
        }
    }
}

#[test]
fn validate_passes_every_row_and_covers_the_required_figures() {
    let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
    let dir = format!("{root}/validation");
    let json = std::env::temp_dir().join(format!("fabricsim-validate-{}.json", std::process::id()));
    let (code, out, err) = fabricsim(&["validate", "--dir", &dir, "--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let has = |system: &str, needle: &str| rows.iter().any(|r| r["system"] == system && r["figure"].as_str().unwrap().contains(needle));
    for (s, f) in [
        ("TofuD", "Put latency"),
        ("Tofu2", "Put latency"),
        ("Tofu", "Put latency"),
        ("TofuD", "injection rate"),
        ("Tofu2", "injection rate"),
        ("Tofu", "injection rate"),
        ("TofuD", "single-Put"),
        ("Tofu2", "single-Put"),
        ("Tofu", "single-Put"),
        ("BGQ", "13 hops"),
        ("BGQ", "1 MB"),
        ("BGQ", "256 MB"),
        ("Dawning", "minimum application latency"),
        ("APEnet+", "host memory"),
        ("APEnet+", "GPU-sourced"),
        ("Tofu", "K computer"),
        ("TofuD", "post-K"),
    ] {
        assert!(has(s, f), "no row for {s} / {f}");
    }
    let bgq_hops: Vec<_> = rows.iter().filter(|r| r["system"] == "BGQ" && r["figure"].as_str().unwrap().contains("ping-pong")).collect();
    assert_eq!(bgq_hops.len(), 26);
    // A hop (about 45 ns) off must fail every ping-pong row: tolerances below half a hop.
    for r in &bgq_hops {
        let slack_ns = r["tolerance"].as_f64().unwrap() * r["published"].as_f64().unwrap();
        assert!(slack_ns < 22.0, "{r}");
    }
    // Only the 1-hop hardware row set a parameter; the rest follow from it and the table.
    assert_eq!(bgq_hops.iter().filter(|r| r["kind"] == "calibration").count(), 1);
    for r in &rows {
        assert!(r["status"] == "PASS" || r["status"] == "INFO", "{r}");
        if r["status"] == "PASS" {
            assert!(r["error"].as_f64().unwrap().abs() <= r["tolerance"].as_f64().unwrap());
        }
    }
    assert!(out.contains("passed, 0 failed"));
}

#[test]
fn validate_reports_a_failing_row_with_exit_code_1() {
    let dir = std::env::temp_dir().join(format!("fabricsim-badval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("x.toml"),
        "system = \"X\"\nsource = \"test\"\n[[row]]\nfigure = \"wrong on purpose\"\npublished = 1.0\nunit = \"us\"\nmetric = \"one_way_latency\"\nkind = \"derived\"\nset = [\"machine.preset=bgq\"]\n",
    )
    .unwrap();
    let (code, out, _) = fabricsim(&["validate", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.contains("FAIL (derived)"), "{out}");
    assert!(out.contains("judged rows by kind: 0 calibration, 1 derived, 0 prediction"), "{out}");
    // A row must say what it proves.
    let text = std::fs::read_to_string(dir.join("x.toml")).unwrap().replace("kind = \"derived\"\n", "");
    std::fs::write(dir.join("x.toml"), &text).unwrap();
    let (code, _, err) = fabricsim(&["validate", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("kind"), "{err}");
    std::fs::write(dir.join("x.toml"), text.replace("set = ", "kind = \"guess\"\nset = ")).unwrap();
    let (code, _, err) = fabricsim(&["validate", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("'guess' is not one of calibration, derived, prediction, info"), "{err}");
}

#[test]
fn every_preset_runs_its_default_scenario() {
    let (code, out, _) = fabricsim(&["presets"]);
    assert_eq!(code, 0);
    let names: Vec<String> = out.lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    assert!(names.len() >= 8, "{out}");
    for n in names {
        let (code, out, err) = fabricsim(&["run", "--set", &format!("machine.preset={n}")]);
        assert_eq!(code, 0, "{n}: {err}");
        assert!(out.contains("one-way"), "{n}: {out}");
        let (code, toml, _) = fabricsim(&["presets", &n]);
        assert_eq!(code, 0);
        assert!(toml.contains('#'), "preset {n} carries no source comments");
    }
}

#[test]
fn sweep_over_message_sizes_gives_a_rising_throughput_curve() {
    let (code, out, err) = fabricsim(&[
        "sweep",
        "--set",
        "machine.preset=tofud",
        "--set",
        "workload.type=throughput",
        "--set",
        "workload.src=[0,0,0,0,0,0]",
        "--set",
        "workload.dst=[1,0,0,0,0,0]",
        "--sizes",
        "256B,64KiB,1MiB",
    ]);
    assert_eq!(code, 0, "{err}");
    let gbs: Vec<f64> = out.lines().skip(1).map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap()).collect();
    assert_eq!(gbs.len(), 3);
    assert!(gbs[0] < gbs[1] && gbs[1] < gbs[2] && gbs[2] < 6.8, "{gbs:?}");
    let (code, _, err) = fabricsim(&["sweep", "--sizes", "1KiB"]);
    assert_eq!(code, 2, "open-loop workloads have no message size: {err}");
}

#[test]
fn run_writes_a_port_series_as_csv_or_json() {
    let dir = std::env::temp_dir();
    let csv = dir.join(format!("fabricsim-series-{}.csv", std::process::id()));
    let json = dir.join(format!("fabricsim-series-{}.json", std::process::id()));
    let (code, _, err) =
        fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us", "--series", csv.to_str().unwrap(), "--interval", "250ns"]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("t_ns,router,port,kind,label,utilization,packets"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() > 16 * 5 * 4, "{} rows", rows.len());
    assert!(rows.iter().any(|r| r[5].parse::<f64>().unwrap() > 0.0));
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us", "--series", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["interval_ns"], 100.0);
    assert!(v["rows"].as_array().unwrap().len() > 100);
    let (code, _, err) = fabricsim(&["run", "--series", csv.to_str().unwrap(), "--interval", "0ns"]);
    assert_eq!(code, 2);
    assert!(err.contains("--interval"), "{err}");
}

/// Run the binary in `dir` (not the repository root).
fn fabricsim_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fabricsim")).args(args).current_dir(dir).output().expect("runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

#[test]
fn validate_works_from_any_directory_and_names_the_systems_when_none_matches() {
    let elsewhere = std::env::temp_dir();
    let (code, out, err) = fabricsim_in(&elsewhere, &["validate", "--only", "apenet"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("APEnet+") && out.contains("PASS"), "{out}");
    let (code, _, err) = fabricsim_in(&elsewhere, &["validate", "--only", "cray"]);
    assert_eq!(code, 2);
    assert!(err.contains("--only") && err.contains("TofuD") && err.contains("BGQ"), "{err}");
    // The built-in files are the repository's.
    let dir = format!("{}/../../validation", env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().to_string()).collect();
    on_disk.sort();
    let built_in: Vec<String> = fabricsim::validate::BUILT_IN.iter().map(|(s, _)| s.to_string()).collect();
    assert_eq!(built_in, on_disk, "a validation file is missing from validate::BUILT_IN");
}

#[test]
fn data_on_standard_output_is_parseable_as_it_is() {
    let ex = example("torus-uniform.toml");
    for args in [
        vec!["sweep", ex.as_str(), "--loads", "0.1,0.2", "--json", "-"],
        vec!["validate", "--only", "apenet", "--json", "-"],
        vec!["run", "--set", "topology.shape=[4,4]", "--json", "-"],
    ] {
        let (code, out, err) = fabricsim(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("{args:?}: stdout is not JSON ({e}): {out}"));
        assert!(!err.is_empty(), "{args:?}: the human output went to standard error");
    }
    let (code, out, _) = fabricsim(&["sweep", ex.as_str(), "--loads", "0.1", "--csv", "-"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("offered_load,"), "{out}");
}

#[test]
fn show_prints_the_resolved_scenario_and_reports_carry_it() {
    let (code, out, err) = fabricsim(&["show", "--set", "machine.preset=bgq", "--set", "router.vcs=4"]);
    assert_eq!(code, 0, "{err}");
    let t: toml::Value = toml::from_str(&out).unwrap();
    assert_eq!(t["router"]["vcs"].as_integer(), Some(4));
    assert_eq!(t["topology"]["shape"].as_array().unwrap().len(), 5, "the preset's shape");
    let (code, out, _) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.seed=7", "--json", "-"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &v["provenance"];
    assert_eq!((p["seed"].as_u64(), p["fabricsim_version"].as_str().is_some()), (Some(7), true));
    // Built from a git checkout: the commit is recorded.
    if std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.git").exists() {
        let c = p["git_commit"].as_str().expect("a git commit");
        assert!(c.len() >= 12 && c[..12].chars().all(|x| x.is_ascii_hexdigit()), "{c}");
    }
    // The scenario in the report runs again to the same result.
    let dir = std::env::temp_dir().join(format!("fabricsim-again-{}.toml", std::process::id()));
    std::fs::write(&dir, p["scenario"].as_str().unwrap()).unwrap();
    let (code, again, _) = fabricsim(&["run", dir.to_str().unwrap(), "--json", "-"]);
    assert_eq!(code, 0);
    let w: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!((&w["latency_ns"], &w["packets_delivered"]), (&v["latency_ns"], &v["packets_delivered"]));
}

#[test]
fn every_help_entry_has_a_description() {
    for cmd in ["run", "info", "sweep", "collective", "validate", "default", "show", "presets"] {
        let (code, out, _) = fabricsim(&[cmd, "--help"]);
        assert_eq!(code, 0);
        let mut section = false;
        for line in out.lines() {
            if line.ends_with(':') && !line.starts_with(' ') {
                section = line == "Arguments:" || line == "Options:";
                continue;
            }
            // An entry: "  NAME   description" (a name alone means no description).
            if section && line.starts_with("  ") && !line.starts_with("      ") || section && line.trim_start().starts_with("--") {
                let parts: Vec<&str> = line.trim().split("  ").filter(|p| !p.trim().is_empty()).collect();
                assert!(parts.len() >= 2, "`fabricsim {cmd} --help`: no description for `{}`", line.trim());
            }
        }
    }
}

#[test]
fn collective_compares_algorithms_and_writes_csv_and_json() {
    let (code, out, err) = fabricsim(&["collective", "--op", "allreduce", "--sizes", "8B,64KiB", "--set", "topology.shape=[4,4]", "--csv", "-"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().skip(1).filter(|l| !l.is_empty()).collect();
    // Every allreduce algorithm at both sizes.
    assert_eq!(rows.len(), 2 * 4, "{out}");
    assert!(rows.iter().all(|r| r.starts_with("allreduce,")));
    assert!(err.contains("rabenseifner") && err.contains("trinary_tree"), "the table goes to stderr: {err}");
    let (code, out, _) = fabricsim(&["collective", "--op", "broadcast", "--algorithm", "binomial", "--set", "topology.shape=[4,4]", "--json", "-"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["algorithm"], "binomial");
    assert_eq!(v[0]["ranks"], 16);
    assert!(v[0]["time_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn collective_bad_input_names_the_option() {
    for (args, want) in [
        (vec!["collective", "--op", "allsum"], "--op"),
        (vec!["collective", "--op", "allreduce", "--algorithm", "tree"], "--algorithm"),
        (vec!["collective", "--op", "allreduce", "--sizes", "1 parsec"], "--sizes"),
        (vec!["collective", "--op", "allreduce", "--sizes", "0B"], "--sizes"),
        (
            vec![
                "collective",
                "--op",
                "allgather",
                "--algorithm",
                "quad_rings",
                "--set",
                "topology.shape=[4,4]",
                "--set",
                "topology.wrap=[true,false]",
            ],
            "torus",
        ),
        (vec!["collective", "--op", "allreduce", "--grid", "3,3"], "--grid"),
        (vec!["collective", "--op", "barrier", "--ranks-per-node", "0"], "--ranks-per-node"),
        (vec!["collective", "--op", "barrier", "--ranks-per-node", "4000000000"], "--ranks-per-node"),
        (vec!["collective", "--op", "allgather", "--grid", "0,8,64"], "--grid"),
    ] {
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(want) && err.lines().count() == 1, "{args:?}: {err}");
    }
}

#[test]
fn collective_runs_a_program_file_and_reports_a_deadlock_by_rank() {
    let dir = std::env::temp_dir();
    let good = dir.join(format!("fabricsim-prog-{}.txt", std::process::id()));
    std::fs::write(&good, "ranks 4\n0 put 1 64KiB tag=1\n1 wait 0 tag=1\n1 put 2 64KiB\n2 wait 1\n").unwrap();
    let (code, out, err) = fabricsim(&["collective", "--program", good.to_str().unwrap(), "--set", "topology.shape=[4]", "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["messages"], 2);
    let bad = dir.join(format!("fabricsim-prog-bad-{}.txt", std::process::id()));
    std::fs::write(&bad, "ranks 4\n0 put 1 8B tag=1\n1 wait 0 tag=1\n3 wait 2 tag=7\n").unwrap();
    let (code, _, err) = fabricsim(&["collective", "--program", bad.to_str().unwrap(), "--set", "topology.shape=[4]"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("deadlock") && err.contains("rank 3"), "{err}");
    // The documented example program runs on the default scenario.
    let example = format!("{}/../../docs/collectives/example-program.txt", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = fabricsim(&["collective", "--program", &example, "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()[0]["messages"], 4, "three puts and a get");
    // In-network collectives on a network without the hardware: refused, by name.
    std::fs::write(&bad, "ranks 4\n2 hw barrier 0 0B tag=1\n2 hwwait tag=1\n").unwrap();
    let (code, _, err) = fabricsim(&["collective", "--program", bad.to_str().unwrap(), "--set", "topology.shape=[4]"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rank 2") && err.contains("no in-network collective hardware"), "{err}");
    std::fs::write(&bad, "ranks 4\n0 put 9 8B\n").unwrap();
    let (code, _, err) = fabricsim(&["collective", "--program", bad.to_str().unwrap(), "--set", "topology.shape=[4]"]);
    assert_eq!(code, 2);
    assert!(err.contains("--program") && err.contains("line 2"), "{err}");
}

#[test]
fn rank_maps_place_ranks_and_bad_maps_name_the_line() {
    let dir = std::env::temp_dir();
    let map = dir.join(format!("fabricsim-map-{}.txt", std::process::id()));
    // Ring neighbours three nodes apart on an 8-ring: the ring allgather is slower than with
    // ranks in node order.
    let far: String = (0..8).map(|r| format!("{}\n", r * 3 % 8)).collect();
    std::fs::write(&map, far).unwrap();
    let time = |extra: &[&str]| {
        let mut args =
            vec!["collective", "--op", "allgather", "--algorithm", "ring", "--sizes", "1MiB", "--set", "topology.shape=[8]", "--json", "-"];
        args.extend_from_slice(extra);
        let (code, out, err) = fabricsim(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()[0]["time_ns"].as_f64().unwrap()
    };
    let near = time(&[]);
    let scattered = time(&["--rank-map", map.to_str().unwrap()]);
    assert!(scattered > 1.5 * near, "{scattered} vs {near}");
    // Two ranks per node: sixteen ranks.
    let (code, out, _) = fabricsim(&["collective", "--op", "barrier", "--set", "topology.shape=[8]", "--ranks-per-node", "2", "--json", "-"]);
    assert_eq!(code, 0);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&out).unwrap()[0]["ranks"], 16);
    // A node used twice, a node outside the torus.
    for (text, want) in [("0\n1\n1\n", "line 3"), ("0\n9\n", "line 2")] {
        std::fs::write(&map, text).unwrap();
        let (code, _, err) = fabricsim(&["collective", "--op", "barrier", "--set", "topology.shape=[8]", "--rank-map", map.to_str().unwrap()]);
        assert_eq!(code, 2, "{text:?}: {err}");
        assert!(err.contains(want), "{text:?}: {err}");
    }
}

#[test]
fn no_progress_display_when_standard_error_is_not_a_terminal() {
    // A closed workload (ping-pong) and an open-loop one: stderr stays empty in a pipe.
    let pingpong = example("tofu-like-pingpong.toml");
    for args in [vec!["run", pingpong.as_str()], vec!["run", "--set", "topology.shape=[4,4]"]] {
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 0);
        assert!(err.is_empty(), "{err}");
    }
}

#[test]
fn info_describes_shapes_too_large_to_build_from_the_shape_alone() {
    // 2^30 nodes: a 1024-ring torus in three axes; a radix-64, 5-level fat-tree.
    let (code, out, err) = fabricsim(&["info", "--json", "--set", "topology.shape=[1024,1024,1024]"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["nodes"], 1u64 << 30);
    assert_eq!(v["links"], 3u64 << 30);
    assert_eq!(v["diameter"], 3 * 512);
    assert_eq!(v["average_hops"].as_f64().unwrap().round(), 768.0);
    assert!(v["memory_estimate_bytes"].as_u64().unwrap() > 1 << 40);
    assert!(v["not_built"].as_str().unwrap().contains("topology.shape"), "{v}");
    let (code, out, _) = fabricsim(&["info", "--set", "topology.type=fat_tree", "--set", "topology.radix=64", "--set", "topology.levels=5"]);
    assert_eq!(code, 0);
    assert!(out.contains("33554432") && out.contains("not built: topology.radix"), "{out}");
    // A scenario that fits is built and checked as before.
    let (code, out, _) = fabricsim(&["info", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["not_built"].is_null() && v["nodes"] == 512, "{v}");
    // A shape no estimate can describe is still an error naming it.
    let (code, _, err) = fabricsim(&["info", "--set", "topology.shape=[65535,65535,65535,65535,65535]"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("error: topology.shape"), "{err}");
}

#[test]
fn shapes_too_large_for_memory_are_refused_before_anything_is_built() {
    for (args, field) in [
        (vec!["run", "--set", "topology.shape=[256,256,256]"], "topology.shape"),
        (vec!["run", "--set", "topology.type=fat_tree", "--set", "topology.radix=64", "--set", "topology.levels=5"], "topology.radix"),
        // The limit can be set: the default 512-node torus needs more than 1 MB.
        (vec!["run", "--set", "sim.max_memory=1MB"], "sim.max_memory"),
    ] {
        let started = std::time::Instant::now();
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {}", if field == "sim.max_memory" { "topology.shape" } else { field })), "{args:?}: {err}");
        assert!(
            err.contains("GB to simulate") && err.contains(if field == "sim.max_memory" { "sim.max_memory" } else { "set sim.max_memory" }),
            "{err}"
        );
        // Refused from the counts, not after trying to allocate (generous bound for slow CI).
        assert!(started.elapsed().as_secs() < 20);
    }
}

#[test]
fn run_of_a_collective_scenario_reports_what_collective_reports() {
    let (code, out, err) = fabricsim(&["run", &example("collective-allreduce.toml"), "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("collective   allreduce by rabenseifner, 65536 B per rank on 64 ranks"), "the summary goes to stderr: {err}");
    let run: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (code, out, err) = fabricsim(&[
        "collective",
        "--op",
        "allreduce",
        "--algorithm",
        "rabenseifner",
        "--sizes",
        "64KiB",
        "--set",
        "topology.shape=[4,4,4]",
        "--json",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let point = &serde_json::from_str::<serde_json::Value>(&out).unwrap()[0];
    for k in ["op", "algorithm", "bytes", "ranks", "time_ns", "rank_done_median_ns", "algbw_gb_per_s", "busbw_gb_per_s", "messages", "events"] {
        assert_eq!(run["collective"][k], point[k], "{k}");
    }
    assert_eq!(run["workload_type"], "collective");
    assert_eq!(run["workload"]["completion_ns"], point["time_ns"]);
    assert!(run["ports"].as_array().unwrap().iter().any(|p| p["bytes"].as_u64().unwrap() > 0));
    assert!(run["collective"].get("wall_s").is_none(), "the report's wall-clock figure is its own");
}

#[test]
fn run_of_a_program_scenario_reads_its_file_beside_the_scenario() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-program-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("chain.txt"), "ranks 4\n0 put 1 64KiB tag=1\n1 wait 0 tag=1\n1 put 2 64KiB\n2 wait 1\n").unwrap();
    std::fs::write(dir.join("chain.toml"), "[topology]\nshape = [4]\n[workload]\ntype = \"program\"\nfile = \"chain.txt\"\n").unwrap();
    let scenario = dir.join("chain.toml");
    // From another directory: the file is found beside the scenario.
    let (code, out, err) = fabricsim_in(&std::env::temp_dir(), &["run", scenario.to_str().unwrap(), "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["collective"]["op"].as_str(), v["collective"]["messages"].as_u64()), (Some("program"), Some(2)));
    assert!(err.contains("program      chain.txt on 4 ranks"), "{err}");
    // The same through `fabricsim collective --program`.
    let (code, out, _) = fabricsim_in(&dir, &["collective", "--program", "chain.txt", "--set", "topology.shape=[4]", "--json", "-"]);
    assert_eq!(code, 0);
    let point = &serde_json::from_str::<serde_json::Value>(&out).unwrap()[0];
    assert_eq!(point["time_ns"], v["collective"]["time_ns"]);
    assert_eq!(point["algorithm"], "chain.txt");
}

#[test]
fn run_names_bad_collective_and_program_keys() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-bad-jobs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let two = dir.join("two.txt");
    std::fs::write(&two, "ranks 2\n0 put 1 8B\n1 wait 0\n").unwrap();
    let c = ["--set", "topology.shape=[4,4]", "--set", "workload.type=collective"];
    let p = ["--set", "topology.shape=[4,4]", "--set", "workload.type=program"];
    let two_set = format!("workload.file={}", two.display());
    for (base, extra, want) in [
        (&c, vec!["workload.op=allsum"], "workload.op: 'allsum'"),
        (&c, vec!["workload.op=allreduce", "workload.algorithm=tree"], "workload.algorithm: 'tree'"),
        (&c, vec!["workload.op=barrier", "workload.algorithm=hardware"], "workload.algorithm: 'hardware'"),
        (&c, vec!["workload.op=barrier", "workload.load=0.3"], "workload.load"),
        (&c, vec!["workload.op=barrier", "workload.rank_map=no-such-map.txt"], "workload.rank_map: 'no-such-map.txt'"),
        (&p, vec!["workload.file=no-such-program.txt"], "workload.file: 'no-such-program.txt'"),
        (&p, vec![two_set.as_str()], "is for 2 ranks, the job has 16"),
    ] {
        let mut args = vec!["run"];
        args.extend_from_slice(base.as_slice());
        for e in &extra {
            args.extend(["--set", e]);
        }
        let (code, _, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with(&format!("error: {want}")) || err.contains(want), "{args:?}: {err}");
        assert!(err.lines().count() == 1 && !err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn run_queues_adds_the_queue_counters_to_each_port_and_the_summary() {
    let dir = std::env::temp_dir().join(format!("fabricsim-cli-queues-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("q.json");
    let base = ["run", "--set", "topology.shape=[4,4]", "--set", "workload.load=0.6", "--set", "sim.duration=4us"];
    let (code, out, err) = fabricsim(&[&base[..], &["--queues", "--json", file.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("queues       wait"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let window = v["window_ns"].as_f64().unwrap();
    for p in v["ports"].as_array().unwrap() {
        for k in ["queue_packet_ns", "queue_byte_ns", "queue_mean_packets", "queue_wait_ns"] {
            assert!(p[k].as_f64().is_some_and(|x| x >= 0.0), "ports[].{k}: {p}");
        }
        assert_eq!(p["queue_vc_packet_ns"].as_array().unwrap().len(), 2, "two VCs");
        let stalls = p["credit_stall_vc_ns"].as_array().unwrap();
        assert_eq!(stalls.len(), 2, "credit stall of each of two VCs: {p}");
        assert!(stalls.iter().all(|x| x.as_f64().is_some_and(|x| (0.0..=window).contains(&x))), "{p}");
        let mean = p["queue_mean_packets"].as_f64().unwrap();
        assert!((mean * window - p["queue_packet_ns"].as_f64().unwrap()).abs() < 1e-6 * window.max(1.0));
    }
    let q = &v["queues"];
    assert!(q["network_wait_ns"].as_f64().unwrap() > 0.0 && q["mean_packets_queued"].as_f64().unwrap() > 0.0, "{q}");
    assert!(q["credit_stall_vc_fraction"].as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)), "{q}");
    assert!(out.contains("waited for credit"), "{out}");
    // Without --queues the report is as before.
    let (code, out, err) = fabricsim(&[&base[..], &["--json", file.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("queues"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(v.get("queues").is_none() && v["ports"][0].get("queue_packet_ns").is_none());
    assert!(v["ports"].as_array().unwrap().iter().all(|p| p.get("credit_stall_vc_ns").is_none() && p.get("credit_stall_ns").is_some()));
}

//! Bad input is caught before a run starts and named precisely: syntax errors with their line,
//! output paths checked first, physical values within documented ranges.

use super::fabricsim;

/// A fresh folder under the system's temporary one, for this test alone.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_toml_syntax_error_names_the_file_line_column_and_the_line() {
    let dir = temp_dir("syntax");
    let file = dir.join("broken.toml");
    std::fs::write(&file, "[topology]\nshape = [4, 4]\nlink_latency = 20ns\n").unwrap();
    let (code, out, err) = fabricsim(&["run", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.starts_with(&format!("error: {}: ", file.display())), "{err}");
    assert!(err.contains("line 3, column"), "{err}");
    assert!(err.contains("link_latency = 20ns"), "the offending line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    // A validation file too.
    std::fs::write(&file, "system = \"X\"\n[[row\n").unwrap();
    let (code, _, err) = fabricsim(&["validate", "--dir", dir.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("line 2") && err.contains("[[row"), "{err}");
}

#[test]
fn output_paths_are_checked_before_anything_runs() {
    let dir = temp_dir("outputs");
    let missing = "/no/such/dir/r.json";
    let folder = dir.to_str().unwrap();
    for args in [
        vec!["run", "--set", "sim.duration=1000us", "--json", missing],
        vec!["run", "--set", "sim.duration=1000us", "--series", missing],
        vec!["sweep", "--loads", "0.1:0.9:0.1", "--csv", missing],
        vec!["sweep", "--loads", "0.1", "--json", folder],
        vec!["collective", "--op", "allreduce", "--sizes", "1MiB", "--json", missing],
        vec!["collective", "--op", "allreduce", "--csv", missing],
        vec!["validate", "--json", missing],
    ] {
        let started = std::time::Instant::now();
        let (code, out, err) = fabricsim(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        let option = args.iter().find(|a| a.starts_with("--") && *a != &"--set" && *a != &"--loads" && *a != &"--sizes" && *a != &"--op").unwrap();
        assert!(err.starts_with(&format!("error: {option}: ")) && err.contains("cannot be written"), "{args:?}: {err}");
        assert!(out.is_empty(), "nothing ran: {out}");
        // The runs asked for take far longer than the check.
        assert!(started.elapsed().as_secs_f64() < 1.0, "{args:?}: {:?}", started.elapsed());
    }
    // A file that can be written is not left behind by the check when the run then fails.
    let file = dir.join("never.json");
    let mesh = ["--set", "topology.shape=[4,4]", "--set", "topology.wrap=[false,false]"];
    let (code, _, err) =
        fabricsim(&[&["collective", "--op", "allgather", "--algorithm", "quad_rings", "--json", file.to_str().unwrap()][..], &mesh].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--algorithm"), "failed after the check: {err}");
    assert!(!file.exists());
}

#[test]
fn physical_values_outside_their_range_are_refused_and_an_empty_run_warns() {
    for (key, value, shown) in [
        ("topology.link_bandwidth", "1B/s", "1B/s"),
        ("topology.link_bandwidth", "1000000TB/s", "GB/s"),
        ("router.delay", "5ms", "5ms"),
        ("packet.header", "1MiB", "1048576B"),
    ] {
        let started = std::time::Instant::now();
        let (code, out, err) = fabricsim(&["run", "--set", &format!("{key}={value}")]);
        assert_eq!(code, 2, "{key}={value}: {out}{err}");
        assert!(err.starts_with(&format!("error: {key}: ")) && err.contains(shown) && err.contains("outside the range"), "{err}");
        assert!(started.elapsed().as_secs_f64() < 1.0);
    }
    // In range, but too slow for the window: nothing arrives, and the run says so.
    let (code, _, err) =
        fabricsim(&["run", "--set", "topology.link_bandwidth=1MB/s", "--set", "sim.duration=100ns", "--set", "topology.shape=[4,4]"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: the run delivered nothing"), "{err}");
    // A run that delivers says nothing of the kind.
    let (_, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us"]);
    assert!(!err.contains("delivered nothing"), "{err}");
}

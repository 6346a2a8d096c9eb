//! What the command's values may cost is bounded: threads, series memory, progress of long runs.

use super::{example, fabricsim};

#[test]
fn a_sweep_asking_for_100000_jobs_runs_on_a_few_threads() {
    let started = std::time::Instant::now();
    let (code, out, err) =
        fabricsim(&["sweep", "--loads", "0.1,0.2", "--jobs", "100000", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "header, two loads, saturation: {out}");
    // Starting 100,000 threads alone takes longer than this.
    assert!(started.elapsed().as_secs_f64() < 3.0, "{:?}", started.elapsed());
}

#[test]
fn a_series_too_large_for_memory_is_refused_or_bounded_naming_the_estimate() {
    let file = std::env::temp_dir().join(format!("fabricsim-series-bound-{}.csv", std::process::id()));
    // A file left by an earlier process of the same id would pass for one written here.
    let _ = std::fs::remove_file(&file);
    let f = file.to_str().unwrap();
    // A held series (the busiest ports are known when the run ends) of an open-loop run, whose
    // end is known: refused before it starts, with the estimate.
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--series", f, "--series-busiest", "4", "--interval", "1ps"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: --interval: 1ps") && err.contains("GB for the series") && err.contains("intervals of 80 ports"), "{err}");
    assert!(!file.exists());
    // A streamed series holds a few intervals whatever the run's length; its file is refused
    // when it cannot fit on the disk it goes to (a second at 1 ps: 1e12 intervals of 80 ports,
    // petabytes).
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=1s", "--series", f, "--interval", "1ps"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: --interval: 1ps") && err.contains("GB of CSV") && err.contains("free in"), "{err}");
    assert!(!file.exists() && !std::path::Path::new(&format!("{f}.partial")).exists());
    // A benchmark runs until done: its held series stops where the memory allowed, and says
    // so; streamed, the same memory writes it whole.
    let pingpong = example("tofu-like-pingpong.toml");
    let bounded = ["run", &pingpong, "--series", f, "--interval", "100ns", "--set", "sim.max_memory=110MB"];
    let (code, _, err) = fabricsim(&[&bounded[..], &["--series-busiest", "1000000"]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("warning: --series: the series stops at"), "{err}");
    let rows = std::fs::read_to_string(&file).unwrap().lines().count();
    let (code, _, err) = fabricsim(&bounded);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("the series stops at"), "{err}");
    let streamed = std::fs::read_to_string(&file).unwrap().lines().count();
    let (_, _, _) = fabricsim(&["run", &pingpong, "--series", f, "--interval", "100ns"]);
    let all = std::fs::read_to_string(&file).unwrap().lines().count();
    assert!(rows < all, "{rows} rows bounded, {all} in all");
    assert_eq!(streamed, all);
    std::fs::remove_file(&file).unwrap();
}

#[test]
fn an_interval_longer_than_the_run_is_refused_naming_it() {
    let file = std::env::temp_dir().join(format!("fabricsim-long-interval-{}.csv", std::process::id()));
    let f = file.to_str().unwrap();
    // The default run: 5 us of warm-up and a 20 us window.
    for out in [["--series", f], ["--perfetto", f]] {
        let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", out[0], out[1], "--interval", "26us"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.starts_with("error: --interval: 26us is longer than the run's 25us"), "{err}");
    }
    let (code, _, err) = fabricsim(&["run", "--set", "topology.shape=[4,4]", "--series", f, "--interval", "25us"]);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_file(&file).unwrap();
}

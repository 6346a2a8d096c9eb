//! `fabricsim map`: one row per method, the best map written in each format and usable by
//! `--rank-map`, and bad input refused with exit code 2 naming the flag and the value.

use super::fabricsim;

#[test]
fn map_compares_methods_and_writes_a_map_the_collectives_read() {
    let dir = std::env::temp_dir().join(format!("fabricsim-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("map.txt");
    let out_s = out.to_str().unwrap();
    let (code, stdout, err) =
        fabricsim(&["map", "--set", "topology.shape=[8,8]", "--generate", "cg:A:64", "--iterations", "100000", "--json", "--out", out_s]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).expect("JSON rows on standard output");
    let rows = rows.as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["method"].as_str().unwrap()).collect();
    assert_eq!(names, ["default", "permutations", "blocks", "vtorus", "greedy", "anneal"]);
    let hb = |i: usize| rows[i]["hop_bytes"].as_u64().unwrap();
    assert!(hb(5) < hb(0), "annealing beats the default: {} vs {}", hb(5), hb(0));
    assert_eq!(rows[3]["detail"], "virtual torus 8x8", "CG's 8x8 process grid on the 8x8 torus");
    assert!(rows.iter().all(|r| r["max_link_bytes"].as_f64().unwrap() > 0.0 && !r["busiest_links"].as_array().unwrap().is_empty()));
    assert!(err.contains("wrote the "), "{err}");
    // The rank map runs a collective.
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 64);
    let (code, _, err) =
        fabricsim(&["collective", "--set", "topology.shape=[8,8]", "--op", "barrier", "--algorithm", "dissemination", "--rank-map", out_s]);
    assert_eq!(code, 0, "{err}");
    // Every format, and a pattern file.
    let pattern = dir.join("p.csv");
    std::fs::write(&pattern, "src,dst,bytes\n0,5,1KiB\n5,9,64\n").unwrap();
    for format in ["vcoord", "mpich", "rankfile", "slurm", "rankmap"] {
        let (code, stdout, err) = fabricsim(&[
            "map",
            "--set",
            "topology.shape=[4,4]",
            "--pattern",
            pattern.to_str().unwrap(),
            "--method",
            "default,greedy",
            "--method",
            "anneal",
            "--out",
            out_s,
            "--format",
            format,
        ]);
        assert_eq!(code, 0, "{format}: {err}");
        assert_eq!(stdout.lines().filter(|l| l.starts_with("anneal") || l.starts_with("greedy")).count(), 2, "{stdout}");
        assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), if format == "mpich" { 1 } else { 10 }, "{format}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_map_input_is_one_line_naming_the_flag_and_value() {
    let dir = std::env::temp_dir().join(format!("fabricsim-map-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pattern = dir.join("p.csv");
    std::fs::write(&pattern, "0,1,8\n0,two,8\n").unwrap();
    let p = pattern.to_str().unwrap();
    for (args, says) in [
        (vec!["--generate", "cg:B:64", "--method", "magic"], "--method: 'magic' is not a method"),
        (vec!["--generate", "cg:B:64", "--format", "csv"], "--format: 'csv' is not a format"),
        (vec!["--generate", "cg:B:1000"], "--generate: 'cg:B:1000': NAS CG runs on a power of two ranks"),
        (vec!["--generate", "cg:B:1024"], "--pattern: 1024 ranks do not fit the network's 64 nodes"),
        (vec!["--generate", "ring:8:8", "--budget", "soon"], "--budget: "),
        (vec!["--generate", "ring:8:8", "--hosts", "nid"], "--hosts: 'nid' has no {}"),
        (vec!["--pattern", p], "line 2: dst 'two' is not a rank"),
    ] {
        let mut all = vec!["map", "--set", "topology.shape=[8,8]"];
        all.extend(args.iter().copied());
        let (code, out, err) = fabricsim(&all);
        assert_eq!(code, 2, "{all:?}: {out}{err}");
        assert_eq!(err.trim().lines().count(), 1, "{all:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(says), "{all:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

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

#[test]
fn map_simulate_runs_each_map_on_the_network_and_a_scattered_ring_is_slower() {
    let dir = std::env::temp_dir().join(format!("fabricsim-map-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A ring on a 16-node ring: in rank order every flow is one link; scattered (rank r on node
    // 5r mod 16) every flow crosses five links, which it shares with four other flows.
    let pattern = dir.join("ring.csv");
    let flows: String = (0..16).map(|r| format!("{r},{},64KiB\n", (r + 1) % 16)).collect();
    std::fs::write(&pattern, flows).unwrap();
    let (code, stdout, err) =
        fabricsim(&["map", "--set", "topology.shape=[16]", "--pattern", pattern.to_str().unwrap(), "--method", "default", "--simulate", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let in_order = rows[0]["simulated_ns"].as_f64().unwrap();
    assert!(err.contains("simulated us"), "{err}");
    let map = dir.join("scattered.txt");
    let lines: String = (0..16).map(|r| format!("{}\n", (5 * r) % 16)).collect();
    std::fs::write(&map, lines).unwrap();
    let program = fabricsim::map::pattern_program(&fabricsim::map::pattern(Some(&pattern), None).unwrap()).unwrap();
    let plan = fabricsim::Plan::new(&fabricsim::Scenario::from_toml_str("[topology]\nshape = [16]").unwrap()).unwrap();
    let scattered: Vec<fabricsim::NodeId> = (0..16).map(|r| fabricsim::NodeId((5 * r) % 16)).collect();
    let identity: Vec<fabricsim::NodeId> = (0..16).map(fabricsim::NodeId).collect();
    assert_eq!(fabricsim::map::simulate(&plan, &program, &identity, |_| {}).unwrap(), in_order);
    let slow = fabricsim::map::simulate(&plan, &program, &scattered, |_| {}).unwrap();
    assert!(slow > 2.0 * in_order, "five shared hops vs one: {slow} vs {in_order}");
}

#[test]
fn allocate_compares_policies_and_refuses_bad_options() {
    let (code, stdout, err) = fabricsim(&["allocate", "--set", "topology.shape=[8,8,4]", "--generate", "60", "--mean-runtime", "30", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let names: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["policy"].as_str().unwrap()).collect();
    assert_eq!(names, ["exact", "rotate", "pad"]);
    assert!(rows.as_array().unwrap().iter().all(|r| r["jobs"] == 60 && r["utilization"].as_f64().unwrap() > 0.0));
    let (code, _, err) = fabricsim(&["allocate", "--generate", "5", "--policy", "tetris"]);
    assert_eq!(code, 2);
    assert!(err.contains("--policy: 'tetris' is not a policy"), "{err}");
    let dir = std::env::temp_dir().join(format!("fabricsim-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stream = dir.join("s.csv");
    std::fs::write(&stream, "arrival,shape,runtime\n0,2x2x2,5\n1,2x2,5\n").unwrap();
    let (code, _, err) = fabricsim(&["allocate", "--stream", stream.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("--stream") && err.contains("line 3: shape '2x2' has 2 axes, the machine 3"), "{err}");
}

#[test]
fn max_link_objective_and_several_ranks_a_node_write_a_map_the_collectives_read() {
    let dir = std::env::temp_dir().join(format!("fabricsim-map-k-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("map.txt");
    let out_s = out.to_str().unwrap();
    // 128 ranks of CG on 64 nodes, two a node; annealing the busiest link.
    let (code, stdout, err) = fabricsim(&[
        "map",
        "--set",
        "topology.shape=[8,8]",
        "--generate",
        "cg:A:128",
        "--ranks-per-node",
        "2",
        "--method",
        "default,blocks,anneal",
        "--objective",
        "max-link",
        "--iterations",
        "5000",
        "--json",
        "--out",
        out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let rows = rows.as_array().unwrap();
    let ml = |i: usize| rows[i]["max_link_bytes"].as_f64().unwrap();
    assert!(rows[2]["detail"].as_str().unwrap().contains("max-link"), "{}", rows[2]["detail"]);
    assert!(ml(2) <= ml(0).min(ml(1)), "annealing starts from the best busiest link and keeps it unless it finds better");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 128);
    let (code, _, err) = fabricsim(&[
        "collective",
        "--set",
        "topology.shape=[8,8]",
        "--op",
        "barrier",
        "--algorithm",
        "dissemination",
        "--ranks-per-node",
        "2",
        "--rank-map",
        out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) =
        fabricsim(&["map", "--set", "topology.shape=[8,8]", "--generate", "cg:A:128", "--method", "default", "--objective", "speed"]);
    assert_eq!((code, err.trim()), (2, "error: --objective: 'speed' is not an objective (hop-bytes, max-link)"));
    let (code, _, err) = fabricsim(&["map", "--set", "topology.shape=[8,8]", "--generate", "cg:A:128", "--method", "default"]);
    assert_eq!(code, 2);
    assert!(err.contains("128 ranks do not fit the network's 64 nodes (1 rank(s) per node)"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

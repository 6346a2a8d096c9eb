//! One run path: a scenario whose workload is a `collective` or a `program` runs through
//! `Plan::run` and gives what `fabricsim collective`'s library functions give for the same
//! point; bad keys are refused by name.

use fabricsim::collective::{run, run_in, run_program, CollectivePoint};
use fabricsim::placement::Ranks;
use fabricsim::{Error, Plan, Scenario};
use fabricsim_program::{Collective, FileProgram};

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap()
}

/// The collective point of a scenario's run.
fn point_of(s: &Scenario) -> CollectivePoint {
    let r = Plan::new(s).unwrap().run().unwrap();
    r.collective.unwrap_or_else(|| panic!("no collective in the report of {}", s.to_toml_string()))
}

/// A point as JSON without its wall-clock time.
fn json(p: &CollectivePoint) -> serde_json::Value {
    let mut v = serde_json::to_value(p).unwrap();
    v.as_object_mut().unwrap().remove("wall_s");
    v
}

/// A folder of its own under the system's temporary folder.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("fabricsim-run-path-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

const TORUS: &str = "[topology]\nshape = [4, 4, 4]\n";

#[test]
fn a_collective_scenario_runs_what_the_collective_functions_run() {
    let plain = Plan::new(&scenario(TORUS)).unwrap();
    for (op, algorithm, size) in
        [(Collective::Allreduce, "rabenseifner", 65536u64), (Collective::Barrier, "dissemination", 8), (Collective::Allgather, "quad_rings", 4096)]
    {
        let s =
            scenario(&format!("{TORUS}[workload]\ntype = \"collective\"\nop = \"{}\"\nalgorithm = \"{algorithm}\"\nsize = \"{size}B\"", op.name()));
        let report = Plan::new(&s).unwrap().run().unwrap();
        let via_scenario = report.collective.clone().unwrap();
        let direct = run(&plain, &Ranks::default(), op, algorithm, size, false, |_| {}).unwrap();
        assert_eq!(via_scenario.time_ns, direct.time_ns, "{algorithm}");
        assert_eq!(via_scenario.algbw_gb_per_s, direct.algbw_gb_per_s, "{algorithm}");
        assert_eq!(via_scenario.busbw_gb_per_s, direct.busbw_gb_per_s, "{algorithm}");
        assert_eq!(json(&via_scenario), json(&direct), "{algorithm}: every figure but the wall-clock time");
        // The run report around it: the run's own counters, the completion time.
        assert_eq!(report.workload_type, "collective");
        assert_eq!(report.workload.completion_ns, Some(direct.time_ns));
        assert_eq!(report.messages_delivered, direct.messages);
        assert_eq!(report.events, direct.events);
        assert!(!report.ports.is_empty());
        assert!(report.summary().contains(&format!("{} by {algorithm}", op.name())), "{}", report.summary());
    }
}

#[test]
fn placement_keys_and_the_default_algorithm_match_the_functions() {
    let dir = temp_dir("placement");
    // Ranks in reverse node order, two per node.
    let map: String = (0..64).rev().flat_map(|n| [n, n]).map(|n| format!("{} {} {}\n", n % 4, n / 4 % 4, n / 16)).collect();
    std::fs::write(dir.join("map.txt"), &map).unwrap();
    let file = dir.join("allgather.toml");
    std::fs::write(
        &file,
        format!("{TORUS}[workload]\ntype = \"collective\"\nop = \"allgather\"\nsize = \"1KiB\"\nranks_per_node = 2\nrank_map = \"map.txt\"\n"),
    )
    .unwrap();
    // The map is read from the scenario's folder, wherever the process runs.
    let p = point_of(&Scenario::from_file(&file).unwrap());
    assert_eq!(p.algorithm, "ring", "the allgather's first algorithm by default");
    let plain = Plan::new(&scenario(TORUS)).unwrap();
    let ranks = Ranks { per_node: 2, map: Some(fabricsim::placement::read_rank_map(&plain, &map, 2).unwrap()), grid: None };
    let direct = run(&plain, &ranks, Collective::Allgather, "ring", 1024, false, |_| {}).unwrap();
    assert_eq!((p.ranks, p.time_ns, p.busbw_gb_per_s), (128, direct.time_ns, direct.busbw_gb_per_s));
    // Each operation's default is the first of its list.
    for (op, first) in [
        ("barrier", "dissemination"),
        ("broadcast", "binomial"),
        ("reduce_scatter", "ring"),
        ("allreduce", "recursive_doubling"),
        ("all_to_all", "pairwise"),
    ] {
        let s = scenario(&format!("[topology]\nshape = [4, 4]\n[workload]\ntype = \"collective\"\nop = \"{op}\""));
        assert_eq!(point_of(&s).algorithm, first);
    }
}

#[test]
fn a_collective_scenario_runs_beside_its_background_traffic() {
    let s = scenario(&format!("{TORUS}[sim]\nwarmup = \"2us\"\n[workload]\ntype = \"collective\"\nop = \"allreduce\"\n[workload.background]\ntype = \"uniform_random\"\nload = 0.2"));
    let busy = point_of(&s);
    let open_loop = Plan::new(&scenario(&format!("{TORUS}[sim]\nwarmup = \"2us\"\n[workload]\ntype = \"uniform_random\"\nload = 0.2"))).unwrap();
    let direct = run_in(&open_loop, &Ranks::default(), Collective::Allreduce, "recursive_doubling", 8, false, true, |_| {}).unwrap();
    assert_eq!(json(&busy), json(&direct));
    let idle = point_of(&scenario(&format!("{TORUS}[workload]\ntype = \"collective\"\nop = \"allreduce\"")));
    assert!(busy.time_ns > idle.time_ns, "{} vs {}", busy.time_ns, idle.time_ns);
    // The background is written back as it was read.
    assert_eq!(Scenario::from_toml_str(&s.to_toml_string()).unwrap().to_toml_string(), s.to_toml_string());
    assert!(s.to_toml_string().contains("[workload.background]\ntype = \"uniform_random\""), "{}", s.to_toml_string());
}

#[test]
fn a_program_scenario_runs_its_file_from_the_scenario_folder() {
    let dir = temp_dir("program");
    // Ranks 0 and 5 trade 64 KiB, then rank 0 computes and sends rank 11 a flag, which reads
    // 1 KiB back from rank 0 (the documented example's pattern, on 16 ranks).
    let text = "ranks 16\n0 put 5 64KiB tag=1\n5 put 0 64KiB tag=1\n0 wait 5 tag=1\n5 wait 0 tag=1\n0 compute 5us\n0 put 11 8B tag=2\n11 wait 0 tag=2\n11 get 0 1KiB tag=3\n11 wait 0 tag=3\n";
    std::fs::write(dir.join("halo.txt"), text).unwrap();
    let file = dir.join("halo.toml");
    std::fs::write(&file, "[topology]\nshape = [4, 4]\n[workload]\ntype = \"program\"\nfile = \"halo.txt\"\n").unwrap();
    let s = Scenario::from_file(&file).unwrap();
    let report = Plan::new(&s).unwrap().run().unwrap();
    let p = report.collective.clone().unwrap();
    assert_eq!((p.op, p.algorithm.as_str(), p.messages), ("program", "halo.txt", 4), "three puts and a get");
    let plain = Plan::new(&scenario("[topology]\nshape = [4, 4]")).unwrap();
    let direct = run_program(&plain, &Ranks::default(), Box::new(FileProgram::parse(text).unwrap()), 0, false, |_| {}).unwrap();
    assert_eq!((p.time_ns, p.rank_done_median_ns, p.message_bytes), (direct.time_ns, direct.rank_done_median_ns, direct.message_bytes));
    assert!(p.time_ns > 5000.0, "the compute step alone takes 5 us: {}", p.time_ns);
    assert!(report.summary().contains("program      halo.txt on 16 ranks"), "{}", report.summary());
    // The same scenario read as text finds the file from the current directory: not here.
    let e = Plan::new(&scenario("[topology]\nshape = [4, 4]\n[workload]\ntype = \"program\"\nfile = \"halo.txt\"")).unwrap_err();
    assert!(e.to_string().starts_with("workload.file: 'halo.txt'"), "{e}");
}

#[test]
fn a_collective_scenario_sweeps_sizes_and_records_a_series() {
    let s = scenario("[topology]\nshape = [4, 4]\n[workload]\ntype = \"collective\"\nop = \"broadcast\"\nalgorithm = \"chain\"");
    let pts = fabricsim::sweep_sizes(&s, &[fabricsim::Bytes(8), fabricsim::Bytes(65536)], 1, |_| {}).unwrap();
    assert!(pts[1].completion_ns.unwrap() > 10.0 * pts[0].completion_ns.unwrap(), "{pts:?}");
    let (report, series) = Plan::new(&s).unwrap().run_with_series(fabricsim::Time::from_ns(100), |_| {}).unwrap();
    assert!(report.collective.is_some() && !series.rows.is_empty());
    assert!(series.rows.iter().any(|r| r.packets > 0));
}

/// The error `toml` gives, from `Plan::new` or the run.
fn error_of(toml: &str) -> String {
    let r = Scenario::from_toml_str(toml).and_then(|s| Plan::new(&s)).and_then(|p| p.run());
    match r {
        Err(Error::Config(e)) => e.to_string(),
        Err(other) => panic!("not a configuration error: {other}"),
        Ok(_) => panic!("{toml}: accepted"),
    }
}

#[test]
fn bad_collective_and_program_keys_are_named_with_their_values() {
    let dir = temp_dir("bad");
    let four = dir.join("four.txt");
    std::fs::write(&four, "ranks 4\n0 put 1 8B\n1 wait 0\n").unwrap();
    let missing = dir.join("missing.txt");
    let collective = "[topology]\nshape = [4, 4]\n[workload]\ntype = \"collective\"\n";
    let program = "[topology]\nshape = [4, 4]\n[workload]\ntype = \"program\"\n";
    let cases = [
        (collective.to_string(), "workload.op", "required"),
        (format!("{collective}op = \"allsum\""), "workload.op", "'allsum'"),
        (format!("{collective}op = \"allreduce\"\nalgorithm = \"tree\""), "workload.algorithm", "'tree'"),
        (format!("{collective}op = \"reduce\"\nalgorithm = \"hardware\""), "workload.algorithm", "'hardware'"),
        (
            format!("{}op = \"allgather\"\nalgorithm = \"quad_rings\"", collective.replace("[topology]", "[topology]\ntype = \"mesh\"")),
            "workload.algorithm",
            "'quad_rings'",
        ),
        (format!("{collective}op = \"barrier\"\nalgorithm = \"hardware\""), "workload.algorithm", "no in-network collective hardware"),
        (format!("{collective}op = \"barrier\"\nload = 0.3"), "workload.load", "collective"),
        (format!("{collective}op = \"barrier\"\nsize = \"0B\""), "workload.size", "0B"),
        (format!("{collective}op = \"barrier\"\nranks_per_node = 0"), "workload.ranks_per_node", "0"),
        (format!("{collective}op = \"barrier\"\ngrid = [3, 3]"), "workload.grid", "[3, 3]"),
        (format!("{collective}op = \"barrier\"\nvirtual_torus = true\nranks_per_node = 2"), "workload.virtual_torus", "ranks_per_node"),
        (format!("{collective}op = \"barrier\"\nrank_map = {:?}", missing.display().to_string()), "workload.rank_map", "missing.txt"),
        (format!("{collective}op = \"barrier\"\nbackground = true"), "workload.background", "table"),
        (format!("{collective}op = \"barrier\"\n[workload.background]\ntype = \"pingpong\""), "workload.background.type", "'pingpong'"),
        (format!("{collective}op = \"barrier\"\n[workload.background]\nload = 2.0"), "workload.background.load", "2"),
        (format!("{collective}op = \"barrier\"\n[workload.background]\nlod = 0.1"), "workload.background.lod", "uniform_random"),
        (program.to_string(), "workload.file", "required"),
        (format!("{program}file = {:?}", missing.display().to_string()), "workload.file", "missing.txt"),
        (format!("{program}file = {:?}", four.display().to_string()), "workload.file", "is for 4 ranks, the job has 16"),
        (format!("{program}file = {:?}\nsize = \"8B\"", four.display().to_string()), "workload.size", "program"),
    ];
    for (toml, field, value) in cases {
        let e = error_of(&toml);
        assert!(e.starts_with(&format!("{field}:")) && e.contains(value) && e.lines().count() == 1, "{toml}\n=> {e}");
    }
}

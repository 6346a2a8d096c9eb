//! GOAL traces on the simulated network: a replay takes what the equivalent program takes,
//! collectives and programs written as GOAL replay in the same time (round trip), and a trace
//! that deadlocks on the network is reported by rank and operation.

use fabricsim::collective::run_job;
use fabricsim::trace::CalcUnit;
use fabricsim::{Error, Plan, Scenario};
use std::path::PathBuf;

/// A file holding `text` in a folder of this test run.
fn file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("fabricsim-traces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn plan(toml: &str) -> Result<Plan, Error> {
    Plan::new(&Scenario::from_toml_str(toml).unwrap())
}

fn workload(ty: &str, path: &std::path::Path, shape: &str) -> String {
    format!("[topology]\nshape = {shape}\n[workload]\ntype = \"{ty}\"\nfile = {:?}\n", path.display().to_string())
}

#[test]
fn a_ping_pong_trace_takes_the_time_of_the_same_program() {
    for size in [8u64, 4096, 100_000] {
        let goal = format!(
            "num_ranks 2\nrank 0 {{\ns: send {size}b to 1 tag 0\nr: recv {size}b from 1 tag 0\nr requires s\n}}\nrank 1 {{\nr: recv {size}b from 0 tag 0\ns: send {size}b to 0 tag 0\ns requires r\n}}\n"
        );
        let program = format!("ranks 2\n0 put 1 {size}B\n0 wait 1\n1 wait 0\n1 put 0 {size}B\n");
        let t = run_job(&plan(&workload("trace", &file(&format!("pp{size}.goal"), &goal), "[2]")).unwrap(), false, |_| {}).unwrap();
        let p = run_job(&plan(&workload("program", &file(&format!("pp{size}.txt"), &program), "[2]")).unwrap(), false, |_| {}).unwrap();
        assert!(t.time_ns > 0.0);
        assert_eq!(t.time_ns, p.time_ns, "{size} B");
        assert_eq!((t.messages, t.message_bytes), (p.messages, p.message_bytes));
        let r = t.trace.unwrap();
        assert_eq!((r.operations, r.calc_ns, r.critical_path_ns), (4, 0.0, 0.0));
        assert_eq!(r.network_share, 1.0);
    }
}

#[test]
fn collectives_and_programs_written_as_goal_replay_in_the_same_time() {
    let cases = [
        ("[4, 4]", "[workload]\ntype = \"collective\"\nop = \"allreduce\"\nalgorithm = \"ring\"\nsize = \"64KiB\"\n"),
        ("[4, 4]", "[workload]\ntype = \"collective\"\nop = \"allreduce\"\nalgorithm = \"recursive_doubling\"\nsize = \"8KiB\"\n"),
        ("[2, 2, 2]", "[workload]\ntype = \"collective\"\nop = \"broadcast\"\nalgorithm = \"binomial\"\nsize = \"1MiB\"\n"),
        ("[2, 2, 2]", "[workload]\ntype = \"collective\"\nop = \"all_to_all\"\nalgorithm = \"pairwise\"\nsize = \"16KiB\"\n"),
    ];
    let program = file("halo.txt", "ranks 4\n0 put 1 1KiB tag=1\n0 compute 300ns\n0 wait 3 tag=1\n1 put 2 1KiB tag=1\n1 wait 0 tag=1\n1 compute 2us\n2 put 3 1KiB tag=1\n2 wait 1 tag=1\n3 put 0 1KiB tag=1\n3 wait 2 tag=1\n3.1 compute 1us\n3.1 put 1 64KiB tag=2\n1 wait 3 tag=2\n");
    let program = format!("[workload]\ntype = \"program\"\nfile = {:?}\n", program.display().to_string());
    for (i, (shape, w)) in cases.iter().copied().chain([("[4]", program.as_str())]).enumerate() {
        let original = plan(&format!("[topology]\nshape = {shape}\n{w}")).unwrap();
        let before = run_job(&original, false, |_| {}).unwrap();
        let mut text = Vec::new();
        fabricsim::trace::write_goal(&original, CalcUnit::default(), &mut text).unwrap();
        let path = file(&format!("round-trip-{i}.goal"), std::str::from_utf8(&text).unwrap());
        let after = run_job(&plan(&workload("trace", &path, shape)).unwrap(), false, |_| {}).unwrap();
        assert_eq!(after.time_ns, before.time_ns, "{w}");
        assert_eq!((after.messages, after.message_bytes), (before.messages, before.message_bytes), "{w}");
    }
}

#[test]
fn a_trace_that_deadlocks_on_the_network_names_the_rank_and_operation() {
    // Without a network rank 0's message reaches rank 2 first and the wildcard receive takes
    // it; on a 3-node line rank 1's (sent 10 ns later, one hop instead of two) arrives first,
    // the wildcard takes it, and the receive from rank 1 waits for ever.
    let goal = "num_ranks 3\nrank 0 {\nsend 8b to 2 tag 0\n}\nrank 1 {\nc: calc 10\ns: send 8b to 2 tag 0\ns requires c\n}\nrank 2 {\na: recv 8b from -1 tag 0\nb: recv 8b from 1 tag 0\nb requires a\n}\n";
    let toml = workload("trace", &file("race.goal", goal), "[3]\nwrap = [false]");
    let e = run_job(&plan(&toml).unwrap(), false, |_| {}).unwrap_err().to_string();
    assert!(e.contains("deadlock: 1 rank(s) of the trace never finished"), "{e}");
    assert!(e.contains("rank 2 (line 12, operation 1): recv 8b from 1 tag 0 is never matched"), "{e}");
}

#[test]
fn a_bad_trace_is_refused_naming_the_file_line_and_value() {
    for (goal, want) in [
        ("num_ranks 2\nrank 0 {\na: calc 1\na requires zz\n}\nrank 1 {\n}\n", "line 4: unknown label 'zz' in rank 0"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 3\n}\nrank 1 {\n}\n", "line 3: send 8b to 1 tag 3 is never received"),
        ("num_ranks 3\nrank 0 {\n}\n", "is for 3 ranks, the job has 2"),
    ] {
        let path = file("bad.goal", goal);
        let e = plan(&workload("trace", &path, "[2]")).unwrap_err();
        let Error::Config(c) = e else { panic!("{e}") };
        assert_eq!(c.field, "workload.file");
        assert!(c.message.contains(&path.display().to_string()) && c.message.contains(want), "{}", c.message);
    }
    let e = plan(&format!("{}calc_unit = \"fast\"\n", workload("trace", &file("ok.goal", "num_ranks 2\n"), "[2]"))).unwrap_err();
    assert!(e.to_string().starts_with("workload.calc_unit: 'fast'"), "{e}");
}

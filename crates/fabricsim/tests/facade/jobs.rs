//! Several jobs on one network: jobs on links of their own do not slow each other, jobs whose
//! traffic shares links do, a job alone through `[[jobs]]` takes what the same workload takes
//! as the scenario's own, and bad jobs are refused naming the key.

use fabricsim::{Plan, Scenario};

/// An 8x8 torus with two all-to-all jobs of 32 ranks each, placed by `a` and `b` (a job's
/// node keys), the second from 1 us.
fn two(a: &str, b: &str) -> String {
    format!(
        "[topology]\nshape = [8, 8]\n\
         [[jobs]]\nname = \"a\"\n{a}\n[jobs.workload]\ntype = \"collective\"\nop = \"all_to_all\"\nsize = \"32KiB\"\n\
         [[jobs]]\nname = \"b\"\n{b}\nstart = \"1us\"\n[jobs.workload]\ntype = \"collective\"\nop = \"allreduce\"\nalgorithm = \"ring\"\nsize = \"256KiB\"\n"
    )
}

fn run(toml: &str) -> fabricsim::report::RunReport {
    Plan::new(&Scenario::from_toml_str(toml).unwrap()).unwrap().run().unwrap()
}

fn error(toml: &str) -> String {
    match Scenario::from_toml_str(toml).and_then(|s| Plan::new(&s)) {
        Ok(_) => panic!("accepted: {toml}"),
        Err(e) => e.to_string(),
    }
}

fn list(ids: impl Iterator<Item = u32>) -> String {
    format!("nodes = {:?}", ids.collect::<Vec<_>>())
}

#[test]
fn jobs_on_links_of_their_own_run_as_fast_as_alone() {
    // Rows 0-3 and rows 4-7: dimension-order routes stay inside each half.
    let r = run(&two("origin = [0, 0]\nshape = [8, 4]", "origin = [0, 4]\nshape = [8, 4]"));
    let jobs = r.jobs.as_ref().unwrap();
    for j in jobs {
        assert_eq!(j.time_ns, j.alone_time_ns, "{}", j.name);
        assert_eq!(j.slowdown, Some(1.0));
    }
    // No link carries bytes of both jobs.
    assert!(r.job_links.iter().all(|l| l.jobs.iter().filter(|&&b| b > 0).count() <= 1));
}

#[test]
fn interleaved_jobs_share_links_and_slow_each_other() {
    let r = run(&two(&list((0..64).step_by(2)), &list((1..64).step_by(2))));
    let jobs = r.jobs.as_ref().unwrap();
    assert!(jobs.iter().all(|j| j.slowdown.unwrap() >= 1.0), "{jobs:?}");
    assert!(jobs.iter().any(|j| j.slowdown.unwrap() > 1.02), "{jobs:?}");
    assert!(r.job_links.iter().any(|l| l.jobs.iter().all(|&b| b > 0)), "some link carries both jobs");
    // Under dimension order the jobs' bytes alone add up to what each link carried together.
    for l in &r.job_links {
        assert_eq!(l.bytes, l.jobs.iter().sum::<u64>(), "{l:?}");
    }
    assert_eq!(jobs[1].start_ns, 1000.0);
    assert_eq!(r.workload_type, "jobs");
}

#[test]
fn one_job_on_every_node_takes_what_the_same_workload_takes_alone() {
    let keys = "type = \"collective\"\nop = \"allgather\"\nsize = \"16KiB\"";
    let whole = run(&format!("[topology]\nshape = [4, 4]\n[[jobs]]\norigin = [0, 0]\nshape = [4, 4]\n[jobs.workload]\n{keys}\n"));
    let single = run(&format!("[topology]\nshape = [4, 4]\n[workload]\n{keys}\n"));
    let j = &whole.jobs.as_ref().unwrap()[0];
    assert_eq!(j.time_ns, Some(single.collective.as_ref().unwrap().time_ns));
    assert_eq!(j.name, "job0");
}

#[test]
fn open_loop_traffic_beside_a_job_slows_it_and_is_slowed() {
    let toml = format!(
        "[topology]\nshape = [8, 8]\n\
         [[jobs]]\nname = \"a2a\"\n{}\n[jobs.workload]\ntype = \"collective\"\nop = \"all_to_all\"\nsize = \"32KiB\"\n\
         [[jobs]]\nname = \"noise\"\n{}\n[jobs.workload]\ntype = \"uniform_random\"\nload = 0.5\n",
        list((0..64).step_by(2)),
        list((1..64).step_by(2))
    );
    let r = run(&toml);
    let jobs = r.jobs.as_ref().unwrap();
    assert!(jobs[0].slowdown.unwrap() > 1.0, "{jobs:?}");
    let noise = &jobs[1];
    assert!(noise.time_ns.is_none() && noise.messages > 0, "{noise:?}");
    assert!(noise.latency_mean_ns > noise.alone_latency_mean_ns, "{noise:?}");
}

#[test]
fn a_trace_job_replays_on_its_region() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let toml = format!(
        "[topology]\nshape = [4, 4]\n[[jobs]]\nname = \"halo\"\norigin = [1, 1]\nshape = [2, 4]\n[jobs.workload]\ntype = \"trace\"\nfile = \"{dir}/../../examples/traces/halo-8.goal\"\n"
    );
    let r = run(&toml);
    let j = &r.jobs.as_ref().unwrap()[0];
    assert_eq!((j.ranks, j.nodes), (8, 8));
    assert!(j.time_ns.unwrap() > 2000.0, "two iterations of 1 us calcs: {j:?}");
}

#[test]
fn bad_jobs_are_refused_naming_the_key_and_value() {
    let half = "origin = [0, 0]\nshape = [8, 4]";
    let e = error(&two(half, "origin = [0, 3]\nshape = [8, 4]"));
    assert!(e.starts_with("jobs[1].nodes: node [0, 3] (id 24) is also a node of job 'a'"), "{e}");
    let e = error(&two(half, "origin = [0, 4]\nshape = [9, 4]"));
    assert!(e.starts_with("jobs[1].shape: [9, 4] at [0, 4]"), "{e}");
    let e = error(&two(half, "nodes = [70]"));
    assert!(e.starts_with("jobs[1].nodes: 70 is not a node id"), "{e}");
    let e = error(&two(half, "nodes = [40]\norigin = [0, 4]\nshape = [8, 4]"));
    assert!(e.starts_with("jobs[1].origin: give one of"), "{e}");
    let e = error(&two(half, ""));
    assert!(e.starts_with("jobs[1].nodes: give the job's nodes"), "{e}");
    let e = error("[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1]\n[jobs.workload]\ntype = \"sphere\"\nradius2 = 1\n");
    assert!(e.starts_with("jobs[0].workload.radius2: is not a key of workload type 'sphere'"), "{e}");
    let e = error("[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1]\n[jobs.workload]\ntype = \"pingpong\"\n");
    assert!(e.starts_with("jobs[0].workload.type: 'pingpong' is a benchmark"), "{e}");
    let e = error("[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1]\n[jobs.workload]\ntype = \"uniform_random\"\n");
    assert!(e.starts_with("jobs: no job is a trace"), "{e}");
    let dir = env!("CARGO_MANIFEST_DIR");
    let e = error(&format!(
        "[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1, 2]\n[jobs.workload]\ntype = \"trace\"\nfile = \"{dir}/../../examples/traces/halo-8.goal\"\n"
    ));
    assert!(e.starts_with("jobs[0].workload.file: '") && e.contains("is for 8 ranks, the job has 3"), "{e}");
    let e = error("[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1]\n[jobs.workload]\ntype = \"program\"\n");
    assert!(e.starts_with("jobs[0].workload.file: is required"), "{e}");
    let e = error(
        "[topology]\nshape = [4, 4]\n[[jobs]]\nnodes = [0, 1]\n[jobs.workload]\ntype = \"collective\"\nop = \"barrier\"\nrank_map = \"m.txt\"\n",
    );
    assert!(e.starts_with("jobs[0].workload.rank_map: is not a job's key"), "{e}");
}

#[test]
fn allocated_jobs_take_the_first_free_box() {
    let keys = "[jobs.workload]\ntype = \"collective\"\nop = \"barrier\"\n";
    let toml = format!("[topology]\nshape = [4, 4]\n[[jobs]]\nallocate = [2, 4]\n{keys}[[jobs]]\nallocate = [4, 2]\nrotate = true\n{keys}");
    let plan = Plan::new(&Scenario::from_toml_str(&toml).unwrap()).unwrap();
    let second: Vec<u32> = plan.jobs[1].nodes.iter().map(|n| n.0).collect();
    assert_eq!(second, vec![2, 3, 6, 7, 10, 11, 14, 15]);
    let e = error(&format!("[topology]\nshape = [4, 4]\n[[jobs]]\nallocate = [2, 4]\n{keys}[[jobs]]\nallocate = [4, 2]\n{keys}"));
    assert!(e.starts_with("jobs[1].allocate: [4, 2] finds no free place as given"), "{e}");
}

#[test]
fn a_scenario_with_jobs_reads_back_what_it_writes() {
    let s = Scenario::from_toml_str(&two("origin = [0, 0]\nshape = [8, 4]", "nodes = [40, 41]")).unwrap();
    let again = Scenario::from_toml_str(&s.to_toml_string()).unwrap();
    assert_eq!(again.jobs, s.jobs);
}

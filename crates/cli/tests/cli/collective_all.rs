//! `fabricsim collective --op X` with the default `--algorithm all`: every algorithm that
//! applies runs, the rest are skipped with a reason, on every preset and for every operation.

use super::fabricsim;

const OPS: [&str; 7] = ["barrier", "broadcast", "reduce", "allgather", "reduce_scatter", "allreduce", "all_to_all"];

/// Every preset, shrunk to a small partition so that a run of every algorithm stays fast.
fn presets() -> Vec<(&'static str, Vec<&'static str>)> {
    let tofu = "topology.shape=[2,2,2,2,3,2]";
    vec![
        ("tofu-k", vec![tofu]),
        ("tofu-fx10", vec![tofu]),
        ("tofu2-fx100", vec!["topology.shape=[2,2,3,2,3,2]"]),
        ("tofud", vec!["topology.shape=[2,2,4,2,3,2]"]),
        ("bgq", vec!["topology.shape=[2,2,2,2,2]"]),
        ("bgq-sequoia", vec!["topology.shape=[2,2,2,2,2]"]),
        ("dawning5000", vec!["topology.levels=2"]),
        ("apenet-quong", vec![]),
    ]
}

/// The algorithms `collective --op op --algorithm X` accepts (from the error of an unknown one).
fn known(op: &str) -> Vec<String> {
    let (code, _, err) = fabricsim(&["collective", "--op", op, "--algorithm", "no_such_algorithm"]);
    assert_eq!(code, 2, "{err}");
    let list = err.split("(known: ").nth(1).and_then(|s| s.split(')').next()).unwrap_or_else(|| panic!("{err}"));
    list.split(", ").filter(|a| *a != "all").map(str::to_string).collect()
}

#[test]
fn the_default_algorithm_runs_what_applies_and_names_what_it_skips_on_every_preset() {
    for op in OPS {
        let known = known(op);
        for (preset, sets) in presets() {
            let mut args = vec!["collective".to_string(), "--op".into(), op.into(), "--set".into(), format!("machine.preset={preset}")];
            for s in &sets {
                args.extend(["--set".to_string(), s.to_string()]);
            }
            args.extend(["--csv".to_string(), "-".into()]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, out, err) = fabricsim(&args);
            assert_eq!(code, 0, "{preset} {op}: {err}");
            let ran: Vec<&str> = out.lines().skip(1).filter(|l| !l.is_empty()).map(|l| l.split(',').nth(1).unwrap()).collect();
            let skipped: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix("skipped ")).map(|l| l.split(':').next().unwrap()).collect();
            assert!(!ran.is_empty(), "{preset} {op}: nothing ran");
            // One line per skipped algorithm, with a reason; nothing both run and skipped.
            for l in err.lines().filter(|l| l.starts_with("skipped ")) {
                assert!(l.split_once(": ").is_some_and(|(_, why)| why.len() > 10), "{preset} {op}: {l}");
            }
            assert!(ran.iter().all(|a| !skipped.contains(a)), "{preset} {op}: {out}{err}");
            // Every software algorithm is either run or skipped; `hardware` too where the
            // network has some (every preset but APEnet's).
            for a in &known {
                let listed = ran.contains(&a.as_str()) || skipped.contains(&a.as_str());
                assert!(listed || (a == "hardware" && preset == "apenet-quong"), "{preset} {op}: {a} neither run nor skipped\n{out}{err}");
            }
        }
    }
}

#[test]
fn hardware_and_topology_aware_algorithms_join_where_they_apply() {
    // TofuD on its virtual 3D torus: the triple trinary tree applies, and the barrier gates
    // reduce an 8-byte vector but not a 1 KiB one.
    let (code, out, err) = fabricsim(&[
        "collective",
        "--set",
        "machine.preset=tofud",
        "--set",
        "topology.shape=[2,2,4,2,3,2]",
        "--op",
        "allreduce",
        "--virtual-torus",
        "--algorithm",
        "all",
        "--sizes",
        "8B,1KiB",
        "--csv",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<(&str, &str)> =
        out.lines().skip(1).filter(|l| !l.is_empty()).map(|l| (l.split(',').nth(2).unwrap(), l.split(',').nth(1).unwrap())).collect();
    assert!(rows.contains(&("8", "trinary_tree")) && rows.contains(&("1024", "trinary_tree")), "{out}");
    assert!(rows.contains(&("8", "hardware")) && !rows.contains(&("1024", "hardware")), "{out}");
    assert!(err.lines().any(|l| l.starts_with("skipped hardware at 1024B: ") && l.contains("elements")), "{err}");
}

#[test]
fn an_algorithm_named_that_does_not_apply_is_refused_before_anything_runs() {
    let started = std::time::Instant::now();
    let (code, out, err) = fabricsim(&["collective", "--set", "machine.preset=tofud", "--op", "allreduce", "--algorithm", "ring,trinary_tree"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "nothing ran: {out}");
    assert!(err.starts_with("error: --algorithm: 'trinary_tree' does not apply") && err.lines().count() == 1, "{err}");
    // The ring allreduce over 1536 nodes alone takes seconds.
    assert!(started.elapsed().as_secs_f64() < 2.0, "{:?}", started.elapsed());
}

//! Faulty links from the command line: the scenario keys, the report, and bad input named with
//! exit code 2.

use super::{example, fabricsim};

fn study(name: &str) -> String {
    format!("{}/../../studies/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_link_failure_is_reported_with_its_recovery_time() {
    let (code, out, err) = fabricsim(&["run", &study("resilience-alltoall.toml")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("faults: ") && out.contains("link down"), "{out}");
    assert!(out.contains("event 0 (link_down at 3000 ns): recovered after"), "{out}");
    assert!(out.contains("packets lost 0"), "{out}");
}

#[test]
fn the_json_report_has_a_faults_object_only_with_faults() {
    let base = ["run", "--set", "topology.shape=[4,4]", "--set", "sim.duration=2us", "--json", "-"];
    let json = |extra: &[&str]| -> serde_json::Value {
        let (code, out, err) = fabricsim(&[&base[..], extra].concat());
        assert_eq!(code, 0, "{err}");
        serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap()
    };
    let v = json(&["--set", "faults.lane_ber=1e-4", "--set", "link.protection=none"]);
    let f = &v["faults"];
    assert_eq!(f["protection"], "none");
    assert!(f["packets_lost"].as_u64().unwrap() > 0, "{f}");
    assert_eq!(f["packets_duplicated"], 0);
    assert!(v["provenance"]["scenario"].as_str().unwrap().contains("[faults]"));
    let v = json(&[]);
    assert!(v.get("faults").is_none());
    assert!(!v["provenance"]["scenario"].as_str().unwrap().contains("[link]"), "fault-free provenance as before");
}

#[test]
fn bad_fault_input_exits_2_naming_the_key() {
    let dir = std::env::temp_dir().join(format!("fabricsim-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let event = |i: usize, body: &str| {
        let f = dir.join(format!("e{i}.toml"));
        std::fs::write(&f, format!("[topology]\nshape = [4, 4]\nwrap = [false, true]\n[faults]\nlane_ber = 1e-9\n{body}")).unwrap();
        f.to_str().unwrap().to_string()
    };
    let link = |node: &str, axis: &str, dir: &str| format!("link = {{ node = {node}, axis = \"{axis}\", direction = \"{dir}\" }}");
    let cases = [
        (vec!["run".to_string(), "--set".into(), "faults.lane_ber=1".into()], "faults.lane_ber: 1 is outside [0, 1)"),
        (vec!["run".into(), "--set".into(), "faults.undetected=-0.5".into()], "faults.undetected"),
        (
            vec!["run".into(), "--set".into(), "machine.preset=bgq".into(), "--set".into(), "link.protection=slicing".into()],
            "link.protection: 'slicing'",
        ),
        (vec!["run".into(), "--set".into(), "link.protection=fast".into()], "link.protection"),
        (
            vec!["run".into(), event(0, &format!("[[faults.events]]\nat = \"1us\"\nkind = \"link_down\"\n{}\n", link("[4, 0]", "d0", "+")))],
            "faults.events[0].link.node",
        ),
        (
            vec!["run".into(), event(1, &format!("[[faults.events]]\nat = \"1us\"\nkind = \"link_down\"\n{}\n", link("[3, 0]", "d0", "+")))],
            "faults.events[0].link: node [3, 0] has no link",
        ),
        (
            vec![
                "run".into(),
                event(
                    2,
                    &format!(
                        "[[faults.events]]\nat = \"2us\"\nkind = \"link_down\"\n{l}\n[[faults.events]]\nat = \"1us\"\nkind = \"link_up\"\n{l}\n",
                        l = link("[0, 0]", "d1", "+")
                    ),
                ),
            ],
            "faults.events[1].at",
        ),
        (vec!["run".into(), event(3, "[[faults.events]]\nat = \"1us\"\nkind = \"melt\"\nlink = { port = 0 }\n")], "faults.events"),
        (vec!["run".into(), event(4, "[[faults.events]]\nat = \"1us\"\nkind = \"node_down\"\nnode = [0, 9]\n")], "faults.events[0].node"),
    ];
    for (args, want) in cases {
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let (code, out, err) = fabricsim(&a);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.starts_with(&format!("error: {want}")), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn pairs_cut_off_by_a_failed_link_are_listed_and_a_closed_workload_stops_with_an_error() {
    // Transpose on a 6x6 mesh sends (x,2) to (2,x): with the d0 link between (2,2) and (3,2)
    // dead from the start, dimension order has no way for the sources (3..5, 2).
    let down = r#"faults.events=[{at="0ns",kind="link_down",link={node=[2,2],axis="d0",direction="+"}}]"#;
    let (code, out, err) = fabricsim(&["run", &example("mesh-transpose.toml"), "--set", down, "--json", "-"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out[out.find('{').unwrap()..]).unwrap();
    let f = &v["faults"];
    let cut: Vec<(u64, u64)> = f["cut"].as_array().unwrap().iter().map(|p| (p["src"].as_u64().unwrap(), p["dst"].as_u64().unwrap())).collect();
    // Node (x,2) is 2*6 + x; (2,x) is x*6 + 2.
    assert_eq!(cut, vec![(15, 20), (16, 26), (17, 32)], "{f}");
    assert_eq!(f["pairs_cut"], 3);
    assert!(f["packets_cut"].as_u64().unwrap() > 0 && f["messages_cut"].as_u64().unwrap() > 0, "{f}");
    // A collective waits for every message: it cannot finish, and says why.
    let (code, _, err) = fabricsim(&[
        "run",
        &example("collective-allreduce.toml"),
        "--set",
        "topology.type=mesh",
        "--set",
        "topology.shape=[4,4]",
        "--set",
        "router.vcs=1",
        "--set",
        r#"faults.events=[{at="0ns",kind="link_down",link={node=[1,0],axis="d0",direction="+"}}]"#,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("disconnected: the failed links left the routing no way") && err.contains("->") && err.contains("never arrived"), "{err}");
}

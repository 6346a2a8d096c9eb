use super::*;
use fabricsim_core::Time;

#[test]
fn unknown_keys_are_named() {
    let e = Scenario::from_toml_str("[topology]\nshap = [4]\n").unwrap_err().to_string();
    assert!(e.starts_with("topology"), "{e}");
    assert!(e.contains("shap"), "{e}");
}

#[test]
fn bad_units_are_named() {
    let e = Scenario::from_toml_str("[topology]\nlink_latency = \"20 parsecs\"\n").unwrap_err().to_string();
    assert!(e.starts_with("topology.link_latency"), "{e}");
    assert!(e.contains("parsecs"), "{e}");
}

#[test]
fn overrides_apply_and_are_checked() {
    let mut s = Scenario::default();
    s.set("topology.shape", "[4, 4]").unwrap();
    s.set("sim.duration", "5us").unwrap();
    s.set("workload.type", "tornado").unwrap();
    assert!(matches!(&s.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4]));
    assert_eq!(s.sim.duration, Time::from_us(5));
    assert_eq!(s.workload.type_name(), "tornado");
    let e = s.set("router.vcz", "2").unwrap_err().to_string();
    assert!(e.contains("vcz"), "{e}");
    let e = s.set("router.delay", "fast").unwrap_err().to_string();
    assert!(e.starts_with("router.delay"), "{e}");
}

#[test]
fn a_key_of_another_type_is_named() {
    let e = Scenario::from_toml_str("[workload]\ntype = \"pingpong\"\nload = 0.3\n").unwrap_err().to_string();
    assert!(e.starts_with("workload.load: is not a key of workload type 'pingpong'") && e.contains("iterations"), "{e}");
    let e = Scenario::from_toml_str("[workload]\nradius = 3\n").unwrap_err().to_string();
    assert!(e.starts_with("workload.radius: is not a key of workload type 'uniform_random'"), "{e}");
    let e = Scenario::from_toml_str("[topology]\ntype = \"fat_tree\"\nshape = [4]\n").unwrap_err().to_string();
    assert!(e.starts_with("topology.shape: is not a key of topology type 'fat_tree'"), "{e}");
    let e = Scenario::from_toml_str("[workload]\ntype = \"pingpong\"\nsrc = \"here\"\n").unwrap_err().to_string();
    assert!(e.starts_with("workload.src"), "{e}");
    let e = Scenario::from_toml_str("[routing]\ntype = \"zigzag\"\n").unwrap_err().to_string();
    assert!(e.starts_with("routing.type") && e.contains("zigzag"), "{e}");
    let e = Scenario::from_toml_str("[workload]\ntype = 3\n").unwrap_err().to_string();
    assert!(e.starts_with("workload.type"), "{e}");
}

#[test]
fn topology_keys_match_the_specs_and_presets_keep_what_the_new_type_takes() {
    let full = TorusSpec { wrap: Some(vec![true]), axes: Some(vec!["X".into()]), ..Default::default() };
    let keys = |v: toml::Value| -> Vec<String> { v.as_table().unwrap().values().next().unwrap().as_table().unwrap().keys().cloned().collect() };
    let mut torus = keys(toml::Value::try_from(TopologySpec::Torus(full)).unwrap());
    let mut fat = keys(toml::Value::try_from(TopologySpec::FatTree(FatTreeSpec::default())).unwrap());
    torus.sort();
    fat.sort();
    let sorted = |ty| {
        let mut v: Vec<String> = TopologySpec::keys_of(ty).iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(torus, sorted("torus"));
    assert_eq!(fat, sorted("fat_tree"));
    assert_eq!(sorted("mesh"), torus.iter().filter(|k| *k != "wrap").cloned().collect::<Vec<_>>());
    // A Tofu preset as a mesh keeps its shape and links, not its wrap-around.
    let s = Scenario::from_toml_str("[machine]\npreset = \"tofu-k\"\n[topology]\ntype = \"mesh\"\n").unwrap();
    match &s.topology {
        TopologySpec::Mesh(t) => assert!(t.shape.len() == 6 && t.wrap.is_none() && t.link_latency == Time::from_ns(10)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn any_seed_round_trips_through_toml() {
    for seed in [0, 1, i64::MAX as u64, u64::MAX] {
        let mut s = Scenario::default();
        s.sim.seed = seed;
        let back = Scenario::from_toml_str(&s.to_toml_string()).unwrap();
        assert_eq!(back.sim.seed, seed);
    }
    let e = Scenario::from_toml_str("[sim]\nseed = \"lucky\"\n").unwrap_err().to_string();
    assert!(e.starts_with("sim.seed"), "{e}");
}

#[test]
fn routing_defaults_by_topology() {
    let s = Scenario::from_toml_str("[topology]\ntype = \"fat_tree\"\n").unwrap();
    assert_eq!(s.routing, RoutingSpec::UpDown(UpDownSpec::default()));
    let s = Scenario::from_toml_str("[routing]\norder = [\"d1\", \"d0\", \"d2\"]\n").unwrap();
    assert!(matches!(&s.routing, RoutingSpec::DimensionOrder(d) if d.order.as_ref().unwrap()[0] == "d1"));
}

#[test]
fn round_trips_through_toml() {
    let s = Scenario::from_toml_str("[topology]\nshape = [4, 4]\n").unwrap();
    let back = Scenario::from_toml_str(&s.to_toml_string()).unwrap();
    assert_eq!(s.to_toml_string(), back.to_toml_string());
    assert!(matches!(&back.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4]));
    assert!(s.to_toml_string().contains("type = \"torus\""), "{}", s.to_toml_string());
}

#[test]
fn presets_sit_under_explicit_keys_in_any_order() {
    let mut a = Scenario::default();
    a.set("router.vcs", "4").unwrap();
    a.set("machine.preset", "\"bgq\"").unwrap();
    assert_eq!(a.router.vcs, 4, "explicit key wins over the preset");
    assert!(matches!(&a.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4, 4, 4, 2]), "preset wins over defaults");
    let b = Scenario::from_toml_str("[machine]\npreset = \"bgq\"\n[router]\nvcs = 4\n").unwrap();
    assert_eq!(a.to_toml_string(), b.to_toml_string());
    let e = Scenario::from_toml_str("[machine]\npreset = \"cray\"\n").unwrap_err().to_string();
    assert!(e.starts_with("machine.preset") && e.contains("'cray'"), "{e}");
}

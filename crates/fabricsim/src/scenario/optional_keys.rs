//! The keys with no fixed default, listed for `fabricsim default`.

/// Keys outside `[workload]` with no fixed default: (key, an example value, what unset means).
pub const OPTIONAL_KEYS: &[(&str, &str, &str)] = &[
    ("name", "\"my study\"", "a name for reports; unset: none"),
    ("machine.preset", "\"tofud\"", "start from a built-in machine; unset: none"),
    ("topology.wrap", "[true, true, true]", "rings per axis; unset: every axis of a torus wraps, none of a mesh"),
    ("topology.axes", "[\"X\", \"Y\", \"Z\"]", "axis names; unset: d0, d1, ..."),
    ("routing.order", "[\"X\", \"Y\", \"Z\"]", "dimension order (adaptive: of its escape sub-network); unset: axis order"),
    ("routing.zones", "[[\"d0\", \"d1\"], [\"d2\"]]", "(type = \"adaptive\") zone routing: axis sets routed in turn; unset: all axes at once"),
    ("router.class_buffer", "\"128B\"", "input buffer per class VC (class messages are cut to fit); unset: router.buffer"),
    (
        "router.flit_size",
        "\"16B\"",
        "links multiplex their VCs at this granularity (a higher priority takes a busy link at a flit boundary); unset or \"0B\": whole packets",
    ),
    ("nic.injection_engines", "4", "engines per node; unset: 1 (fat-tree: one per rail)"),
    ("nic.bandwidth", "\"5GB/s\"", "each engine's path to its router; unset: the link bandwidth"),
    ("nic.host_bandwidth", "\"15GB/s\"", "host-to-NIC bandwidth per node; unset: no limit"),
    ("nic.memory_bandwidth", "\"20GB/s\"", "memory bandwidth for data beyond the cache; unset: no limit"),
    ("packet.max_payload", "\"1920B\"", "largest payload per packet; unset: packet size minus header"),
    ("packaging.block", "[2, 2, 2]", "nodes per package along each axis (links leaving one are optical); unset: all links alike"),
    ("packaging.optical_latency", "\"50ns\"", "latency of optical links; unset: the link latency"),
    ("packaging.loopback_latency", "\"69ns\"", "latency of a ring's wrap link closed inside its block; unset: a board link"),
    ("packaging.loopback_axes", "[\"A\", \"B\"]", "axes whose wrap links close through a loopback; unset: every axis"),
    ("packaging.rack", "[2, 2, 8]", "nodes per rack along each axis: links between blocks become cables laid out on the floor; unset: no layout"),
    ("packaging.racks_per_row", "24", "racks per row on the floor; unset: a square room"),
    ("sim.warmup", "\"5us\"", "warm-up before the window; unset: a quarter of sim.duration"),
    ("sim.drain", "\"80us\"", "longest drain after the window; unset: 4 x sim.duration"),
    ("sim.tie_seed", "7", "seed of the shuffled event order; unset: sim.seed"),
    ("sim.max_memory", "\"8GB\"", "most memory a run may need; unset: the memory available"),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    #[test]
    fn every_optional_key_is_listed_and_its_example_applies() {
        // Every `Option` field of the scenario's sections (the files of this folder hold them
        // all; workload keys live with their workload types) appears in the list.
        // (By name: the routing types share `order`. The routing's keys live in its crate.)
        let fields: std::collections::BTreeSet<&str> = [
            include_str!("mod.rs"),
            include_str!("topology.rs"),
            include_str!("router.rs"),
            include_str!("nic.rs"),
            include_str!("packet.rs"),
            include_str!("packaging.rs"),
            include_str!("sim.rs"),
            include_str!("../../../routing/src/spec.rs"),
        ]
        .iter()
        .flat_map(|text| text.lines())
        .filter_map(|l| l.trim_start().strip_prefix("pub ").filter(|l| l.contains(": Option<")))
        .map(|l| l.split(':').next().unwrap())
        .collect();
        let listed: std::collections::BTreeSet<&str> = OPTIONAL_KEYS.iter().map(|(k, _, _)| k.rsplit('.').next().unwrap()).collect();
        assert_eq!(fields, listed, "a new optional key needs a line in OPTIONAL_KEYS");
        for (key, example, _) in OPTIONAL_KEYS {
            let mut s = Scenario::default();
            // (Zones are a key of adaptive routing.)
            let pre = if *key == "routing.zones" { vec!["routing.type=adaptive".to_string()] } else { vec![] };
            s.apply_overrides(&pre.into_iter().chain([format!("{key}={example}")]).collect::<Vec<_>>()).unwrap_or_else(|e| panic!("{key}: {e}"));
            let leaf = key.rsplit('.').next().unwrap();
            assert!(s.to_toml_string().contains(&format!("{leaf} =")), "{key} does not show once set");
        }
        assert!(Scenario::default_toml_string().contains("# sim.warmup = "));
    }
}

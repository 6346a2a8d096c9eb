//! The keys of routing, hardware and workload types other than the defaults, which `fabricsim default`
//! lists (commented out) after the default scenario.

/// Keys of routing, hardware and workload types other than the defaults: (the `key=value` settings that
/// give a scenario the key, `;`-separated; the key; its default or an example; what it does).
pub const TYPE_KEYS: &[(&str, &str, &str, &str)] = &[
    (
        "routing.type=adaptive;router.vcs=3",
        "routing.escape",
        "\"dateline\"",
        "deadlock avoidance of the escape sub-network: \"dateline\" or \"bubble\"",
    ),
    (
        "routing.type=adaptive;router.vcs=3",
        "routing.blocked",
        "\"wait\"",
        "a packet with no hop free waits for any (\"wait\") or takes the escape hop (\"escape\")",
    ),
    (
        "topology.type=fat_tree;routing.type=up_down",
        "routing.up_port",
        "\"destination\"",
        "up port: \"destination\" (D-mod-k), \"random\" or \"adaptive\"",
    ),
    (
        "hardware.type=tofu_gates",
        "hardware.tnis",
        "1",
        "Tofu barrier gates: TNIs with them (also channels, gates, channel_serial, channel_overlap, relay, int_elements, float_elements, algorithm)",
    ),
    ("hardware.type=tofu_gates", "hardware.algorithm", "\"auto\"", "gate wiring: \"auto\", \"tree\", \"recursive_doubling\" or \"dissemination\""),
    (
        "hardware.type=bgq_class_routes",
        "hardware.routes",
        "16",
        "Blue Gene/Q class routes per node (also inputs, up_delay, down_delay, float_up_delay, float_down_delay, barrier_up_delay, barrier_down_delay)",
    ),
    (
        "topology.type=fat_tree;routing.type=up_down;hardware.type=dawning_switch",
        "hardware.units",
        "[\"barrier\", \"multicast\"]",
        "Dawning switch logic: its units (barrier keys under hardware.barrier, multicast keys under hardware.multicast)",
    ),
    (
        "topology.type=fat_tree;routing.type=up_down;hardware.type=dawning_switch",
        "hardware.barrier.drop",
        "0.0",
        "probability that a switch-barrier packet is lost (also rail, delay, payload, retry_timeout, urge_timeout)",
    ),
    (
        "topology.type=fat_tree;routing.type=up_down;hardware.type=dawning_switch",
        "hardware.multicast.root",
        "\"hlse\"",
        "multicast root switch: \"hlse\", \"random\" or \"fixed\" (also rail, grb, copy_delay, grant_delay)",
    ),
    (
        "workload.type=pingpong",
        "workload.src",
        "[0, 0, 0]",
        "the sending node's coordinates (pingpong, throughput, simultaneous_puts, neighbor_exchange)",
    ),
    ("workload.type=pingpong", "workload.dst", "[3, 0, 0]", "the other end (pingpong, throughput)"),
    ("workload.type=pingpong", "workload.message_size", "\"8B\"", "bytes per message (pingpong, throughput, all_to_all, ...)"),
    ("workload.type=all_to_all", "workload.schedule", "\"shifted\"", "order of the exchange: \"shifted\", \"random\" or \"all_at_once\""),
    (
        "workload.type=neighbor_exchange;workload.src=[0,0,0]",
        "workload.iterations",
        "1",
        "benchmark loop (neighbor_exchange, simultaneous_puts): an iteration posts once the previous one has arrived",
    ),
    (
        "workload.type=neighbor_exchange;workload.src=[0,0,0]",
        "workload.iteration_overhead",
        "\"0ns\"",
        "core time per iteration before its first post (loop control, re-arming reception counters)",
    ),
    (
        "workload.type=neighbor_exchange;workload.src=[0,0,0];hardware.type=bgq_class_routes",
        "workload.iteration_barrier",
        "false",
        "each iteration starts with an in-network barrier of the src node (needs [hardware])",
    ),
    (
        "workload.type=all_to_all;workload.schedule=random",
        "workload.destinations",
        "32",
        "sample the exchange: each node sends to this many translations of itself",
    ),
];

#[cfg(test)]
mod type_keys_tests {
    use super::*;
    use crate::Scenario;

    #[test]
    fn every_type_key_applies_with_its_type_and_is_printed_by_default() {
        let text = Scenario::default_toml_string();
        for (with, key, example, _) in TYPE_KEYS {
            let mut s = Scenario::default();
            s.apply_overrides(&with.split(';').map(str::to_string).collect::<Vec<_>>()).unwrap();
            if with.contains("fat_tree") {
                s.apply_overrides(&["topology.radix=4".into(), "topology.levels=2".into()]).unwrap();
            }
            // A ping-pong needs both ends; the key then overrides one of them or adds to them.
            if with.contains("pingpong") {
                s.apply_overrides(&["workload.src=[0,0,0]".into(), "workload.dst=[3,0,0]".into()]).unwrap();
            }
            s.set(key, example).unwrap_or_else(|e| panic!("{key} = {example} with {with}: {e}"));
            crate::Plan::new(&s).unwrap_or_else(|e| panic!("{key} = {example} with {with}: {e}"));
            assert!(text.contains(&format!("# {key} = {example}")), "{key} not in `fabricsim default`");
        }
    }
}

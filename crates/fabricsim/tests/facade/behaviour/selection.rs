//! The selection policy choosing among equal candidates.

use super::*;

/// Packets ejected at each of node 0's four reception engines (terminal ports), under
/// uniform traffic with the given selection policy.
fn ejections(selection: &str) -> Vec<u64> {
    let mut s = Scenario::default();
    s.set("topology.shape", "[4, 4]").unwrap();
    s.set("nic.injection_engines", "4").unwrap();
    s.set("routing.selection", selection).unwrap();
    s.set("sim.duration", "40us").unwrap();
    let r = Plan::new(&s).unwrap().run().unwrap();
    r.ports.iter().filter(|p| p.router == 0 && p.kind == "terminal").map(|p| p.packets).collect()
}

#[test]
fn the_policy_chosen_decides_among_equal_candidates() {
    // Reception engines are equal candidates with unlimited room: "first" always takes the
    // first, "credit" and "random" spread over all four.
    let first = ejections("first");
    assert_eq!(first.len(), 4);
    assert!(first[0] > 0 && first[1..].iter().all(|&n| n == 0), "{first:?}");
    for policy in ["credit", "random"] {
        let e = ejections(policy);
        let total: u64 = e.iter().sum();
        assert!(total > 20, "{policy}: {e:?}");
        assert!(e.iter().all(|&n| n * 8 > total), "{policy}: {e:?}");
    }
    assert_ne!(ejections("credit"), ejections("random"));
    assert!(Scenario::default().set("routing.selection", "best").unwrap_err().to_string().starts_with("routing.selection"));
}

//! Golden summaries: each `examples/*.toml` has a committed deterministic summary (everything
//! but wall-clock figures). A change in behaviour shows up as a diff here. The event count, a
//! performance figure that a pure optimisation may change, is kept apart in `golden/events/`,
//! so such a change rewrites no behaviour golden. After an intended change, refresh with
//! `UPDATE_GOLDEN=1 cargo test -p fabricsim --test facade golden`.

use fabricsim::{Plan, Scenario};
use std::path::PathBuf;

/// The behaviour summary and, apart, the event count.
fn deterministic_summary(path: &std::path::Path) -> (String, String) {
    let s = Scenario::from_file(path).unwrap();
    let r = Plan::new(&s).unwrap().run().unwrap();
    let mut text: String = r.summary().lines().filter(|l| !l.starts_with("engine")).map(|l| format!("{l}\n")).collect();
    let p = r.packet_latency_ns;
    text.push_str(&format!("packet ns    mean {:.1}  p50 {:.1}  p99 {:.1}  max {:.1}  ({} packets)\n", p.mean, p.p50, p.p99, p.max, p.count));
    text.push_str(&format!("packet hops  {}\n", r.packet_hops));
    (text, format!("events       {}\n", r.events))
}

/// Compare `got` with the golden file `g` (or write it when updating).
fn check(g: &std::path::Path, got: &str, update: bool, what: &str) {
    if update {
        std::fs::create_dir_all(g.parent().unwrap()).unwrap();
        std::fs::write(g, got).unwrap();
    } else {
        let want = std::fs::read_to_string(g).unwrap_or_else(|_| panic!("no golden file {}", g.display()));
        assert_eq!(got, want, "{what} changed ({})", g.display());
    }
}

#[test]
fn examples_match_their_golden_summaries() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let examples = root.join("../../examples");
    let golden = root.join("tests/facade/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&examples).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries.into_iter().filter(|p| p.extension().is_some_and(|x| x == "toml")) {
        let (summary, events) = deterministic_summary(&p);
        let name = p.file_stem().unwrap();
        check(&golden.join(name).with_extension("txt"), &summary, update, "behaviour summary");
        check(&golden.join("events").join(name).with_extension("txt"), &events, update, "event count");
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} examples");
}

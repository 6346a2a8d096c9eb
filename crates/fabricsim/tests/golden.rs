//! Golden summaries: each `examples/*.toml` has a committed deterministic summary (everything
//! but wall-clock figures). A change in behaviour shows up as a diff here. After an intended
//! change, refresh with `UPDATE_GOLDEN=1 cargo test -p fabricsim --test golden`.

use fabricsim::{Plan, Scenario};
use std::path::PathBuf;

fn deterministic_summary(path: &std::path::Path) -> String {
    let s = Scenario::from_file(path).unwrap();
    let r = Plan::new(&s).unwrap().run().unwrap();
    let mut text: String = r.summary().lines().filter(|l| !l.starts_with("engine")).map(|l| format!("{l}\n")).collect();
    let p = r.packet_latency_ns;
    text.push_str(&format!("packet ns    mean {:.1}  p50 {:.1}  p99 {:.1}  max {:.1}  ({} packets)\n", p.mean, p.p50, p.p99, p.max, p.count));
    text.push_str(&format!("events       {}\npacket hops  {}\n", r.events, r.packet_hops));
    text
}

#[test]
fn examples_match_their_golden_summaries() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let examples = root.join("../../examples");
    let golden = root.join("tests/golden");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut checked = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&examples).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries.into_iter().filter(|p| p.extension().is_some_and(|x| x == "toml")) {
        let got = deterministic_summary(&p);
        let g = golden.join(p.file_stem().unwrap()).with_extension("txt");
        if update {
            std::fs::write(&g, &got).unwrap();
        } else {
            let want = std::fs::read_to_string(&g).unwrap_or_else(|_| panic!("no golden file {}", g.display()));
            assert_eq!(got, want, "summary of {} changed", p.display());
        }
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} examples");
}

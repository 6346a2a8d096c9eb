//! Run a built-in machine (a preset) with one key changed, and read its report.
//!
//! `cargo run --release -p fabricsim --example run_preset`

use fabricsim::{Error, Plan, Scenario};

fn main() -> Result<(), Error> {
    // TofuD's preset: a nearest-neighbour Put ping-pong; a longer message than its default.
    let mut s = Scenario::default();
    s.set("machine.preset", "tofud")?;
    s.set("workload.message_size", "4KiB")?;
    let report = Plan::new(&s)?.run()?;
    let one_way = report.workload.one_way_latency_ns.expect("a ping-pong has a one-way latency");
    println!("TofuD, 4 KiB Put ping-pong: {one_way:.1} ns one way, {} events", report.events);
    assert!(one_way > 0.0);
    // The report serialises as `fabricsim run --json` writes it.
    println!("{} nodes; seed {}", report.nodes, report.provenance.seed);
    Ok(())
}

//! A latency-load curve: one run per offered load, as `fabricsim sweep` makes it.
//!
//! `cargo run --release -p fabricsim --example sweep`

use fabricsim::sweep::SweepOptions;
use fabricsim::{Error, Scenario};

fn main() -> Result<(), Error> {
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[4,4]".into(), "sim.duration=5us".into()])?;
    let loads = [0.1, 0.3, 0.5, 0.7, 0.9];
    let curve = fabricsim::sweep(&s, &loads, SweepOptions { seeds: 1, jobs: 0, queues: false }, |_| {})?;
    for p in &curve.points {
        let state = if p.saturated { "saturated" } else { "ok" };
        println!("offered {:.2}  accepted {:.3}  mean latency {:7.1} ns  {state}", p.offered_load, p.accepted_fraction, p.latency_mean_ns);
    }
    match curve.saturation_load {
        Some(l) => println!("saturates at offered load {l}"),
        None => println!("no saturation below {}", loads[loads.len() - 1]),
    }
    Ok(())
}

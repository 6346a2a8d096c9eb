//! Read every router port's counters over the measurement window: the busiest links of a
//! tornado pattern on a ring, and how the load splits by direction.
//!
//! `cargo run --release -p fabricsim --example port_counters`

use fabricsim::{Error, Plan, Scenario};

fn main() -> Result<(), Error> {
    let mut s = Scenario::default();
    s.apply_overrides(&["topology.shape=[8]".into(), "workload.type=tornado".into(), "workload.load=0.3".into(), "sim.duration=5us".into()])?;
    let report = Plan::new(&s)?.run()?;
    let mut network: Vec<_> = report.ports.iter().filter(|p| p.kind == "network").collect();
    network.sort_by(|a, b| b.utilization.total_cmp(&a.utilization));
    for p in network.iter().take(4) {
        println!("router {} port {} ({}): {} bytes, {} packets, utilisation {:.3}", p.router, p.port, p.label, p.bytes, p.packets, p.utilization);
    }
    for d in &report.link_utilization {
        println!("{:>4}: mean {:.3}, max {:.3}", d.label, d.mean, d.max);
    }
    Ok(())
}

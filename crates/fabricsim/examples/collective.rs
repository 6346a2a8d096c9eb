//! Time a collective: a scenario whose workload is an allreduce, by two algorithms.
//!
//! `cargo run --release -p fabricsim --example collective`

use fabricsim::{Error, Plan, Scenario};

fn main() -> Result<(), Error> {
    for algorithm in ["ring", "rabenseifner"] {
        let s = Scenario::from_toml_str(&format!(
            r#"
            [topology]
            shape = [4, 4, 4]
            [workload]
            type = "collective"
            op = "allreduce"
            algorithm = "{algorithm}"
            size = "64KiB"
            "#
        ))?;
        let report = Plan::new(&s)?.run()?;
        let c = report.collective.expect("a collective workload reports its point");
        println!(
            "allreduce of 64 KiB on {} ranks by {algorithm}: {:.2} us, bus bandwidth {:.2} GB/s",
            c.ranks,
            c.time_ns / 1e3,
            c.busbw_gb_per_s.unwrap_or(0.0)
        );
    }
    Ok(())
}

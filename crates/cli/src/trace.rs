//! `fabricsim trace`: GOAL traces (check one and print its statistics).

use clap::Subcommand;
use fabricsim::{ConfigError, Error};
use std::path::PathBuf;

/// What `fabricsim trace` does.
#[derive(Subcommand)]
pub(crate) enum TraceCmd {
    /// Check a GOAL trace (labels, dependency cycles, ranks, matching sends and receives) and
    /// print its statistics: ranks, operations by kind, bytes, the critical path without the
    /// network. Exit 2 naming the line of the first problem.
    Check {
        /// The GOAL file.
        file: PathBuf,
        /// How long one calc unit lasts: a time (1ns) or a clock rate (2.4GHz).
        #[arg(long, value_name = "UNIT", default_value = "1ns")]
        calc_unit: String,
        /// Print the statistics as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Run `cmd`.
pub(crate) fn run(cmd: TraceCmd) -> Result<(), Error> {
    match cmd {
        TraceCmd::Check { file, calc_unit, json } => {
            let unit = fabricsim::trace::CalcUnit::parse(&calc_unit).map_err(|m| ConfigError::new("--calc-unit", m))?;
            let (_, s) = fabricsim::workloads::trace::read(&file, unit).map_err(|m| ConfigError::new("trace", m))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&s).expect("statistics serialise"));
                return Ok(());
            }
            println!("trace          {}", file.display());
            println!("ranks          {}", s.ranks);
            println!("operations     {} ({} sends, {} recvs, {} calcs)", s.sends + s.recvs + s.calcs, s.sends, s.recvs, s.calcs);
            println!("dependencies   {}", s.dependencies);
            println!("bytes sent     {}", s.bytes);
            println!("calc           {} units of {unit}", s.calc_units);
            println!("critical path  {:.3} us without the network", s.critical_path_ps as f64 / 1e6);
            println!("memory         {:.3} MB for the trace (its operations stream from a temporary file)", s.memory_bytes as f64 / 1e6);
            println!("in flight      at most {} operations held at once", s.peak_held_ops);
        }
    }
    Ok(())
}

/// `fabricsim collective --goal-out FILE`: the program of the one point run, as GOAL (its
/// scenario is the point's provenance, so the trace is what ran).
pub(crate) fn goal_out(points: &[fabricsim::collective::CollectivePoint], path: &PathBuf) -> Result<(), Error> {
    let [p] = points else {
        return Err(ConfigError::new("--goal-out", format!("writes one program: {} points ran", points.len())).into());
    };
    let prov = p.provenance.as_ref().ok_or_else(|| ConfigError::new("--goal-out", "the point has no scenario"))?;
    let plan = fabricsim::Plan::new(&fabricsim::Scenario::from_toml_str(&prov.scenario)?)?;
    let mut text = Vec::new();
    fabricsim::trace::write_goal(&plan, fabricsim::trace::CalcUnit::default(), &mut text)?;
    std::fs::write(path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

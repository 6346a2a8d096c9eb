//! `fabricsim allocate`: parse its options and print the library's comparison of allocation
//! policies for a job stream.

use fabricsim::{ConfigError, Error, Plan};
use std::path::PathBuf;

/// Options of `fabricsim allocate`.
#[derive(clap::Args)]
pub(crate) struct AllocateArgs {
    /// Scenario file (TOML); without one, the built-in default scenario. Its torus or mesh is
    /// the machine.
    scenario: Option<PathBuf>,
    /// The stream as CSV lines `arrival,shape,runtime` (seconds; shape as 4x4x2), in arrival
    /// order.
    #[arg(long, value_name = "FILE", conflicts_with = "generate")]
    stream: Option<PathBuf>,
    /// Generate a stream of N jobs instead (see --mean-gap, --mean-runtime, --max-nodes, --seed).
    #[arg(long, value_name = "N")]
    generate: Option<u32>,
    /// Generated stream: mean seconds between arrivals (Poisson).
    #[arg(long, default_value_t = 1.0)]
    mean_gap: f64,
    /// Generated stream: mean runtime, seconds (exponential).
    #[arg(long, default_value_t = 60.0)]
    mean_runtime: f64,
    /// Generated stream: the largest job's nodes (counts log-uniform from 1).
    #[arg(long, default_value_t = 64)]
    max_nodes: u32,
    /// Generated stream: seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Policies (comma-separated): exact, rotate, pad. Default: all three.
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// With the pad policy: boxes of up to this many times the nodes asked for.
    #[arg(long, default_value_t = 1.25)]
    pad: f64,
    /// Write the generated or read stream as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    write_stream: Option<PathBuf>,
    /// Print one JSON row per policy on standard output (the table goes to standard error).
    #[arg(long)]
    json: bool,
    /// Override a key: `--set topology.shape=[8,8,8]` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

/// Run `fabricsim allocate`.
pub(crate) fn run(a: AllocateArgs) -> Result<(), Error> {
    let s = crate::load(&a.scenario, &a.set)?;
    let plan = Plan::new(&s)?;
    crate::check_outputs(&[("--write-stream", &a.write_stream)])?;
    if !(a.pad >= 1.0 && a.pad <= 4.0) {
        return Err(ConfigError::new("--pad", format!("{} must be from 1 to 4", a.pad)).into());
    }
    for (flag, v) in [("--mean-gap", a.mean_gap), ("--mean-runtime", a.mean_runtime)] {
        if !(v.is_finite() && v > 0.0) {
            return Err(ConfigError::new(flag, format!("{v} must be a positive number of seconds")).into());
        }
    }
    let jobs = match (&a.stream, a.generate) {
        (Some(path), None) => fabricsim::allocate::read_stream(&plan, path)?,
        (None, Some(n)) => {
            let dims = fabricsim::allocate::machine(&plan)?.dims().to_vec();
            fabricsim_mapping_stream(&dims, n, &a)
        }
        _ => return Err(ConfigError::new("--stream", "give --stream FILE or --generate N (one of them)").into()),
    };
    if let Some(path) = &a.write_stream {
        let mut text = String::from("arrival,shape,runtime\n");
        for j in &jobs {
            let shape: Vec<String> = j.shape.iter().map(u32::to_string).collect();
            text += &format!("{},{},{}\n", j.arrival, shape.join("x"), j.runtime);
        }
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    }
    let names: Vec<String> = if a.policy.is_empty() { vec!["exact".into(), "rotate".into(), "pad".into()] } else { a.policy.clone() };
    let policies = names.iter().map(|n| Ok((n.clone(), fabricsim::allocate::policy(n, a.pad)?))).collect::<Result<Vec<_>, Error>>()?;
    let rows = fabricsim::allocate::compare(&plan, &jobs, &policies)?;
    let table = fabricsim::allocate::table(&rows);
    if a.json {
        eprint!("{table}");
        println!("{}", serde_json::to_string_pretty(&rows).expect("rows serialise"));
    } else {
        print!("{table}");
    }
    Ok(())
}

/// The generated stream of `a`'s options.
fn fabricsim_mapping_stream(dims: &[u32], n: u32, a: &AllocateArgs) -> Vec<fabricsim::allocate::StreamJob> {
    fabricsim::allocate::generate(dims, n, a.mean_gap, a.mean_runtime, a.max_nodes, a.seed)
}

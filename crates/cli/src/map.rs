//! `fabricsim map`: parse its options and print what the library's mapping methods found.

use fabricsim::map::{AnnealOptions, Format, HostPattern, Method, Objective};
use fabricsim::{ConfigError, Error, Plan};
use std::io::Write;
use std::path::PathBuf;

/// Options of `fabricsim map`.
#[derive(clap::Args)]
pub(crate) struct MapArgs {
    /// Scenario file (TOML); without one, the built-in default scenario. Its network and
    /// routing are what the maps are priced on.
    scenario: Option<PathBuf>,
    /// The pattern as CSV lines `src,dst,bytes` (bytes a count or a size such as 64KiB).
    #[arg(long, value_name = "FILE", required_unless_present = "generate", conflicts_with = "generate")]
    pattern: Option<PathBuf>,
    /// A generated pattern: cg:CLASS:RANKS (NAS CG), halo:AxB[xC]:BYTES, alltoall:RANKS:BYTES or
    /// ring:RANKS:BYTES.
    #[arg(long, value_name = "SPEC")]
    generate: Option<String>,
    /// Methods (repeatable or comma-separated): default, permutations, blocks, vtorus, greedy,
    /// anneal. Default: all of them.
    #[arg(long, value_delimiter = ',')]
    method: Vec<String>,
    /// Most wall-clock time annealing may take, e.g. 60s.
    #[arg(long, value_name = "TIME", default_value = "60s")]
    budget: String,
    /// Moves annealing proposes (0: 2,000 per rank for hop-bytes, 200 for max-link). The map depends only on the seed and this,
    /// unless the budget stops annealing first.
    #[arg(long, value_name = "N", default_value_t = 0)]
    iterations: u64,
    /// What annealing minimises: hop-bytes, or max-link (the busiest link's bytes under the
    /// scenario's routing, the sum of squared link loads as a smooth second term). Also which
    /// map --out writes: the least hop-bytes or the least loaded busiest link.
    #[arg(long, default_value = "hop-bytes")]
    objective: String,
    /// Ranks each node holds: the methods place groups of K consecutive ranks, one group a
    /// node; annealing moves single ranks. Ranks on one node exchange bytes without a link.
    #[arg(long, value_name = "K", default_value_t = 1)]
    ranks_per_node: u32,
    /// Seed of annealing's moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the best map (by --objective) to FILE.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Format of --out: vcoord, mpich, rankfile, slurm or rankmap (fabricsim's --rank-map).
    #[arg(long, default_value = "rankmap")]
    format: String,
    /// Host names for rankfile and slurm: a pattern with {} or {:0N} for the node id.
    #[arg(long, value_name = "PATTERN", default_value = "nid{:05}")]
    hosts: String,
    /// Also run the pattern on the packet-level network under each method's map (every flow
    /// posted at once, each rank done when its bytes have arrived) and report its time.
    #[arg(long)]
    simulate: bool,
    /// Print one JSON row per method on standard output (the table goes to standard error).
    #[arg(long)]
    json: bool,
    /// Override a key: `--set topology.shape=[4,4]` (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

/// Run `fabricsim map`.
pub(crate) fn run(a: MapArgs) -> Result<(), Error> {
    let s = crate::load(&a.scenario, &a.set)?;
    let plan = Plan::new(&s)?;
    let methods = if a.method.is_empty() {
        Method::ALL.to_vec()
    } else {
        a.method.iter().map(|m| Method::parse(m, "--method")).collect::<Result<Vec<_>, _>>()?
    };
    let budget = fabricsim::Time::parse(&a.budget).map_err(|m| ConfigError::new("--budget", m))?;
    let format = Format::parse(&a.format, "--format")?;
    let objective = Objective::parse(&a.objective, "--objective")?;
    let hosts = HostPattern::parse(&a.hosts).map_err(|m| ConfigError::new("--hosts", m))?;
    crate::check_outputs(&[("--out", &a.out)])?;
    let pattern = fabricsim::map::pattern(a.pattern.as_deref(), a.generate.as_deref())?;
    let opts = AnnealOptions {
        seed: a.seed,
        iterations: a.iterations,
        budget: Some(std::time::Duration::from_secs_f64(budget.as_secs_f64())),
        per_node: a.ranks_per_node,
        ..Default::default()
    };
    let mut rows = fabricsim::map::compare(&plan, &pattern, &methods, &opts, objective, |r| eprintln!("{}: {:.2} s", r.method, r.seconds))?;
    if a.simulate {
        fabricsim::map::simulate_rows(&plan, &pattern, &mut rows, |r| {
            eprintln!("{} simulated: {:.3} us", r.method, r.simulated_ns.unwrap_or(0.0) / 1e3)
        })?;
    }
    let mut out: Box<dyn Write> = if a.json { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
    let _ = write!(out, "{}", fabricsim::map::table(&rows));
    if a.json {
        println!("{}", serde_json::to_string_pretty(&rows).expect("rows serialise"));
    }
    if let (Some(path), Some(best)) = (&a.out, fabricsim::map::best(&rows, objective)) {
        fabricsim::map::write_map(&plan, &best.map, format, &hosts, a.ranks_per_node, path)?;
        let _ = writeln!(out, "wrote the {} map to {} ({})", best.method, path.display(), format.name());
    }
    Ok(())
}

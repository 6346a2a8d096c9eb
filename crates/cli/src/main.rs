//! `fabricsim`: thin command-line glue over the `fabricsim` library.
//!
//! Exit codes: 0 success, 1 a run failed (deadlock, conservation), 2 bad input.

use clap::{Parser, Subcommand};
use fabricsim::workloads::{CollectiveSpec, ProgramSpec, WorkloadSpec};
use fabricsim::{Error, Plan, Scenario};
use progress::{progress_bar, Watch};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

mod allocate;
mod info;
mod map;
mod mpi;
mod plot;
mod profile;
mod progress;
mod trace;
mod view;

#[derive(Parser)]
#[command(name = "fabricsim", version, about = "Fast packet-level simulator of supercomputer interconnects")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario (the built-in default when none is given) and print a summary.
    #[command(group = clap::ArgGroup::new("series_out").multiple(true).args(["series", "embed_series", "perfetto"]))]
    Run {
        /// Scenario file (TOML); without one, the built-in default scenario.
        scenario: Option<PathBuf>,
        /// Override a key: `--set topology.shape=[4,4]` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Run on N threads, the network cut into N blocks (`sim.threads`); the results are the
        /// one-thread run's.
        #[arg(long, value_name = "N")]
        threads: Option<u32>,
        /// Write the full report as JSON to FILE ("-" for standard output).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Write each router output's utilisation and packets per interval of simulated time
        /// (the whole run) to FILE: JSON if it ends in .json, Parquet if .parquet, else CSV.
        #[arg(long, value_name = "FILE")]
        series: Option<PathBuf>,
        /// Put the same series into the `--json` report (under `series`, as columns), for
        /// `fabricsim view` and `fabricsim plot timeline`.
        #[arg(long, requires = "json")]
        embed_series: bool,
        /// Write a trace that Perfetto's UI opens (JSON trace events) to FILE: each link's
        /// utilisation per interval as a counter track under its router, the run's phases and a
        /// collective's time per rank as slices.
        #[arg(long, value_name = "FILE")]
        perfetto: Option<PathBuf>,
        /// Meter each output's queue: its length's time integral, mean occupancy and mean wait
        /// (Little's law) per port and VC in the report (docs/profiling.md).
        #[arg(long)]
        queues: bool,
        #[command(flatten)]
        filter: profile::SeriesArgs,
    },
    /// Print the topology analysis of a scenario.
    Info {
        /// Scenario file (TOML); without one, the built-in default scenario.
        scenario: Option<PathBuf>,
        /// Override a key: `--set topology.shape=[4,4]` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also say how a partitioned run would cut the network into N blocks: the bricks or
        /// subtrees, the links cut between them and the lookahead they leave.
        #[arg(long, value_name = "N")]
        partitions: Option<u32>,
    },
    /// Latency-load curve over offered loads, or a benchmark over message sizes.
    #[command(group = clap::ArgGroup::new("series_out").multiple(true).args(["series", "perfetto"]))]
    Sweep {
        /// Scenario file (TOML); without one, the built-in default scenario.
        scenario: Option<PathBuf>,
        /// Comma-separated offered loads or ranges from:to:step, e.g. 0.1,0.2 or 0.05:0.95:0.05
        /// (open-loop workloads).
        #[arg(long, value_delimiter = ',', required_unless_present = "sizes", conflicts_with = "sizes")]
        loads: Vec<String>,
        /// Comma-separated message sizes, e.g. 1KiB,64KiB,1MiB (benchmark workloads).
        #[arg(long, value_delimiter = ',')]
        sizes: Vec<String>,
        /// Runs per load, with seeds seed, seed+1, ...: means and 95% confidence intervals.
        #[arg(long, default_value_t = 1, conflicts_with = "sizes")]
        seeds: u32,
        /// Points run at once (independent runs; the results do not depend on it). Default:
        /// every core; never more threads than points or cores.
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// Override a key: `--set topology.shape=[4,4]` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        #[command(flatten)]
        out: DataOut,
        #[command(flatten)]
        series: profile::PointSeriesArgs,
        /// Meter each run's output queues, as `run --queues` does: each point gets the Little's-law
        /// waits and queued packets (`queues` in the JSON, `queue_*` columns in the CSV).
        #[arg(long)]
        queues: bool,
    },
    /// Time a collective (allreduce, broadcast, ...) with one or more algorithms over buffer
    /// sizes on a scenario's network, or run a program written as text (`--program`).
    #[command(group = clap::ArgGroup::new("series_out").multiple(true).args(["series", "perfetto"]))]
    Collective {
        /// Scenario file (TOML); without one, the built-in default scenario. Its workload is
        /// ignored (its packet size is used).
        scenario: Option<PathBuf>,
        /// The collective: barrier, broadcast, reduce, allgather, reduce_scatter, allreduce,
        /// all_to_all.
        #[arg(long, required_unless_present = "program", conflicts_with = "program")]
        op: Option<String>,
        /// Comma-separated algorithms, or `all` (the default): every one that applies to the
        /// network, its ranks and each size (`hardware` where the network's in-network hardware
        /// does the collective at that size); each one skipped is named on standard error with
        /// why. A named algorithm that does not apply is refused before anything runs.
        #[arg(long, value_delimiter = ',')]
        algorithm: Vec<String>,
        /// Comma-separated buffer sizes per rank, e.g. 8B,1KiB,1MiB.
        #[arg(long, value_delimiter = ',', default_value = "8B")]
        sizes: Vec<String>,
        /// A program to run instead of a collective: one operation per line (see the docs).
        #[arg(long, value_name = "FILE")]
        program: Option<PathBuf>,
        /// Ranks per node (default 1): ranks fill the nodes in order, or the rank map's most
        /// per node.
        #[arg(long, value_name = "N", default_value_t = 1)]
        ranks_per_node: u32,
        /// Node of each rank, one line per rank: coordinates (torus, mesh) or a node id
        /// (fat-tree).
        #[arg(long, value_name = "FILE")]
        rank_map: Option<PathBuf>,
        /// The torus the ranks form for the topology-aware algorithms, e.g. 8,8,8 (default:
        /// the network's torus, with one rank per node in node order).
        #[arg(long, value_delimiter = ',', value_name = "DIMS")]
        grid: Vec<u32>,
        /// One rank per node on the network's virtual torus: axis i threaded with axis i + n/2
        /// (Tofu's XYZABC as a 3D torus of XA, YB, ZC), each virtual step one link.
        #[arg(long, conflicts_with_all = ["rank_map", "grid", "ranks_per_node"])]
        virtual_torus: bool,
        /// Override a key: `--set topology.shape=[4,4]` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        #[command(flatten)]
        out: DataOut,
        #[command(flatten)]
        series: profile::PointSeriesArgs,
        /// Add every router port's counters over the run to the JSON (bytes, packets, busy,
        /// idle and credit-stall time, utilisation; with --queues, the queue fields).
        #[arg(long, requires = "json")]
        ports: bool,
        /// Meter each point's output queues, as `run --queues` does: each point gets the Little's-law
        /// waits and queued packets (`queues` in the JSON, `queue_*` columns in the CSV).
        #[arg(long)]
        queues: bool,
        /// Run beside the scenario's own open-loop traffic (its workload, e.g. uniform_random
        /// at its load), which loads the network for its warm-up before the collective starts.
        #[arg(long)]
        background: bool,
        /// Also write the program run (one algorithm at one size, or `--program`) as a GOAL
        /// trace to FILE, calcs in nanoseconds: `[workload] type = "trace"` replays it.
        #[arg(long, value_name = "FILE")]
        goal_out: Option<PathBuf>,
    },
    /// GOAL traces: `fabricsim trace check FILE`.
    Trace {
        #[command(subcommand)]
        cmd: trace::TraceCmd,
    },
    /// Reproduce the papers' published figures and compare (exit 1 if a row fails).
    Validate {
        /// Write the rows as JSON to FILE ("-" for standard output).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Only this system (e.g. TofuD, BGQ) or validation file stem.
        #[arg(long, value_name = "SYSTEM")]
        only: Option<String>,
        /// Folder of validation files (default: the ones built into fabricsim).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Override a key in every row's scenario after the row's own (e.g.
        /// `--set sim.tie_order=shuffle`); repeatable.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Also check that the validation table of every machine page in DIR (e.g.
        /// docs/machines) is what this run printed for its system (exit 1 naming stale pages).
        #[arg(long, value_name = "DIR", conflicts_with = "update_docs")]
        docs: Option<PathBuf>,
        /// Rewrite the validation table of every machine page in DIR from this run.
        #[arg(long, value_name = "DIR")]
        update_docs: Option<PathBuf>,
    },
    /// Pictures (PNG, SVG) of the JSON outputs: latency-load curves, collective bars, link
    /// heat maps of torus planes, the busiest links over time.
    Plot {
        #[command(subcommand)]
        cmd: plot::PlotCmd,
    },
    /// Write one self-contained HTML page that plays the link utilisation of a run (or two
    /// runs of one network side by side) over time.
    View(view::ViewArgs),
    /// Map a job's ranks onto the network: each method's map priced by hop-bytes and link loads
    /// under the scenario's routing; the best written with --out.
    Map(map::MapArgs),
    /// Schedule a job stream (generated or from CSV) on the scenario's torus first come, first
    /// served with backfilling, under allocation policies (exact shape, rotation, padding):
    /// utilisation, waiting and fragmentation of each.
    Allocate(allocate::AllocateArgs),
    /// Print the default scenario as TOML (a starting point for your own).
    Default,
    /// Print a scenario as it resolves (preset and overrides applied) as TOML.
    Show {
        /// Scenario file (TOML); without one, the built-in default scenario.
        scenario: Option<PathBuf>,
        /// Override a key: `--set topology.shape=[4,4]` (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
    /// List the built-in machine presets, or print one as TOML.
    Presets {
        /// A preset name: print its TOML (with the source of every value).
        name: Option<String>,
    },
}

/// Where results go as data.
#[derive(clap::Args)]
struct DataOut {
    /// Write the results as CSV to FILE ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write the results as JSON to FILE ("-" for standard output).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
}

/// Parse `--sizes`.
fn parse_sizes(sizes: &[String]) -> Result<Vec<fabricsim::Bytes>, Error> {
    sizes.iter().map(|x| fabricsim::Bytes::parse(x).map_err(|m| fabricsim::ConfigError::new("--sizes", m).into())).collect()
}

/// Say so on standard error before a large network is built (see `fabricsim::memory::notice`).
fn announce(s: &Scenario) -> Result<(), Error> {
    if let Some(n) = fabricsim::memory::notice(&fabricsim::memory::footprint(s)?) {
        eprintln!("fabricsim: {n}");
    }
    Ok(())
}

fn load(path: &Option<PathBuf>, set: &[String]) -> Result<Scenario, Error> {
    let mut s = match path {
        Some(p) => Scenario::from_file(p)?,
        None => Scenario::default(),
    };
    s.apply_overrides(set)?;
    for note in s.notes() {
        eprintln!("note: {note}");
    }
    if path.is_none() && s.name.is_none() {
        s.name = Some(if s.machine.preset.is_some() || !set.is_empty() {
            "default scenario with overrides".into()
        } else {
            "default: 8x8x8 torus, uniform random, 40% load".into()
        });
    }
    Ok(s)
}

/// Where the human-readable output goes: standard error when data goes to standard output (a
/// `--json -` or `--csv -`), so a script can parse standard output as it is.
fn human(data_files: &[&Option<PathBuf>]) -> Box<dyn std::io::Write> {
    if data_files.iter().any(|p| p.as_ref().is_some_and(|p| p.as_os_str() == "-")) {
        Box::new(std::io::stderr())
    } else {
        Box::new(std::io::stdout())
    }
}

fn write_out(path: &PathBuf, text: &str) -> Result<(), Error> {
    if path.as_os_str() == "-" {
        println!("{text}");
        Ok(())
    } else {
        std::fs::write(path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
    }
}

/// Refuse, before anything runs, an output file that could not be written: each `(option,
/// path)` ("-" is standard output) must name a file that exists and can be written, or one that
/// can be created (the test file is removed again). A run is not lost to a typo in a path.
fn check_outputs(outputs: &[(&str, &Option<PathBuf>)]) -> Result<(), Error> {
    // Two outputs into one file would write over each other.
    let files: Vec<(&str, &PathBuf)> = outputs.iter().filter_map(|(o, p)| Some((*o, p.as_ref()?))).filter(|(_, p)| p.as_os_str() != "-").collect();
    for (i, (option, path)) in files.iter().enumerate() {
        if let Some((other, _)) = files[..i].iter().find(|(_, q)| same_file(q, path)) {
            let why = format!("'{}' is also the file of {other}: give each output its own file", path.display());
            return Err(fabricsim::ConfigError::new(*option, why).into());
        }
    }
    for (option, path) in outputs {
        let Some(path) = path else { continue };
        if path.as_os_str() == "-" {
            continue;
        }
        let bad = |why: String| Err(fabricsim::ConfigError::new(*option, format!("'{}' cannot be written: {why}", path.display())).into());
        if path.is_dir() {
            return bad("it is a folder".into());
        }
        let tried = if path.exists() {
            std::fs::OpenOptions::new().append(true).open(path).map(drop)
        } else {
            std::fs::OpenOptions::new().write(true).create_new(true).open(path).map(drop).and_then(|_| std::fs::remove_file(path))
        };
        if let Err(e) = tried {
            return bad(e.to_string());
        }
    }
    Ok(())
}

/// Whether two paths name the same file (their folders resolved, when they exist).
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    let resolve = |p: &std::path::Path| {
        let dir = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        (std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()), p.file_name().map(|n| n.to_os_string()))
    };
    resolve(a) == resolve(b)
}

/// A reader that closes early (`fabricsim info | head`) ends the command quietly, as other
/// command-line tools do, instead of with a panic message: printing to a closed standard output
/// fails, and that failure is the only one this hook keeps quiet.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload.downcast_ref::<String>().map(String::as_str).or_else(|| payload.downcast_ref::<&str>().copied()).unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_broken_pipe();
    let cli = Cli::parse();
    // Under `mpirun` (an MPI build), every rank runs this; rank 0 alone prints.
    let ranks = if matches!(cli.cmd, Cmd::Run { .. }) { mpi::Ranks::start() } else { mpi::Ranks::alone() };
    let (code, message) = match run(cli, &ranks) {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Error::Config(e)) => (2, format!("error: {e}")),
        Err(Error::Io(e)) => (2, format!("error: {e}")),
        Err(Error::Sim(e)) => (1, format!("simulation failed: {e}")),
        Err(Error::Failed(e)) => (1, e.to_string()),
    };
    if ranks.prints() {
        eprintln!("{message}");
    }
    ExitCode::from(code)
}

fn run(cli: Cli, ranks: &mpi::Ranks) -> Result<(), Error> {
    match cli.cmd {
        Cmd::Run { scenario, mut set, threads, json, series, embed_series, perfetto, queues, filter } => {
            set.extend(threads.map(|n| format!("sim.threads={n}")));
            let s = load(&scenario, &set)?;
            let plan = Plan { queues, ..Plan::new(&s)? };
            // (Rank 0 alone writes, and checks that it can.)
            if ranks.prints() {
                check_outputs(&[("--json", &json), ("--series", &series), ("--perfetto", &perfetto)])?;
            }
            if ranks.spread() && (series.is_some() || perfetto.is_some()) {
                return Err(fabricsim::ConfigError::new(
                    "mpirun -n",
                    "time series and traces cannot come from a run over MPI ranks yet: run it in one process",
                )
                .into());
            }
            if ranks.prints() {
                announce(&s)?;
            }
            // Open-loop runs know their horizon (the share done and an estimate of the time
            // left); closed ones run until their work is done (the simulated time).
            let horizon = (!plan.closed).then(|| plan.limits.warmup + plan.limits.measure);
            let mut watch = Watch::new(horizon);
            let progress = |t: fabricsim::Time| watch.tick(t);
            let what = profile::SeriesOut { series: &series, embed: embed_series, perfetto: &perfetto, filter };
            let (report, embedded) = if ranks.spread() { (ranks.run(&plan, progress)?, None) } else { profile::run(&plan, what, progress)? };
            watch.finish();
            if !ranks.prints() {
                return Ok(());
            }
            let _ = write!(human(&[&json, &series, &perfetto]), "{}", report.summary());
            if report.packets_delivered == 0 {
                eprintln!(
                    "warning: the run delivered nothing in {:.1} us simulated: check the load, the window (sim.duration) and the link bandwidth against the packet size",
                    report.sim_time_ns / 1e3
                );
            }
            if let Some(p) = json {
                let text = match embedded {
                    None => serde_json::to_string_pretty(&report).expect("report serialises"),
                    Some(columns) => {
                        let mut v = serde_json::to_value(&report).expect("report serialises");
                        v["series"] = serde_json::to_value(columns).expect("series serialises");
                        serde_json::to_string(&v).expect("report serialises")
                    }
                };
                write_out(&p, &text)?;
            }
        }
        Cmd::Info { scenario, set, json, partitions } => {
            let s = load(&scenario, &set)?;
            let mut info = fabricsim::info(&s)?;
            if let Some(n) = partitions {
                info.partition = Some(fabricsim::partition(&s, n, "--partitions")?);
            }
            info::print(&info, json);
        }
        Cmd::Sweep { scenario, sizes, set, jobs, out: DataOut { csv, json }, series, queues, .. } if !sizes.is_empty() => {
            let s = load(&scenario, &set)?;
            let sizes = parse_sizes(&sizes)?;
            check_outputs(&[("--csv", &csv), ("--json", &json)])?;
            let series = series.points()?;
            announce(&s)?;
            let pb = progress_bar(sizes.len() as u64, "sweeping sizes");
            let pts = fabricsim::sweep::sweep_sizes_series(&s, &sizes, jobs, series.as_ref(), queues, |_| {
                if let Some(pb) = &pb {
                    pb.inc(1);
                }
            })?;
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            let mut out = human(&[&csv, &json]);
            let _ = writeln!(out, "{:>12} {:>14} {:>14} {:>14}", "bytes", "GB/s", "latency ns", "completion ns");
            let f = |v: Option<f64>, d: usize| v.map(|x| format!("{x:.d$}")).unwrap_or_else(|| "-".into());
            for p in &pts {
                let _ = writeln!(
                    out,
                    "{:>12} {:>14} {:>14} {:>14}",
                    p.message_bytes,
                    f(p.throughput_gb_per_s, 3),
                    f(p.one_way_latency_ns, 1),
                    f(p.completion_ns, 1)
                );
            }
            if queues {
                let rows: Vec<_> = pts.iter().map(|p| (p.message_bytes.to_string(), p.queues.as_ref())).collect();
                let _ = write!(out, "{}", fabricsim::queues_points::table("bytes", &rows));
            }
            if let Some(p) = csv {
                write_out(&p, &fabricsim::sweep::sizes_csv(&pts))?;
            }
            if let Some(p) = json {
                write_out(&p, &serde_json::to_string_pretty(&pts).expect("sweep serialises"))?;
            }
        }
        Cmd::Sweep { scenario, loads, seeds, jobs, set, out: DataOut { csv, json }, series, queues, .. } => {
            let s = load(&scenario, &set)?;
            let loads = fabricsim::sweep::parse_loads(&loads)?;
            check_outputs(&[("--csv", &csv), ("--json", &json)])?;
            let series = series.points()?;
            announce(&s)?;
            let pb = progress_bar(loads.len() as u64, "sweeping loads");
            let rep = fabricsim::sweep::sweep_series(&s, &loads, fabricsim::sweep::SweepOptions { seeds, jobs, queues }, series.as_ref(), |_| {
                if let Some(pb) = &pb {
                    pb.inc(1);
                }
            })?;
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            let mut out = human(&[&csv, &json]);
            // `expected` is the payload the offered load carries (the packet efficiency times
            // the share of nodes that send): what `accepted` reaches below saturation.
            let _ = writeln!(
                out,
                "{:>8} {:>10} {:>10} {:>12} {:>10} {:>10} {:>10} {:>10}",
                "offered", "expected", "accepted", "mean ns", "p50 ns", "p99 ns", "p99.9 ns", "state"
            );
            for p in &rep.points {
                let state = if p.saturated { "SATURATED" } else { "ok" };
                let ci = |x: Option<f64>, d: usize| x.map(|x| format!(" +-{x:.d$}")).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "{:>8.3} {:>10.4} {:>10.4} {:>12.1} {:>10.1} {:>10.1} {:>10.1} {:>10}{}",
                    p.offered_load,
                    p.expected_fraction,
                    p.accepted_fraction,
                    p.latency_mean_ns,
                    p.latency_p50_ns,
                    p.latency_p99_ns,
                    p.latency_p999_ns,
                    state,
                    if p.runs > 1 {
                        format!("  ({} runs: accepted{}, mean{} ns)", p.runs, ci(p.accepted_fraction_ci95, 4), ci(p.latency_mean_ci95_ns, 1))
                    } else {
                        String::new()
                    }
                );
            }
            // Beside the verdict, what uniform random traffic could reach on this network at most.
            let bound = match s.workload.type_name().as_str() {
                "uniform_random" => format!(" (uniform random bound of the network {:.4})", Plan::new(&s)?.uniform_random_bound()),
                _ => String::new(),
            };
            let _ = match rep.saturation_load {
                Some(l) => writeln!(out, "saturation: first saturated offered load {l}, peak accepted {:.4}{bound}", rep.saturation_throughput),
                None => writeln!(out, "saturation: not reached; peak accepted {:.4}{bound}", rep.saturation_throughput),
            };
            if queues {
                let rows: Vec<_> = rep.points.iter().map(|p| (format!("{:.3}", p.offered_load), p.queues.as_ref())).collect();
                let _ = write!(out, "{}", fabricsim::queues_points::table("offered", &rows));
            }
            if let Some(p) = csv {
                write_out(&p, &rep.to_csv())?;
            }
            if let Some(p) = json {
                write_out(&p, &serde_json::to_string_pretty(&rep).expect("sweep serialises"))?;
            }
        }
        Cmd::Collective {
            scenario,
            op,
            algorithm,
            sizes,
            program,
            ranks_per_node,
            rank_map,
            grid,
            virtual_torus,
            set,
            out: DataOut { csv, json },
            series,
            ports,
            queues,
            background,
            goal_out,
        } => {
            // One scenario per point, run as `fabricsim run` runs it; errors name the options
            // that set its workload's keys.
            let base = load(&scenario, &set)?;
            Plan::new(&base)?;
            let option = |e: Error| fabricsim::workloads::job::rename_field(e, true);
            let back = background.then(|| Box::new(base.workload.clone()));
            let sizes = parse_sizes(&sizes)?;
            check_outputs(&[("--csv", &csv), ("--json", &json), ("--goal-out", &goal_out)])?;
            if program.is_some() && series.any() {
                let flag = if series.series.is_some() { "--series" } else { "--perfetto" };
                let why = "a file per point is for collectives; a program runs once: use `fabricsim run` with a program workload and --series FILE or --perfetto FILE";
                return Err(fabricsim::ConfigError::new(flag, why).into());
            }
            let series = series.points()?;
            announce(&base)?;
            let pts = match (&program, &op) {
                (Some(p), _) => {
                    let workload = WorkloadSpec::Program(ProgramSpec {
                        file: Some(p.clone()),
                        ranks_per_node,
                        rank_map,
                        virtual_torus,
                        background: back,
                        ..Default::default()
                    });
                    let point = Plan { queues, ..Plan::new(&fabricsim::collective::point_scenario(&base, workload)).map_err(option)? };
                    let mut p = fabricsim::collective::run_point(&point, ports, |_| {}).map_err(option)?;
                    p.provenance = Some(fabricsim::report::Provenance::of(&point.scenario));
                    vec![p]
                }
                (None, Some(op)) => {
                    let c = fabricsim::collective::parse_op(op)?;
                    let workload = CollectiveSpec {
                        op: Some(c),
                        ranks_per_node,
                        rank_map,
                        grid: (!grid.is_empty()).then_some(grid),
                        virtual_torus,
                        background: back,
                        ..Default::default()
                    };
                    // What applies is known before anything runs: say what is left out, and why.
                    let selection = fabricsim::collective::select(&base, &workload, &algorithm, &sizes)?;
                    for s in &selection.skipped {
                        eprintln!("{s}");
                    }
                    if goal_out.is_some() && selection.points.len() != 1 {
                        let n = selection.points.len();
                        return Err(fabricsim::ConfigError::new(
                            "--goal-out",
                            format!("writes one program: {n} points would run (name one algorithm and one size)"),
                        )
                        .into());
                    }
                    let pb = progress_bar(selection.points.len() as u64, c.name());
                    let what = fabricsim::collective::Comparison { workload, points: &selection.points, ports, series: series.as_ref(), queues };
                    // Off a terminal, a long comparison says now and then how far it got.
                    let mut lines = Watch::lines_only(None);
                    let (finished, total) = (std::cell::Cell::new(0), selection.points.len());
                    let pts = fabricsim::collective::compare(
                        &base,
                        &what,
                        |t| match &pb {
                            Some(pb) => pb.set_message(format!("{}: simulated {:.1} us", c.name(), t.as_ns_f64() / 1e3)),
                            None => lines.tick_at(&format!("{} point {} of {total}: ", c.name(), finished.get() + 1), t),
                        },
                        |p| {
                            finished.set(finished.get() + 1);
                            if let Some(pb) = &pb {
                                pb.set_message(format!("{}: {} {} B done", c.name(), p.algorithm, p.bytes));
                                pb.inc(1);
                            }
                        },
                    )
                    .map_err(option)?;
                    if let Some(pb) = pb {
                        pb.finish_and_clear();
                    }
                    pts
                }
                (None, None) => unreachable!("clap requires --op or --program"),
            };
            if let Some(path) = &goal_out {
                trace::goal_out(&pts, path).map_err(option)?;
            }
            let _ = write!(human(&[&csv, &json]), "{}", fabricsim::collective::table(&pts));
            if let Some(p) = csv {
                write_out(&p, &fabricsim::collective::to_csv(&pts))?;
            }
            if let Some(p) = json {
                write_out(&p, &serde_json::to_string_pretty(&pts).expect("points serialise"))?;
            }
        }
        Cmd::Trace { cmd } => trace::run(cmd)?,
        Cmd::Validate { json, only, dir, set, docs, update_docs } => {
            check_outputs(&[("--json", &json)])?;
            let pb = progress_bar(0, "validating");
            let rows = fabricsim::validate::validate_with(dir.as_deref(), only.as_deref(), &set, |r| {
                if let Some(pb) = &pb {
                    pb.set_message(format!("validating: {} {}", r.system, r.figure));
                    pb.inc(1);
                }
            })?;
            if let Some(pb) = pb {
                pb.finish_and_clear();
            }
            let _ = write!(human(&[&json]), "{}", fabricsim::validate::table(&rows));
            if let Some(p) = json {
                write_out(&p, &serde_json::to_string_pretty(&rows).expect("rows serialise"))?;
            }
            if let Some(d) = update_docs {
                for p in fabricsim::machine_docs::update(&d, &rows)? {
                    eprintln!("updated {}", p.display());
                }
            }
            if let Some(d) = docs {
                fabricsim::machine_docs::check(&d, &rows)?;
            }
            if rows.iter().any(|r| r.status == "FAIL") {
                return Err(Error::Failed(format!("{} validation rows failed", rows.iter().filter(|r| r.status == "FAIL").count())));
            }
        }
        Cmd::Map(args) => map::run(args)?,
        Cmd::Plot { cmd } => plot::run(cmd)?,
        Cmd::View(args) => view::run(args)?,
        Cmd::Allocate(args) => allocate::run(args)?,
        Cmd::Default => print!("{}", Scenario::default_toml_string()),
        Cmd::Show { scenario, set } => print!("{}", load(&scenario, &set)?.to_toml_string()),
        Cmd::Presets { name: None } => {
            for (name, about, _) in fabricsim::presets::PRESETS {
                println!("{name:<14} {about}");
            }
        }
        Cmd::Presets { name: Some(n) } => match fabricsim::presets::text(&n) {
            Some(t) => print!("{t}"),
            None => return Err(fabricsim::ConfigError::new("preset", format!("'{n}' is not a preset (see `fabricsim presets`)")).into()),
        },
    }
    Ok(())
}

//! `fabricsim plot`: pictures (PNG or SVG) of the command's own JSON outputs, drawn by the
//! `fabricsim-viz` library.

use clap::{Args, Subcommand};
use fabricsim::Error;
use fabricsim_viz::heatmap::{Aggregate, Heatmap, Plane};
use fabricsim_viz::input::{self, read_json, stem};
use fabricsim_viz::{collective_plot::CollectivePlot, render, sweep_plot, timeline::Timeline};
use std::path::PathBuf;

#[derive(Subcommand)]
pub(crate) enum PlotCmd {
    /// Latency-load curves of one or more `sweep --loads ... --json` files on one figure: mean
    /// latency (with its 95% confidence band when the sweep ran several seeds) and p99.
    Sweep {
        /// Sweep JSON files; each is one curve, named by its file name.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        out: Out,
    },
    /// Bars of each algorithm's time at each buffer size, from `collective --json`.
    Collective {
        /// A collective JSON file.
        file: PathBuf,
        #[command(flatten)]
        out: Out,
    },
    /// Link utilisation over the measurement window on a plane of a torus, from `run --json`.
    Heatmap {
        /// A run report (`fabricsim run --json FILE`).
        file: PathBuf,
        /// The plane's axes, across and down: names (X,Y) or indices (0,1).
        #[arg(long, value_delimiter = ',', num_args = 1, default_value = "0,1")]
        axes: Vec<String>,
        /// Fix an axis off the plane at a coordinate, e.g. Z=0 (repeatable); the others are
        /// aggregated.
        #[arg(long, value_name = "AXIS=COORD")]
        fix: Vec<String>,
        /// How axes off the plane that are not fixed are reduced: mean or max.
        #[arg(long, default_value = "mean")]
        aggregate: String,
        /// The utilisation drawn darkest (default: the plane's highest).
        #[arg(long)]
        max: Option<f64>,
        #[command(flatten)]
        out: Out,
    },
    /// Utilisation over time of the busiest links, from `run --series FILE.json` or a run report
    /// with its series (`run --json FILE --embed-series`).
    Timeline {
        /// A series JSON file or a run report with its series.
        file: PathBuf,
        /// How many links (the busiest over the whole series).
        #[arg(long, default_value_t = 6)]
        top: usize,
        #[command(flatten)]
        out: Out,
    },
}

/// Where the picture goes, and its size and title.
#[derive(Args)]
pub(crate) struct Out {
    /// The picture: PNG or SVG by its extension.
    #[arg(long, short = 'o', value_name = "FILE")]
    out: PathBuf,
    /// Width x height in pixels.
    #[arg(long, default_value = "900x560")]
    size: String,
    /// The figure's title (default: from the files).
    #[arg(long)]
    title: Option<String>,
}

fn viz(e: fabricsim_viz::Error) -> Error {
    match e {
        fabricsim_viz::Error::Config(c) => Error::Config(c),
        fabricsim_viz::Error::Io(m) => Error::Io(m),
    }
}

fn size(s: &str) -> Result<(u32, u32), Error> {
    let parsed = s.split_once(['x', 'X']).and_then(|(w, h)| Some((w.trim().parse().ok()?, h.trim().parse().ok()?)));
    parsed.ok_or_else(|| fabricsim::ConfigError::new("--size", format!("'{s}': write WIDTHxHEIGHT in pixels, e.g. 900x560")).into())
}

fn draw(fig: &impl render::Figure, out: &Out) -> Result<(), Error> {
    render::Format::of(&out.out, "--out").map_err(viz)?;
    render::write(fig, &out.out, "--out", size(&out.size)?).map_err(viz)?;
    eprintln!("wrote {}", out.out.display());
    Ok(())
}

fn title(out: &Out, default: impl FnOnce() -> String) -> String {
    out.title.clone().unwrap_or_else(default)
}

fn names(files: &[PathBuf]) -> String {
    files.iter().map(|f| stem(f)).collect::<Vec<_>>().join(", ")
}

pub(crate) fn run(cmd: PlotCmd) -> Result<(), Error> {
    match cmd {
        PlotCmd::Sweep { files, out } => {
            let mut curves = Vec::new();
            for f in &files {
                let points = input::sweep_points(f, &read_json(f).map_err(viz)?).map_err(viz)?;
                curves.push(sweep_plot::Curve { name: stem(f), points });
            }
            let fig = sweep_plot::SweepPlot { title: title(&out, || format!("latency against load: {}", names(&files))), curves };
            draw(&fig, &out)
        }
        PlotCmd::Collective { file, out } => {
            let points = input::collective_points(&file, &read_json(&file).map_err(viz)?).map_err(viz)?;
            let op = points[0].op.clone();
            let fig = CollectivePlot { title: title(&out, || format!("{op}: time by algorithm ({})", stem(&file))), points };
            draw(&fig, &out)
        }
        PlotCmd::Heatmap { file, axes, fix, aggregate, max, out } => {
            let ports = input::run_ports(&file, &read_json(&file).map_err(viz)?).map_err(viz)?;
            if input::torus_axes(&ports).is_none() {
                let why = "the run's ports have no coordinates (a fat-tree?): heat maps draw planes of tori and meshes";
                return Err(fabricsim::ConfigError::new(file.display().to_string(), why).into());
            }
            let [a, b] = <[String; 2]>::try_from(axes.clone())
                .map_err(|_| fabricsim::ConfigError::new("--axes", format!("'{}': name two axes, e.g. X,Y", axes.join(","))))?;
            let fix = fix
                .iter()
                .map(|f| {
                    let bad = || fabricsim::ConfigError::new("--fix", format!("'{f}': write AXIS=COORD, e.g. Z=0"));
                    let (axis, c) = f.split_once('=').ok_or_else(bad)?;
                    Ok((axis.trim().to_string(), c.trim().parse::<u32>().map_err(|_| bad())?))
                })
                .collect::<Result<Vec<_>, fabricsim::ConfigError>>()?;
            let plane = Plane { axes: [a, b], fix, aggregate: Aggregate::parse(&aggregate).map_err(viz)?, max };
            let heading = title(&out, || format!("{}: link utilisation", stem(&file)));
            draw(&Heatmap::new(&heading, &ports, &plane).map_err(viz)?, &out)
        }
        PlotCmd::Timeline { file, top, out } => {
            if top == 0 {
                return Err(fabricsim::ConfigError::new("--top", "0: at least one link").into());
            }
            let v = read_json(&file).map_err(viz)?;
            let series = input::series(&file, &v).map_err(viz)?;
            let ports = if input::is_run(&v) { input::run_ports(&file, &v).map_err(viz)? } else { Vec::new() };
            let coords = |r: u32| ports.iter().find(|p| p.router == r).and_then(|p| p.coords.clone());
            let heading = title(&out, || format!("{}: the {top} busiest links over time", stem(&file)));
            draw(&Timeline::busiest(&heading, &series, top, &coords), &out)
        }
    }
}

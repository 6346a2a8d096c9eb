//! `run`'s series outputs (`--series`, `--embed-series`, `--perfetto`) and the port filters
//! (`--series-ports`, `--series-region`, `--series-busiest`):
//! which run they need, and the glue to `fabricsim-viz`'s Perfetto trace.

use super::write_out;
use fabricsim::report::RunReport;
use fabricsim::series::SeriesColumns;
use fabricsim::series_points::PointSeries;
use fabricsim::series_stream::{PortFilter, SeriesFormat};
use fabricsim::{Error, Plan, Time};
use fabricsim_viz::input;
use std::path::{Path, PathBuf};

/// Which ports a series keeps and its interval (`run`, `sweep`, `collective`).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct SeriesArgs {
    /// Keep only these ports in the series (comma-separated): labels (X+), axes (X: both
    /// directions), `network` or `terminal`.
    #[arg(long, value_delimiter = ',', value_name = "PORTS", requires = "series_out")]
    pub(crate) series_ports: Vec<String>,
    /// Keep only the ports of routers inside a box of torus coordinates (comma-separated, one
    /// item per axis): `X=0..3` (both ends included) or `Y=2`; axes not named are whole.
    #[arg(long, value_delimiter = ',', value_name = "AXIS=LO..HI", requires = "series_out")]
    pub(crate) series_region: Vec<String>,
    /// Keep only the N ports busiest over the whole run (of those the other filters keep).
    /// Needs the series held until the run ends: a .json series, --embed-series or --perfetto.
    #[arg(long, value_name = "N", requires = "series_out")]
    pub(crate) series_busiest: Option<usize>,
    /// Interval of the series, e.g. 100ns.
    #[arg(long, value_name = "TIME", default_value = "100ns", requires = "series_out")]
    pub(crate) interval: String,
}

impl SeriesArgs {
    pub(crate) fn filter(&self) -> PortFilter {
        PortFilter { items: self.series_ports.clone(), region: self.series_region.clone(), busiest: self.series_busiest }
    }

    pub(crate) fn interval(&self) -> Result<Time, Error> {
        Time::parse(&self.interval).map_err(|m| Error::Config(fabricsim::ConfigError::new("--interval", m)))
    }
}

/// Say where a series stopped, when the memory left cut it short.
pub(crate) fn warn_truncated(truncated: Option<f64>, interval: &str) {
    if let Some(t) = truncated {
        eprintln!("warning: --series: the series stops at {:.1} us, all the memory left allows at --interval {interval}", t / 1e3);
    }
}

/// The series outputs asked of a run.
pub(crate) struct SeriesOut<'a> {
    pub(crate) series: &'a Option<PathBuf>,
    pub(crate) embed: bool,
    pub(crate) perfetto: &'a Option<PathBuf>,
    pub(crate) filter: SeriesArgs,
}

/// Run `plan` for the outputs `o` asks: its report, and the series as columns when the report
/// is to carry them (`--embed-series`).
pub(crate) fn run(plan: &Plan, o: SeriesOut<'_>, progress: impl FnMut(Time)) -> Result<(RunReport, Option<SeriesColumns>), Error> {
    let (series, trace, embed_series) = (o.series, o.perfetto, o.embed);
    // A trace draws each rank's operations: the run logs them.
    let logged;
    let plan = if trace.is_some() {
        logged = Plan { op_log: true, ..plan.clone() };
        &logged
    } else {
        plan
    };
    let filter = o.filter.filter();
    let interval = &o.filter.interval;
    if series.is_none() && !embed_series && trace.is_none() {
        return Ok((plan.run_with_progress(progress)?, None));
    }
    // A series file alone is written by the library: streamed as the run goes (memory
    // bounded) for CSV and Parquet, held until the run ends for JSON.
    if let (Some(path), false, None) = (series, embed_series, trace) {
        if path.as_os_str() != "-" {
            let (report, truncated) = plan.run_series_file(o.filter.interval()?, &filter, path, progress)?;
            warn_truncated(truncated, interval);
            return Ok((report, None));
        }
    }
    let (report, rows) = plan.run_with_series_filtered(o.filter.interval()?, &filter, progress)?;
    warn_truncated(rows.truncated_at_ns, interval);
    if let Some(path) = &series {
        if path.as_os_str() == "-" {
            write_out(path, &rows.to_csv())?;
        } else {
            rows.write(path)?;
        }
    }
    if let Some(path) = trace {
        write_out(path, &perfetto(&report, &rows.columns())?)?;
    }
    Ok((report, embed_series.then(|| rows.columns())))
}

/// The trace of a run (see `fabricsim_viz::perfetto`).
pub(crate) fn perfetto(report: &RunReport, columns: &SeriesColumns) -> Result<String, Error> {
    let viz = |e: fabricsim_viz::Error| Error::Io(format!("--perfetto: {e}"));
    let here = Path::new("--perfetto");
    let run = serde_json::to_value(report).expect("report serialises");
    let series = input::series(here, &serde_json::json!({ "series": columns })).map_err(viz)?;
    let ports = input::run_ports(here, &run).map_err(viz)?;
    let ranks = report.collective.as_ref().map(|c| c.rank_done_ns.clone()).unwrap_or_default();
    let ops: Vec<_> = report.collective.iter().flat_map(|c| &c.ops).map(op_slice).collect();
    Ok(fabricsim_viz::perfetto::trace(&run, &series, &ports, &ranks, &ops))
}

/// A program operation as the trace draws it: named by what it did and with whom.
fn op_slice(o: &fabricsim_program::OpSlice) -> fabricsim_viz::perfetto::OpSlice {
    use fabricsim_program::OpKind;
    let name = match (o.kind, o.peer) {
        (OpKind::Send, Some(p)) => format!("send to {p}"),
        (OpKind::Get, Some(p)) => format!("get from {p}"),
        (OpKind::Recv, Some(p)) => format!("recv from {p}"),
        (k, _) => k.name().to_string(),
    };
    let args = serde_json::json!({"op": o.kind.name(), "peer": o.peer, "bytes": o.bytes, "tag": o.tag, "index": o.index});
    fabricsim_viz::perfetto::OpSlice { rank: o.rank, lane: o.lane, name, start_ns: o.start.as_ns_f64(), end_ns: o.end.as_ns_f64(), args }
}

/// `sweep`'s and `collective`'s `--series DIR`: a series file per run.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct PointSeriesArgs {
    /// Write each run's series into folder DIR, one file per run (load{LOAD}-seed{SEED},
    /// size{BYTES}B or {op}-{algorithm}-{BYTES}B, see docs/profiling.md).
    #[arg(long, value_name = "DIR")]
    pub(crate) series: Option<PathBuf>,
    /// Format of those files: csv, json or parquet.
    #[arg(long, value_name = "FORMAT", default_value = "csv", requires = "series_out")]
    series_format: String,
    #[command(flatten)]
    filter: SeriesArgs,
}

impl PointSeriesArgs {
    /// Where the points write their series, if anywhere (the folder is made now).
    pub(crate) fn points(&self) -> Result<Option<PointSeries>, Error> {
        let Some(dir) = &self.series else { return Ok(None) };
        let format = match self.series_format.as_str() {
            "csv" => SeriesFormat::Csv,
            "json" => SeriesFormat::Json,
            "parquet" => SeriesFormat::Parquet,
            other => return Err(fabricsim::ConfigError::new("--series-format", format!("'{other}': use csv, json or parquet")).into()),
        };
        Ok(Some(PointSeries::new(dir.clone(), self.filter.interval()?, self.filter.filter(), format)?))
    }
}

//! `run`'s series outputs (`--series`, `--embed-series`, `--perfetto`) and the port filters
//! (`--series-ports`, `--series-region`, `--series-busiest`):
//! which run they need; and `sweep`'s and `collective`'s `--series DIR` and `--perfetto DIR`.

use super::write_out;
use fabricsim::report::RunReport;
use fabricsim::series::SeriesColumns;
use fabricsim::series_points::PointSeries;
use fabricsim::series_stream::{PortFilter, SeriesFiles, SeriesFormat};
use fabricsim::{Error, Plan, Time};
use std::path::PathBuf;

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
    /// The series is then held until the run ends (the busiest are known only then).
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
    let filter = o.filter.filter();
    let interval = &o.filter.interval;
    if series.is_none() && !embed_series && trace.is_none() {
        return Ok((plan.run_with_progress(progress)?, None));
    }
    let stdout = |p: &Option<PathBuf>| p.as_ref().is_some_and(|p| p.as_os_str() == "-");
    // Files are written by the library, streamed as the run goes (memory bounded); the
    // series is held until the run ends only for the report (`--embed-series`) or for
    // standard output.
    if !embed_series && !stdout(series) && !stdout(trace) {
        let files = SeriesFiles { series: series.as_deref(), trace: trace.as_deref() };
        let (report, truncated) = plan.run_series_files(o.filter.interval()?, &filter, files, progress)?;
        warn_truncated(truncated, interval);
        return Ok((report, None));
    }
    // A trace draws each rank's operations: the run logs them.
    let logged = Plan { op_log: trace.is_some() || plan.op_log, ..plan.clone() };
    let (report, rows) = logged.run_with_series_filtered(o.filter.interval()?, &filter, progress)?;
    warn_truncated(rows.truncated_at_ns, interval);
    if let Some(path) = &series {
        if path.as_os_str() == "-" {
            write_out(path, &rows.to_csv())?;
        } else {
            rows.write(path)?;
        }
    }
    if let Some(path) = trace {
        let mut text = Vec::new();
        rows.write_trace(&mut text, &report, &plan.topology).map_err(|e| Error::Io(format!("--perfetto: {e}")))?;
        write_out(path, &String::from_utf8(text).expect("a trace is UTF-8"))?;
    }
    Ok((report, embed_series.then(|| rows.columns())))
}

/// `sweep`'s and `collective`'s `--series DIR` and `--perfetto DIR`: a file per run.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct PointSeriesArgs {
    /// Write each run's series into folder DIR, one file per run (load{LOAD}-seed{SEED},
    /// size{BYTES}B or {op}-{algorithm}-{BYTES}B, see docs/profiling.md).
    #[arg(long, value_name = "DIR")]
    pub(crate) series: Option<PathBuf>,
    /// Format of those files: csv, json or parquet.
    #[arg(long, value_name = "FORMAT", default_value = "csv", requires = "series")]
    series_format: String,
    /// Write a Perfetto trace of each run into folder DIR (the file names of --series, ending
    /// in .perfetto.json).
    #[arg(long, value_name = "DIR")]
    pub(crate) perfetto: Option<PathBuf>,
    #[command(flatten)]
    filter: SeriesArgs,
}

impl PointSeriesArgs {
    /// Where the points write their series and traces, if anywhere (the folders are made now).
    pub(crate) fn points(&self) -> Result<Option<PointSeries>, Error> {
        let format = match self.series_format.as_str() {
            "csv" => SeriesFormat::Csv,
            "json" => SeriesFormat::Json,
            "parquet" => SeriesFormat::Parquet,
            other => return Err(fabricsim::ConfigError::new("--series-format", format!("'{other}': use csv, json or parquet")).into()),
        };
        let (interval, filter) = (self.filter.interval()?, self.filter.filter());
        let points = match (&self.series, &self.perfetto) {
            (None, None) => return Ok(None),
            (Some(dir), trace) => {
                let p = PointSeries::new(dir.clone(), interval, filter, format)?;
                match trace {
                    Some(t) => p.with_traces(t.clone())?,
                    None => p,
                }
            }
            (None, Some(t)) => PointSeries::traces(t.clone(), interval, filter)?,
        };
        Ok(Some(points))
    }

    /// Whether any file per point is asked for.
    pub(crate) fn any(&self) -> bool {
        self.series.is_some() || self.perfetto.is_some()
    }
}

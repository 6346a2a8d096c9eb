//! `run`'s series outputs (`--series`, `--embed-series`, `--perfetto`, `--series-ports`):
//! which run they need, and the glue to `fabricsim-viz`'s Perfetto trace.

use super::write_out;
use fabricsim::report::RunReport;
use fabricsim::series::SeriesColumns;
use fabricsim::{Error, Plan, Time};
use fabricsim_viz::input;
use std::path::{Path, PathBuf};

/// The series outputs asked of a run.
pub(crate) struct SeriesOut<'a> {
    pub(crate) series: &'a Option<PathBuf>,
    pub(crate) embed: bool,
    pub(crate) perfetto: &'a Option<PathBuf>,
    pub(crate) ports: Vec<String>,
    pub(crate) interval: &'a str,
}

/// Run `plan` for the outputs `o` asks: its report, and the series as columns when the report
/// is to carry them (`--embed-series`).
pub(crate) fn run(plan: &Plan, o: SeriesOut<'_>, progress: impl FnMut(Time)) -> Result<(RunReport, Option<SeriesColumns>), Error> {
    let (series, trace, interval) = (o.series, o.perfetto, o.interval);
    let embed_series = o.embed;
    let mut embedded = None;
    let filter = fabricsim::series_stream::PortFilter { items: o.ports };
    let every = || Time::parse(interval).map_err(|m| Error::Config(fabricsim::ConfigError::new("--interval", m)));
    // A CSV series alone is written as the run goes (memory bounded); the others are
    // held until the run ends.
    let csv_only = series.as_ref().is_some_and(|p| p.extension().is_none_or(|e| e != "json") && p.as_os_str() != "-");
    let report = if series.is_none() && !embed_series && trace.is_none() {
        plan.run_with_progress(progress)?
    } else if csv_only && !embed_series && trace.is_none() {
        let path = series.as_ref().expect("a CSV series");
        let open = || {
            let file = std::fs::File::create(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            Ok(std::io::BufWriter::new(file))
        };
        let (report, truncated) = plan.run_streaming_csv(every()?, &filter, open, progress)?;
        if let Some(t) = truncated {
            eprintln!("warning: --series: the series stops at {:.1} us, all the memory left allows at --interval {interval}", t / 1e3);
        }
        report
    } else {
        filter.check(&plan.port_labels())?;
        let (report, mut rows) = plan.run_with_series(every()?, progress)?;
        rows.retain(&filter);
        if let Some(t) = rows.truncated_at_ns {
            eprintln!("warning: --series: the series stops at {:.1} us, all the memory left allows at --interval {interval}", t / 1e3);
        }
        if let Some(path) = &series {
            let text = if path.extension().is_some_and(|e| e == "json") {
                serde_json::to_string_pretty(&rows).expect("series serialises")
            } else {
                rows.to_csv()
            };
            write_out(path, &text)?;
        }
        if let Some(path) = trace {
            write_out(path, &perfetto(&report, &rows.columns())?)?;
        }
        embedded = embed_series.then(|| rows.columns());
        report
    };
    Ok((report, embedded))
}

/// The trace of a run (see `fabricsim_viz::perfetto`).
pub(crate) fn perfetto(report: &RunReport, columns: &SeriesColumns) -> Result<String, Error> {
    let viz = |e: fabricsim_viz::Error| Error::Io(format!("--perfetto: {e}"));
    let here = Path::new("--perfetto");
    let run = serde_json::to_value(report).expect("report serialises");
    let series = input::series(here, &serde_json::json!({ "series": columns })).map_err(viz)?;
    let ports = input::run_ports(here, &run).map_err(viz)?;
    let ranks = report.collective.as_ref().map(|c| c.rank_done_ns.clone()).unwrap_or_default();
    Ok(fabricsim_viz::perfetto::trace(&run, &series, &ports, &ranks))
}

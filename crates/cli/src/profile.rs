//! Glue from a run's report and series to `fabricsim-viz`'s Perfetto trace.

use fabricsim::report::RunReport;
use fabricsim::series::SeriesColumns;
use fabricsim::Error;
use fabricsim_viz::input;
use std::path::Path;

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

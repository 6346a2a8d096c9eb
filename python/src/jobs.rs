//! The independent runs behind sweeps and collective comparisons, one per call, so that the
//! Python layer can hand them to any executor; and the library's own folding of their results
//! into points and reports, so that the numbers are the CLI's.

use crate::errors::{guard, PyResultExt};
use crate::{json, scenario};
use fabricsim::collective::{self, CollectivePoint};
use fabricsim::sweep::{self, SeedRun, SweepPoint, SweepReport};
use fabricsim::workloads::WorkloadSpec;
use fabricsim::{Bytes, ConfigError, Error, Plan, Scenario};
use pyo3::prelude::*;

/// A JSON value the package itself wrote, read back.
fn parse<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|e| ConfigError::new(what, format!("not the package's own JSON: {e}")).into())
}

/// Offered loads from numbers and `from:to:step` ranges (as `fabricsim sweep --loads`).
#[pyfunction]
fn parse_loads(items: Vec<String>) -> PyResult<Vec<f64>> {
    guard(|| sweep::parse_loads(&items).map_err(|e| rename(e, "--loads", "loads"))).py()
}

/// One run of a load sweep: the scenario at `load` with seed `seed`, as JSON.
#[pyfunction]
#[pyo3(signature = (text, load, seed, base_dir=None))]
fn sweep_run(py: Python<'_>, text: &str, load: f64, seed: u64, base_dir: Option<&str>) -> PyResult<String> {
    py.allow_threads(|| guard(|| Ok(json(&sweep::sweep_run(&scenario(text, base_dir)?, load, seed)?)))).py()
}

/// The point at `load` from its runs' JSON (seeds in order).
#[pyfunction]
fn sweep_point(load: f64, runs: Vec<String>) -> PyResult<String> {
    guard(|| {
        if runs.is_empty() {
            return Err(ConfigError::new("seeds", "0: a point needs at least one run").into());
        }
        let runs = runs.iter().map(|r| parse::<SeedRun>("run", r)).collect::<Result<Vec<_>, _>>()?;
        Ok(json(&sweep::sweep_point(load, &runs)))
    })
    .py()
}

/// The sweep's report (saturation) from its points' JSON, in load order.
#[pyfunction]
fn sweep_report(points: Vec<String>) -> PyResult<String> {
    guard(|| {
        let points = points.iter().map(|p| parse::<SweepPoint>("point", p)).collect::<Result<Vec<_>, _>>()?;
        Ok(json(&SweepReport::of(points)))
    })
    .py()
}

/// One point of a message-size sweep, as JSON.
#[pyfunction]
#[pyo3(signature = (text, size, base_dir=None))]
fn size_point(py: Python<'_>, text: &str, size: &str, base_dir: Option<&str>) -> PyResult<String> {
    py.allow_threads(|| {
        guard(|| {
            let b = Bytes::parse(size).map_err(|m| ConfigError::new("sizes", m))?;
            Ok(json(&sweep::size_point(&scenario(text, base_dir)?, b)?))
        })
    })
    .py()
}

/// The points a comparison runs on the scenario's network at `sizes`: the algorithms named for
/// collective workload `workload` (a TOML `[workload]` table of type `collective`: its operation
/// and placement; `all` or none: every one that applies at each size, as `fabricsim collective`
/// chooses), as (index of the size in `sizes`, algorithm), sizes outermost.
#[pyfunction]
#[pyo3(signature = (text, workload, algorithms, sizes, base_dir=None))]
fn collective_algorithms(
    text: &str,
    workload: &str,
    algorithms: Vec<String>,
    sizes: Vec<String>,
    base_dir: Option<&str>,
) -> PyResult<Vec<(usize, String)>> {
    guard(|| {
        let base = scenario(text, base_dir)?;
        let probe = Scenario::from_toml_str(workload).map_err(|e| rename(e, "workload.op", "op"))?;
        let WorkloadSpec::Collective(spec) = probe.workload else {
            return Err(ConfigError::new("op", "give a collective").into());
        };
        let bytes = sizes.iter().map(|z| Bytes::parse(z).map_err(|m| ConfigError::new("sizes", m))).collect::<Result<Vec<_>, _>>()?;
        let chosen =
            collective::select(&base, &spec, &algorithms, &bytes).map_err(|e| rename(rename(e, "--algorithm", "algorithms"), "--op", "op"))?;
        Ok(chosen.points.into_iter().map(|(b, a)| (bytes.iter().position(|&x| x == b).unwrap_or(0), a)).collect())
    })
    .py()
}

/// One point of a collective comparison: the scenario with the workload of TOML `workload`
/// (a `[workload]` table of type `collective` or `program`) in place of its own, its packet size
/// kept (as `fabricsim collective` runs each point). Returns the point's JSON and each rank's
/// done time.
#[pyfunction]
#[pyo3(signature = (text, workload, ports=false, base_dir=None))]
fn collective_point(py: Python<'_>, text: &str, workload: &str, ports: bool, base_dir: Option<&str>) -> PyResult<(String, String)> {
    py.allow_threads(|| {
        guard(|| {
            let base = scenario(text, base_dir)?;
            let w = Scenario::from_toml_str(workload)?.workload;
            // Paths in the point's workload are read from the current directory.
            let s = collective::point_scenario(&base, w);
            let p: CollectivePoint = collective::run_job(&Plan::new(&s)?, ports, |_| {})?;
            Ok((json(&p), json(&p.rank_done_ns)))
        })
    })
    .py()
}

/// `e` with field `from` (a CLI option) named `to` (the Python argument).
fn rename(e: Error, from: &str, to: &str) -> Error {
    match e {
        Error::Config(mut c) if c.field == from => {
            c.field = to.to_string();
            Error::Config(c)
        }
        other => other,
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_loads, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_point, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_report, m)?)?;
    m.add_function(wrap_pyfunction!(size_point, m)?)?;
    m.add_function(wrap_pyfunction!(collective_algorithms, m)?)?;
    m.add_function(wrap_pyfunction!(collective_point, m)?)?;
    Ok(())
}

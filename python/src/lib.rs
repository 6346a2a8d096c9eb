//! `fabricsim._native`: the native half of the Python package, thin glue over the `fabricsim`
//! library. Scenarios come in as TOML text (with the folder relative paths are read from);
//! results go out as JSON text, which the pure-Python layer turns into dicts and DataFrames.
//! Every call runs under [`guard`]: library errors become the package's exceptions and a panic
//! becomes `fabricsim.InternalError`, never a `PanicException`. Simulations run with the GIL
//! released.

mod convert;
mod errors;
mod jobs;
mod mapping;
mod stepping;

use errors::{guard, PyResultExt};
use fabricsim::{Error, Plan, Scenario, Time};
use pyo3::prelude::*;

/// The scenario of TOML `text`, its relative paths read from `base_dir` (the current
/// directory when `None`).
pub(crate) fn scenario(text: &str, base_dir: Option<&str>) -> Result<Scenario, Error> {
    let mut s = Scenario::from_toml_str(text)?;
    s.set_base_dir(base_dir.map(Into::into).unwrap_or_default());
    Ok(s)
}

/// As JSON text.
pub(crate) fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("reports serialise")
}

/// A progress callback for the library: calls `cb(now_ns, end_ns)` with the GIL taken; the
/// first exception it raises is kept in `failed` (the run cannot be stopped from there).
pub(crate) fn progress<'a>(cb: &'a Option<PyObject>, end_ns: Option<f64>, failed: &'a mut Option<PyErr>) -> impl FnMut(Time) + 'a {
    move |t: Time| {
        if let (Some(cb), None) = (cb, &failed) {
            *failed = Python::with_gil(|py| cb.call1(py, (t.as_ns_f64(), end_ns)).err());
        }
    }
}

/// Where an open-loop run of `plan` ends (warm-up plus window), ns; `None` for a closed one.
pub(crate) fn end_ns(plan: &Plan) -> Option<f64> {
    (!plan.closed).then(|| (plan.limits.warmup + plan.limits.measure).as_ns_f64())
}

/// Parse TOML text into JSON text (a scenario file as written, before it resolves).
#[pyfunction]
fn toml_to_json(text: &str) -> PyResult<String> {
    guard(|| convert::toml_to_json(text)).py()
}

/// JSON text of a table into TOML text; errors name the key path of a value TOML cannot hold.
#[pyfunction]
fn json_to_toml(text: &str) -> PyResult<String> {
    guard(|| convert::json_to_toml(text)).py()
}

/// The scenario as it resolves (preset and defaults filled in), as TOML text.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn resolve(text: &str, base_dir: Option<&str>) -> PyResult<String> {
    guard(|| Ok(scenario(text, base_dir)?.to_toml_string())).py()
}

/// What the scenario's reading noticed: deprecated sections and keys it accepted under their
/// new names (the CLI prints them as `note: ...`).
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn notes(text: &str, base_dir: Option<&str>) -> PyResult<Vec<String>> {
    guard(|| Ok(scenario(text, base_dir)?.notes().to_vec())).py()
}

/// Check a scenario as a run would before simulating (topology, routing, workload, files).
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn check(py: Python<'_>, text: &str, base_dir: Option<&str>) -> PyResult<()> {
    py.allow_threads(|| guard(|| Plan::new(&scenario(text, base_dir)?).map(drop))).py()
}

/// Run a scenario once with the GIL released. Returns (report JSON, summary text, series JSON
/// or None, per-rank done times JSON or None).
#[pyfunction]
#[pyo3(signature = (text, base_dir=None, series=None, progress=None))]
fn run(
    py: Python<'_>,
    text: &str,
    base_dir: Option<&str>,
    series: Option<&str>,
    progress: Option<PyObject>,
) -> PyResult<(String, String, Option<String>, Option<String>)> {
    let mut failed = None;
    let out = py.allow_threads(|| {
        guard(|| {
            let plan = Plan::new(&scenario(text, base_dir)?)?;
            let each = self::progress(&progress, end_ns(&plan), &mut failed);
            let (report, rows) = match series {
                None => (plan.run_with_progress(each)?, None),
                Some(every) => {
                    let every = Time::parse(every).map_err(|m| fabricsim::ConfigError::new("series", m))?;
                    let (r, rows) = plan.run_with_series(every, each)?;
                    (r, Some(json(&rows)))
                }
            };
            let per_rank = report.collective.as_ref().map(|c| json(&c.rank_done_ns));
            Ok((json(&report), report.summary(), rows, per_rank))
        })
    });
    let out = out.py()?;
    match failed {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// `fabricsim info`: the topology analysis as JSON.
#[pyfunction]
#[pyo3(signature = (text, base_dir=None))]
fn info(py: Python<'_>, text: &str, base_dir: Option<&str>) -> PyResult<String> {
    py.allow_threads(|| guard(|| Ok(json(&fabricsim::info(&scenario(text, base_dir)?)?)))).py()
}

/// `fabricsim validate`: the rows as JSON (built-in files, or those of `dir`).
#[pyfunction]
#[pyo3(signature = (only=None, sets=Vec::new(), dir=None))]
fn validate(py: Python<'_>, only: Option<&str>, sets: Vec<String>, dir: Option<&str>) -> PyResult<String> {
    py.allow_threads(|| {
        guard(|| {
            let dir = dir.map(std::path::Path::new);
            Ok(json(&fabricsim::validate::validate_with(dir, only, &sets, |_| {})?))
        })
    })
    .py()
}

/// The default scenario with every key, as TOML (`fabricsim default`).
#[pyfunction]
fn default_toml() -> PyResult<String> {
    guard(|| Ok(Scenario::default_toml_string())).py()
}

/// The built-in presets: (name, description).
#[pyfunction]
fn presets() -> PyResult<Vec<(&'static str, &'static str)>> {
    guard(|| Ok(fabricsim::presets::PRESETS.iter().map(|(n, about, _)| (*n, *about)).collect())).py()
}

/// A preset's TOML text, with the source of each value (None: no such preset).
#[pyfunction]
fn preset_text(name: &str) -> PyResult<Option<&'static str>> {
    guard(|| Ok(fabricsim::presets::text(name))).py()
}

/// Panics under the guard: the test that a panic comes out as `fabricsim.InternalError`.
#[pyfunction]
fn _guard_selftest() -> PyResult<()> {
    guard(|| -> Result<(), Error> { panic!("a deliberate panic") }).py()
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(toml_to_json, m)?)?;
    m.add_function(wrap_pyfunction!(json_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(notes, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(default_toml, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset_text, m)?)?;
    m.add_function(wrap_pyfunction!(_guard_selftest, m)?)?;
    jobs::register(m)?;
    mapping::register(m)?;
    m.add_class::<stepping::Simulation>()?;
    Ok(())
}

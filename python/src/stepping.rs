//! `fabricsim._native.Simulation`: a run taken step by step (the library's
//! `fabricsim::stepping::Stepper`), each step with the GIL released.

use crate::errors::{guard, Caught, PyResultExt};
use crate::{end_ns, json, scenario};
use fabricsim::stepping::Stepper;
use fabricsim::{ConfigError, Error, Plan, Time};
use pyo3::prelude::*;

#[pyclass(module = "fabricsim._native")]
pub(crate) struct Simulation {
    /// `None` once finished.
    run: Option<Stepper>,
    end_ns: Option<f64>,
}

impl Simulation {
    fn stepper(&mut self) -> Result<&mut Stepper, Error> {
        self.run.as_mut().ok_or_else(finished)
    }
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, base_dir=None))]
    fn new(py: Python<'_>, text: &str, base_dir: Option<&str>) -> PyResult<Self> {
        py.allow_threads(|| {
            guard(|| {
                let plan = Plan::new(&scenario(text, base_dir)?)?;
                Ok(Simulation { end_ns: end_ns(&plan), run: Some(plan.start()?) })
            })
        })
        .py()
    }

    /// Simulated time now, ns.
    fn now_ns(&mut self) -> PyResult<f64> {
        guard(|| Ok(self.stepper()?.now().as_ns_f64())).py()
    }

    /// Whether the run has ended.
    fn ended(&mut self) -> PyResult<bool> {
        guard(|| Ok(self.stepper()?.ended())).py()
    }

    /// Run every event up to and including simulated time `t` (e.g. "5us"); returns whether the
    /// run ended.
    fn run_until(&mut self, py: Python<'_>, t: &str) -> PyResult<bool> {
        let run = self.stepper_py()?;
        py.allow_threads(|| guard(|| run.run_until(Time::parse(t).map_err(|m| ConfigError::new("t", m))?))).py()
    }

    /// Run the next instant's events; returns whether the run ended.
    fn step(&mut self, py: Python<'_>) -> PyResult<bool> {
        let run = self.stepper_py()?;
        py.allow_threads(|| guard(|| run.step())).py()
    }

    /// The port counters so far in the measurement window, JSON.
    fn ports(&mut self) -> PyResult<String> {
        guard(|| Ok(json(&self.stepper()?.ports()))).py()
    }

    /// Run to the end: (report JSON, summary text), as `_native.run` gives them.
    #[pyo3(signature = (progress=None))]
    fn finish(&mut self, py: Python<'_>, progress: Option<PyObject>) -> PyResult<(String, String)> {
        let run = self.run.take().ok_or_else(|| PyErr::from(Caught::Library(finished())))?;
        let mut failed = None;
        let end = self.end_ns;
        let out = py.allow_threads(|| {
            guard(|| {
                let report = run.finish(crate::progress(&progress, end, &mut failed))?;
                Ok((json(&report), report.summary()))
            })
        });
        let out = out.py()?;
        failed.map_or(Ok(out), Err)
    }
}

impl Simulation {
    fn stepper_py(&mut self) -> PyResult<&mut Stepper> {
        match self.run.as_mut() {
            Some(r) => Ok(r),
            None => Err(Caught::Library(finished()).into()),
        }
    }
}

fn finished() -> Error {
    ConfigError::new("simulation", "has finished; start a new one").into()
}

//! Library errors as the package's exceptions (defined in `fabricsim/_errors.py`), and the
//! guard that keeps a panic from crossing into Python.

use fabricsim::Error;
use pyo3::prelude::*;

/// Run `f`, turning a panic into an [`Error`] (reported as `fabricsim.InternalError`).
pub(crate) fn guard<T>(f: impl FnOnce() -> Result<T, Error>) -> Result<T, Caught> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(Caught::Library),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(Caught::Panic(what))
        }
    }
}

/// What [`guard`] caught.
#[derive(Debug)]
pub(crate) enum Caught {
    Library(Error),
    Panic(String),
}

impl From<Error> for Caught {
    fn from(e: Error) -> Self {
        Caught::Library(e)
    }
}

/// The package exception `name` with `args`.
fn raise(name: &str, args: impl for<'py> IntoPyObject<'py, Target = pyo3::types::PyTuple>) -> PyErr {
    Python::with_gil(|py| {
        let class = match py.import("fabricsim._errors").and_then(|m| m.getattr(name)) {
            Ok(c) => c,
            Err(e) => return e,
        };
        match class.call1(args) {
            Ok(exc) => PyErr::from_value(exc),
            Err(e) => e,
        }
    })
}

impl From<Caught> for PyErr {
    fn from(c: Caught) -> PyErr {
        match c {
            Caught::Library(Error::Config(e)) => raise("ScenarioError", (e.field, e.message)),
            Caught::Library(Error::Sim(e)) => raise("SimulationError", (e.to_string(),)),
            Caught::Library(Error::Failed(m)) => raise("SimulationError", (m,)),
            Caught::Library(Error::Io(m)) => raise("FileError", (m,)),
            Caught::Panic(m) => raise("InternalError", (format!("fabricsim panicked (a bug; please report it): {m}"),)),
        }
    }
}

/// `.py()`: a guarded result as a Python one.
pub(crate) trait PyResultExt<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> PyResultExt<T> for Result<T, Caught> {
    fn py(self) -> PyResult<T> {
        self.map_err(PyErr::from)
    }
}

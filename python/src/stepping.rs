//! `fabricsim._native.Simulation`: a run taken step by step (the library's
//! `fabricsim::stepping::Stepper`). The run lives on a thread of its own and takes commands over
//! a channel, so a simulation need not be `Send` (its in-network hardware units are trait
//! objects), and Python waits for each command with the GIL released. Dropping the object ends
//! the thread.

use crate::errors::{guard, Caught, PyResultExt};
use crate::{end_ns, json, scenario};
use fabricsim::stepping::Stepper;
use fabricsim::{ConfigError, Error, Plan, Time};
use pyo3::prelude::*;
use std::sync::{mpsc, Mutex};

enum Command {
    Now,
    Ended,
    RunUntil(String),
    Step,
    Ports,
    Finish(Option<PyObject>),
}

enum Reply {
    Started,
    Float(f64),
    Bool(bool),
    Text(String),
    /// The report and summary, and the first exception the progress callback raised.
    Finished((String, String), Option<PyErr>),
}

type Answer = Result<Reply, Caught>;

#[pyclass(module = "fabricsim._native")]
pub(crate) struct Simulation {
    commands: mpsc::Sender<Command>,
    answers: Mutex<mpsc::Receiver<Answer>>,
}

/// The run's thread: start the run of scenario `text`, then answer commands until the
/// `Simulation` is dropped.
fn serve(text: String, base_dir: Option<String>, commands: mpsc::Receiver<Command>, answers: mpsc::Sender<Answer>) {
    let started = guard(|| {
        let plan = Plan::new(&scenario(&text, base_dir.as_deref())?)?;
        Ok((end_ns(&plan), plan.start()?))
    });
    let (end, mut run) = match started {
        Ok((end, run)) => (end, Some(run)),
        Err(e) => {
            let _ = answers.send(Err(e));
            return;
        }
    };
    if answers.send(Ok(Reply::Started)).is_err() {
        return;
    }
    for c in commands {
        let answer = match (c, run.as_mut()) {
            (_, None) => Err(Caught::Library(finished())),
            (Command::Now, Some(r)) => Ok(Reply::Float(r.now().as_ns_f64())),
            (Command::Ended, Some(r)) => Ok(Reply::Bool(r.ended())),
            (Command::RunUntil(t), Some(r)) => guard(|| r.run_until(Time::parse(&t).map_err(|m| ConfigError::new("t", m))?)).map(Reply::Bool),
            (Command::Step, Some(r)) => guard(|| r.step()).map(Reply::Bool),
            (Command::Ports, Some(r)) => guard(|| Ok(json(&r.ports()))).map(Reply::Text),
            (Command::Finish(progress), Some(_)) => {
                let r: Stepper = run.take().expect("matched Some");
                let mut failed = None;
                let out = guard(|| {
                    let report = r.finish(crate::progress(&progress, end, &mut failed))?;
                    Ok((json(&report), report.summary()))
                });
                out.map(|out| Reply::Finished(out, failed))
            }
        };
        if answers.send(answer).is_err() {
            return;
        }
    }
}

fn finished() -> Error {
    ConfigError::new("simulation", "has finished; start a new one").into()
}

/// The run's thread is gone (it cannot be, short of a bug).
fn gone() -> Caught {
    Caught::Panic("the simulation's thread stopped".into())
}

impl Simulation {
    /// Send `c` to the run's thread and wait for its answer with the GIL released.
    fn call(&self, py: Python<'_>, c: Command) -> PyResult<Reply> {
        py.allow_threads(|| {
            self.commands.send(c).map_err(|_| gone())?;
            self.answers.lock().map_err(|_| gone())?.recv().map_err(|_| gone())?
        })
        .py()
    }
}

/// What a command answers that it should not (a bug).
fn unexpected() -> PyErr {
    Caught::Panic("the simulation's thread answered out of turn".into()).into()
}

#[pymethods]
impl Simulation {
    #[new]
    #[pyo3(signature = (text, base_dir=None))]
    fn new(py: Python<'_>, text: String, base_dir: Option<String>) -> PyResult<Self> {
        let (commands, inbox) = mpsc::channel();
        let (outbox, answers) = mpsc::channel();
        std::thread::Builder::new()
            .name("fabricsim-simulation".into())
            .spawn(move || serve(text, base_dir, inbox, outbox))
            .map_err(|e| PyErr::from(Caught::Library(Error::Io(format!("cannot start the simulation's thread: {e}")))))?;
        let sim = Simulation { commands, answers: Mutex::new(answers) };
        // The start's answer: the scenario's errors come here.
        py.allow_threads(|| sim.answers.lock().map_err(|_| gone())?.recv().map_err(|_| gone())?).py()?;
        Ok(sim)
    }

    /// Simulated time now, ns.
    fn now_ns(&self, py: Python<'_>) -> PyResult<f64> {
        match self.call(py, Command::Now)? {
            Reply::Float(t) => Ok(t),
            _ => Err(unexpected()),
        }
    }

    /// Whether the run has ended.
    fn ended(&self, py: Python<'_>) -> PyResult<bool> {
        match self.call(py, Command::Ended)? {
            Reply::Bool(b) => Ok(b),
            _ => Err(unexpected()),
        }
    }

    /// Run every event up to and including simulated time `t` (e.g. "5us"); returns whether the
    /// run ended.
    fn run_until(&self, py: Python<'_>, t: String) -> PyResult<bool> {
        match self.call(py, Command::RunUntil(t))? {
            Reply::Bool(b) => Ok(b),
            _ => Err(unexpected()),
        }
    }

    /// Run the next instant's events; returns whether the run ended.
    fn step(&self, py: Python<'_>) -> PyResult<bool> {
        match self.call(py, Command::Step)? {
            Reply::Bool(b) => Ok(b),
            _ => Err(unexpected()),
        }
    }

    /// The port counters so far in the measurement window, JSON.
    fn ports(&self, py: Python<'_>) -> PyResult<String> {
        match self.call(py, Command::Ports)? {
            Reply::Text(t) => Ok(t),
            _ => Err(unexpected()),
        }
    }

    /// Run to the end: (report JSON, summary text), as `_native.run` gives them.
    #[pyo3(signature = (progress=None))]
    fn finish(&self, py: Python<'_>, progress: Option<PyObject>) -> PyResult<(String, String)> {
        match self.call(py, Command::Finish(progress))? {
            Reply::Finished(out, None) => Ok(out),
            Reply::Finished(_, Some(e)) => Err(e),
            _ => Err(unexpected()),
        }
    }
}

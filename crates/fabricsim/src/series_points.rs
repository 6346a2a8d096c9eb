//! Series and traces of the points of a sweep or a collective comparison (`sweep ... --series
//! DIR`, `--perfetto DIR`, and the same for `collective`): one file per run in a folder, each
//! written as [`Plan::run_series_files`] writes `run --series`'s and `run --perfetto`'s, so a
//! point's file is the one of the same scenario run alone.
//!
//! File names: `load{LOAD}-seed{SEED}` for a load sweep (the load as given, `load0.3-seed1`),
//! `size{BYTES}B` for a size sweep and `{op}-{algorithm}-{BYTES}B` for a comparison, with the
//! series format's extension (`.csv` unless another format is asked for) or, for a trace,
//! `.perfetto.json`.

use crate::series_stream::{PortFilter, SeriesFiles, SeriesFormat};
use crate::{Error, Plan, RunReport};
use fabricsim_core::{ConfigError, Time};
use std::path::{Path, PathBuf};

/// Where and how each point writes its series and its trace.
#[derive(Debug, Clone)]
pub struct PointSeries {
    /// The folder of the series files (made when missing), if they are asked for.
    pub dir: Option<PathBuf>,
    /// The folder of the Perfetto traces, if they are asked for.
    pub trace_dir: Option<PathBuf>,
    pub interval: Time,
    pub filter: PortFilter,
    pub format: SeriesFormat,
}

/// `dir` made when missing (so a bad folder is refused before anything runs), named by `flag`.
fn folder(dir: &Path, flag: &str) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Io(format!("{flag}: {}: {e}", dir.display())))?;
    if !dir.is_dir() {
        return Err(ConfigError::new(flag, format!("{}: not a folder", dir.display())).into());
    }
    Ok(())
}

impl PointSeries {
    /// Points writing `format` files of `interval` into `dir` (made here, so a bad folder is
    /// refused before anything runs).
    pub fn new(dir: PathBuf, interval: Time, filter: PortFilter, format: SeriesFormat) -> Result<Self, Error> {
        folder(&dir, "--series")?;
        Ok(PointSeries { dir: Some(dir), trace_dir: None, interval, filter, format })
    }

    /// Points writing only Perfetto traces into `dir` (see [`PointSeries::with_traces`]).
    pub fn traces(dir: PathBuf, interval: Time, filter: PortFilter) -> Result<Self, Error> {
        folder(&dir, "--perfetto")?;
        Ok(PointSeries { dir: None, trace_dir: Some(dir), interval, filter, format: SeriesFormat::Csv })
    }

    /// The same points writing a Perfetto trace each into `dir` too (made here).
    pub fn with_traces(self, dir: PathBuf) -> Result<Self, Error> {
        folder(&dir, "--perfetto")?;
        Ok(PointSeries { trace_dir: Some(dir), ..self })
    }

    /// The series file of the point named `stem`, if series are asked for.
    pub fn path(&self, stem: &str) -> Option<PathBuf> {
        let ext = match self.format {
            SeriesFormat::Csv => "csv",
            SeriesFormat::Json => "json",
            SeriesFormat::Parquet => "parquet",
        };
        Some(self.dir.as_ref()?.join(format!("{stem}.{ext}")))
    }

    /// The trace of the point named `stem`, if traces are asked for.
    pub fn trace_path(&self, stem: &str) -> Option<PathBuf> {
        Some(self.trace_dir.as_ref()?.join(format!("{stem}.perfetto.json")))
    }

    /// Run `plan` writing its series and trace to the files of `stem` (a warning on standard
    /// error when memory cut the series short, as `run` gives).
    pub fn run(&self, plan: &Plan, stem: &str, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        let (series, trace) = (self.path(stem), self.trace_path(stem));
        let files = SeriesFiles { series: series.as_deref(), trace: trace.as_deref() };
        let (report, truncated) = plan.run_series_files(self.interval, &self.filter, files, progress)?;
        if let Some(t) = truncated {
            let name = series.or(trace).unwrap_or_default();
            eprintln!("warning: --series: {} stops at {:.1} us, all the memory left allows", name.display(), t / 1e3);
        }
        Ok(report)
    }
}

/// The file stem of a load sweep's run at `load` with `seed`.
pub fn load_stem(load: f64, seed: u64) -> String {
    format!("load{load}-seed{seed}")
}

/// The file stem of a size sweep's point of `bytes`.
pub fn size_stem(bytes: u64) -> String {
    format!("size{bytes}B")
}

/// The file stem of a comparison's point.
pub fn collective_stem(op: &str, algorithm: &str, bytes: u64) -> String {
    format!("{op}-{algorithm}-{bytes}B")
}

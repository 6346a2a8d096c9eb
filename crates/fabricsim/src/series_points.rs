//! Series of the points of a sweep or a collective comparison (`sweep ... --series DIR`,
//! `collective ... --series DIR`): one file per run in a folder, each written as
//! [`Plan::run_series_file`] writes `run --series`'s, so a point's file is the series of the
//! same scenario run alone.
//!
//! File names: `load{LOAD}-seed{SEED}` for a load sweep (the load as given, `load0.3-seed1`),
//! `size{BYTES}B` for a size sweep and `{op}-{algorithm}-{BYTES}B` for a comparison, with the
//! format's extension (`.csv` unless another format is asked for).

use crate::series_stream::{PortFilter, SeriesFormat};
use crate::{Error, Plan, RunReport};
use fabricsim_core::{ConfigError, Time};
use std::path::PathBuf;

/// Where and how each point writes its series.
#[derive(Debug, Clone)]
pub struct PointSeries {
    /// The folder (created when missing).
    pub dir: PathBuf,
    pub interval: Time,
    pub filter: PortFilter,
    pub format: SeriesFormat,
}

impl PointSeries {
    /// Points writing `format` files of `interval` into `dir` (made here, so a bad folder is
    /// refused before anything runs).
    pub fn new(dir: PathBuf, interval: Time, filter: PortFilter, format: SeriesFormat) -> Result<Self, Error> {
        std::fs::create_dir_all(&dir).map_err(|e| Error::Io(format!("--series: {}: {e}", dir.display())))?;
        if !dir.is_dir() {
            return Err(ConfigError::new("--series", format!("{}: not a folder", dir.display())).into());
        }
        Ok(PointSeries { dir, interval, filter, format })
    }

    /// The file of the point named `stem`.
    pub fn path(&self, stem: &str) -> PathBuf {
        let ext = match self.format {
            SeriesFormat::Csv => "csv",
            SeriesFormat::Json => "json",
            SeriesFormat::Parquet => "parquet",
        };
        self.dir.join(format!("{stem}.{ext}"))
    }

    /// Run `plan` writing its series to the file of `stem` (a warning on standard error when
    /// memory cut the series short, as `run` gives).
    pub fn run(&self, plan: &Plan, stem: &str, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        let path = self.path(stem);
        let (report, truncated) = plan.run_series_file(self.interval, &self.filter, &path, progress)?;
        if let Some(t) = truncated {
            eprintln!("warning: --series: {} stops at {:.1} us, all the memory left allows", path.display(), t / 1e3);
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

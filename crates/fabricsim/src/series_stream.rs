//! A run's per-port series written to files as the run goes (`run --series FILE` as CSV, JSON
//! or Parquet, `run --perfetto FILE`): memory holds the few intervals that transmissions in
//! progress overlap, not the whole run. [`Plan::run_series_files`] writes any of them in one
//! run (used by `run`, `sweep` and `collective`); only `--series-busiest`, whose ports are
//! known when the run ends, holds the series until then.

use crate::perfetto::TraceCounters;
use crate::series::SeriesReport;
use crate::series_filter::SeriesPortInfo;
use crate::{Error, Plan, RunReport};
use fabricsim_core::{ConfigError, Time};
use fabricsim_stats::{PortCount, SeriesSink, StreamSeries};
use std::io::Write;
use std::path::Path;

pub use crate::series_filter::PortFilter;

/// A file format a series is written in, row by row (one row per kept port and interval).
pub(crate) trait RowWriter {
    /// The rows of one interval starting at `t_ns`: each kept port's busy fraction and packets.
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()>;
    /// The end of the series (a file with no rows still gets its header or schema), and where
    /// it stops when memory cut it short.
    fn finish(&mut self, truncated_at_ns: Option<f64>) -> std::io::Result<()>;
}

/// Several writers fed the same rows (a series file and a trace from one run).
impl RowWriter for Vec<Box<dyn RowWriter + Send>> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        if let [one] = self.as_mut_slice() {
            return one.rows(t_ns, ports, utilization, packets);
        }
        let u: Vec<f64> = utilization.collect();
        for w in self.iter_mut() {
            w.rows(t_ns, ports, &mut u.iter().copied(), packets)?;
        }
        Ok(())
    }

    fn finish(&mut self, truncated_at_ns: Option<f64>) -> std::io::Result<()> {
        // Every writer is finished, even after one failed; the first failure is returned.
        let mut first = Ok(());
        for w in self.iter_mut() {
            let r = w.finish(truncated_at_ns);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

/// The files a run's series goes to (any of them, or none).
#[derive(Debug, Clone, Copy, Default)]
pub struct SeriesFiles<'a> {
    /// The series, as CSV, JSON or Parquet by the extension ([`SeriesFormat`]).
    pub series: Option<&'a Path>,
    /// A Perfetto trace ([`crate::perfetto`]).
    pub trace: Option<&'a Path>,
}

/// The file formats of a series, by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesFormat {
    Csv,
    Json,
    Parquet,
}

impl SeriesFormat {
    /// The format's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            SeriesFormat::Csv => "CSV",
            SeriesFormat::Json => "JSON",
            SeriesFormat::Parquet => "Parquet",
        }
    }

    /// `.json`: JSON rows; `.parquet`: Parquet; anything else (and standard output): CSV.
    pub fn of(path: &Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => SeriesFormat::Json,
            Some("parquet") => SeriesFormat::Parquet,
            _ => SeriesFormat::Csv,
        }
    }
}

impl Plan {
    /// Run once, writing the series to `files` (see [`SeriesFiles`]), each streamed as the run
    /// goes; with `--series-busiest` the series is held until the run ends, when the busiest
    /// ports are known, and written then. Returns the report and where the series stops, ns,
    /// when memory cut it short.
    pub fn run_series_files(
        &self,
        interval: Time,
        filter: &PortFilter,
        files: SeriesFiles<'_>,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        // A trace draws each rank's operations: the run logs them.
        let logged;
        let plan = match files.trace {
            Some(_) if !self.op_log => {
                logged = Plan { op_log: true, ..self.clone() };
                &logged
            }
            _ => self,
        };
        if let (Some(a), Some(b)) = (files.series, files.trace) {
            if a == b {
                return Err(ConfigError::new("--perfetto", format!("'{}' is also the series' file: give each its own", b.display())).into());
            }
        }
        if filter.busiest.is_some() {
            let (report, rows) = plan.run_with_series_filtered(interval, filter, progress)?;
            if let Some(path) = files.series {
                rows.write(path)?;
            }
            if let Some(path) = files.trace {
                let out = create(path)?;
                rows.write_trace(out, &report, &plan.topology).map_err(io_at(path))?;
            }
            return Ok((report, rows.truncated_at_ns));
        }
        // Written beside their names and renamed once the run has ended well, so a run that
        // fails leaves no half-written file (and an older file of that name as it was).
        let (series, trace) = (files.series.map(partial), files.trace.map(partial));
        let mut writers: Vec<Box<dyn RowWriter + Send>> = Vec::new();
        let opened = |kept: &[SeriesPortInfo]| -> Result<Vec<Box<dyn RowWriter + Send>>, Error> {
            if let (Some(path), Some(tmp)) = (files.series, &series) {
                let format = SeriesFormat::of(path);
                crate::series_disk::check_disk(plan, interval, kept, format, path)?;
                writers.push(row_writer(format, create(tmp)?, interval.as_ns_f64())?);
            }
            if let Some(tmp) = &trace {
                writers.push(Box::new(TraceCounters::new(create(tmp)?, interval.as_ns_f64(), plan.topology.clone())));
            }
            Ok(writers)
        };
        // A write that failed (a full disk) stops the run, and the error names the files.
        let names = [files.series, files.trace].iter().flatten().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" and ");
        let ran = plan.run_streaming(interval, filter, &names, opened, progress);
        let ran = ran.and_then(|(report, truncated)| {
            if let Some(tmp) = &trace {
                // (Named as the file asked for: the partial one is removed when this fails.)
                let path = files.trace.unwrap_or(tmp);
                let file = std::fs::OpenOptions::new().append(true).open(tmp).map_err(io_at(path))?;
                crate::perfetto::write_tail(&mut std::io::BufWriter::new(file), &report).map_err(io_at(path))?;
            }
            Ok((report, truncated))
        });
        for (tmp, path) in [(&series, files.series), (&trace, files.trace)] {
            let (Some(tmp), Some(path)) = (tmp, path) else { continue };
            if ran.is_ok() {
                std::fs::rename(tmp, path).map_err(io_at(path))?;
            } else {
                let _ = std::fs::remove_file(tmp);
            }
        }
        ran
    }

    /// Run once, streaming the kept ports' rows into the writer `open` makes of them. A write
    /// that fails stops the run at its next check (within a few thousand events), and the
    /// error names `files`, what the writer writes to.
    pub(crate) fn run_streaming<R: RowWriter>(
        &self,
        interval: Time,
        filter: &PortFilter,
        files: &str,
        open: impl FnOnce(&[SeriesPortInfo]) -> Result<R, Error>,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        let g = self.build_graph();
        let ports = filter.select(&self.topology, &g)?;
        if let Some(n) = filter.busiest {
            let why = format!("{n}: the busiest ports are known only when the run ends; use Plan::run_series_files, which holds such a series");
            return Err(ConfigError::new("--series-busiest", why).into());
        }
        // Memory holds the intervals hops in progress span, not the run: the ring may take
        // what is left beside the network, and the file grows with the run.
        crate::series::check_interval(self, interval)?;
        let (left, _) = crate::series::memory_left(self)?;
        let sink = Streamed { out: open(&ports)?, interval_ps: interval.ps(), ports, failed: None };
        let series = StreamSeries::new(g.total_ports() as usize, interval, sink).map_err(|m| ConfigError::new("--interval", m))?;
        let series = series.with_max_bytes(left.min(usize::MAX as u64) as usize);
        let failed = |e: &dyn std::fmt::Display| Error::Io(format!("{files}: writing the series: {e}"));
        let ran = self.run_observed(series, progress, |s, _| {
            s.finish();
            let truncated = s.truncated().then(|| (s.intervals() as u64 * interval.ps()) as f64 / 1e3);
            (s.with_sink(|k| k.close(truncated)), truncated)
        });
        match ran {
            Err(Error::Sim(fabricsim_core::SimError::Observer(e))) => Err(failed(&e)),
            Err(e) => Err(e),
            Ok((_, (Some(e), _))) => Err(failed(&e)),
            Ok((report, (None, truncated))) => Ok((report, truncated)),
        }
    }
}

/// An I/O error at `path`, naming it.
fn io_at(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |e| Error::Io(format!("{}: {e}", path.display()))
}

/// Where a file is written until the run has ended well: its name with `.partial` added.
fn partial(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    name.into()
}

/// `path` made (or emptied) for writing.
fn create(path: &Path) -> Result<std::io::BufWriter<std::fs::File>, Error> {
    std::fs::File::create(path).map(std::io::BufWriter::new).map_err(io_at(path))
}

/// The writer of a series in `format`, into `out`.
fn row_writer<W: Write + Send + 'static>(format: SeriesFormat, out: W, interval_ns: f64) -> Result<Box<dyn RowWriter + Send>, Error> {
    Ok(match format {
        SeriesFormat::Csv => Box::new(crate::series_csv::CsvRows::new(out)),
        SeriesFormat::Json => Box::new(crate::series_json::JsonRows::new(out, interval_ns)),
        SeriesFormat::Parquet => Box::new(crate::series_parquet::ParquetRows::new(out)?),
    })
}

impl SeriesReport {
    /// Write the series to `path`: JSON, CSV or Parquet by its extension ([`SeriesFormat`]),
    /// the same file the series streamed as the run goes gives.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let mut w = row_writer(SeriesFormat::of(path), create(path)?, self.interval_ns)?;
        self.replay(w.as_mut()).map_err(io_at(path))
    }

    /// The series as a Perfetto trace of `report`'s run on `topology` ([`crate::perfetto`]).
    pub fn write_trace(&self, out: impl Write, report: &RunReport, topology: &fabricsim_topology::Topology) -> std::io::Result<()> {
        let mut w = TraceCounters::new(out, self.interval_ns, topology.clone());
        self.replay(&mut w)?;
        crate::perfetto::write_tail(&mut w.into_inner(), report)
    }

    /// The series as CSV text, the file [`SeriesReport::write`] makes of a `.csv` path.
    pub fn to_csv(&self) -> String {
        let mut w = crate::series_csv::CsvRows::new(Vec::new());
        self.replay(&mut w).expect("writing into memory");
        String::from_utf8(w.into_inner()).expect("the rows are UTF-8")
    }

    /// Feed the rows to `w` interval by interval, as a run feeds a streamed series.
    fn replay(&self, w: &mut dyn RowWriter) -> std::io::Result<()> {
        let per_interval = self.rows.iter().take_while(|r| r.t_ns == self.rows[0].t_ns).count().max(1);
        for chunk in self.rows.chunks(per_interval) {
            let ports: Vec<SeriesPortInfo> = chunk
                .iter()
                .enumerate()
                .map(|(global, r)| SeriesPortInfo { global, kind: r.kind, router: r.router, local: r.port, label: r.label.clone() })
                .collect();
            let packets: Vec<u32> = chunk.iter().map(|r| r.packets).collect();
            w.rows(chunk[0].t_ns, &ports, &mut chunk.iter().map(|r| r.utilization), &packets)?;
        }
        w.finish(self.truncated_at_ns)
    }
}

/// A [`SeriesSink`] that hands each finished interval's kept rows to a [`RowWriter`].
struct Streamed<R: RowWriter> {
    out: R,
    interval_ps: u64,
    /// The kept ports, in port order.
    ports: Vec<SeriesPortInfo>,
    failed: Option<std::io::Error>,
}

impl<R: RowWriter> Streamed<R> {
    fn close(&mut self, truncated_at_ns: Option<f64>) -> Option<String> {
        if self.failed.is_none() {
            if let Err(e) = self.out.finish(truncated_at_ns) {
                self.failed = Some(e);
            }
        }
        self.failed.as_ref().map(|e| e.to_string())
    }
}

impl<R: RowWriter> SeriesSink for Streamed<R> {
    fn failed(&self) -> Option<String> {
        self.failed.as_ref().map(|e| e.to_string())
    }

    fn interval(&mut self, i: usize, counts: &[PortCount]) {
        if self.failed.is_some() {
            return;
        }
        let t_ns = (i as u64 * self.interval_ps) as f64 / 1e3;
        let w = self.interval_ps as f64;
        let mut utilization = self.ports.iter().map(|p| counts[p.global].busy_ps as f64 / w);
        let packets: Vec<u32> = self.ports.iter().map(|p| counts[p.global].packets).collect();
        if let Err(e) = self.out.rows(t_ns, &self.ports, &mut utilization, &packets) {
            self.failed = Some(e);
        }
    }
}

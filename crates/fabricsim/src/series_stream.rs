//! A run's per-port series written to a file as the run goes (`run --series FILE.csv`, or
//! `.parquet`): memory holds the few intervals that transmissions in progress overlap, not the
//! whole run. Also [`Plan::run_series_file`], which picks the streamed or the held form by the
//! file's extension (used by `run`, `sweep` and `collective`).

use crate::series::SeriesReport;
use crate::series_filter::SeriesPortInfo;
use crate::{Error, Plan, RunReport};
use fabricsim_core::{ConfigError, Time};
use fabricsim_stats::{SeriesSink, StreamSeries};
use std::io::Write;
use std::path::Path;

pub use crate::series_filter::PortFilter;

/// A file format a series is written in, row by row (one row per kept port and interval).
pub(crate) trait RowWriter {
    /// The rows of one interval starting at `t_ns`: each kept port's busy fraction and packets.
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()>;
    /// The end of the series (a file with no rows still gets its header or schema).
    fn finish(&mut self) -> std::io::Result<()>;
}

/// The file formats of a series, by the file's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeriesFormat {
    Csv,
    Json,
    Parquet,
}

impl SeriesFormat {
    /// `.json`: JSON rows; `.parquet`: Parquet; anything else (and standard output): CSV.
    pub fn of(path: &Path) -> Self {
        match path.extension().and_then(|e| e.to_str()) {
            Some("json") => SeriesFormat::Json,
            Some("parquet") => SeriesFormat::Parquet,
            _ => SeriesFormat::Csv,
        }
    }

    /// Whether a series in this format is written while the run goes.
    pub fn streamed(self) -> bool {
        self != SeriesFormat::Json
    }
}

impl Plan {
    /// Run once, writing the kept ports' series to the writer `open` gives (called once the
    /// run is known to be allowed) as CSV while it runs (the columns and rows of
    /// [`SeriesReport::to_csv`]); also where the series stops, ns, when the run went on past
    /// the intervals [`crate::series::series_memory`] allows (the same bound as the series
    /// held in memory, so the file stays the size the machine could hold).
    pub fn run_streaming_csv<W: Write>(
        &self,
        interval: Time,
        filter: &PortFilter,
        open: impl FnOnce() -> Result<W, Error>,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        self.run_streaming(interval, filter, || Ok(CsvRows { out: open()?, started: false }), progress)
    }

    /// Run once, writing the series to `path` (CSV, JSON or Parquet by its extension, see
    /// [`SeriesFormat`]): streamed for CSV and Parquet, held until the run ends for JSON.
    /// Returns the report and where the series stops, ns, when memory cut it short.
    pub fn run_series_file(
        &self,
        interval: Time,
        filter: &PortFilter,
        path: &Path,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        let io = |e: std::io::Error| Error::Io(format!("{}: {e}", path.display()));
        let create = || std::fs::File::create(path).map(std::io::BufWriter::new).map_err(io);
        match SeriesFormat::of(path) {
            SeriesFormat::Csv => self.run_streaming_csv(interval, filter, create, progress),
            SeriesFormat::Parquet => self.run_streaming(interval, filter, || crate::series_parquet::ParquetRows::new(create()?), progress),
            SeriesFormat::Json => {
                let (report, rows) = self.run_with_series_filtered(interval, filter, progress)?;
                rows.write(path)?;
                Ok((report, rows.truncated_at_ns))
            }
        }
    }

    /// Run once, streaming the kept ports' rows into the writer `open` makes.
    pub(crate) fn run_streaming<R: RowWriter>(
        &self,
        interval: Time,
        filter: &PortFilter,
        open: impl FnOnce() -> Result<R, Error>,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        let g = self.build_graph();
        let ports = filter.select(&self.topology, &g)?;
        if let Some(n) = filter.busiest {
            return Err(ConfigError::new(
                "--series-busiest",
                format!("{n}: a CSV or Parquet series is written while the run goes, before the busiest ports are known; write the series as .json, or use --embed-series or --perfetto, which are held until the end"),
            )
            .into());
        }
        let cap = crate::series::series_memory(self, g.total_ports() as u64, interval)?;
        let sink = Streamed { out: open()?, interval_ps: interval.ps(), ports, failed: None };
        let series = StreamSeries::new(g.total_ports() as usize, interval, sink).map_err(|m| ConfigError::new("--interval", m))?;
        let series = series.with_max_intervals(cap);
        let (report, (failed, truncated)) = self.run_observed(series, progress, |s, _| {
            s.finish();
            let truncated = s.truncated().then(|| (s.intervals() as u64 * interval.ps()) as f64 / 1e3);
            (s.with_sink(|k| k.close()), truncated)
        })?;
        match failed {
            Some(e) => Err(Error::Io(format!("--series: {e}"))),
            None => Ok((report, truncated)),
        }
    }
}

impl SeriesReport {
    /// Write the series to `path`: JSON, CSV or Parquet by its extension ([`SeriesFormat`]).
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let io = |e: std::io::Error| Error::Io(format!("{}: {e}", path.display()));
        let create = || std::fs::File::create(path).map(std::io::BufWriter::new).map_err(io);
        match SeriesFormat::of(path) {
            SeriesFormat::Json => std::fs::write(path, serde_json::to_string_pretty(self).expect("series serialises")).map_err(io),
            SeriesFormat::Csv => std::fs::write(path, self.to_csv()).map_err(io),
            SeriesFormat::Parquet => {
                let mut w = crate::series_parquet::ParquetRows::new(create()?)?;
                for r in &self.rows {
                    w.push(r.t_ns, r.router, r.port, r.kind, &r.label, r.utilization, r.packets).map_err(io)?;
                }
                w.finish().map_err(io)
            }
        }
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
    fn close(&mut self) -> Option<String> {
        if self.failed.is_none() {
            if let Err(e) = self.out.finish() {
                self.failed = Some(e);
            }
        }
        self.failed.as_ref().map(|e| e.to_string())
    }
}

impl<R: RowWriter> SeriesSink for Streamed<R> {
    fn interval(&mut self, i: usize, busy_ps: &[u32], packets: &[u32]) {
        if self.failed.is_some() {
            return;
        }
        let t_ns = (i as u64 * self.interval_ps) as f64 / 1e3;
        let w = self.interval_ps as f64;
        let mut utilization = self.ports.iter().map(|p| busy_ps[p.global] as f64 / w);
        let packets: Vec<u32> = self.ports.iter().map(|p| packets[p.global]).collect();
        if let Err(e) = self.out.rows(t_ns, &self.ports, &mut utilization, &packets) {
            self.failed = Some(e);
        }
    }
}

/// CSV rows, as [`SeriesReport::to_csv`] writes them.
struct CsvRows<W: Write> {
    out: W,
    /// Whether the header line was written.
    started: bool,
}

impl<W: Write> CsvRows<W> {
    fn start(&mut self) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            self.out.write_all(b"t_ns,router,port,kind,label,utilization,packets\n")?;
        }
        Ok(())
    }
}

impl<W: Write> RowWriter for CsvRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        self.start()?;
        for ((p, u), n) in ports.iter().zip(utilization).zip(packets) {
            writeln!(self.out, "{t_ns},{},{},{},{},{u:.6},{n}", p.router, p.local, p.kind, p.label)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        // A run that sent nothing: the header alone, as the in-memory series writes it.
        self.start()?;
        self.out.flush()
    }
}

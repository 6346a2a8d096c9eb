//! A run's per-port series written to a CSV file as the run goes (`run --series FILE.csv`):
//! memory holds the few intervals that transmissions in progress overlap, not the whole run;
//! and the port filter (`--series-ports`) that keeps some ports of a series.

use crate::report::port_label;
use crate::series::SeriesReport;
use crate::{Error, Plan, RunReport};
use fabricsim_core::{ConfigError, PortId, Time};
use fabricsim_stats::{SeriesSink, StreamSeries};
use fabricsim_topology::{PortGraph, PortKind, Topology};
use std::io::Write;

/// Which ports a series keeps: a port is kept when it matches any item, an item being a label
/// (`X+`, `rail0-L1-up`), an axis (`X`: both directions), `network` or `terminal`. Empty:
/// every port.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortFilter {
    pub items: Vec<String>,
}

impl PortFilter {
    /// Whether a port of `kind` ("network" or "terminal") and `label` is kept.
    pub fn keeps(&self, kind: &str, label: &str) -> bool {
        self.items.is_empty() || self.items.iter().any(|i| i == kind || i == label || label.strip_suffix(['+', '-']) == Some(i.as_str()))
    }

    /// Refuse an item that matches no port of the network, naming it and the labels there are.
    pub fn check(&self, labels: &[(String, String)]) -> Result<(), Error> {
        for item in &self.items {
            if !labels.iter().any(|(kind, label)| PortFilter { items: vec![item.clone()] }.keeps(kind, label)) {
                let mut names: Vec<&str> = labels.iter().map(|(_, l)| l.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                return Err(ConfigError::new(
                    "--series-ports",
                    format!("'{item}' matches no port: use network, terminal, an axis or one of {}", names.join(", ")),
                )
                .into());
            }
        }
        Ok(())
    }
}

/// Every connected port of a graph: (global id, kind, router, local port, label).
fn ports(topo: &Topology, g: &PortGraph) -> Vec<(usize, &'static str, u32, u32, String)> {
    (0..g.total_ports() as usize)
        .filter(|&p| g.kind[p] != PortKind::Unconnected)
        .map(|p| {
            let router = g.owner[p];
            let local = g.local(PortId(p as u32));
            let kind = if g.kind[p] == PortKind::Network { "network" } else { "terminal" };
            (p, kind, router.0, local, port_label(topo, router, local))
        })
        .collect()
}

impl Plan {
    /// The (kind, label) of every connected port, to check a [`PortFilter`] before a run.
    pub fn port_labels(&self) -> Vec<(String, String)> {
        ports(&self.topology, &self.build_graph()).into_iter().map(|(_, k, _, _, l)| (k.to_string(), l)).collect()
    }

    /// Run once, writing the kept ports' series to the writer `open` gives (called once the
    /// run is known to be allowed) as CSV while it runs (the columns and
    /// rows of [`SeriesReport::to_csv`], for the ports `filter` keeps); also where the series
    /// stops, ns, when the run went on past the intervals [`crate::series::series_memory`]
    /// allows (the same bound as the series held in memory, so the file stays the size the
    /// machine could hold).
    pub fn run_streaming_csv<W: Write>(
        &self,
        interval: Time,
        filter: &PortFilter,
        open: impl FnOnce() -> Result<W, Error>,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, Option<f64>), Error> {
        filter.check(&self.port_labels())?;
        let g = self.build_graph();
        let rows = ports(&self.topology, &g)
            .into_iter()
            .filter(|(_, kind, _, _, label)| filter.keeps(kind, label))
            .map(|(p, kind, router, local, label)| (p, format!("{router},{local},{kind},{label}")))
            .collect();
        let cap = crate::series::series_memory(self, g.total_ports() as u64, interval)?;
        let sink = CsvSink { out: open()?, interval_ps: interval.ps(), rows, failed: None, started: false };
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
    /// Keep the rows of the ports `filter` keeps.
    pub fn retain(&mut self, filter: &PortFilter) {
        self.rows.retain(|r| filter.keeps(r.kind, &r.label));
    }
}

struct CsvSink<W: Write> {
    out: W,
    interval_ps: u64,
    /// Global port and the row's middle columns (router, port, kind, label), in port order.
    rows: Vec<(usize, String)>,
    failed: Option<std::io::Error>,
    /// Whether the header line was written.
    started: bool,
}

impl<W: Write> CsvSink<W> {
    fn close(&mut self) -> Option<String> {
        if !self.started {
            // A run that sent nothing: the header alone, as the in-memory series writes it.
            self.interval(usize::MAX, &[], &[]);
        }
        if self.failed.is_none() {
            if let Err(e) = self.out.flush() {
                self.failed = Some(e);
            }
        }
        self.failed.as_ref().map(|e| e.to_string())
    }
}

impl<W: Write> SeriesSink for CsvSink<W> {
    fn interval(&mut self, i: usize, busy_ps: &[u32], packets: &[u32]) {
        if self.failed.is_some() {
            return;
        }
        let mut write = || -> std::io::Result<()> {
            if !self.started {
                self.started = true;
                self.out.write_all(b"t_ns,router,port,kind,label,utilization,packets\n")?;
            }
            if i == usize::MAX {
                return Ok(());
            }
            let t_ns = (i as u64 * self.interval_ps) as f64 / 1e3;
            for (p, middle) in &self.rows {
                let u = busy_ps[*p] as f64 / self.interval_ps as f64;
                writeln!(self.out, "{t_ns},{middle},{u:.6},{}", packets[*p])?;
            }
            Ok(())
        };
        if let Err(e) = write() {
            self.failed = Some(e);
        }
    }
}

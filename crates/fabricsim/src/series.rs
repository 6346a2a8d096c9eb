//! Per-port time series of a run (`fabricsim run --series FILE`): each router output's busy
//! fraction and packets started in fixed intervals of simulated time, for plots and viewers.
//! The series covers the whole run (warm-up and drain included), unlike the report's port
//! counters, which cover the measurement window.

use crate::report::{port_label, RunReport};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, PortId, Time};
use fabricsim_stats::PortSeries;
use fabricsim_topology::PortKind;
use serde::Serialize;

/// One port in one interval.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SeriesRow {
    /// Start of the interval, ns.
    pub t_ns: f64,
    pub router: u32,
    /// Local port of the router.
    pub port: u32,
    /// "network" or "terminal".
    pub kind: &'static str,
    /// Axis and direction (`X+`) on tori, `up`/`down` on fat-trees.
    pub label: String,
    /// Busy fraction of the interval.
    pub utilization: f64,
    /// Packets the port started sending in the interval.
    pub packets: u32,
}

/// The series of a run.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesReport {
    pub interval_ns: f64,
    pub rows: Vec<SeriesRow>,
}

impl SeriesReport {
    /// As CSV, one row per (interval, port), with a header line.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("t_ns,router,port,kind,label,utilization,packets\n");
        for r in &self.rows {
            s.push_str(&format!("{},{},{},{},{},{:.6},{}\n", r.t_ns, r.router, r.port, r.kind, r.label, r.utilization, r.packets));
        }
        s
    }
}

impl Plan {
    /// Run once and sample every router output's utilisation each `interval`.
    pub fn run_with_series(&self, interval: Time, progress: impl FnMut(Time)) -> Result<(RunReport, SeriesReport), Error> {
        let ports = self.build_graph().total_ports() as usize;
        let series = PortSeries::new(ports, interval).map_err(|m| ConfigError::new("--interval", m))?;
        let (report, rows) = self.run_observed(series, progress, |series, g| {
            series
                .samples(|p| g.kind[p as usize] != PortKind::Unconnected)
                .into_iter()
                .map(|s| {
                    let router = g.owner[s.port as usize];
                    let local = g.local(PortId(s.port));
                    SeriesRow {
                        t_ns: s.t_ns,
                        router: router.0,
                        port: local,
                        kind: if g.kind[s.port as usize] == PortKind::Network { "network" } else { "terminal" },
                        label: port_label(&self.topology, router, local),
                        utilization: s.utilization,
                        packets: s.packets,
                    }
                })
                .collect()
        })?;
        Ok((report, SeriesReport { interval_ns: interval.as_ns_f64(), rows }))
    }
}

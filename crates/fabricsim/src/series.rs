//! Per-port time series of a run (`fabricsim run --series FILE`): each router output's busy
//! fraction and packets started in fixed intervals of simulated time, for plots and viewers.
//! The series covers the whole run (warm-up and drain included), unlike the report's port
//! counters, which cover the measurement window.

use crate::report::RunReport;
use crate::series_filter::{busiest, PortFilter, SeriesPortInfo};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_stats::PortSeries;
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
    /// Where the series stops when the run went on past the intervals memory allows (a run
    /// whose end is not known in advance, see [`series_memory`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_at_ns: Option<f64>,
}

/// Bytes one port takes in one interval of a series, from the run to the written file: its
/// counters while the run goes on, its sample and row, and its text as a held series writes
/// it (about 200 bytes).
pub const BYTES_PER_PORT_INTERVAL: u64 = 320;

/// How many intervals a series of `ports` ports may keep, and whether that bounds a run that
/// would otherwise need more: the memory left beside the network (`sim.max_memory`, else what
/// the machine has) divided by what an interval takes. A run whose end is known (open-loop:
/// warm-up, window and the longest drain) that needs more is refused, naming the estimate.
pub fn series_memory(plan: &Plan, ports: u64, interval: Time) -> Result<usize, Error> {
    check_interval(plan, interval)?;
    let (left, why) = memory_left(plan)?;
    let per_interval = ports.max(1) * BYTES_PER_PORT_INTERVAL;
    let cap = (left / per_interval).max(1);
    if !plan.closed {
        let l = &plan.limits;
        let horizon = l.warmup.ps() + l.measure.ps() + l.drain.ps();
        let intervals = horizon.div_ceil(interval.ps());
        if intervals > cap {
            return Err(ConfigError::new(
                "--interval",
                format!(
                    "{interval} over a run of up to {} is {intervals} intervals of {ports} ports: about {:.1} GB for the series, more than the {:.1} GB left beside the network ({why}); use a longer interval",
                    Time(horizon),
                    (intervals as f64 * per_interval as f64) / 1e9,
                    left as f64 / 1e9
                ),
            )
            .into());
        }
    }
    Ok(cap.min(usize::MAX as u64) as usize)
}

/// Refuse an interval of zero, or one longer than an open-loop run's warm-up and window (the
/// series would be one interval or two), naming the value.
pub fn check_interval(plan: &Plan, interval: Time) -> Result<(), Error> {
    if interval.ps() == 0 {
        return Err(ConfigError::new("--interval", "0ns: an interval must be positive").into());
    }
    let run = plan.limits.warmup.ps() + plan.limits.measure.ps();
    if !plan.closed && interval.ps() > run {
        let why = format!("{interval} is longer than the run's {} of warm-up and window: give a shorter interval", Time(run));
        return Err(ConfigError::new("--interval", why).into());
    }
    Ok(())
}

/// Bytes left for a series beside the network (`sim.max_memory`, else what the machine has),
/// and where that limit comes from.
pub(crate) fn memory_left(plan: &Plan) -> Result<(u64, &'static str), Error> {
    let net = crate::memory::footprint(&plan.scenario)?.bytes;
    let (have, why) = crate::memory::limit(plan.scenario.sim.max_memory);
    Ok((have.saturating_sub(net), why))
}

/// A series as columns, for a run report that carries its series (`run --json FILE
/// --embed-series`, read by `fabricsim view` and `fabricsim plot timeline`): the ports once,
/// then each port's values per interval (utilisation rounded to 1e-4).
#[derive(Debug, Clone, Serialize)]
pub struct SeriesColumns {
    pub interval_ns: f64,
    pub intervals: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated_at_ns: Option<f64>,
    pub ports: Vec<SeriesPort>,
    /// `utilization[p][i]`: port `p`'s busy fraction in interval `i`.
    pub utilization: Vec<Vec<f64>>,
    /// `packets[p][i]`: packets port `p` started in interval `i`.
    pub packets: Vec<Vec<u32>>,
}

/// A port of [`SeriesColumns`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SeriesPort {
    pub router: u32,
    pub port: u32,
    pub kind: &'static str,
    pub label: String,
}

impl SeriesReport {
    /// The series as columns (ports in the order of their first row).
    pub fn columns(&self) -> SeriesColumns {
        let mut index = std::collections::HashMap::new();
        let mut ports = Vec::new();
        let slot = |t_ns: f64| (t_ns / self.interval_ns).round() as usize;
        let intervals = self.rows.iter().map(|r| slot(r.t_ns) + 1).max().unwrap_or(0);
        for r in &self.rows {
            index.entry((r.router, r.port)).or_insert_with(|| {
                ports.push(SeriesPort { router: r.router, port: r.port, kind: r.kind, label: r.label.clone() });
                ports.len() - 1
            });
        }
        let mut utilization = vec![vec![0.0; intervals]; ports.len()];
        let mut packets = vec![vec![0; intervals]; ports.len()];
        for r in &self.rows {
            let p = index[&(r.router, r.port)];
            utilization[p][slot(r.t_ns)] = (r.utilization * 1e4).round() / 1e4;
            packets[p][slot(r.t_ns)] = r.packets;
        }
        SeriesColumns { interval_ns: self.interval_ns, intervals, truncated_at_ns: self.truncated_at_ns, ports, utilization, packets }
    }
}

impl Plan {
    /// Run once and sample every router output's utilisation each `interval`.
    pub fn run_with_series(&self, interval: Time, progress: impl FnMut(Time)) -> Result<(RunReport, SeriesReport), Error> {
        self.run_with_series_filtered(interval, &PortFilter::all(), progress)
    }

    /// Run once and sample the utilisation of the ports `filter` keeps each `interval` (the
    /// filter is checked against the network before the run).
    pub fn run_with_series_filtered(
        &self,
        interval: Time,
        filter: &PortFilter,
        progress: impl FnMut(Time),
    ) -> Result<(RunReport, SeriesReport), Error> {
        let g = self.build_graph();
        let selected = filter.select(&self.topology, &g)?;
        let ports = g.total_ports() as usize;
        let series = PortSeries::new(ports, interval).map_err(|m| ConfigError::new("--interval", m))?;
        let series = series.with_max_intervals(series_memory(self, ports as u64, interval)?);
        let (report, (rows, truncated)) = self.run_observed(series, progress, |series, _| {
            let truncated = series.truncated().then(|| (series.intervals() as u64 * interval.ps()) as f64 / 1e3);
            let kept: Vec<&SeriesPortInfo> = match filter.busiest {
                Some(n) => {
                    let total = |p: usize| (0..series.intervals()).map(|i| series.busy_ps(i, p)).sum::<u64>();
                    busiest(&selected, total, n).into_iter().map(|i| &selected[i]).collect()
                }
                None => selected.iter().collect(),
            };
            let w = interval.ps();
            let mut rows = Vec::with_capacity(series.intervals() * kept.len());
            for i in 0..series.intervals() {
                for p in &kept {
                    rows.push(SeriesRow {
                        t_ns: (i as u64 * w) as f64 / 1e3,
                        router: p.router,
                        port: p.local,
                        kind: p.kind,
                        label: p.label.clone(),
                        utilization: series.busy_ps(i, p.global) as f64 / w as f64,
                        packets: series.packets(i, p.global),
                    });
                }
            }
            (rows, truncated)
        })?;
        Ok((report, SeriesReport { interval_ns: interval.as_ns_f64(), rows, truncated_at_ns: truncated }))
    }
}

//! Latency-load curves. Each point is an independent run at one offered load with the same
//! seed; a point is saturated when measured messages could not drain, or when accepted
//! throughput falls below what was offered, both counted in payload: the offered load (wire
//! bytes of the nodes that send) times the packet format's efficiency, times the share of nodes
//! that send at all (a transpose leaves its diagonal idle). "Below" means by more than 5% or
//! three standard deviations of the Poisson count of packets in the window, the larger.

use crate::plan::Plan;
use crate::scenario::Scenario;
use crate::series_points::PointSeries;
use crate::Error;
use fabricsim_core::ConfigError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SweepPoint {
    pub offered_load: f64,
    /// Payload the offered load carries, as a fraction of the injection bandwidth of all nodes:
    /// what `accepted_fraction` reaches below saturation.
    pub expected_fraction: f64,
    /// Means over the runs (seeds) of the point.
    pub accepted_fraction: f64,
    pub latency_mean_ns: f64,
    pub latency_p50_ns: f64,
    pub latency_p90_ns: f64,
    pub latency_p99_ns: f64,
    pub latency_p999_ns: f64,
    pub latency_max_ns: f64,
    /// Runs (seeds) behind the point, and the half-widths of the 95% confidence intervals of
    /// the mean accepted fraction and mean latency (Student's t; none for a single run, which
    /// gives no interval: `null` in JSON, empty in CSV).
    pub runs: u32,
    pub accepted_fraction_ci95: Option<f64>,
    pub latency_mean_ci95_ns: Option<f64>,
    /// Whether every run drained, and whether any was saturated.
    pub drained: bool,
    pub saturated: bool,
    #[serde(skip)]
    pub wall_seconds: f64,
    /// Queue counters (`sweep --queues`): the runs' mean waits by Little's law, queued packets,
    /// and the longest queue of any run (see [`crate::queues_points`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queues: Option<crate::queues::QueueSummary>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub points: Vec<SweepPoint>,
    /// Lowest offered load found saturated, if any.
    pub saturation_load: Option<f64>,
    /// Highest accepted throughput seen, as a fraction of injection bandwidth.
    pub saturation_throughput: f64,
    /// The sweep's scenario (each point sets its load and seed), this build (`None`: a report
    /// folded from points run elsewhere, which name their own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::report::Provenance>,
}

/// How to sweep: runs per point (seeds `seed`, `seed + 1`, ...) and parallel jobs (0: every
/// core), and whether each run meters its queues (`--queues`). Points and runs are independent
/// simulations, so the results do not depend on `jobs`.
#[derive(Debug, Clone, Copy)]
pub struct SweepOptions {
    pub seeds: u32,
    pub jobs: usize,
    pub queues: bool,
}

impl Default for SweepOptions {
    fn default() -> Self {
        SweepOptions { seeds: 1, jobs: 1, queues: false }
    }
}

/// Loads from `--loads`: numbers, or ranges `from:to:step` (both ends included, to within a
/// thousandth of a step).
pub fn parse_loads(items: &[String]) -> Result<Vec<f64>, Error> {
    let bad = |m: String| -> Error { ConfigError::new("--loads", m).into() };
    let num = |x: &str| x.trim().parse::<f64>().map_err(|_| bad(format!("'{x}' is not a number")));
    let mut v = Vec::new();
    for it in items {
        let parts: Vec<&str> = it.split(':').collect();
        match parts.as_slice() {
            [x] => v.push(num(x)?),
            [a, b, st] => {
                let (a, b, st) = (num(a)?, num(b)?, num(st)?);
                if st.is_nan() || st <= 0.0 || b < a {
                    return Err(bad(format!("'{it}': a range is from:to:step with from <= to and a step above 0")));
                }
                let n = ((b - a) / st + 1e-3).floor() as u64;
                if n > 10_000 {
                    return Err(bad(format!("'{it}' has {n} points; at most 10,000")));
                }
                v.extend((0..=n).map(|i| ((a + i as f64 * st) * 1e9).round() / 1e9));
            }
            _ => return Err(bad(format!("'{it}' is neither a load nor a range from:to:step"))),
        }
    }
    Ok(v)
}

/// Half-width of the 95% confidence interval of the mean of `xs` (Student's t).
fn ci95(xs: &[f64]) -> Option<f64> {
    let n = xs.len();
    if n < 2 {
        return None;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    // Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom, then the normal's.
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    let t = T.get(n - 2).copied().unwrap_or(1.960);
    Some(t * (var / n as f64).sqrt())
}

/// Threads to run `items` points on when `jobs` are asked for (0: every core): never more than
/// the points, nor than the cores (a thread per job would only add memory and switching).
pub fn threads(jobs: usize, items: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let asked = if jobs == 0 { cores } else { jobs.min(cores) };
    asked.min(items).max(1)
}

/// Run `items` through `f` on `jobs` threads (0: every core; see [`threads`]), results in the
/// items' order.
pub(crate) fn run_all<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Result<Vec<R>, Error> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads(jobs, items.len())).build().map_err(|e| Error::Io(format!("thread pool: {e}")))?;
    Ok(pool.install(|| items.par_iter().map(&f).collect()))
}

/// One run of a sweep point (one load, one seed): what the point's statistics need of it. A
/// sweep spread over processes (the Python package's executors) sends these back.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SeedRun {
    /// Payload the load should carry, as a fraction of the injection bandwidth (see
    /// [`SweepPoint::expected_fraction`]).
    pub expected: f64,
    /// Payload delivered in the window, as a fraction of the injection bandwidth.
    pub accepted: f64,
    /// Message latency: mean, percentiles and maximum, ns.
    pub latency_mean_ns: f64,
    /// Median.
    pub latency_p50_ns: f64,
    /// 90th percentile.
    pub latency_p90_ns: f64,
    /// 99th percentile.
    pub latency_p99_ns: f64,
    /// 99.9th percentile.
    pub latency_p999_ns: f64,
    /// Largest.
    pub latency_max_ns: f64,
    /// Whether every measured message arrived before the drain time ran out.
    pub drained: bool,
    /// Not drained, accepting less than the load carries, or refused by full NIC queues.
    pub saturated: bool,
    /// Seconds the run took on this machine.
    pub wall_seconds: f64,
    /// The run's queue counters, when metered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queues: Option<crate::queues::QueueSummary>,
}

/// Run `scenario` once at offered `load` with seed `seed`: one run of a sweep point.
pub fn sweep_run(scenario: &Scenario, load: f64, seed: u64) -> Result<SeedRun, Error> {
    sweep_run_series(scenario, load, seed, None, false)
}

/// [`sweep_run`], writing the run's series into `series`'s folder when given (see
/// [`crate::series_points`]), with queue counters when `queues`.
pub fn sweep_run_series(scenario: &Scenario, load: f64, seed: u64, series: Option<&PointSeries>, queues: bool) -> Result<SeedRun, Error> {
    let mut s = scenario.clone();
    s.workload.set_load(load)?;
    s.sim.seed = seed;
    let plan = Plan { queues, ..Plan::new(&s)? };
    let r = match series {
        Some(series) => series.run(&plan, &crate::series_points::load_stem(load, seed), |_| {})?,
        None => plan.run()?,
    };
    let acc = r.accepted_throughput.fraction_of_injection;
    let senders = r.workload.senders.unwrap_or(r.nodes) as f64 / r.nodes as f64;
    let expected = load * plan.params.format.efficiency() * senders;
    // Below saturation accepted matches expected up to the noise of a Poisson count: allow
    // 5% or three standard deviations of the packets counted in the window, the larger.
    let packets = r.accepted_throughput.bytes_per_ns_per_node * r.window_ns * r.nodes as f64 / plan.params.format.max_payload as f64;
    let tolerance = (3.0 / packets.max(1.0).sqrt()).max(0.05);
    // A source refused by its full NIC queue is back-pressured: saturated too.
    let saturated = !r.drained || acc < (1.0 - tolerance) * expected || r.workload.refused.unwrap_or(0) > 0;
    let l = &r.latency_ns;
    Ok(SeedRun {
        expected,
        accepted: acc,
        latency_mean_ns: l.mean,
        latency_p50_ns: l.p50,
        latency_p90_ns: l.p90,
        latency_p99_ns: l.p99,
        latency_p999_ns: l.p999,
        latency_max_ns: l.max,
        drained: r.drained,
        saturated,
        wall_seconds: r.wall_seconds,
        queues: r.queues,
    })
}

/// The point at offered `load` from its runs (seeds in order; at least one).
pub fn sweep_point(load: f64, runs: &[SeedRun]) -> SweepPoint {
    let n = runs.len() as f64;
    let mean = |f: &dyn Fn(&SeedRun) -> f64| runs.iter().map(f).sum::<f64>() / n;
    let accepted: Vec<f64> = runs.iter().map(|x| x.accepted).collect();
    let latency: Vec<f64> = runs.iter().map(|x| x.latency_mean_ns).collect();
    SweepPoint {
        offered_load: load,
        expected_fraction: runs.first().map_or(0.0, |r| r.expected),
        accepted_fraction: mean(&|x| x.accepted),
        latency_mean_ns: mean(&|x| x.latency_mean_ns),
        latency_p50_ns: mean(&|x| x.latency_p50_ns),
        latency_p90_ns: mean(&|x| x.latency_p90_ns),
        latency_p99_ns: mean(&|x| x.latency_p99_ns),
        latency_p999_ns: mean(&|x| x.latency_p999_ns),
        latency_max_ns: runs.iter().map(|x| x.latency_max_ns).fold(0.0, f64::max),
        runs: runs.len() as u32,
        accepted_fraction_ci95: ci95(&accepted),
        latency_mean_ci95_ns: ci95(&latency),
        drained: runs.iter().all(|x| x.drained),
        saturated: runs.iter().any(|x| x.saturated),
        wall_seconds: runs.iter().map(|x| x.wall_seconds).sum(),
        queues: crate::queues_points::mean_of(runs.iter().map(|x| x.queues.as_ref())),
    }
}

impl SweepReport {
    /// The report of `points` (in load order): where saturation starts and the peak accepted.
    pub fn of(points: Vec<SweepPoint>) -> SweepReport {
        let saturation_load = points.iter().find(|p| p.saturated).map(|p| p.offered_load);
        let saturation_throughput = points.iter().map(|p| p.accepted_fraction).fold(0.0, f64::max);
        SweepReport { points, saturation_load, saturation_throughput, provenance: None }
    }
}

/// Run `scenario` at each load, `opts.seeds` times each; `each` is called after every point
/// (for progress bars; from the worker threads, in completion order).
pub fn sweep(scenario: &Scenario, loads: &[f64], opts: SweepOptions, each: impl Fn(&SweepPoint) + Sync) -> Result<SweepReport, Error> {
    sweep_series(scenario, loads, opts, None, each)
}

/// [`sweep`], each run writing its series into `series`'s folder when given.
pub fn sweep_series(
    scenario: &Scenario,
    loads: &[f64],
    opts: SweepOptions,
    series: Option<&PointSeries>,
    each: impl Fn(&SweepPoint) + Sync,
) -> Result<SweepReport, Error> {
    if loads.is_empty() {
        return Err(ConfigError::new("--loads", "is empty").into());
    }
    if opts.seeds == 0 {
        return Err(ConfigError::new("--seeds", "0: a point needs at least one run").into());
    }
    let base = scenario.sim.seed;
    let points = run_all(loads, opts.jobs, |&load| -> Result<SweepPoint, Error> {
        let runs = (0..opts.seeds as u64)
            .map(|i| sweep_run_series(scenario, load, base.wrapping_add(i), series, opts.queues))
            .collect::<Result<Vec<SeedRun>, Error>>()?;
        let p = sweep_point(load, &runs);
        each(&p);
        Ok(p)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;
    let mut report = SweepReport::of(points);
    report.provenance = Some(crate::report::Provenance::of(scenario));
    Ok(report)
}

/// One point of a message-size sweep.
#[derive(Debug, Clone, Serialize)]
pub struct SizePoint {
    pub message_bytes: u64,
    pub throughput_gb_per_s: Option<f64>,
    pub one_way_latency_ns: Option<f64>,
    pub completion_ns: Option<f64>,
    /// The point's resolved scenario and this build.
    pub provenance: crate::report::Provenance,
    /// Queue counters (`sweep --sizes ... --queues`), over the whole run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<crate::queues::QueueSummary>,
}

/// Run a benchmark workload (throughput, simultaneous_puts, neighbor_exchange, pingpong,
/// rdma_get, all_to_all) at each message size: the "vs message size" curves of the papers.
/// Sizes run on `jobs` threads (0: every core); the results do not depend on it.
pub fn sweep_sizes(
    scenario: &Scenario,
    sizes: &[fabricsim_core::Bytes],
    jobs: usize,
    each: impl Fn(&SizePoint) + Sync,
) -> Result<Vec<SizePoint>, Error> {
    sweep_sizes_series(scenario, sizes, jobs, None, false, each)
}

/// [`sweep_sizes`], each point writing its series into `series`'s folder when given, and
/// metering its queues when `queues`.
pub fn sweep_sizes_series(
    scenario: &Scenario,
    sizes: &[fabricsim_core::Bytes],
    jobs: usize,
    series: Option<&PointSeries>,
    queues: bool,
    each: impl Fn(&SizePoint) + Sync,
) -> Result<Vec<SizePoint>, Error> {
    if sizes.is_empty() {
        return Err(ConfigError::new("--sizes", "is empty").into());
    }
    run_all(sizes, jobs, |&b| -> Result<SizePoint, Error> {
        let p = size_point_series(scenario, b, series, queues)?;
        each(&p);
        Ok(p)
    })?
    .into_iter()
    .collect()
}

/// Run `scenario`'s benchmark once with message size `size`: one point of a size sweep.
pub fn size_point(scenario: &Scenario, size: fabricsim_core::Bytes) -> Result<SizePoint, Error> {
    size_point_series(scenario, size, None, false)
}

/// [`size_point`], writing the run's series into `series`'s folder when given, with queue
/// counters when `queues`.
pub fn size_point_series(scenario: &Scenario, size: fabricsim_core::Bytes, series: Option<&PointSeries>, queues: bool) -> Result<SizePoint, Error> {
    let mut s = scenario.clone();
    s.workload.set_message_size(size)?;
    let plan = Plan { queues, ..Plan::new(&s)? };
    let r = match series {
        Some(series) => series.run(&plan, &crate::series_points::size_stem(size.get()), |_| {})?,
        None => plan.run()?,
    };
    Ok(SizePoint {
        message_bytes: size.get(),
        throughput_gb_per_s: r.workload.throughput_gb_per_s,
        one_way_latency_ns: r.workload.one_way_latency_ns,
        completion_ns: r.workload.completion_ns,
        provenance: r.provenance.clone(),
        queues: r.queues,
    })
}

/// Size-sweep points as CSV.
pub fn sizes_csv(points: &[SizePoint]) -> String {
    let f = |v: Option<f64>| v.map(|x| format!("{x:.6}")).unwrap_or_default();
    // Queue columns only when the points were metered: other sweeps' CSV is as it was.
    let queues = points.iter().any(|p| p.queues.is_some());
    let q = |p: &SizePoint| if queues { crate::queues_points::csv_cells(p.queues.as_ref()) } else { String::new() };
    let mut s =
        format!("message_bytes,throughput_gb_per_s,one_way_latency_ns,completion_ns{}\n", if queues { crate::queues_points::CSV_HEADER } else { "" });
    for p in points {
        s.push_str(&format!("{},{},{},{}{}\n", p.message_bytes, f(p.throughput_gb_per_s), f(p.one_way_latency_ns), f(p.completion_ns), q(p)));
    }
    s
}

impl SweepReport {
    pub fn to_csv(&self) -> String {
        let queues = self.points.iter().any(|p| p.queues.is_some());
        let mut s = format!(
            "offered_load,expected_fraction,accepted_fraction,accepted_fraction_ci95,latency_mean_ns,latency_mean_ci95_ns,latency_p50_ns,latency_p90_ns,latency_p99_ns,latency_p999_ns,latency_max_ns,runs,drained,saturated{}\n",
            if queues { crate::queues_points::CSV_HEADER } else { "" }
        );
        for p in &self.points {
            s.push_str(&format!(
                "{},{:.6},{:.6},{},{:.3},{},{:.3},{:.3},{:.3},{:.3},{:.3},{},{},{}{}\n",
                p.offered_load,
                p.expected_fraction,
                p.accepted_fraction,
                p.accepted_fraction_ci95.map(|x| format!("{x:.6}")).unwrap_or_default(),
                p.latency_mean_ns,
                p.latency_mean_ci95_ns.map(|x| format!("{x:.3}")).unwrap_or_default(),
                p.latency_p50_ns,
                p.latency_p90_ns,
                p.latency_p99_ns,
                p.latency_p999_ns,
                p.latency_max_ns,
                p.runs,
                p.drained,
                p.saturated,
                if queues { crate::queues_points::csv_cells(p.queues.as_ref()) } else { String::new() }
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_ranges_expand_with_both_ends() {
        let v = parse_loads(&["0.05:0.25:0.05".into(), "0.5".into()]).unwrap();
        assert_eq!(v, vec![0.05, 0.1, 0.15, 0.2, 0.25, 0.5]);
        for bad in ["0.3:0.1:0.1", "0.1:0.2:0", "a", "0.1:0.2", "0:1:0.00001"] {
            let e = parse_loads(&[bad.into()]).unwrap_err().to_string();
            assert!(e.starts_with("--loads"), "{bad}: {e}");
        }
    }

    #[test]
    fn points_folded_from_separate_runs_equal_the_sweep() {
        let mut s = Scenario::default();
        s.apply_overrides(&["topology.shape=[4,4]".into(), "sim.duration=2us".into()]).unwrap();
        let rep = sweep(&s, &[0.2, 0.6], SweepOptions { seeds: 2, jobs: 1, queues: false }, |_| {}).unwrap();
        // As the Python package does it: each run on its own (in any process), then folded.
        let points = [0.2, 0.6].map(|load| sweep_point(load, &(1..=2).map(|seed| sweep_run(&s, load, seed).unwrap()).collect::<Vec<_>>()));
        let mut folded = SweepReport::of(points.to_vec());
        assert!(folded.provenance.is_none() && rep.provenance.is_some(), "only the sweep knows its scenario");
        folded.provenance = rep.provenance.clone();
        assert_eq!(serde_json::to_string(&folded).unwrap(), serde_json::to_string(&rep).unwrap());
    }

    #[test]
    fn parallel_sweeps_equal_sequential_ones_and_repeats_give_intervals() {
        let mut s = Scenario::default();
        s.apply_overrides(&["topology.shape=[4,4]".into(), "sim.duration=5us".into()]).unwrap();
        let loads = [0.1, 0.3, 0.5];
        let one = |jobs| serde_json::to_string(&sweep(&s, &loads, SweepOptions { seeds: 3, jobs, queues: false }, |_| {}).unwrap()).unwrap();
        assert_eq!(one(1), one(3));
        let rep = sweep(&s, &loads, SweepOptions { seeds: 3, jobs: 0, queues: false }, |_| {}).unwrap();
        assert!(rep.points.iter().all(|p| p.runs == 3 && p.accepted_fraction_ci95.unwrap() > 0.0 && p.latency_mean_ci95_ns.unwrap() > 0.0));
        let single = sweep(&s, &loads, SweepOptions::default(), |_| {}).unwrap();
        assert!(single.points.iter().all(|p| p.accepted_fraction_ci95.is_none() && p.latency_mean_ci95_ns.is_none()));
        // Percentiles are ordered.
        for p in &rep.points {
            assert!(p.latency_p50_ns <= p.latency_p90_ns && p.latency_p90_ns <= p.latency_p99_ns && p.latency_p99_ns <= p.latency_p999_ns);
            assert!(p.latency_p999_ns <= p.latency_max_ns);
        }
    }

    #[test]
    fn threads_never_exceed_the_points_or_the_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(threads(100_000, 3), cores.min(3));
        assert_eq!(threads(100_000, 1_000_000), cores);
        assert_eq!(threads(0, 2), cores.min(2));
        assert_eq!(threads(1, 50), 1);
        assert_eq!(threads(0, 0), 1);
    }
}

//! Reading fabricsim's JSON outputs back: sweeps, collective comparisons, runs (their port
//! counters) and per-port series (a `run --series FILE.json` file, or the series a run report
//! carries with `run --json FILE --embed-series`). Each reader names the file and what it
//! lacks when given something else.

use crate::{bad, Error};
use serde::Deserialize;
use serde_json::Value;
use std::path::Path;

/// A file's JSON, or an error naming the file.
pub fn read_json(path: &Path) -> Result<Value, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| bad(path.display().to_string(), format!("not JSON: {e}")))
}

/// The name a file gives its curve or run in a legend: its file name without the extension.
pub fn stem(path: &Path) -> String {
    path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// One point of a latency-load curve (`fabricsim sweep --loads ... --json`).
#[derive(Debug, Clone, Deserialize)]
pub struct CurvePoint {
    pub offered_load: f64,
    pub accepted_fraction: f64,
    pub latency_mean_ns: f64,
    pub latency_p50_ns: f64,
    pub latency_p99_ns: f64,
    /// Half-width of the mean's 95% confidence interval (several seeds), if any.
    #[serde(default)]
    pub latency_mean_ci95_ns: Option<f64>,
    pub saturated: bool,
}

/// The points of a sweep over loads.
pub fn sweep_points(path: &Path, v: &Value) -> Result<Vec<CurvePoint>, Error> {
    let what = "is not the JSON of a sweep over loads (`fabricsim sweep --loads ... --json FILE`)";
    let points = v.get("points").filter(|p| p.is_array()).ok_or_else(|| bad(path.display().to_string(), format!("{what}: no `points` list")))?;
    let pts: Vec<CurvePoint> = serde_json::from_value(points.clone())
        .map_err(|e| bad(path.display().to_string(), format!("{what}: points: {e} (a sweep over --sizes has no latency-load curve)")))?;
    if pts.is_empty() {
        return Err(bad(path.display().to_string(), "the sweep has no points"));
    }
    Ok(pts)
}

/// One row of `fabricsim collective --json`.
#[derive(Debug, Clone, Deserialize)]
pub struct CollectivePoint {
    pub op: String,
    pub algorithm: String,
    pub bytes: u64,
    pub time_ns: f64,
}

/// The rows of a collective comparison.
pub fn collective_points(path: &Path, v: &Value) -> Result<Vec<CollectivePoint>, Error> {
    let what = "is not the JSON of `fabricsim collective --json FILE` (a list of points with op, algorithm, bytes, time_ns)";
    if !v.is_array() {
        return Err(bad(path.display().to_string(), what));
    }
    let pts: Vec<CollectivePoint> = serde_json::from_value(v.clone()).map_err(|e| bad(path.display().to_string(), format!("{what}: {e}")))?;
    if pts.is_empty() {
        return Err(bad(path.display().to_string(), "the comparison has no points"));
    }
    Ok(pts)
}

/// One router port's counters over a run's measurement window (`run --json`'s `ports`).
#[derive(Debug, Clone, Deserialize)]
pub struct Port {
    pub router: u32,
    pub port: u32,
    pub kind: String,
    pub label: String,
    pub bytes: u64,
    pub packets: u64,
    pub busy_ns: f64,
    pub idle_ns: f64,
    pub credit_stall_ns: f64,
    pub utilization: f64,
    /// The router's coordinates (tori and meshes).
    #[serde(default)]
    pub coords: Option<Vec<u32>>,
}

/// A run report's ports; the file must be a run report (`fabricsim run --json FILE`).
pub fn run_ports(path: &Path, v: &Value) -> Result<Vec<Port>, Error> {
    if !is_run(v) {
        return Err(not_a_run(path));
    }
    serde_json::from_value(v["ports"].clone()).map_err(|e| bad(path.display().to_string(), format!("ports: {e}")))
}

/// Whether `v` looks like a run report.
pub fn is_run(v: &Value) -> bool {
    v.get("ports").is_some_and(Value::is_array) && v.get("latency_ns").is_some() && v.get("provenance").is_some()
}

/// The error for a file that is not a run report.
pub fn not_a_run(path: &Path) -> Error {
    bad(path.display().to_string(), "is not a run report (`fabricsim run --json FILE`): it has no `ports`, `latency_ns` and `provenance`")
}

/// A port in a series.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPort {
    pub router: u32,
    pub port: u32,
    pub kind: String,
    pub label: String,
}

/// Per-port utilisation over time.
#[derive(Debug, Clone)]
pub struct Series {
    pub interval_ns: f64,
    pub ports: Vec<SeriesPort>,
    /// `utilization[p][i]`: port `p`'s busy fraction in interval `i`.
    pub utilization: Vec<Vec<f64>>,
    /// `packets[p][i]`: packets port `p` started in interval `i`.
    pub packets: Vec<Vec<u32>>,
}

impl Series {
    /// Intervals in the series.
    pub fn intervals(&self) -> usize {
        self.utilization.first().map_or(0, Vec::len)
    }
}

#[derive(Deserialize)]
struct Row {
    t_ns: f64,
    router: u32,
    port: u32,
    kind: String,
    label: String,
    utilization: f64,
    packets: u32,
}

#[derive(Deserialize)]
struct RowSeries {
    interval_ns: f64,
    rows: Vec<Row>,
}

/// The series a run report carries (`run --json FILE --embed-series`), in the columns
/// `fabricsim::series::Embedded` writes.
#[derive(Deserialize)]
struct Embedded {
    interval_ns: f64,
    ports: Vec<EmbeddedPort>,
    utilization: Vec<Vec<f64>>,
    packets: Vec<Vec<u32>>,
}

#[derive(Deserialize)]
struct EmbeddedPort {
    router: u32,
    port: u32,
    kind: String,
    label: String,
}

/// A per-port series: a `run --series FILE.json` file (rows), or a run report with its series
/// embedded.
pub fn series(path: &Path, v: &Value) -> Result<Series, Error> {
    let name = path.display().to_string();
    if let Some(e) = v.get("series") {
        let e: Embedded = serde_json::from_value(e.clone()).map_err(|e| bad(&name, format!("series: {e}")))?;
        let ports = e.ports.into_iter().map(|p| SeriesPort { router: p.router, port: p.port, kind: p.kind, label: p.label }).collect();
        return check(&name, Series { interval_ns: e.interval_ns, ports, utilization: e.utilization, packets: e.packets });
    }
    if v.get("rows").is_some() {
        let s: RowSeries = serde_json::from_value(v.clone()).map_err(|e| bad(&name, format!("rows: {e}")))?;
        return check(&name, from_rows(s));
    }
    let how = "make one with `fabricsim run ... --json RUN.json --embed-series --interval 1us` (or `--series FILE.json`)";
    if is_run(v) {
        return Err(bad(&name, format!("the run report has no time series: {how}")));
    }
    Err(bad(&name, format!("is neither a run report with a series nor a series file: {how}")))
}

fn from_rows(s: RowSeries) -> Series {
    let mut index = std::collections::BTreeMap::new();
    let mut ports = Vec::new();
    let mut intervals = 0usize;
    for r in &s.rows {
        index.entry((r.router, r.port)).or_insert_with(|| {
            ports.push(SeriesPort { router: r.router, port: r.port, kind: r.kind.clone(), label: r.label.clone() });
            ports.len() - 1
        });
        intervals = intervals.max((r.t_ns / s.interval_ns).round() as usize + 1);
    }
    let mut utilization = vec![vec![0.0; intervals]; ports.len()];
    let mut packets = vec![vec![0; intervals]; ports.len()];
    for r in &s.rows {
        let p = index[&(r.router, r.port)];
        let i = (r.t_ns / s.interval_ns).round() as usize;
        utilization[p][i] = r.utilization;
        packets[p][i] = r.packets;
    }
    Series { interval_ns: s.interval_ns, ports, utilization, packets }
}

fn check(name: &str, s: Series) -> Result<Series, Error> {
    if s.interval_ns.is_nan() || s.interval_ns <= 0.0 {
        return Err(bad(name, format!("interval_ns {}: must be positive", s.interval_ns)));
    }
    let n = s.intervals();
    if s.utilization.len() != s.ports.len()
        || s.packets.len() != s.ports.len()
        || s.utilization.iter().any(|u| u.len() != n)
        || s.packets.iter().any(|u| u.len() != n)
    {
        return Err(bad(name, "series: every port must have one value per interval"));
    }
    if n == 0 || s.ports.is_empty() {
        return Err(bad(name, "the series is empty"));
    }
    Ok(s)
}

/// A torus's axes as its port labels name them (`X+`, `X-`, ...), in port order, and its shape
/// from the routers' coordinates; `None` for a network without coordinates (a fat-tree). An
/// axis of length 1 has no ports, so no label names it: it is called `d{i}` (its index `i`
/// names it too).
pub fn torus_axes(ports: &[Port]) -> Option<(Vec<String>, Vec<u32>)> {
    let dims = ports.iter().find_map(|p| p.coords.as_ref())?.len();
    let mut shape = vec![1u32; dims];
    for p in ports {
        for (s, c) in shape.iter_mut().zip(p.coords.as_ref()?) {
            *s = (*s).max(c + 1);
        }
    }
    let mut net: Vec<&Port> = ports.iter().filter(|p| p.kind == "network").collect();
    net.sort_by_key(|p| p.port);
    let mut named: Vec<String> = Vec::new();
    for p in &net {
        let stem = p.label.strip_suffix(['+', '-'])?;
        if !named.iter().any(|n| n == stem) {
            named.push(stem.to_string());
        }
    }
    // Ports follow the axes in order, skipping those of length 1.
    if named.len() != shape.iter().filter(|&&s| s > 1).count() {
        return None;
    }
    let mut named = named.into_iter();
    let mut names = Vec::with_capacity(dims);
    for (i, &s) in shape.iter().enumerate() {
        names.push(if s > 1 { named.next()? } else { format!("d{i}") });
    }
    Some((names, shape))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The ports of a torus of `shape` whose axes `names` (one per axis longer than 1, in
    /// order) label its network ports.
    pub(crate) fn torus(shape: &[u32], names: &[&str]) -> Vec<Port> {
        let mut ports = Vec::new();
        let routers: u32 = shape.iter().product();
        for r in 0..routers {
            let (mut rest, mut coords) = (r, Vec::new());
            for &s in shape {
                coords.push(rest % s);
                rest /= s;
            }
            let labels = names.iter().flat_map(|n| [format!("{n}+"), format!("{n}-")]).chain(["nic0".to_string()]);
            for (port, label) in labels.enumerate() {
                let kind = if label.starts_with("nic") { "terminal" } else { "network" };
                let utilization = if kind == "network" { 0.1 + 0.01 * r as f64 } else { 0.0 };
                ports.push(Port {
                    router: r,
                    port: port as u32,
                    kind: kind.into(),
                    label,
                    bytes: 0,
                    packets: 0,
                    busy_ns: 0.0,
                    idle_ns: 0.0,
                    credit_stall_ns: 0.0,
                    utilization,
                    coords: Some(coords.clone()),
                });
            }
        }
        ports
    }

    #[test]
    fn an_axis_of_length_one_is_still_a_torus_axis() {
        // Regression: the labels name two axes of three, and the run was taken for a fat-tree.
        let (names, shape) = torus_axes(&torus(&[4, 1, 3], &["X", "Z"])).expect("a torus");
        assert_eq!((names, shape), (vec!["X".to_string(), "d1".into(), "Z".into()], vec![4, 1, 3]));
        let (names, shape) = torus_axes(&torus(&[1, 5], &["B"])).expect("a torus");
        assert_eq!((names, shape), (vec!["d0".to_string(), "B".into()], vec![1, 5]));
        // Without coordinates (a fat-tree's ports), no torus.
        let mut ft = torus(&[2, 2], &["X", "Y"]);
        ft.iter_mut().for_each(|p| p.coords = None);
        assert!(torus_axes(&ft).is_none());
    }
}

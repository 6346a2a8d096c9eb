//! `fabricsim validate`: reproduce published figures. Each file under `validation/` holds the rows
//! of one system; a row builds a scenario from overrides (usually a preset plus a workload), runs
//! it, extracts one metric and compares it with the published value:
//!
//! ```toml
//! system = "TofuD"
//! source = "The Tofu Interconnect D"
//! [[row]]
//! figure = "one-way 8 B Put latency, near CMGs"
//! table = "Table III"
//! published = 0.49
//! unit = "us"                 # us, ns, GB/s, fraction, count
//! metric = "one_way_latency"  # see `Metric`
//! tolerance = 0.05            # relative
//! kind = "calibration"        # required: calibration, derived, prediction or info (see below)
//! set = ["machine.preset=tofud"]
//! ratio_set = [...]           # optional: value = metric(set) / metric(set + ratio_set)
//! note = "..."
//! # For the collective metrics (collective_time, collective_bandwidth, gate_tnis, gate_channels_per_tni,
//! # gate_gates_per_tni, gate_stages): what to run, `ranks` on each of the first `nodes` nodes.
//! collective = { op = "barrier", algorithm = "hardware", ranks = 8, nodes = 1 }
//! ```
//! What a row's `kind` says it proves:
//! * `calibration`: a model parameter was set from this figure; passing shows the setting took.
//! * `derived`: follows from calibrated inputs by construction (another row of the same table
//!   set the parameter it exercises, or the figure is a structural count of the configuration
//!   chosen to give it); passing shows the mechanism composes, not that it predicts.
//! * `prediction`: nothing was set from it or from what it follows from: the mechanism alone
//!   gives the value.
//! * `info`: no published value; printed, never judged.

use crate::{Error, Plan, Scenario};
use fabricsim_core::ConfigError;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    system: String,
    source: String,
    #[serde(default)]
    row: Vec<RowSpec>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowSpec {
    figure: String,
    #[serde(default)]
    table: String,
    published: Option<f64>,
    unit: String,
    metric: String,
    #[serde(default = "default_tolerance")]
    tolerance: f64,
    kind: String,
    set: Vec<String>,
    #[serde(default)]
    ratio_set: Vec<String>,
    #[serde(default)]
    note: String,
    /// For the collective metrics: the collective to run.
    collective: Option<CollectiveRow>,
}

/// A collective a row runs (`fabricsim collective`): `op` by `algorithm`, `ranks` ranks on each of
/// the first `nodes` nodes, `bytes` per rank.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CollectiveRow {
    op: String,
    algorithm: String,
    #[serde(default = "one")]
    ranks: u32,
    #[serde(default = "one")]
    nodes: u32,
    #[serde(default = "eight")]
    bytes: u64,
    /// Run it beside the scenario's own open-loop traffic (as `collective --background`).
    #[serde(default)]
    background: bool,
}

fn one() -> u32 {
    1
}
fn eight() -> u64 {
    8
}

/// Run a row's collective: its completion time (ns) and its gates' use.
fn run_collective(plan: &Plan, c: &CollectiveRow) -> Result<crate::collective::CollectivePoint, Error> {
    let op = crate::collective::parse_op(&c.op)?;
    let map = (0..c.nodes).flat_map(|n| std::iter::repeat_n(fabricsim_core::NodeId(n), c.ranks as usize)).collect();
    // Beside background traffic the ranks are the nodes in order (as `collective --background`).
    let ranks = crate::placement::Ranks { per_node: c.ranks, map: (!c.background).then_some(map), grid: None };
    crate::collective::run_in(plan, &ranks, op, &c.algorithm, c.bytes, false, c.background, |_| {})
}

fn default_tolerance() -> f64 {
    0.05
}

/// One line of the validation table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub system: String,
    pub figure: String,
    pub source: String,
    pub kind: String,
    pub unit: String,
    pub published: Option<f64>,
    pub simulated: f64,
    /// (simulated - published) / published.
    pub error: Option<f64>,
    pub tolerance: f64,
    /// PASS, FAIL or INFO.
    pub status: String,
    pub note: String,
}

fn metric(s: &Scenario, name: &str, unit: &str, collective: Option<&CollectiveRow>) -> Result<f64, Error> {
    let plan = Plan::new(s)?;
    let field = || ConfigError::new("row.metric", format!("'{name}' is not a metric"));
    let base = match name {
        "collective_time" | "collective_bandwidth" | "gate_tnis" | "gate_channels_per_tni" | "gate_gates_per_tni" | "gate_stages" => {
            let c = collective.ok_or_else(|| ConfigError::new("row.collective", format!("metric '{name}' needs a collective to run")))?;
            let p = run_collective(&plan, c)?;
            let gates = || p.gates.clone().ok_or_else(|| ConfigError::new("row.metric", format!("'{name}': the run used no barrier gates")));
            match name {
                "collective_time" => p.time_ns,
                "collective_bandwidth" => p.algbw_gb_per_s,
                "gate_tnis" => gates()?.tnis as f64,
                "gate_channels_per_tni" => gates()?.max_channels_per_tni as f64,
                "gate_gates_per_tni" => gates()?.max_gates_per_tni as f64,
                _ => gates()?.stages as f64,
            }
        }
        "one_way_latency" => {
            let r = plan.run()?;
            r.workload.one_way_latency_ns.ok_or_else(|| ConfigError::new("row.metric", "the workload gives no one-way latency"))?
        }
        "throughput" | "efficiency" | "injection_efficiency" => {
            let r = plan.run()?;
            let t = r.workload.throughput_gb_per_s.ok_or_else(|| ConfigError::new("row.metric", "the workload gives no throughput"))?;
            match name {
                "efficiency" => t / plan.params.link_bandwidth.as_gb_per_s(),
                "injection_efficiency" => t / (plan.node_injection_bandwidth() / 1e9),
                _ => t,
            }
        }
        "packet_efficiency" => plan.params.format.efficiency(),
        "nodes"
        | "links"
        | "ports_per_node"
        | "diameter"
        | "links_optical"
        | "links_electrical"
        | "optical_link_fraction"
        | "links_per_plane"
        | "switches_per_plane"
        | "bisection_bandwidth"
        | "total_injection_bandwidth" => {
            let i = plan.info();
            let k = i.link_kinds;
            let planes = match &plan.topology {
                fabricsim_topology::Topology::FatTree(f) => f.rails() as f64,
                _ => 1.0,
            };
            match name {
                "nodes" => i.analysis.nodes as f64,
                // Every link of one plane, node-to-switch links included.
                "links_per_plane" => (i.analysis.links + i.analysis.terminal_links) as f64 / planes,
                "switches_per_plane" => i.analysis.routers as f64 / planes,
                // Bandwidths in GB/s.
                "bisection_bandwidth" => i.analysis.bisection_bandwidth / 1e9,
                "total_injection_bandwidth" => i.analysis.total_injection_bandwidth / 1e9,
                "links" => i.analysis.links as f64,
                "ports_per_node" => i.analysis.ports_per_node as f64,
                "diameter" => i.analysis.diameter as f64,
                "links_optical" => k.ok_or_else(field)?.links_optical as f64,
                "links_electrical" => k.ok_or_else(field)?.links_electrical as f64,
                _ => k.ok_or_else(field)?.optical_link_fraction,
            }
        }
        _ => return Err(field().into()),
    };
    // Latencies come in ns; convert to the row's unit.
    Ok(match (name, unit) {
        ("one_way_latency" | "collective_time", "us") => base / 1000.0,
        ("one_way_latency" | "collective_time", "ns") => base,
        ("one_way_latency" | "collective_time", u) => return Err(ConfigError::new("row.unit", format!("'{u}' is not a time unit (us, ns)")).into()),
        _ => base,
    })
}

/// The kinds a row can be (see the module docs).
pub const KINDS: [&str; 4] = ["calibration", "derived", "prediction", "info"];

fn run_row(system: &str, source: &str, r: &RowSpec, extra: &[String]) -> Result<Row, Error> {
    if !KINDS.contains(&r.kind.as_str()) {
        return Err(ConfigError::new("row.kind", format!("'{}' is not one of {}", r.kind, KINDS.join(", "))).into());
    }
    if !["us", "ns", "GB/s", "fraction", "count"].contains(&r.unit.as_str()) {
        return Err(ConfigError::new("row.unit", format!("'{}' is not one of us, ns, GB/s, fraction, count", r.unit)).into());
    }
    if r.published == Some(0.0) {
        return Err(ConfigError::new("row.published", "0 cannot be compared by relative error").into());
    }
    let mut s = Scenario::default();
    s.apply_overrides(&r.set)?;
    s.apply_overrides(extra)?;
    // A ratio compares two runs in the metric's native unit; the row's unit is then "fraction".
    let unit = if r.ratio_set.is_empty() { r.unit.as_str() } else { "ns" };
    let mut value = metric(&s, &r.metric, unit, r.collective.as_ref())?;
    if !r.ratio_set.is_empty() {
        let mut d = s.clone();
        d.apply_overrides(&r.ratio_set)?;
        value /= metric(&d, &r.metric, unit, r.collective.as_ref())?;
    }
    let error = r.published.map(|p| (value - p) / p);
    let status = match (r.kind.as_str(), error) {
        ("info", _) | (_, None) => "INFO",
        (_, Some(e)) if e.abs() <= r.tolerance => "PASS",
        _ => "FAIL",
    };
    Ok(Row {
        system: system.into(),
        figure: r.figure.clone(),
        source: if r.table.is_empty() { source.into() } else { format!("{source}, {}", r.table) },
        kind: r.kind.clone(),
        unit: r.unit.clone(),
        published: r.published,
        simulated: value,
        error,
        tolerance: r.tolerance,
        status: status.into(),
        note: r.note.clone(),
    })
}

/// The validation files built into the binary (the repository's `validation/`), so `validate`
/// works from any directory: (file stem, text).
pub const BUILT_IN: &[(&str, &str)] = &[
    ("apenet", include_str!("../../../validation/apenet.toml")),
    ("bgq", include_str!("../../../validation/bgq.toml")),
    ("dawning5000", include_str!("../../../validation/dawning5000.toml")),
    ("tofu", include_str!("../../../validation/tofu.toml")),
    ("tofu2", include_str!("../../../validation/tofu2.toml")),
    ("tofud", include_str!("../../../validation/tofud.toml")),
];

/// Run every validation file: those under `dir` (`*.toml`, sorted), or the built-in ones
/// ([`BUILT_IN`]) without a `dir`; keep systems whose name or file stem matches `only`
/// (case-insensitive; no match is an error listing the systems). `each` sees every row as it
/// completes.
pub fn validate(dir: Option<&Path>, only: Option<&str>, each: impl FnMut(&Row)) -> Result<Vec<Row>, Error> {
    validate_with(dir, only, &[], each)
}

/// The validation files of `dir` (or the built-in ones): (label for errors, stem, text).
fn files(dir: Option<&Path>) -> Result<Vec<(String, String, String)>, Error> {
    let Some(dir) = dir else {
        return Ok(BUILT_IN.iter().map(|(stem, text)| (format!("validation/{stem}.toml"), stem.to_string(), text.to_string())).collect());
    };
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).map_err(|e| Error::Io(format!("{}: {e}", p.display())))?;
            let stem = p.file_stem().map(|s| s.to_string_lossy().to_string()).unwrap_or_default();
            Ok((p.display().to_string(), stem, text))
        })
        .collect()
}

/// [`validate`] with `extra` overrides (`key=value`) applied to every row's scenario after its
/// own, e.g. `sim.tie_order=shuffle` to check that no figure depends on the order of
/// simultaneous events.
pub fn validate_with(dir: Option<&Path>, only: Option<&str>, extra: &[String], mut each: impl FnMut(&Row)) -> Result<Vec<Row>, Error> {
    let mut parsed = Vec::new();
    for (label, stem, text) in files(dir)? {
        let f: File = toml::from_str(&text).map_err(|e| ConfigError::new(label.clone(), e.to_string().trim_end().to_string()))?;
        parsed.push((label, stem.to_lowercase(), f));
    }
    if let Some(o) = only {
        let o = o.to_lowercase();
        if !parsed.iter().any(|(_, stem, f)| f.system.to_lowercase() == o || *stem == o) {
            let known: Vec<&str> = parsed.iter().map(|(_, _, f)| f.system.as_str()).collect();
            return Err(ConfigError::new("--only", format!("'{o}' matches no system (known: {})", known.join(", "))).into());
        }
    }
    let mut rows = Vec::new();
    for (label, stem, f) in &parsed {
        if let Some(o) = only {
            let o = o.to_lowercase();
            if f.system.to_lowercase() != o && *stem != o {
                continue;
            }
        }
        for r in &f.row {
            let row = run_row(&f.system, &f.source, r, extra).map_err(|e| match e {
                Error::Config(c) => Error::Config(ConfigError::new(format!("{label} row '{}': {}", r.figure, c.field), c.message)),
                other => other,
            })?;
            each(&row);
            rows.push(row);
        }
    }
    Ok(rows)
}

/// The rows as a text table.
pub fn table(rows: &[Row]) -> String {
    let mut s = format!(
        "{:<8} {:<52} {:<44} {:>11} {:>11} {:>8} {:>6}  {}\n",
        "system", "figure", "source", "published", "simulated", "error", "tol", "status"
    );
    for r in rows {
        let unit = if r.unit == "fraction" || r.unit == "count" { String::new() } else { format!(" {}", r.unit) };
        let count = r.unit == "count";
        let fmt = |v: f64| if count || v.abs() >= 1000.0 { format!("{v:.0}") } else { format!("{v:.4}") };
        let published = r.published.map(|p| format!("{}{unit}", fmt(p))).unwrap_or_else(|| "-".into());
        let error = r.error.map(|e| format!("{:+.1}%", e * 100.0)).unwrap_or_else(|| "-".into());
        s.push_str(&format!(
            "{:<8} {:<52} {:<44} {:>11} {:>11} {:>8} {:>5}%  {}{}\n",
            r.system,
            truncate(&r.figure, 52),
            truncate(&r.source, 44),
            published,
            format!("{}{unit}", fmt(r.simulated)),
            error,
            format!("{}", (r.tolerance * 1000.0).round() / 10.0),
            r.status,
            if r.kind == "calibration" || r.kind == "derived" { format!(" ({})", r.kind) } else { String::new() },
        ));
    }
    let pass = rows.iter().filter(|r| r.status == "PASS").count();
    let fail = rows.iter().filter(|r| r.status == "FAIL").count();
    let info = rows.iter().filter(|r| r.status == "INFO").count();
    s.push_str(&format!("{pass} passed, {fail} failed, {info} info rows\n"));
    let kinds: Vec<String> = KINDS[..3].iter().map(|k| format!("{} {k}", rows.iter().filter(|r| r.kind == *k).count())).collect();
    s.push_str(&format!("judged rows by kind: {}\n", kinds.join(", ")));
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let t: String = s.chars().take(n - 1).collect();
        format!("{t}~")
    }
}

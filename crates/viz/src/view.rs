//! `fabricsim view`: one self-contained HTML page that plays a run's link utilisation over
//! time (the data embedded as JSON, drawn by plain JavaScript on canvases, nothing fetched):
//! tori as grids of 2D slices on chosen axes, fat-trees by rail and level, one or two runs
//! side by side on one clock. The page itself is `viewer/page.html` and `viewer/viewer.js`.

use crate::input::{is_run, not_a_run, run_ports, series, torus_axes, Port, Series};
use crate::{bad, Error};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;

/// Most utilisation values a page holds per run (links x intervals); beyond it, neighbouring
/// intervals are merged so that a page of a very large network still opens quickly.
pub const MAX_VALUES: usize = 4_000_000;

/// One link of a run as the page draws it.
#[derive(Debug, Clone, Serialize)]
struct ViewLink {
    router: u32,
    port: u32,
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    coords: Option<Vec<u32>>,
    /// Over the measurement window: bytes, packets, busy ns, idle ns, credit-stall ns,
    /// utilisation.
    window: [f64; 6],
}

/// What the page knows of one run.
#[derive(Debug, Clone, Serialize)]
struct ViewRun {
    name: String,
    /// "torus" (with `axes` and `shape`) or "fat_tree".
    topology: &'static str,
    axes: Vec<String>,
    shape: Vec<u32>,
    /// Interval of the (possibly merged) series, ns, and how many source intervals each is.
    interval_ns: f64,
    merged: usize,
    links: Vec<ViewLink>,
    /// Per link, utilisation per interval in 0..=255.
    util: Vec<Vec<u8>>,
    summary: Vec<(String, String)>,
}

/// The network a run is of, for checking two runs side by side: kind, axes and shape, links.
fn network(r: &ViewRun) -> String {
    match r.topology {
        "torus" => format!("a torus of axes {} and shape {:?}", r.axes.join(","), r.shape),
        _ => format!("a fat-tree of {} links", r.links.len()),
    }
}

fn summary(v: &Value) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut put = |k: &str, val: Option<String>| {
        if let Some(val) = val {
            rows.push((k.to_string(), val));
        }
    };
    let f = |p: &str, d: usize| v.pointer(p).and_then(Value::as_f64).map(|x| format!("{x:.d$}"));
    put("workload", v.get("workload_type").and_then(Value::as_str).map(str::to_string));
    put("nodes", v.get("nodes").map(Value::to_string));
    put("offered load", f("/offered_load", 3));
    put("simulated (us)", v.get("sim_time_ns").and_then(Value::as_f64).map(|x| format!("{:.2}", x / 1e3)));
    put("packets delivered", v.get("packets_delivered").map(Value::to_string));
    put("accepted (of injection)", f("/accepted_throughput/fraction_of_injection", 4));
    put("latency mean (ns)", f("/latency_ns/mean", 1));
    put("latency p50 (ns)", f("/latency_ns/p50", 1));
    put("latency p99 (ns)", f("/latency_ns/p99", 1));
    put("latency max (ns)", f("/latency_ns/max", 1));
    put("drained", v.get("drained").map(Value::to_string));
    if let Some(c) = v.get("collective") {
        put("collective", c.get("op").and_then(Value::as_str).map(|op| format!("{op} ({})", c["algorithm"].as_str().unwrap_or("?"))));
        put("collective time (us)", c.get("time_ns").and_then(Value::as_f64).map(|t| format!("{:.3}", t / 1e3)));
    }
    for d in v.get("link_utilization").and_then(Value::as_array).into_iter().flatten().take(12) {
        if let (Some(l), Some(m), Some(x)) = (d["label"].as_str(), d["mean"].as_f64(), d["max"].as_f64()) {
            rows.push((format!("links {l} mean/max"), format!("{m:.3} / {x:.3}")));
        }
    }
    rows
}

fn view_run(path: &Path, v: &Value) -> Result<ViewRun, Error> {
    if !is_run(v) {
        return Err(not_a_run(path));
    }
    let ports = run_ports(path, v)?;
    let s: Series = series(path, v)?;
    let counters: HashMap<(u32, u32), &Port> = ports.iter().map(|p| ((p.router, p.port), p)).collect();
    let coords: HashMap<u32, Vec<u32>> = ports.iter().filter_map(|p| Some((p.router, p.coords.clone()?))).collect();
    let torus = torus_axes(&ports);
    // Tori: the links between routers; fat-trees: every port (the nodes' links are the leaves).
    let keep: Vec<usize> = (0..s.ports.len()).filter(|&i| torus.is_none() || s.ports[i].kind == "network").collect();
    let links = keep
        .iter()
        .map(|&i| {
            let sp = &s.ports[i];
            let window = counters
                .get(&(sp.router, sp.port))
                .map(|p| [p.bytes as f64, p.packets as f64, p.busy_ns, p.idle_ns, p.credit_stall_ns, p.utilization])
                .unwrap_or([0.0; 6]);
            ViewLink { router: sp.router, port: sp.port, label: sp.label.clone(), coords: coords.get(&sp.router).cloned(), window }
        })
        .collect::<Vec<_>>();
    let merged = (links.len() * s.intervals()).div_ceil(MAX_VALUES).max(1);
    let util = keep
        .iter()
        .map(|&i| s.utilization[i].chunks(merged).map(|c| (c.iter().sum::<f64>() / c.len() as f64 * 255.0).round().clamp(0.0, 255.0) as u8).collect())
        .collect();
    let (topology, axes, shape) = match torus {
        Some((a, sh)) => ("torus", a, sh),
        None => ("fat_tree", Vec::new(), Vec::new()),
    };
    let stem = crate::input::stem(path);
    let name = match v.get("name").and_then(Value::as_str) {
        Some(n) => format!("{stem}: {n}"),
        None => stem,
    };
    Ok(ViewRun { name, topology, axes, shape, interval_ns: s.interval_ns * merged as f64, merged, links, util, summary: summary(v) })
}

/// The page for the runs in `files` (one or two, side by side), from their JSON `values`;
/// `axes` chooses the plane of tori (across, down), by name or index.
pub fn page(files: &[(&Path, &Value)], axes: Option<[String; 2]>) -> Result<String, Error> {
    if files.is_empty() || files.len() > 2 {
        return Err(bad("view", format!("{} runs: one or two", files.len())));
    }
    let runs = files.iter().map(|(p, v)| view_run(p, v)).collect::<Result<Vec<_>, _>>()?;
    if let [a, b] = &runs[..] {
        let (na, nb) = (network(a), network(b));
        let same_links = a.links.iter().map(|l| (l.router, l.port)).eq(b.links.iter().map(|l| (l.router, l.port)));
        if na != nb || !same_links {
            return Err(bad(
                files[1].0.display().to_string(),
                format!("is a run of {nb}, {} of {na}: side by side needs one network", files[0].0.display()),
            ));
        }
    }
    let plane = match (&axes, runs[0].topology) {
        (Some(ax), "torus") => {
            let find = |s: &str| {
                runs[0]
                    .axes
                    .iter()
                    .position(|n| n == s || n.eq_ignore_ascii_case(s))
                    .or_else(|| s.parse::<usize>().ok().filter(|i| *i < runs[0].axes.len()))
                    .ok_or_else(|| bad("--axes", format!("'{s}' is not an axis of this network (its axes: {})", runs[0].axes.join(", "))))
            };
            let (x, y) = (find(&ax[0])?, find(&ax[1])?);
            if x == y {
                return Err(bad("--axes", format!("{},{}: two different axes are needed", ax[0], ax[1])));
            }
            json!([x, y])
        }
        (Some(_), _) => return Err(bad("--axes", "the runs are of a fat-tree: it is drawn by rail and level, without axes")),
        (None, _) => json!([0, 1]),
    };
    let data = json!({ "runs": runs, "plane": plane, "scale": crate::colour::STOPS });
    // Inside <script>, "</" must not appear: JSON allows "<\/" for it.
    let data = serde_json::to_string(&data).expect("view data serialises").replace("</", "<\\/");
    let page = include_str!("viewer/page.html").replace("/*VIEWER_JS*/", include_str!("viewer/viewer.js")).replace("{/*DATA*/}", &data);
    Ok(page)
}

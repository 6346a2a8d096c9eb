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

mod blocks;
use blocks::Places;
pub use blocks::{Blocking, MAX_LINKS};
#[cfg(test)]
mod tests;

/// Most utilisation values a page holds per run (links x intervals); beyond it, neighbouring
/// intervals are merged so that a page of a very large network still opens quickly.
pub const MAX_VALUES: usize = 4_000_000;

/// One link of a run as the page draws it: a port, or the mean of a block's ports.
#[derive(Debug, Clone, Serialize)]
struct ViewLink {
    router: u32,
    port: u32,
    label: String,
    /// The router's coordinates, or the block's (in blocks) when the run is blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    coords: Option<Vec<u32>>,
    /// Over the measurement window: bytes, packets, busy ns, idle ns, credit-stall ns,
    /// utilisation (a block's: the mean of its links').
    window: [f64; 6],
    #[serde(skip_serializing_if = "Option::is_none")]
    block: Option<LinkBlock>,
}

/// What a drawn link of a blocked run stands for.
#[derive(Debug, Clone, Serialize)]
struct LinkBlock {
    /// First and last position along each axis: torus coordinates, or a fat-tree switch's rank
    /// among the switches of its row.
    ranges: Vec<[u32; 2]>,
    /// The lowest and highest router number in the block.
    routers: [u32; 2],
    /// Links averaged.
    links: usize,
    /// The highest of the links' window counters (`window` holds their mean).
    window_max: [f64; 6],
}

/// How a run was blocked, for the page to say.
#[derive(Debug, Clone, Serialize)]
struct RunBlocks {
    /// Routers (torus) or switches (fat-tree) per block along each axis.
    sizes: Vec<u32>,
    /// Positions along each axis before blocking (a torus's shape).
    shape: Vec<u32>,
    /// Links before blocking, and the most links one drawn link stands for.
    links: usize,
    most: usize,
}

/// What the page knows of one run.
#[derive(Debug, Clone, Serialize)]
struct ViewRun {
    name: String,
    /// "torus" (with `axes` and `shape`) or "fat_tree".
    topology: &'static str,
    axes: Vec<String>,
    /// A torus's shape, in blocks when the run is blocked.
    shape: Vec<u32>,
    /// Interval of the (possibly merged) series, ns, and how many source intervals each is.
    interval_ns: f64,
    merged: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    block: Option<RunBlocks>,
    links: Vec<ViewLink>,
    /// Per link, utilisation per interval in 0..=255.
    util: Vec<Vec<u8>>,
    summary: Vec<(String, String)>,
}

/// A run as read, before it is drawn: its ports, its series and the series' ports it draws.
struct Read {
    name: String,
    summary: Vec<(String, String)>,
    ports: Vec<Port>,
    series: Series,
    /// Indices into the series' ports of the links drawn.
    keep: Vec<usize>,
    torus: Option<(Vec<String>, Vec<u32>)>,
    coords: HashMap<u32, Vec<u32>>,
}

/// The network a run is of, for checking two runs side by side: kind, axes and shape, links.
fn network(r: &Read) -> String {
    match &r.torus {
        Some((axes, shape)) => format!("a torus of axes {} and shape {:?}", axes.join(","), shape),
        None => format!("a fat-tree of {} links", r.keep.len()),
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

fn read_run(path: &Path, v: &Value) -> Result<Read, Error> {
    if !is_run(v) {
        return Err(not_a_run(path));
    }
    let ports = run_ports(path, v)?;
    let series: Series = series(path, v)?;
    let coords: HashMap<u32, Vec<u32>> = ports.iter().filter_map(|p| Some((p.router, p.coords.clone()?))).collect();
    let torus = torus_axes(&ports);
    // Tori: the links between routers; fat-trees: every port (the nodes' links are the leaves).
    let keep: Vec<usize> = (0..series.ports.len()).filter(|&i| torus.is_none() || series.ports[i].kind == "network").collect();
    let stem = crate::input::stem(path);
    let name = match v.get("name").and_then(Value::as_str) {
        Some(n) => format!("{stem}: {n}"),
        None => stem,
    };
    Ok(Read { name, summary: summary(v), ports, series, keep, torus, coords })
}

/// Where a run's links are for blocking: a torus's links by router coordinates, a fat-tree's
/// by their switch's rank among the switches with ports of the same label; grouped by label and
/// kind (terminal ports apart from network ones).
fn places(r: &Read) -> Places {
    let ports = &r.series.ports;
    let mut names: HashMap<(&str, &str), u32> = HashMap::new();
    let group: Vec<u32> = r
        .keep
        .iter()
        .map(|&i| {
            let n = names.len() as u32;
            *names.entry((ports[i].label.as_str(), ports[i].kind.as_str())).or_insert(n)
        })
        .collect();
    let groups = names.len();
    match &r.torus {
        Some((_, shape)) => {
            // Every router of a run report has coordinates when the network is a torus.
            let zero = vec![0; shape.len()];
            let pos = r.keep.iter().flat_map(|&i| r.coords.get(&ports[i].router).unwrap_or(&zero).iter().copied()).collect();
            Places { dims: shape.len(), shape: shape.clone(), groups, group, pos }
        }
        None => {
            let mut members: Vec<(u32, u32)> = r.keep.iter().zip(&group).map(|(&i, &g)| (g, ports[i].router)).collect();
            members.sort_unstable();
            members.dedup();
            // A switch's rank in its group: its place in `members` less the group's first place.
            let rank = |g: u32, router: u32| {
                let at = members.binary_search(&(g, router)).unwrap_or_else(|k| k);
                (at - members.partition_point(|m| m.0 < g)) as u32
            };
            let pos: Vec<u32> = r.keep.iter().zip(&group).map(|(&i, &g)| rank(g, ports[i].router)).collect();
            let shape = vec![pos.iter().max().map_or(1, |m| m + 1)];
            Places { dims: 1, shape, groups, group, pos }
        }
    }
}

/// The run as the page draws it, its links blocked by `blocking` if any (the mean of each
/// block's links per interval), then its intervals merged to fit [`MAX_VALUES`].
fn view_run(r: Read, places: &Places, blocking: Option<&Blocking>) -> ViewRun {
    let Read { name, summary, ports, series: s, keep, torus, coords } = r;
    let counters: HashMap<(u32, u32), &Port> = ports.iter().map(|p| ((p.router, p.port), p)).collect();
    let window = |i: usize| {
        let sp = &s.ports[i];
        counters
            .get(&(sp.router, sp.port))
            .map(|p| [p.bytes as f64, p.packets as f64, p.busy_ns, p.idle_ns, p.credit_stall_ns, p.utilization])
            .unwrap_or([0.0; 6])
    };
    let pos = |j: usize| &places.pos[j * places.dims..(j + 1) * places.dims];
    // Each kept link's drawn link, numbered in the order of their first links.
    let (drawn, count) = match blocking {
        None => ((0..keep.len() as u32).collect::<Vec<u32>>(), keep.len()),
        Some(b) => {
            let coarse = b.coarse();
            let mut id = vec![u32::MAX; coarse.iter().map(|&c| c as usize).product::<usize>() * places.groups];
            let mut n = 0u32;
            let drawn = (0..keep.len())
                .map(|j| {
                    let k = &mut id[b.index(&coarse, pos(j)) * places.groups + places.group[j] as usize];
                    if *k == u32::MAX {
                        *k = n;
                        n += 1;
                    }
                    *k
                })
                .collect();
            (drawn, n as usize)
        }
    };
    // The kept links ordered by drawn link (stable: by series order within one).
    let mut order: Vec<u32> = (0..keep.len() as u32).collect();
    order.sort_by_key(|&j| drawn[j as usize]);
    let intervals = s.intervals();
    let merged = (count * intervals).div_ceil(MAX_VALUES).max(1);
    let frames = intervals.div_ceil(merged);
    let mut links = Vec::with_capacity(count);
    let mut util = Vec::with_capacity(count);
    let mut sum = vec![0.0f64; frames];
    let mut most = 0;
    for members in order.chunk_by(|a, b| drawn[*a as usize] == drawn[*b as usize]) {
        sum.iter_mut().for_each(|x| *x = 0.0);
        let (mut mean, mut max) = ([0.0; 6], [f64::MIN; 6]);
        let (mut lo, mut hi) = (vec![u32::MAX; places.dims], vec![0; places.dims]);
        let (mut rlo, mut rhi) = (u32::MAX, 0);
        for &j in members {
            let (j, i) = (j as usize, keep[j as usize]);
            for (t, u) in s.utilization[i].iter().enumerate() {
                sum[t / merged] += u;
            }
            let w = window(i);
            for k in 0..6 {
                mean[k] += w[k] / members.len() as f64;
                max[k] = max[k].max(w[k]);
            }
            for (d, &p) in pos(j).iter().enumerate() {
                lo[d] = lo[d].min(p);
                hi[d] = hi[d].max(p);
            }
            rlo = rlo.min(s.ports[i].router);
            rhi = rhi.max(s.ports[i].router);
        }
        most = most.max(members.len());
        let n = members.len() as f64;
        util.push(
            sum.iter()
                .enumerate()
                .map(|(f, x)| {
                    let len = merged.min(intervals - f * merged) as f64;
                    (x / (n * len) * 255.0).round().clamp(0.0, 255.0) as u8
                })
                .collect::<Vec<u8>>(),
        );
        let (first, sp) = (members[0] as usize, &s.ports[keep[members[0] as usize]]);
        let coords = match blocking {
            Some(b) if torus.is_some() => Some(b.block_coords(pos(first))),
            _ => coords.get(&sp.router).cloned(),
        };
        let block = blocking.map(|_| LinkBlock {
            ranges: lo.iter().zip(&hi).map(|(a, b)| [*a, *b]).collect(),
            routers: [rlo, rhi],
            links: members.len(),
            window_max: max,
        });
        links.push(ViewLink {
            router: sp.router,
            port: sp.port,
            label: sp.label.clone(),
            coords,
            window: if blocking.is_some() { mean } else { window(keep[first]) },
            block,
        });
    }
    let block = blocking.map(|b| RunBlocks { sizes: b.sizes.clone(), shape: b.shape.clone(), links: keep.len(), most });
    let (topology, axes, shape) = match torus {
        Some((a, sh)) => ("torus", a, blocking.map_or(sh, Blocking::coarse)),
        None => ("fat_tree", Vec::new(), Vec::new()),
    };
    ViewRun { name, topology, axes, shape, interval_ns: s.interval_ns * merged as f64, merged, block, links, util, summary }
}

/// The page for the runs in `files` (one or two, side by side), from their JSON `values`;
/// `axes` chooses the plane of tori (across, down), by name or index. A run of more than
/// `max_links` links ([`MAX_LINKS`] is a screen's worth) is drawn in blocks of neighbouring
/// routers (see [`Blocking`]), the same blocks for both runs.
pub fn page(files: &[(&Path, &Value)], axes: Option<[String; 2]>, max_links: usize) -> Result<String, Error> {
    if files.is_empty() || files.len() > 2 {
        return Err(bad("view", format!("{} runs: one or two", files.len())));
    }
    if max_links == 0 {
        return Err(bad("--max-links", "0: a page draws at least one link per run"));
    }
    let reads = files.iter().map(|(p, v)| read_run(p, v)).collect::<Result<Vec<_>, _>>()?;
    if let [a, b] = &reads[..] {
        let (na, nb) = (network(a), network(b));
        let link = |r: &Read, i: usize| {
            let p = &r.series.ports[i];
            (p.router, p.port, p.label.clone(), p.kind.clone())
        };
        let same_links = a.keep.iter().map(|&i| link(a, i)).eq(b.keep.iter().map(|&i| link(b, i)));
        if na != nb || !same_links {
            return Err(bad(
                files[1].0.display().to_string(),
                format!("is a run of {nb}, {} of {na}: side by side needs one network", files[0].0.display()),
            ));
        }
    }
    // One network: the first run's blocking is the second's too.
    let places: Vec<Places> = reads.iter().map(places).collect();
    let blocking = blocks::choose(&places[0], max_links);
    let runs: Vec<ViewRun> = reads.into_iter().zip(&places).map(|(r, p)| view_run(r, p, blocking.as_ref())).collect();
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

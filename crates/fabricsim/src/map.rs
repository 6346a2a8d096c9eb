//! `fabricsim map`: the mapping methods of [`fabricsim_mapping`] run for a pattern on a
//! scenario's network, each map priced by hop-bytes and by link loads under the scenario's own
//! routing. Glue only: the methods, costs and formats live in the mapping crate.

use crate::{Error, Plan};
use fabricsim_core::{ConfigError, NodeId};
use fabricsim_mapping::cost::{self, link_load::link_name};
use fabricsim_mapping::tune::{self, anneal};
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

/// One link and the bytes it carries.
#[derive(Debug, Clone, Serialize)]
pub struct BusyLink {
    /// The link: the node it leaves and its axis and direction (a switch port on a fat-tree).
    pub link: String,
    /// Bytes it carries.
    pub bytes: f64,
}

/// What one method found (one `--json` row).
#[derive(Debug, Clone, Serialize)]
pub struct MethodRow {
    /// The method's name.
    pub method: String,
    /// Which variant won (axis order, brick shape, annealing moves).
    pub detail: String,
    /// Hop-bytes of the pattern under the method's map.
    pub hop_bytes: u64,
    /// Bytes on the busiest link under the scenario's routing.
    pub max_link_bytes: f64,
    /// Mean bytes over every network link.
    pub mean_link_bytes: f64,
    /// The busiest links, busiest first.
    pub busiest_links: Vec<BusyLink>,
    /// Wall-clock seconds the method took (its costs not included).
    pub seconds: f64,
    /// With `--simulate`: the pattern's time on the packet-level network under this map (see
    /// [`simulate`]), ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulated_ns: Option<f64>,
    /// Node of every rank.
    #[serde(skip)]
    pub map: Vec<NodeId>,
}

/// The pattern of `--pattern FILE` (CSV `src,dst,bytes`) or `--generate SPEC`.
pub fn pattern(file: Option<&Path>, generate: Option<&str>) -> Result<Pattern, Error> {
    match (file, generate) {
        (Some(p), None) => {
            let text = std::fs::read_to_string(p).map_err(|e| ConfigError::new("--pattern", format!("'{}': {e}", p.display())))?;
            Ok(Pattern::from_csv(&text, None, &format!("--pattern {}", p.display()))?)
        }
        (None, Some(spec)) => Ok(fabricsim_mapping::generate::parse(spec, "--generate")?),
        _ => Err(ConfigError::new("--pattern", "give --pattern FILE or --generate SPEC (one of them)").into()),
    }
}

/// The pattern of CSV text `csv` (errors naming `field`) or of generator `generate` (one of them).
pub fn pattern_of(csv: Option<&str>, generate: Option<&str>, field: &str) -> Result<Pattern, Error> {
    match (csv, generate) {
        (Some(text), None) => Ok(Pattern::from_csv(text, None, field)?),
        (None, Some(spec)) => Ok(fabricsim_mapping::generate::parse(spec, "generate")?),
        _ => Err(ConfigError::new(field, "give a pattern or a generator (one of them)").into()),
    }
}

/// Run each of `methods` for `pattern` on `plan`'s network (`opts.per_node` ranks a node) and
/// price its map; `done` sees each row as it is finished. Annealing minimises `objective`,
/// starting from the best map (by that objective) of the methods before it. Refused (naming
/// `--generate`/`--pattern`) when the pattern has more ranks than the network's nodes hold.
pub fn compare(
    plan: &Plan,
    pattern: &Pattern,
    methods: &[Method],
    opts: &anneal::Options,
    objective: Objective,
    mut done: impl FnMut(&MethodRow),
) -> Result<Vec<MethodRow>, Error> {
    tune::check_fits(&plan.topology, pattern, opts.per_node, "--pattern")?;
    let graph = plan.build_graph();
    let model = tune::LinkModel { graph: &graph, routing: &plan.routing };
    let mut rows: Vec<MethodRow> = Vec::with_capacity(methods.len());
    for &m in methods {
        let began = Instant::now();
        // Annealing refines the best map of the methods run before it (the default order when
        // it runs first).
        let mapped = match m {
            Method::Anneal => {
                let (from, start) = match best(&rows, objective) {
                    Some(b) => (b.method.clone(), b.map.clone()),
                    None => ("default".to_string(), tune::run(Method::Default, &plan.topology, pattern, opts).map),
                };
                let mut a = tune::anneal_objective(objective, &plan.topology, model, pattern, &start, opts)
                    .map_err(|m| Error::Failed(format!("link loads: {m}")))?;
                a.detail = format!("from {from}: {}", a.detail);
                a
            }
            _ => tune::run(m, &plan.topology, pattern, opts),
        };
        let seconds = began.elapsed().as_secs_f64();
        let loads = cost::link_loads(&graph, &plan.routing, pattern, &mapped.map).map_err(|m| Error::Failed(format!("link loads: {m}")))?;
        let busiest = loads.busiest(3).into_iter().map(|(p, bytes)| BusyLink { link: link_name(&plan.topology, &graph, p), bytes }).collect();
        let row = MethodRow {
            method: m.name().into(),
            detail: mapped.detail,
            hop_bytes: mapped.hop_bytes,
            max_link_bytes: loads.max,
            mean_link_bytes: loads.mean,
            busiest_links: busiest,
            seconds,
            simulated_ns: None,
            map: mapped.map,
        };
        done(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// The pattern as a program: every rank posts all its flows at once (one Put per pair, the
/// pair's bytes summed), then waits until each partner's bytes have arrived and its own Puts
/// have completed. One phase: the pattern's flows all compete for the links together.
pub fn pattern_program(pattern: &Pattern) -> Result<fabricsim_program::FileProgram, Error> {
    use std::fmt::Write;
    let mut pairs: std::collections::BTreeMap<(u32, u32), u64> = Default::default();
    for f in pattern.flows().iter().filter(|f| f.src != f.dst && f.bytes > 0) {
        *pairs.entry((f.src, f.dst)).or_default() += f.bytes;
    }
    let mut text = format!("ranks {}\n", pattern.ranks());
    for ((s, d), b) in &pairs {
        let _ = writeln!(text, "{s} put {d} {b}B");
    }
    for ((s, d), b) in &pairs {
        let _ = writeln!(text, "{d} waitbytes {s} {b}B");
    }
    let mut senders: Vec<u32> = pairs.keys().map(|p| p.0).collect();
    senders.dedup();
    for s in senders {
        let _ = writeln!(text, "{s} waitall");
    }
    fabricsim_program::FileProgram::parse(&text).map_err(|m| Error::Failed(format!("the pattern as a program: {m}")))
}

/// Run `pattern` (as [`pattern_program`]) on `plan`'s network with rank `r` on `map[r]`: the
/// time until the last rank is done, ns.
pub fn simulate(
    plan: &Plan,
    program: &fabricsim_program::FileProgram,
    map: &[NodeId],
    progress: impl FnMut(fabricsim_core::Time),
) -> Result<f64, Error> {
    let per_node = per_node_of(map);
    let ranks = crate::placement::Ranks { per_node, map: Some(map.to_vec()), grid: None };
    Ok(crate::collective::run_program(plan, &ranks, Box::new(program.clone()), 0, false, progress)?.time_ns)
}

/// [`simulate`] each row's map, filling its `simulated_ns`; `done` sees each row after.
pub fn simulate_rows(plan: &Plan, pattern: &Pattern, rows: &mut [MethodRow], mut done: impl FnMut(&MethodRow)) -> Result<(), Error> {
    let program = pattern_program(pattern)?;
    for r in rows.iter_mut() {
        r.simulated_ns = Some(simulate(plan, &program, &r.map, |_| {})?);
        done(r);
    }
    Ok(())
}

/// The most ranks any node of `map` holds (at least 1).
fn per_node_of(map: &[NodeId]) -> u32 {
    let mut held: std::collections::HashMap<NodeId, u32> = Default::default();
    map.iter()
        .map(|n| {
            let h = held.entry(*n).or_default();
            *h += 1;
            *h
        })
        .max()
        .unwrap_or(1)
}

/// The best row by `objective`: hop-bytes the least hop-bytes, then the least loaded busiest
/// link; max-link the other way round; then the first.
pub fn best(rows: &[MethodRow], objective: Objective) -> Option<&MethodRow> {
    rows.iter().min_by(|a, b| {
        let hb = a.hop_bytes.cmp(&b.hop_bytes);
        let ml = a.max_link_bytes.total_cmp(&b.max_link_bytes);
        match objective {
            Objective::HopBytes => hb.then(ml),
            Objective::MaxLink => ml.then(hb),
        }
    })
}

/// The rows as a table: hop-bytes and link loads, each relative to the first row.
pub fn table(rows: &[MethodRow]) -> String {
    let sim = rows.iter().any(|r| r.simulated_ns.is_some());
    let sim_head = if sim { format!(" {:>12} {:>8}", "simulated us", "vs 1st") } else { String::new() };
    let mut s = format!(
        "{:<13} {:>16} {:>8} {:>14} {:>14}{sim_head} {:>9}  {}\n",
        "method", "hop-bytes", "vs 1st", "max link B", "mean link B", "seconds", "busiest link / detail"
    );
    let first = rows.first().map(|r| r.hop_bytes.max(1)).unwrap_or(1);
    let first_sim = rows.first().and_then(|r| r.simulated_ns).filter(|&t| t > 0.0).unwrap_or(1.0);
    for r in rows {
        let busy = r.busiest_links.first().map(|l| l.link.clone()).unwrap_or_else(|| "-".into());
        let simulated = match r.simulated_ns {
            Some(t) => format!(" {:>12.3} {:>8.3}", t / 1e3, t / first_sim),
            None if sim => format!(" {:>12} {:>8}", "-", "-"),
            None => String::new(),
        };
        s.push_str(&format!(
            "{:<13} {:>16} {:>8.3} {:>14.0} {:>14.1}{simulated} {:>9.2}  {busy}; {}\n",
            r.method,
            r.hop_bytes,
            r.hop_bytes as f64 / first as f64,
            r.max_link_bytes,
            r.mean_link_bytes,
            r.seconds,
            r.detail
        ));
    }
    s
}

pub use fabricsim_mapping::formats::{Format, HostPattern};
pub use fabricsim_mapping::tune::anneal::Options as AnnealOptions;
pub use fabricsim_mapping::tune::{Method, Objective};
pub use fabricsim_mapping::Pattern;

/// `map` as the text of a `format` file, read back (`per_node` ranks a node at most) and checked
/// to be the same map (MPICH's order: the same order of ranks over the nodes used), so that the
/// text is known to load.
pub fn map_text(plan: &Plan, map: &[NodeId], format: Format, hosts: &HostPattern, per_node: u32) -> Result<String, Error> {
    let text = format.write(&plan.topology, map, hosts);
    let back = format.read(&plan.topology, &text, hosts, per_node, "--out")?;
    if !format.same_map(map, &back) {
        let why = if format == Format::Mpich { " (MPICH fills every node but the last with the ranks per node)" } else { "" };
        return Err(Error::Failed(format!("the {} file does not read back as the map written{why}", format.name())));
    }
    Ok(text)
}

/// Write `map` in `format` to `path` ([`map_text`]).
pub fn write_map(plan: &Plan, map: &[NodeId], format: Format, hosts: &HostPattern, per_node: u32, path: &Path) -> Result<(), Error> {
    let text = map_text(plan, map, format, hosts, per_node)?;
    std::fs::write(path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

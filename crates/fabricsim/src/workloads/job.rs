//! What the `collective`, `program` and `trace` workloads share: where their ranks run, the open-loop
//! traffic that may run beside them, and the checked [`Job`] both resolve to, which
//! [`crate::collective::run_job`] runs.

use super::WorkloadSpec;
use crate::placement::{read_rank_map, Ranks};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_program::{Collective, FileProgram};
use std::path::{Path, PathBuf};

/// A collective or program workload checked against its plan: everything its run needs, files
/// read and parsed.
#[derive(Debug, Clone)]
pub struct Job {
    pub ranks: Ranks,
    pub work: Work,
    /// Open-loop traffic to run beside it (see [`crate::background`]).
    pub background: Option<Background>,
}

/// What a job runs.
#[derive(Debug, Clone)]
pub enum Work {
    /// `algorithm` for `op` with `size` bytes per rank.
    Collective { op: Collective, algorithm: String, size: u64 },
    /// A program read from `file` (as the scenario names it).
    Program { program: FileProgram, file: PathBuf },
    /// A GOAL trace read from `file`, its calcs in units of `unit`, with what its check
    /// without a network found (the critical path).
    Trace {
        trace: std::sync::Arc<dyn fabricsim_program::goal::Source>,
        file: PathBuf,
        unit: fabricsim_program::goal::CalcUnit,
        stats: fabricsim_program::goal::TraceStats,
    },
}

/// Open-loop traffic beside a job: its workload, and when the job starts (the traffic's
/// warm-up: `sim.warmup`, by default a quarter of `sim.duration`).
#[derive(Debug, Clone)]
pub struct Background {
    pub spec: WorkloadSpec,
    pub delay: Time,
}

/// `fabricsim collective`'s options and the workload keys that say the same in a scenario.
/// The command runs one scenario per point, and its errors name the options again.
pub const OPTION_KEYS: [(&str, &str); 9] = [
    ("--op", "workload.op"),
    ("--algorithm", "workload.algorithm"),
    ("--sizes", "workload.size"),
    ("--program", "workload.file"),
    ("--ranks-per-node", "workload.ranks_per_node"),
    ("--rank-map", "workload.rank_map"),
    ("--grid", "workload.grid"),
    ("--virtual-torus", "workload.virtual_torus"),
    ("--background", "workload.background"),
];

/// `e` with a field that names a workload key renamed to the option that sets it (`to_option`)
/// or the other way round; other errors as they are. A key's sub-keys and lines
/// (`workload.background.type`, `workload.rank_map line 3`) name its option.
pub fn rename_field(e: Error, to_option: bool) -> Error {
    let Error::Config(mut c) = e else { return e };
    for (option, key) in OPTION_KEYS {
        let (from, to) = if to_option { (key, option) } else { (option, key) };
        let Some(rest) = c.field.strip_prefix(from) else { continue };
        if rest.is_empty() || (to_option && rest.starts_with('.')) {
            c.field = to.to_string();
        } else if rest.starts_with(' ') {
            c.field = format!("{to}{rest}");
        } else {
            continue;
        }
        break;
    }
    Error::Config(c)
}

/// The placement keys as a workload writes them.
pub(crate) struct PlacementKeys<'a> {
    pub ranks_per_node: u32,
    pub rank_map: &'a Option<PathBuf>,
    pub grid: &'a Option<Vec<u32>>,
    pub virtual_torus: bool,
}

/// The ranks the placement keys ask for (errors name the keys).
pub(crate) fn ranks(plan: &Plan, keys: &PlacementKeys) -> Result<Ranks, Error> {
    if keys.virtual_torus {
        let clash = [("rank_map", keys.rank_map.is_some()), ("grid", keys.grid.is_some()), ("ranks_per_node", keys.ranks_per_node != 1)]
            .into_iter()
            .find(|(_, set)| *set);
        if let Some((key, _)) = clash {
            return Err(
                ConfigError::new("workload.virtual_torus", format!("true places one rank per node by itself: leave workload.{key} unset")).into()
            );
        }
        return crate::virtual_torus::virtual_torus(plan).map_err(|e| rename_field(e, false));
    }
    let map = match keys.rank_map {
        Some(path) => {
            let text = read_file(plan, "workload.rank_map", path)?;
            let named = |e: Error| match rename_field(e, false) {
                Error::Config(mut c) if c.field.starts_with("rank map") => {
                    c.field = c.field.replacen("rank map", "workload.rank_map", 1);
                    Error::Config(c)
                }
                other => other,
            };
            Some(read_rank_map(plan, &text, keys.ranks_per_node).map_err(named)?)
        }
        None => None,
    };
    let ranks = Ranks { per_node: keys.ranks_per_node, map, grid: keys.grid.clone() };
    ranks.check(plan).map_err(|e| rename_field(e, false))?;
    Ok(ranks)
}

/// The text of the file at `path` (relative to the scenario's folder), or an error naming
/// `field` and the path.
pub(crate) fn read_file(plan: &Plan, field: &str, path: &Path) -> Result<String, Error> {
    let full = plan.scenario.resolve_path(path);
    std::fs::read_to_string(&full).map_err(|e| ConfigError::new(field, format!("'{}': {e}", full.display())).into())
}

/// The background traffic of a job, checked: open-loop, with the job's ranks one per node in
/// node order, and the job's packet size.
pub(crate) fn background(plan: &Plan, spec: &Option<Box<WorkloadSpec>>, ranks: &Ranks) -> Result<Option<Background>, Error> {
    let Some(spec) = spec else { return Ok(None) };
    let field = "workload.background";
    if spec.is_closed() {
        let ty = spec.type_name();
        return Err(ConfigError::new(format!("{field}.type"), format!("'{ty}' is a benchmark, not open-loop traffic to run beside")).into());
    }
    if ranks.map.is_some() || ranks.per_node != 1 {
        return Err(ConfigError::new(field, "background traffic runs with one rank per node in node order").into());
    }
    let (mine, theirs) = (plan.scenario.workload.keys().packet_size(), spec.keys().packet_size());
    if mine != theirs {
        return Err(ConfigError::new(
            format!("{field}.packet_size"),
            format!("{theirs} differs from workload.packet_size ({mine}): one packet format serves both"),
        )
        .into());
    }
    // Its own keys are checked by building it once.
    spec.build(&super::BuildContext { plan, graph: None }).map_err(in_background)?;
    Ok(Some(Background { spec: (**spec).clone(), delay: plan.scenario.sim.warmup_or_default() }))
}

/// An error of the background's own keys (`workload.load`), named where they are
/// (`workload.background.load`).
fn in_background(e: Error) -> Error {
    match e {
        Error::Config(mut c) => {
            if let Some(rest) = c.field.strip_prefix("workload.") {
                c.field = format!("workload.background.{rest}");
            }
            Error::Config(c)
        }
        other => other,
    }
}

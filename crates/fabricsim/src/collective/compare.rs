//! Comparing collective algorithms over sizes (`fabricsim collective`): which points apply, and
//! each point run as a scenario of its own.

use super::{run_job, CollectivePoint};
use crate::applicable::Selection;
use crate::workloads::job::rename_field;
use crate::workloads::{CollectiveSpec, WorkloadSpec};
use crate::{Error, Plan, Scenario};
use fabricsim_core::{Bytes, ConfigError, Time};

/// What to compare: a collective workload (its operation, ranks and background) at several
/// points (size and algorithm, see [`select`]), and whether to keep per-port counters.
#[derive(Debug, Clone)]
pub struct Comparison<'a> {
    /// The workload of every point, but for its `algorithm` and `size`.
    pub workload: CollectiveSpec,
    /// (size, algorithm) in run order.
    pub points: &'a [(Bytes, String)],
    pub ports: bool,
    /// Where each point writes its series (`--series DIR`), if anywhere.
    pub series: Option<&'a crate::series_points::PointSeries>,
    /// Meter each point's queues (`--queues`, see [`crate::queues_points`]).
    pub queues: bool,
}

/// The points `algorithms` (`--algorithm`: names, or empty or `all` for every one that
/// applies) name for `workload`'s operation at `sizes` on `base`'s network, sizes outermost,
/// and the algorithms left out with why: decided before anything runs (see
/// [`crate::applicable`]). Errors name the command's options.
pub fn select(base: &Scenario, workload: &CollectiveSpec, algorithms: &[String], sizes: &[Bytes]) -> Result<Selection, Error> {
    let op = workload.op.ok_or_else(|| ConfigError::new("--op", "is required"))?;
    let size = *sizes.first().ok_or_else(|| ConfigError::new("--sizes", "names no size"))?;
    if let Some(z) = sizes.iter().find(|s| s.get() == 0) {
        return Err(ConfigError::new("--sizes", format!("{z}: a collective moves at least one byte per rank")).into());
    }
    let plan = crate::applicable::probe_plan(base, workload, size).map_err(|e| rename_field(e, true))?;
    crate::applicable::select(&plan, op, algorithms, sizes, "--algorithm")
}

/// Every point of `what`, in order: each a scenario of its own (`base` with the point's
/// workload, see [`point_scenario`]) run by [`run_job`], as `fabricsim run` runs it. Every
/// point's scenario is checked before the first runs. `progress` hears the simulated time now
/// and then during a run, `done` is called after each run.
pub fn compare(
    base: &Scenario,
    what: &Comparison,
    mut progress: impl FnMut(Time),
    mut done: impl FnMut(&CollectivePoint),
) -> Result<Vec<CollectivePoint>, Error> {
    if let Some((z, _)) = what.points.iter().find(|(s, _)| s.get() == 0) {
        return Err(ConfigError::new("workload.size", format!("{}B: a collective moves at least one byte per rank", z.get())).into());
    }
    let scenario = |(size, a): &(Bytes, String)| {
        let workload = CollectiveSpec { algorithm: Some(a.clone()), size: *size, ..what.workload.clone() };
        point_scenario(base, WorkloadSpec::Collective(workload))
    };
    if what.ports && what.series.is_some_and(|s| s.dir.is_some()) {
        return Err(
            ConfigError::new("--ports", "not with --series: a point's port counters are not kept beside its series yet; run them apart").into()
        );
    }
    // Checked first, so a point that cannot run stops the comparison before any has run.
    for p in what.points {
        let plan = Plan::new(&scenario(p))?;
        if what.queues {
            crate::queues_points::check_threads(&plan)?;
        }
    }
    let mut out = Vec::new();
    for p in what.points {
        let plan = Plan { queues: what.queues, ..Plan::new(&scenario(p))? };
        let mut p = match what.series {
            None => run_point(&plan, what.ports, &mut progress)?,
            // The point as `fabricsim run` gives it for the same scenario, with its series.
            Some(series) => {
                let op = what.workload.op.map_or("program", |o| o.name());
                let report = series.run(&plan, &crate::series_points::collective_stem(op, &p.1, p.0.get()), &mut progress)?;
                let point = report.collective.ok_or_else(|| Error::Io(format!("{} {}: the run reported no collective", op, p.1)))?;
                // (The operation log went to the point's trace: not kept for the comparison.)
                CollectivePoint { wall_s: Some(report.wall_seconds), queues: report.queues, ops: Vec::new(), ..point }
            }
        };
        p.provenance = Some(crate::report::Provenance::of(&plan.scenario));
        done(&p);
        out.push(p);
    }
    Ok(out)
}

/// Run one point: `plan`'s job (see [`run_job`]; `ports`: keep per-port counters). With
/// [`Plan::queues`] the point is the collective of the run `fabricsim run --queues` makes of the
/// same scenario, with its queue summary (and each port's queue fields, with `ports`).
pub fn run_point(plan: &Plan, ports: bool, progress: impl FnMut(Time)) -> Result<CollectivePoint, Error> {
    if !plan.queues {
        return run_job(plan, ports, progress);
    }
    crate::queues_points::check_threads(plan)?;
    let report = plan.run_with_progress(progress)?;
    let point = report.collective.ok_or_else(|| Error::Io("the run reported no collective".into()))?;
    let ports = if ports { report.ports } else { Vec::new() };
    Ok(CollectivePoint { wall_s: Some(report.wall_seconds), queues: report.queues, ports, ..point })
}

/// The scenario of one point of `fabricsim collective`: `base` running `workload` (a
/// `collective` or `program`) in its place, with `base`'s packet size. The command's file
/// options are paths from the current directory, so the point's paths are read from there.
pub fn point_scenario(base: &Scenario, mut workload: WorkloadSpec) -> Scenario {
    let mut s = base.clone();
    *workload.keys_mut().packet_size_mut() = base.workload.keys().packet_size();
    s.workload = workload;
    s.set_base_dir(std::path::PathBuf::new());
    s
}

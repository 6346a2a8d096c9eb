//! Which collective algorithms apply to a network, its ranks and a buffer size, decided before
//! anything runs: what `fabricsim collective --algorithm all` (the default) runs, and what it
//! skips and why.
//!
//! A software algorithm applies when it can be built for the ranks' layout (the topology-aware
//! ones need the ranks on a 2D or 3D torus, ...). `hardware` applies when the network has
//! in-network hardware that does the operation at that size: Blue Gene/Q's class routes do a
//! barrier, an allreduce and a broadcast, and an allgather as one broadcast per rank while a
//! node may take part in that many routes; Dawning's switches do a barrier (switch barrier) and
//! a broadcast or allgather (multicast); Tofu's barrier gates do a barrier and an allreduce of
//! at most the gates' element count of 8-byte elements, on a wiring that counts every
//! contribution once.

use crate::workloads::CollectiveSpec;
use crate::{Error, Plan};
use fabricsim_core::Bytes;
use fabricsim_network::gates::GateAlgorithm;
use fabricsim_program::algorithms::{build, hardware_names, names};
use fabricsim_program::Collective;

/// The points to run and the algorithms left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// (size, algorithm) in run order: sizes outermost.
    pub points: Vec<(Bytes, String)>,
    pub skipped: Vec<Skip>,
}

/// An algorithm left out at some sizes (every size asked for, when `sizes` holds them all).
#[derive(Debug, Clone, PartialEq)]
pub struct Skip {
    pub algorithm: String,
    pub sizes: Vec<Bytes>,
    /// Why, in words.
    pub reason: String,
    /// Whether every size asked for was skipped.
    pub every_size: bool,
}

impl std::fmt::Display for Skip {
    /// `skipped trinary_tree: needs ...` or `skipped hardware at 1KiB, 64KiB: ...`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        if self.every_size {
            write!(f, "skipped {}: {}", self.algorithm, self.reason)
        } else {
            let sizes: Vec<String> = self.sizes.iter().map(|s| s.to_string()).collect();
            write!(f, "skipped {} at {}: {}", self.algorithm, sizes.join(", "), self.reason)
        }
    }
}

/// Whether `algorithm` applies to `c` at `size` bytes per rank on `plan`'s network with
/// `plan`'s job's ranks (the plan of a collective job), or why not.
pub fn applies(plan: &Plan, c: Collective, algorithm: &str, size: u64) -> Result<(), String> {
    let job = plan.job.as_ref().ok_or("the scenario's workload is not a collective")?;
    if algorithm == "hardware" {
        return hardware(plan, c, job.ranks.count(plan), size);
    }
    let layout = job.ranks.layout(plan).map_err(|e| e.to_string())?;
    build(c, algorithm, &layout, size).map(|_| ())
}

/// Whether the network's in-network hardware does `c` for `ranks` ranks at `size` bytes, or why
/// not (the limits the network enforces when the collective starts).
pub fn hardware(plan: &Plan, c: Collective, ranks: u32, size: u64) -> Result<(), String> {
    use Collective::*;
    let p = &plan.params;
    if let Some(cr) = p.hardware.class_routes() {
        return match c {
            Barrier | Allreduce | Broadcast => Ok(()),
            Allgather if ranks <= cr.routes => Ok(()),
            Allgather => Err(format!(
                "an allgather by class routes takes one route per rank, and a node takes part in at most {} (hardware.routes), not {ranks}",
                cr.routes
            )),
            _ => Err(format!("the class routes do barriers, allreduces, broadcasts and allgathers, not {}", a_name(c))),
        };
    }
    if p.hardware.switch_barrier().is_some() || p.hardware.multicast().is_some() {
        return match c {
            Barrier if p.hardware.switch_barrier().is_some() => Ok(()),
            Broadcast | Allgather if p.hardware.multicast().is_some() => Ok(()),
            _ => {
                let has = match (p.hardware.switch_barrier().is_some(), p.hardware.multicast().is_some()) {
                    (true, true) => "barriers, broadcasts and allgathers",
                    (true, false) => "barriers",
                    _ => "broadcasts and allgathers",
                };
                Err(format!("the switches do {has}, not {}", a_name(c)))
            }
        };
    }
    if let Some(g) = p.hardware.gates() {
        return match c {
            Barrier => Ok(()),
            Allreduce if g.algorithm == GateAlgorithm::Dissemination => {
                Err("the barrier gates are wired by dissemination (hardware.algorithm), which can count a contribution twice: it cannot sum".into())
            }
            Allreduce if size.div_ceil(8) <= g.float_elements as u64 => Ok(()),
            Allreduce => Err(format!(
                "the barrier gates reduce at most {} floating-point elements of 8 bytes ({} B), not {size} B",
                g.float_elements,
                8 * g.float_elements as u64
            )),
            _ => Err(format!("the barrier gates do barriers and allreduces, not {}", a_name(c))),
        };
    }
    Err("the network has no in-network collective hardware (a Tofu, Blue Gene/Q or Dawning 5000 preset has)".into())
}

/// `a barrier`, `an allreduce`.
fn a_name(c: Collective) -> String {
    let n = c.name();
    if n.starts_with('a') {
        format!("an {n}")
    } else {
        format!("a {n}")
    }
}

/// Whether the network has any in-network collective hardware.
pub fn has_hardware(plan: &Plan) -> bool {
    plan.params.hardware.any()
}

/// The points `algorithms` name for `c` at `sizes` on `plan`'s network and job (`plan`: the
/// plan of one point of the comparison, any algorithm). An empty list or `all` asks for every
/// algorithm that applies: the others are skipped, each with the sizes and the reason
/// (`hardware` is not mentioned on a network without any). Algorithms named one by one must
/// apply at every size: the first that does not is an error naming `field`.
pub fn select(plan: &Plan, c: Collective, algorithms: &[String], sizes: &[Bytes], field: &str) -> Result<Selection, Error> {
    let all = algorithms.is_empty() || algorithms.iter().any(|a| a == "all");
    let known: Vec<&str> = names(c).iter().chain(hardware_names(c)).copied().collect();
    let wanted: Vec<String> = if all {
        known.iter().filter(|a| **a != "hardware" || has_hardware(plan)).map(|s| s.to_string()).collect()
    } else {
        if let Some(a) = algorithms.iter().find(|a| !known.contains(&a.as_str())) {
            let msg = format!("'{a}' is not an algorithm of {} (known: {}, all)", c.name(), known.join(", "));
            return Err(fabricsim_core::ConfigError::new(field, msg).into());
        }
        algorithms.to_vec()
    };
    let mut out = Selection::default();
    for a in &wanted {
        for size in sizes {
            match applies(plan, c, a, size.get()) {
                Ok(()) => {}
                Err(why) if all => match out.skipped.iter_mut().find(|s| s.algorithm == *a && s.reason == why) {
                    Some(s) => s.sizes.push(*size),
                    None => out.skipped.push(Skip { algorithm: a.clone(), sizes: vec![*size], reason: why, every_size: false }),
                },
                Err(why) => {
                    let msg = format!("'{a}' does not apply to {} at {size} per rank on this network: {why}", c.name());
                    return Err(fabricsim_core::ConfigError::new(field, msg).into());
                }
            }
        }
    }
    for s in &mut out.skipped {
        s.every_size = s.sizes.len() == sizes.len();
    }
    for size in sizes {
        for a in &wanted {
            if !out.skipped.iter().any(|s| s.algorithm == *a && s.sizes.contains(size)) {
                out.points.push((*size, a.clone()));
            }
        }
    }
    Ok(out)
}

/// The plan of `workload` on `base`'s network at its first algorithm (which needs nothing of
/// the network) and `size`: what [`select`] needs to know of the job's ranks.
pub fn probe_plan(base: &crate::Scenario, workload: &CollectiveSpec, size: Bytes) -> Result<Plan, Error> {
    let op = workload.op.ok_or_else(|| fabricsim_core::ConfigError::new("workload.op", "is required"))?;
    let spec = CollectiveSpec { algorithm: Some(names(op)[0].to_string()), size, ..workload.clone() };
    Plan::new(&crate::collective::point_scenario(base, crate::workloads::WorkloadSpec::Collective(spec)))
}

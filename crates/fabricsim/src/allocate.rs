//! `fabricsim allocate`: a job stream scheduled on a scenario's torus or mesh under several
//! allocation policies (see [`fabricsim_mapping::allocate`]), compared on utilisation, waiting
//! and fragmentation. Glue only: the occupancy model and the scheduler live in the mapping
//! crate.

use crate::{Error, Plan};
use fabricsim_core::ConfigError;
use fabricsim_mapping::allocate::stream::{self, StreamStats};
pub use fabricsim_mapping::allocate::stream::{generate, StreamJob};
use fabricsim_mapping::allocate::{Occupancy, Policy};
use fabricsim_topology::Topology;
use serde::Serialize;

/// The policies `fabricsim allocate` compares by name: `exact` (the shape as asked), `rotate`
/// (its lengths in any order), `pad` (rotation, and boxes of up to `pad` times the nodes).
pub fn policy(name: &str, pad: f64) -> Result<Policy, Error> {
    match name {
        "exact" => Ok(Policy::EXACT),
        "rotate" => Ok(Policy { rotate: true, pad: 1.0 }),
        "pad" => Ok(Policy { rotate: true, pad }),
        _ => Err(ConfigError::new("--policy", format!("'{name}' is not a policy (exact, rotate, pad)")).into()),
    }
}

/// One policy's schedule of the stream.
#[derive(Debug, Clone, Serialize)]
pub struct PolicyRow {
    pub policy: String,
    pub jobs: u32,
    /// Jobs that fit nowhere on the empty machine under the policy.
    pub refused: u32,
    pub makespan_s: f64,
    /// Node-seconds asked for over the machine's in the makespan.
    pub utilization: f64,
    /// Node-seconds allocated (padding included) over the machine's.
    pub allocated: f64,
    pub wait_mean_s: f64,
    pub wait_max_s: f64,
    /// Share of nodes free while a job waited.
    pub fragmentation: f64,
    pub backfilled: u32,
}

impl PolicyRow {
    fn of(policy: &str, s: StreamStats) -> Self {
        PolicyRow {
            policy: policy.into(),
            jobs: s.jobs,
            refused: s.refused,
            makespan_s: s.makespan,
            utilization: s.utilization,
            allocated: s.allocated,
            wait_mean_s: s.wait_mean,
            wait_max_s: s.wait_max,
            fragmentation: s.fragmentation,
            backfilled: s.backfilled,
        }
    }
}

/// The machine of `plan` as an empty occupancy (tori and meshes only).
pub fn machine(plan: &Plan) -> Result<Occupancy, Error> {
    match &plan.topology {
        Topology::Torus(t) => Ok(Occupancy::new(t.shape(), t.wrap())),
        Topology::FatTree(_) => Err(ConfigError::new("topology.type", "fat_tree: allocation places boxes on a torus or mesh").into()),
    }
}

/// Schedule `jobs` on `plan`'s machine under each of `policies` (name, policy).
pub fn compare(plan: &Plan, jobs: &[StreamJob], policies: &[(String, Policy)]) -> Result<Vec<PolicyRow>, Error> {
    let occ = machine(plan)?;
    Ok(policies.iter().map(|(name, p)| PolicyRow::of(name, stream::schedule(occ.clone(), jobs, *p).1)).collect())
}

/// The stream of `--stream FILE` (CSV `arrival,shape,runtime`), errors naming the flag and line.
pub fn read_stream(plan: &Plan, path: &std::path::Path) -> Result<Vec<StreamJob>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| ConfigError::new("--stream", format!("'{}': {e}", path.display())))?;
    let axes = machine(plan)?.dims().len();
    stream::parse(&text, axes).map_err(|m| ConfigError::new("--stream", format!("'{}' {m}", path.display())).into())
}

/// The rows as a table.
pub fn table(rows: &[PolicyRow]) -> String {
    let mut s = format!(
        "{:<8} {:>6} {:>8} {:>12} {:>8} {:>10} {:>12} {:>12} {:>8} {:>10}\n",
        "policy", "jobs", "refused", "makespan s", "util", "allocated", "wait mean s", "wait max s", "frag", "backfilled"
    );
    for r in rows {
        s += &format!(
            "{:<8} {:>6} {:>8} {:>12.1} {:>8.3} {:>10.3} {:>12.2} {:>12.2} {:>8.3} {:>10}\n",
            r.policy, r.jobs, r.refused, r.makespan_s, r.utilization, r.allocated, r.wait_mean_s, r.wait_max_s, r.fragmentation, r.backfilled
        );
    }
    s
}

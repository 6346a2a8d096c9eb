//! The virtual torus of a mesh/torus with paired axes (Tofu's 6D XYZABC seen as a 3D torus), as
//! the collectives' `--virtual-torus` places ranks: glue over
//! [`fabricsim_mapping::paired`], which holds the cycles and their documentation.

use crate::placement::Ranks;
use crate::{Error, Plan};
use fabricsim_core::ConfigError;
use fabricsim_topology::Topology;

pub use fabricsim_mapping::paired::cycle;

/// One rank per node, laid out on the virtual torus of `plan`'s mesh/torus: with `2n` axes,
/// virtual axis `i` threads axes `i` and `i + n` (rank numbers run along virtual axis 0
/// fastest). The grid of the result is the virtual torus, for the topology-aware collectives.
pub fn virtual_torus(plan: &Plan) -> Result<Ranks, Error> {
    let field = "--virtual-torus";
    let Topology::Torus(t) = &plan.topology else {
        return Err(ConfigError::new(field, "needs a mesh or torus").into());
    };
    let v = fabricsim_mapping::paired::paired_torus(t).map_err(|m| ConfigError::new(field, m))?;
    Ok(Ranks { per_node: 1, map: Some(v.map), grid: Some(v.dims) })
}

//! A job's nodes: a list of node ids, a region of a torus or mesh, or a region of a requested
//! shape placed by the allocator on the nodes the jobs before it left free.

use super::{field, JobSpec};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, NodeId};
use fabricsim_mapping::allocate::{Occupancy, Policy};
use fabricsim_mapping::Region;
use fabricsim_topology::Topology;
use fabricsim_workload::Shape;

/// Job `i`'s nodes in rank order and the shape its ranks form; `taken`: the nodes of the jobs
/// before it (which the allocator leaves alone).
pub(super) fn of(plan: &Plan, i: usize, spec: &JobSpec, taken: &[NodeId]) -> Result<(Vec<NodeId>, Shape), Error> {
    let given = [("nodes", spec.nodes.is_some()), ("origin", spec.origin.is_some() || spec.shape.is_some()), ("allocate", spec.allocate.is_some())];
    let set: Vec<&str> = given.iter().filter(|g| g.1).map(|g| g.0).collect();
    match set.as_slice() {
        ["nodes"] => list(plan, i, spec.nodes.as_deref().unwrap_or_default()),
        ["origin"] => {
            let (Some(origin), Some(shape)) = (&spec.origin, &spec.shape) else {
                let missing = if spec.origin.is_none() { "origin" } else { "shape" };
                return Err(ConfigError::new(field(i, missing), "is required with a region (origin and shape)").into());
            };
            let region = Region { origin: origin.clone(), shape: shape.clone() };
            let t = torus(plan, i, "origin")?;
            let ids = fabricsim_mapping::allocate::region_nodes(t.shape(), t.wrap(), &region).ok_or_else(|| {
                ConfigError::new(field(i, "shape"), format!("{shape:?} at {origin:?} does not fit the network {:?} (wrap {:?})", t.shape(), t.wrap()))
            })?;
            Ok((ids.into_iter().map(NodeId).collect(), region_shape(t.shape(), t.wrap(), shape)))
        }
        ["allocate"] => {
            let shape = spec.allocate.as_ref().expect("set");
            let t = torus(plan, i, "allocate")?;
            let mut occ = Occupancy::new(t.shape(), t.wrap());
            occ.set(&taken.iter().map(|n| n.0).collect::<Vec<_>>(), true);
            let policy = Policy { rotate: spec.rotate, pad: 1.0 };
            let (region, ids) = occ.find(shape, policy).ok_or_else(|| {
                let how = if spec.rotate { "in any order of its lengths" } else { "as given (rotate = false)" };
                ConfigError::new(field(i, "allocate"), format!("{shape:?} finds no free place {how} on the network {:?}", t.shape()))
            })?;
            Ok((ids.into_iter().map(NodeId).collect(), region_shape(t.shape(), t.wrap(), &region.shape)))
        }
        [] => {
            Err(ConfigError::new(field(i, "nodes"), "give the job's nodes: nodes = [ids], a region (origin and shape) or allocate = [shape]").into())
        }
        _ => {
            Err(ConfigError::new(field(i, set[1]), format!("give one of nodes, origin and shape, or allocate (this job has {})", set.join(" and ")))
                .into())
        }
    }
}

/// A list of node ids, each in the network and once.
fn list(plan: &Plan, i: usize, ids: &[u32]) -> Result<(Vec<NodeId>, Shape), Error> {
    let n = plan.topology.nodes();
    if ids.is_empty() {
        return Err(ConfigError::new(field(i, "nodes"), "[] names no node").into());
    }
    let mut seen = vec![false; n as usize];
    for &id in ids {
        if id >= n {
            return Err(ConfigError::new(field(i, "nodes"), format!("{id} is not a node id (the network has {n} nodes)")).into());
        }
        if std::mem::replace(&mut seen[id as usize], true) {
            return Err(ConfigError::new(field(i, "nodes"), format!("{id} is listed twice")).into());
        }
    }
    Ok((ids.iter().map(|&id| NodeId(id)).collect(), Shape { dims: vec![ids.len() as u32], wrap: vec![true] }))
}

/// The network as a torus, or an error naming `key`.
fn torus<'a>(plan: &'a Plan, i: usize, key: &str) -> Result<&'a fabricsim_topology::Torus, Error> {
    match &plan.topology {
        Topology::Torus(t) => Ok(t),
        Topology::FatTree(_) => Err(ConfigError::new(field(i, key), "regions are for tori and meshes: give a fat-tree job its nodes = [ids]").into()),
    }
}

/// The shape a region's ranks form: its lengths, an axis wrapping where the region spans a
/// whole ring.
fn region_shape(dims: &[u32], wrap: &[bool], shape: &[u32]) -> Shape {
    Shape { dims: shape.to_vec(), wrap: shape.iter().zip(dims.iter().zip(wrap)).map(|(&s, (&d, &w))| w && s == d).collect() }
}

/// Node `n` as a user names it: coordinates on a torus, the id on a fat-tree.
pub(super) fn describe(topo: &Topology, n: NodeId) -> String {
    match topo {
        Topology::Torus(t) => format!("{:?} (id {})", t.coords(n), n.0),
        Topology::FatTree(_) => n.0.to_string(),
    }
}

/// The node ids of region `r` of `plan`'s torus (`None`: not a torus, or the region does not
/// fit).
pub fn region_nodes(plan: &Plan, r: &Region) -> Option<Vec<NodeId>> {
    let Topology::Torus(t) = &plan.topology else { return None };
    fabricsim_mapping::allocate::region_nodes(t.shape(), t.wrap(), r).map(|v| v.into_iter().map(NodeId).collect())
}

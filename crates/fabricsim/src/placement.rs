//! Where a job's ranks run: one per node by default, several per node, or a rank map read from
//! a file; and the grid of ranks that topology-aware collectives see.

use crate::{Error, Plan};
use fabricsim_core::{ConfigError, NodeId};
use fabricsim_program::algorithms::Layout;
use fabricsim_program::Grid;
use fabricsim_topology::Topology;

/// The placement of a job's ranks.
#[derive(Debug, Clone)]
pub struct Ranks {
    /// Ranks per node (default 1): with no map, ranks fill nodes in order (ranks `0..n` on
    /// node 0, and so on); with a map, the most any node may hold.
    pub per_node: u32,
    /// Node of each rank (`None`: fill nodes in order).
    pub map: Option<Vec<NodeId>>,
    /// The torus the ranks form for topology-aware algorithms (rank `r` at position `r`, axis
    /// 0 fastest, every axis a ring). Default: the network's own torus when ranks sit one per
    /// node in node order; no grid otherwise.
    pub grid: Option<Vec<u32>>,
}

impl Default for Ranks {
    /// One rank per node, in node order.
    fn default() -> Self {
        Ranks { per_node: 1, map: None, grid: None }
    }
}

impl Ranks {
    /// Ranks in the job.
    pub fn count(&self, plan: &Plan) -> u32 {
        match &self.map {
            Some(m) => m.len() as u32,
            None => plan.topology.nodes().saturating_mul(self.per_node),
        }
    }

    /// Refuse more ranks than a job may have (`fabricsim_program::file::MAX_RANKS`).
    pub fn check(&self, plan: &Plan) -> Result<(), Error> {
        if self.per_node == 0 {
            return Err(ConfigError::new("--ranks-per-node", "0 is not a rank count").into());
        }
        let max = fabricsim_program::file::MAX_RANKS;
        match plan.topology.nodes().checked_mul(self.per_node) {
            Some(n) if n <= max || self.map.is_some() => Ok(()),
            _ => Err(ConfigError::new(
                "--ranks-per-node",
                format!("{} ranks on each of {} nodes is beyond the {max} ranks a job may have", self.per_node, plan.topology.nodes()),
            )
            .into()),
        }
    }

    /// The node of every rank, or `None` for one rank per node in node order (the network's
    /// identity map).
    pub fn nodes(&self, plan: &Plan) -> Option<Vec<NodeId>> {
        match (&self.map, self.per_node) {
            (Some(m), _) => Some(m.clone()),
            (None, 1) => None,
            (None, k) => Some(fabricsim_mapping::placement::fill_in_order(plan.topology.nodes(), k)),
        }
    }

    /// What the algorithms may know: the rank count, the grid, the link bandwidth (after
    /// [`Ranks::check`]).
    pub fn layout(&self, plan: &Plan) -> Result<Layout, Error> {
        self.check(plan)?;
        let ranks = self.count(plan);
        let grid = match (&self.grid, &plan.topology) {
            (Some(dims), _) => {
                let total = dims.iter().try_fold(1u32, |a, &d| a.checked_mul(d).filter(|_| d > 0));
                if total.is_none() {
                    return Err(
                        ConfigError::new("--grid", format!("{dims:?}: every axis holds at least one rank, {} in all at most", u32::MAX)).into()
                    );
                }
                let g = Grid::new(dims, &vec![true; dims.len()]);
                if g.ranks() != ranks {
                    return Err(ConfigError::new("--grid", format!("{dims:?} holds {} ranks, the job has {ranks}", g.ranks())).into());
                }
                Some(g)
            }
            (None, Topology::Torus(t)) if self.map.is_none() && self.per_node == 1 => Some(Grid::new(t.shape(), t.wrap())),
            _ => None,
        };
        Ok(Layout { ranks, grid, link_bandwidth: Some(plan.params.link_bandwidth), engines: plan.params.engines })
    }
}

/// Read a rank map: one line per rank (rank 0 first) giving its node, as coordinates separated
/// by spaces or commas on a torus or mesh, or a node id on a fat-tree; `#` starts a comment.
/// A node may hold at most `per_node` ranks. Errors name the line (see
/// [`fabricsim_mapping::placement::parse_rank_map`]).
pub fn read_rank_map(plan: &Plan, text: &str, per_node: u32) -> Result<Vec<NodeId>, Error> {
    Ok(fabricsim_mapping::placement::parse_rank_map(&plan.topology, text, per_node)?)
}

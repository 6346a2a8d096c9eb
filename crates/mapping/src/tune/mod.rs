//! Mapping methods: each returns a rank-to-node map (at most `per_node` ranks a node, one by
//! default).
//!
//! | method | what it does |
//! |---|---|
//! | `default` | rank `r` on node `r` (node ids: axis 0 fastest) |
//! | `permutations` | ranks along the axes in every order (axis permutation), the best by hop-bytes |
//! | `blocks` | ranks fill small bricks (2x2x1 Tofu units and the like) before the next brick, the best brick shape |
//! | `vtorus` | the pattern's own torus of ranks (a generated halo, ring or CG grid) laid on the network with every virtual neighbour one link away ([`crate::embed`]); the default order when there is none |
//! | `greedy` | graph growing: the rank most bound to those placed goes to the free node nearest them |
//! | `anneal` | simulated annealing over rank orders from the default, RMATT-style ([`anneal`]) |
//!
//! All are deterministic (annealing for a seed and an iteration count). With several ranks a
//! node ([`anneal::Options::per_node`] K), every method but annealing places groups of K
//! consecutive ranks (ranks `K g .. K g + K` form group `g`), one group a node, as it would place
//! single ranks ([`Pattern::grouped`]); annealing moves single ranks between the nodes' K slots,
//! from the groups laid in order. Ranks on one node exchange bytes without a link.

pub mod anneal;
pub mod anneal_links;
pub mod baselines;
pub mod greedy;

pub use anneal::Objective;
pub use anneal_links::LinkModel;

use crate::{cost, Pattern};
use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// A mapping method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Rank `r` on node `r`.
    Default,
    /// The best axis permutation.
    Permutations,
    /// The best blocked order.
    Blocks,
    /// The pattern's torus of ranks embedded with neighbours one link apart.
    Vtorus,
    /// Greedy graph growing.
    Greedy,
    /// Simulated annealing.
    Anneal,
}

impl Method {
    /// Every method, in the order they are reported.
    pub const ALL: [Method; 6] = [Method::Default, Method::Permutations, Method::Blocks, Method::Vtorus, Method::Greedy, Method::Anneal];

    /// The method's name as `--method` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Method::Default => "default",
            Method::Permutations => "permutations",
            Method::Blocks => "blocks",
            Method::Vtorus => "vtorus",
            Method::Greedy => "greedy",
            Method::Anneal => "anneal",
        }
    }

    /// The method named `s`; errors name `field` and the value.
    pub fn parse(s: &str, field: &str) -> Result<Method, ConfigError> {
        Method::ALL
            .into_iter()
            .find(|m| m.name() == s.trim())
            .ok_or_else(|| ConfigError::new(field, format!("'{s}' is not a method (default, permutations, blocks, vtorus, greedy, anneal)")))
    }
}

/// What a method found.
#[derive(Debug, Clone)]
pub struct Mapped {
    /// Node of every rank.
    pub map: Vec<NodeId>,
    /// Its hop-bytes.
    pub hop_bytes: u64,
    /// Which variant won (an axis order, a brick shape, annealing moves), for the report.
    pub detail: String,
}

/// Refuse a pattern with more ranks than the network's nodes hold, `per_node` ranks a node (a
/// count of 0 is refused too, naming `--ranks-per-node`).
pub fn check_fits(topo: &Topology, pattern: &Pattern, per_node: u32, field: &str) -> Result<(), ConfigError> {
    if per_node == 0 {
        return Err(ConfigError::new("--ranks-per-node", "0 is not a rank count"));
    }
    if pattern.ranks() as u64 > topo.nodes() as u64 * per_node as u64 {
        return Err(ConfigError::new(
            field,
            format!("{} ranks do not fit the network's {} nodes ({per_node} rank(s) per node)", pattern.ranks(), topo.nodes()),
        ));
    }
    Ok(())
}

/// Run `method` (annealing with `anneal`'s options, on hop-bytes) for `pattern` on `topo`,
/// after [`check_fits`]; `anneal.per_node` ranks a node (see the module docs).
pub fn run(method: Method, topo: &Topology, pattern: &Pattern, anneal: &anneal::Options) -> Mapped {
    let k = anneal.per_node.max(1);
    if k == 1 {
        return run_single(method, topo, pattern, anneal);
    }
    let start = expand(&baselines::default_order(pattern.ranks().div_ceil(k)), k, pattern.ranks());
    if method == Method::Anneal {
        return anneal::anneal(topo, pattern, &start, anneal);
    }
    let groups = pattern.grouped(k);
    let g = run_single(method, topo, &groups, &anneal::Options { per_node: 1, ..anneal.clone() });
    let map = expand(&g.map, k, pattern.ranks());
    Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail: format!("{} ({k} ranks a node)", g.detail) }
}

/// Anneal with `objective` from `start`: hop-bytes ([`anneal::anneal`]) or the busiest link
/// under `model` ([`anneal_links::anneal_max_link`]). Errors name a route that does not end.
pub fn anneal_objective(
    objective: Objective,
    topo: &Topology,
    model: LinkModel,
    pattern: &Pattern,
    start: &[NodeId],
    opts: &anneal::Options,
) -> Result<Mapped, String> {
    match objective {
        Objective::HopBytes => Ok(anneal::anneal(topo, pattern, start, opts)),
        Objective::MaxLink => Ok(anneal_links::anneal_max_link(model, topo, pattern, start, opts)?.mapped),
    }
}

/// Rank `r` on the node of group `r / k`.
pub fn expand(groups: &[NodeId], k: u32, ranks: u32) -> Vec<NodeId> {
    (0..ranks).map(|r| groups[(r / k) as usize]).collect()
}

/// One rank a node.
fn run_single(method: Method, topo: &Topology, pattern: &Pattern, anneal: &anneal::Options) -> Mapped {
    match method {
        Method::Default => {
            let map = baselines::default_order(pattern.ranks());
            Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail: "rank r on node r".into() }
        }
        Method::Permutations => baselines::permutations(topo, pattern),
        Method::Blocks => baselines::blocks(topo, pattern),
        Method::Vtorus => vtorus(topo, pattern),
        Method::Greedy => greedy::greedy(topo, pattern),
        Method::Anneal => anneal::anneal(topo, pattern, &baselines::default_order(pattern.ranks()), anneal),
    }
}

/// The pattern's torus of ranks embedded on the whole network, or the default order (saying
/// why) when the pattern has no grid or the grid does not embed.
fn vtorus(topo: &Topology, pattern: &Pattern) -> Mapped {
    let why = match (topo, pattern.grid()) {
        (Topology::Torus(t), Some(dims)) => match crate::embed(t, None, dims) {
            Ok(v) => {
                let shape: Vec<String> = dims.iter().map(u32::to_string).collect();
                return Mapped {
                    hop_bytes: cost::hop_bytes(topo, pattern, &v.map),
                    map: v.map,
                    detail: format!("virtual torus {}", shape.join("x")),
                };
            }
            Err(e) => e.to_string(),
        },
        (Topology::Torus(_), None) => "the pattern has no torus of ranks (a CSV file)".into(),
        (Topology::FatTree(_), _) => "a fat-tree has no torus".into(),
    };
    let mut m = run(Method::Default, topo, pattern, &anneal::Options::default());
    m.detail = format!("the default order: {why}");
    m
}

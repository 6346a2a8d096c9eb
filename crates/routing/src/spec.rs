//! What a scenario asks of the routing (`[routing]`), before it is checked against a topology:
//! one spec shared by the scenario file (deserialised directly) and [`Routing::build`], which
//! checks it against the topology in one place.

use crate::adaptive::Escape;
use crate::fat_tree_updown::UpPort;
use crate::{Adaptive, DimensionOrder, Routing, Selection, UpDown};
use fabricsim_core::ConfigError;
use fabricsim_topology::Topology;
use serde::{Deserialize, Serialize};

/// The routing, chosen by `type`: `"dimension_order"` (the default on tori and meshes),
/// `"adaptive"` (tori and meshes) or `"up_down"` (the default on fat-trees).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RoutingSpec {
    /// Dimension-order routing (torus or mesh).
    DimensionOrder(DimensionOrderSpec),
    /// Minimal adaptive routing over a dimension-order escape sub-network (torus or mesh).
    Adaptive(AdaptiveSpec),
    /// Up/down routing (fat-tree).
    UpDown(UpDownSpec),
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec::DimensionOrder(DimensionOrderSpec::default())
    }
}

/// `type = "dimension_order"`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct DimensionOrderSpec {
    /// Axis names in routing order. Default: axis order.
    pub order: Option<Vec<String>>,
    /// Choice among candidate hops (equivalent VCs, reception engines): `"credit"` (default:
    /// a free output, then the most credit), `"first"` or `"random"`.
    pub selection: Selection,
    /// How a packet half an even ring away goes: `"pair"` (default: by the parity of the
    /// source's and destination's coordinates) or `"source"` (Blue Gene/Q's hint bits: by the
    /// source's coordinates alone, + when they sum to an even number).
    pub ties: Ties,
}

/// `[routing] ties`: which way a packet goes when both ways round a ring are equally short.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Ties {
    /// Deterministic hops by the parity of the source's and destination's coordinate sums;
    /// adaptive hops may go either way.
    #[default]
    Pair,
    /// Every hop by the parity of the source's coordinate sum (+ when even), as Blue Gene/Q's
    /// hint bits, which the network computes at injection and the packet keeps.
    Source,
}

/// `type = "adaptive"`: minimal adaptive routing on a torus or mesh, deadlock-free by an escape
/// sub-network (see [`crate::adaptive`]).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct AdaptiveSpec {
    /// Axis order of the escape sub-network's dimension-order routing. Default: axis order.
    pub order: Option<Vec<String>>,
    /// The escape sub-network's deadlock avoidance: `"dateline"` (default: two escape VCs on
    /// rings of four or more) or `"bubble"` (one escape VC; a packet enters a ring only if it
    /// leaves room for one more).
    pub escape: Escape,
    /// Choice among the candidate hops: `"credit"` (default: an adaptive hop with room, a free
    /// output, then the most credit), `"first"` or `"random"`.
    pub selection: Selection,
    /// Zone routing: axis sets a packet routes through in turn, all its adaptive hops within
    /// the first zone with something left to correct, e.g. `[["A", "B"], ["C", "D"], ["E"]]`.
    /// Unset: every axis at once.
    pub zones: Option<Vec<Vec<String>>>,
    /// A packet that finds no room on any of its hops: `"wait"` (default) waits for room on
    /// any of them and takes the first that has it; `"escape"` takes the escape hop at once
    /// and waits for it (deterministic from there, unless `leave_escape`).
    pub blocked: Blocked,
    /// Whether a packet that took an escape hop may take adaptive hops again from the next
    /// router (Blue Gene/Q's stay-on-bubble bit clear); needs `escape = "bubble"`. Default
    /// false: it stays on the escape sub-network to its destination.
    pub leave_escape: bool,
    /// Ties, as for dimension order: `"pair"` (default: adaptive hops may go either way) or
    /// `"source"` (every hop by the source's coordinates: Blue Gene/Q's hint bits).
    pub ties: Ties,
}

/// What a blocked adaptive packet does (`[routing] blocked`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Blocked {
    /// Wait for room on any candidate hop, adaptive or escape.
    #[default]
    Wait,
    /// Commit to the escape hop.
    Escape,
}

/// `type = "up_down"`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct UpDownSpec {
    /// Choice among candidate hops (the VCs of the up or down port; with `up_port =
    /// "adaptive"`, the up ports): `"credit"` (default), `"first"` or `"random"`.
    pub selection: Selection,
    /// Up port on the way up: `"destination"` (default: destination digit mod up ports, the
    /// "D-mod-k" rule), `"random"` (a random port per source-destination pair) or `"adaptive"`
    /// (every up port a candidate: the selection policy picks, by free credit by default).
    pub up_port: UpPort,
}

impl RoutingSpec {
    /// The `type` name of this spec.
    pub fn name(&self) -> &'static str {
        match self {
            RoutingSpec::DimensionOrder(_) => "dimension_order",
            RoutingSpec::Adaptive(_) => "adaptive",
            RoutingSpec::UpDown(_) => "up_down",
        }
    }

    /// How packets choose among candidate hops.
    pub fn selection(&self) -> Selection {
        match self {
            RoutingSpec::DimensionOrder(d) => d.selection,
            RoutingSpec::Adaptive(a) => a.selection,
            RoutingSpec::UpDown(u) => u.selection,
        }
    }
}

impl Routing {
    /// Check `spec` against `topo` (the one place that does) and build the routing for
    /// `engines` injection engines per node and `vcs` VCs, or say which key does not fit.
    pub fn build(spec: &RoutingSpec, topo: &Topology, engines: u32, vcs: u8) -> Result<Routing, ConfigError> {
        if vcs == 0 || vcs > 8 {
            return Err(ConfigError::new("router.vcs", format!("{vcs} must be between 1 and 8")));
        }
        match (spec, topo) {
            (RoutingSpec::DimensionOrder(d), Topology::Torus(t)) => {
                Ok(DimensionOrder::new(t.clone(), d.order.as_deref(), engines, vcs)?.tying_by_source(d.ties == Ties::Source).into())
            }
            (RoutingSpec::Adaptive(a), Topology::Torus(t)) => {
                let table: Vec<Vec<Vec<String>>> = a.zones.iter().cloned().collect();
                let adaptive = Adaptive::new(t.clone(), a.order.as_deref(), engines, vcs, a.escape)?
                    .with_zones(&table, "routing.zones")?
                    .leaving_escape(a.leave_escape, "routing.leave_escape")?
                    .tying_by_source(a.ties == Ties::Source);
                Ok(Routing::from(adaptive).committing(a.blocked == Blocked::Escape))
            }
            (RoutingSpec::UpDown(u), Topology::FatTree(f)) => Ok(UpDown::new(f.clone(), vcs).with_up_port(u.up_port).into()),
            // (A fat-tree NIC has one engine per rail: the tree knows it.)
            (RoutingSpec::DimensionOrder(_) | RoutingSpec::Adaptive(_), Topology::FatTree(_)) => {
                Err(ConfigError::new("routing.type", format!("'{}' routes tori and meshes; a fat_tree takes 'up_down'", spec.name())))
            }
            (RoutingSpec::UpDown(_), Topology::Torus(_)) => {
                Err(ConfigError::new("routing.type", "'up_down' routes fat-trees; a torus or mesh takes 'dimension_order' or 'adaptive'"))
            }
        }
    }
}

//! Which in-network hardware a network has, and its parameters: one tagged section of a
//! scenario (`[hardware] type = "..."`), deserialised directly into these types. A network has
//! one kind of hardware at most (the machines modelled never combine them).

use super::class_routes::ClassRouteParams;
use super::gates::GateParams;
use super::multicast::MulticastParams;
use super::switch_barrier::SwitchBarrierParams;
use serde::{Deserialize, Serialize};

/// The network's in-network hardware, chosen by `type`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum HardwareSpec {
    /// None (the default): collectives run in software over point-to-point messages.
    None {},
    /// Tofu's barrier channels and gates in the NICs (see [`crate::gates`]).
    TofuGates(GateParams),
    /// Blue Gene/Q's collective logic along class routes in the routers (torus or mesh; see
    /// [`crate::class_routes`]).
    BgqClassRoutes(ClassRouteParams),
    /// Dawning 5000's switch barrier and multicast (fat-tree; see [`crate::switch_barrier`]
    /// and [`crate::multicast`]).
    DawningSwitch(DawningSwitchParams),
}

impl Default for HardwareSpec {
    fn default() -> Self {
        HardwareSpec::None {}
    }
}

/// `type = "dawning_switch"`: the logic in Dawning 5000's switches. Both units by default;
/// `units` picks, `[hardware.barrier]` and `[hardware.multicast]` set their parameters.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DawningSwitchParams {
    /// The units the switches have: `"barrier"`, `"multicast"`. Default both.
    pub units: Vec<DawningUnit>,
    /// The switch barrier's parameters.
    pub barrier: SwitchBarrierParams,
    /// The switch multicast's parameters.
    pub multicast: MulticastParams,
}

impl Default for DawningSwitchParams {
    fn default() -> Self {
        DawningSwitchParams { units: vec![DawningUnit::Barrier, DawningUnit::Multicast], barrier: Default::default(), multicast: Default::default() }
    }
}

/// A unit of Dawning's switch logic (`hardware.units`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DawningUnit {
    /// Barrier trees rooted at switches, with acks, resends and urges.
    Barrier,
    /// Broadcast packets copied down a tree of switches.
    Multicast,
}

impl HardwareSpec {
    /// The `type` name of this spec.
    pub fn name(&self) -> &'static str {
        match self {
            HardwareSpec::None {} => "none",
            HardwareSpec::TofuGates(_) => "tofu_gates",
            HardwareSpec::BgqClassRoutes(_) => "bgq_class_routes",
            HardwareSpec::DawningSwitch(_) => "dawning_switch",
        }
    }

    /// Tofu's barrier gates, if it is them.
    pub fn gates(&self) -> Option<&GateParams> {
        match self {
            HardwareSpec::TofuGates(g) => Some(g),
            _ => None,
        }
    }

    /// Blue Gene/Q's class routes, if it is them.
    pub fn class_routes(&self) -> Option<&ClassRouteParams> {
        match self {
            HardwareSpec::BgqClassRoutes(c) => Some(c),
            _ => None,
        }
    }

    /// Dawning's switch barrier, if the switches have it.
    pub fn switch_barrier(&self) -> Option<&SwitchBarrierParams> {
        match self {
            HardwareSpec::DawningSwitch(d) if d.units.contains(&DawningUnit::Barrier) => Some(&d.barrier),
            _ => None,
        }
    }

    /// Dawning's switch multicast, if the switches have it.
    pub fn multicast(&self) -> Option<&MulticastParams> {
        match self {
            HardwareSpec::DawningSwitch(d) if d.units.contains(&DawningUnit::Multicast) => Some(&d.multicast),
            _ => None,
        }
    }

    /// Whether the network has any in-network hardware.
    pub fn any(&self) -> bool {
        !matches!(self, HardwareSpec::None {})
    }
}

//! The class routes' parameters, as a scenario's `[hardware]` section gives them.

use fabricsim_core::Time;

/// Blue Gene/Q's collective hardware (`[hardware] type = "bgq_class_routes"` in a scenario).
/// Defaults: Blue Gene/Q's (16 routes per node, 12 inputs; floating-point combining costs 9
/// network cycles per hop going up and 3 going down, integers nothing extra; a barrier packet
/// passes each node's logic at the same 9 and 3 cycles).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassRouteParams {
    /// Class routes a node may take part in.
    pub routes: u32,
    /// Most inputs a node combines (links plus its own contribution).
    pub inputs: u32,
    /// Combining delay per hop going up the tree, for integer and bitwise operations.
    pub up_delay: Time,
    /// Delay per hop going down the tree, for integer and bitwise operations.
    pub down_delay: Time,
    /// Combining delay per hop going up the tree, for floating point.
    pub float_up_delay: Time,
    /// Delay per hop going down the tree, for floating point.
    pub float_down_delay: Time,
    /// The collective logic's delay per hop going up the tree for a barrier: its header-only
    /// packet ends in each node's logic, which ORs the node's inputs and, when the OR changes,
    /// sends a new barrier packet on (as a combine sends its combined packet). Zero: a barrier
    /// passes the logic as freely as a point-to-point hop.
    pub barrier_up_delay: Time,
    /// The logic's delay per hop going down the tree for a barrier.
    pub barrier_down_delay: Time,
}

impl Default for ClassRouteParams {
    fn default() -> Self {
        ClassRouteParams {
            routes: 16,
            inputs: 12,
            up_delay: Time::ZERO,
            down_delay: Time::ZERO,
            float_up_delay: Time::from_ns(18),
            float_down_delay: Time::from_ns(6),
            barrier_up_delay: Time::from_ns(18),
            barrier_down_delay: Time::from_ns(6),
        }
    }
}

impl ClassRouteParams {
    /// The logic's delay per hop for a collective of `kind` (`float`: floating-point values),
    /// going up the tree or down.
    pub fn logic_delay(&self, kind: fabricsim_nic::HwKind, float: bool, up: bool) -> Time {
        match (kind == fabricsim_nic::HwKind::Barrier, float, up) {
            (true, _, true) => self.barrier_up_delay,
            (true, _, false) => self.barrier_down_delay,
            (false, true, true) => self.float_up_delay,
            (false, true, false) => self.float_down_delay,
            (false, false, true) => self.up_delay,
            (false, false, false) => self.down_delay,
        }
    }
}

//! The class routes' parameters, as a scenario's `[hardware]` section gives them.

use fabricsim_core::Time;

/// Blue Gene/Q's collective hardware (`[hardware] type = "bgq_class_routes"` in a scenario).
/// Defaults: Blue Gene/Q's (16 routes per node, 12 inputs; floating-point combining costs 9
/// network cycles per hop going up and 3 going down, integers nothing extra).
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
        }
    }
}

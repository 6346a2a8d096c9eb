//! The in-network collective hardware: Tofu's barrier gates, Blue Gene/Q's class routes,
//! Dawning's switch barrier and multicast, and the switch agents and packet replication they use.

pub(crate) mod agent;
pub mod class_routes;
pub mod gates;
pub mod multicast;
pub mod switch_barrier;
pub mod switch_tree;

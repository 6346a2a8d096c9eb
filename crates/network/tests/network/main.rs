//! The network crate's integration tests, one module per behaviour (one test binary).

mod common;

mod arbitration;
mod barrier_gates;
mod class_routes;
mod class_vcs;
mod failed_links;
mod faults;
mod flits;
mod gate_wiring;
mod guards;
mod multicast;
mod nic;
mod partition;
mod routing_classes;
mod seam_guard;
mod stepping;
mod switch_barrier;
mod transit_ratio;

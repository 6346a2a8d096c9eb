//! Selection: which of a packet's candidate hops it takes.
//!
//! The router calls the policy at the end of an instant, once the packet's candidates are known
//! and in ascending order of input VC, so each choice sees the outputs the choices before it
//! requested (see the network crate's `phase.rs`). Every policy prefers a candidate whose
//! downstream buffer has room for the packet; among adaptive candidates with room it prefers
//! them over escape ones (the escape sub-network is the fallback).

use serde::{Deserialize, Serialize};

/// A selection policy (`[routing] selection = "..."`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selection {
    /// The candidate whose output is free (idle and not yet requested), then the one with the
    /// most free credit; ties go to the first from a start that rotates with the packet's id,
    /// so equivalent outputs (several reception engines, several VCs) share the load.
    #[default]
    Credit,
    /// The first candidate with room, in the routing's order (else the first): a fixed
    /// preference, for studies.
    First,
    /// A candidate with room drawn uniformly from a hash of the packet's id and the router
    /// (no generator state, so it does not depend on the order of events).
    Random,
}

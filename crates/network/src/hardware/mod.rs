//! The in-network collective hardware: Tofu's barrier gates, Blue Gene/Q's class routes,
//! Dawning's switch barrier and multicast, and the switch agents and packet replication they use.
//!
//! # One seam
//! Each unit implements `Unit` and sees the rest of the network only through a `Context`:
//! the time, its own events, the end-of-instant phase, sending a message from a NIC or a packet
//! from a switch's agent, and a few read-only facts (rank placement, parameters, the wiring).
//! The simulation holds its units in a list (`Hardware`) beside the fabric; an event of a unit
//! (`Ev::Unit`) names the unit by its index, and a message a unit sent reaches it back by its
//! message op (`Unit::ops`), so nothing outside this folder tests which units exist.
//! `mock::MockContext` stands in for the network, so a unit's protocol can be tested alone.
//!
//! # Adding a unit
//! 1. A folder `hardware/<name>/` with the unit's state, its parameter struct, and
//!    `impl Unit for ...`; its protocol tested on a `mock::MockContext` (see the gates' tests).
//! 2. Its parameter struct as a variant of `HardwareSpec` (`spec.rs`; serde: the scenario's
//!    `[hardware] type = "<name>"` section is deserialised straight into it, so the facade has
//!    nothing to copy), its limits in `limits.rs`, and one line in `Hardware::build`'s list (its
//!    place in the list is its order in the phase, and which unit runs a collective kind
//!    first).
//! 3. A message op in `crate::packet` if it sends messages, named by `Unit::ops`.
//!
//! The agents (`agent`) and the multicast's packet replication
//! (`multicast::replicate`) are not units: they are switch machinery in the fabric's hot path
//! that units use (through `Context::agent_send`, and the multicast's hint on its packets).

pub(crate) mod agent;
pub mod class_routes;
mod context;
mod dispatch;
pub mod gates;
pub(crate) mod limits;
#[cfg(test)]
pub(crate) mod mock;
pub mod multicast;
mod spec;
pub mod switch_barrier;
pub mod switch_tree;

use crate::params::NetworkParams;
pub(crate) use context::{Context, HwMessage, UnitCx};
use fabricsim_core::{ConfigError, SimError};
use fabricsim_nic::{HwCollective, HwGroup, HwKind, Rank};
use fabricsim_topology::{FatTree, PortGraph, Torus};
pub use spec::{DawningSwitchParams, DawningUnit, HardwareSpec};
use std::any::Any;

/// A piece of in-network collective hardware.
pub(crate) trait Unit: AsAny + Send {
    /// Whether it runs collectives of `kind` (the first unit in the list that does gets them).
    fn runs(&self, kind: HwKind) -> bool;
    /// Make group `g`, whose members run on `nodes` (checked: ranks of the job, none twice).
    fn group(&mut self, cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String>;
    /// Member `rank` starts collective `c`.
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String>;
    /// The result member `rank` got from its last collective on group `group`.
    fn value(&self, _rank: Rank, _group: u32) -> Option<[u64; 8]> {
        Some([0; 8])
    }
    /// One of its events (scheduled with [`Context::schedule`]).
    fn on_event(&mut self, cx: &mut dyn Context, e: u32);
    /// A message it sent (tag `tag`) has been delivered to rank `dst` with `bytes`.
    fn on_message(&mut self, cx: &mut dyn Context, tag: u64, dst: u32, bytes: u64);
    /// The head of one of its agent packets (tag `tag`) reached its node's logic.
    fn on_head(&mut self, _cx: &mut dyn Context, _tag: u64) {}
    /// Whether it has work for the end-of-instant phase.
    fn phase_due(&self) -> bool;
    /// The end of the instant: what it gathered during the instant, in an order of its own.
    fn phase(&mut self, cx: &mut dyn Context);
    /// The members whose collective ended this instant and have not been handed over yet, as
    /// (rank, tag).
    fn done(&mut self) -> &mut Vec<(u32, u64)>;
    /// Whether the instant's end must run the phase again for it: it ended collectives (or,
    /// for a unit that overrides this, it gathered work in the phase).
    fn ends_more(&mut self) -> bool {
        !self.done().is_empty()
    }
    /// The message ops (`crate::packet`) of what it sends.
    fn ops(&self) -> &'static [u8];
}

/// Any unit as `Any`, for the reports that read one unit's state ([`Hardware::get`]).
pub(crate) trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// No unit for a message op.
const NONE: u8 = u8::MAX;

/// The units of a network, in the order of the phase.
#[derive(Default)]
pub(crate) struct Hardware {
    pub(crate) units: Vec<Box<dyn Unit>>,
    /// The unit of each message op (`NONE`: not a unit's).
    by_op: [u8; 8],
}

impl Hardware {
    /// The units `params` asks for (`torus`, `fat_tree`: the network's, when it is one).
    pub(crate) fn build(graph: &PortGraph, params: &NetworkParams, torus: Option<Torus>, fat_tree: Option<FatTree>) -> Result<Self, SimError> {
        let unit = |field: &'static str| move |e: String| SimError::from(ConfigError::new(field, e));
        let (h, seed) = (&params.hardware, params.seed);
        let mut units: Vec<Box<dyn Unit>> = Vec::new();
        if let Some(g) = h.gates() {
            units.push(Box::new(gates::GateUnit::new(g.clone(), graph.nodes)));
        }
        // (`limits::check_on` has refused class routes off a torus and switch logic off a
        // fat-tree.)
        if let (Some(c), Some(t)) = (h.class_routes(), torus) {
            units.push(Box::new(class_routes::ClassRoutes::new(c.clone(), t)));
        }
        if let (Some(b), Some(t)) = (h.switch_barrier(), fat_tree.clone()) {
            units.push(Box::new(switch_barrier::SwitchBarrier::new(b.clone(), t, seed).map_err(unit("hardware.barrier.rail"))?));
        }
        if let (Some(m), Some(t)) = (h.multicast(), fat_tree) {
            units.push(Box::new(multicast::Multicast::new(m.clone(), t, seed).map_err(unit("hardware.multicast.rail"))?));
        }
        Ok(Hardware::of(units))
    }

    fn of(units: Vec<Box<dyn Unit>>) -> Self {
        let mut by_op = [NONE; 8];
        for (i, u) in units.iter().enumerate() {
            for &op in u.ops() {
                by_op[op as usize] = i as u8;
            }
        }
        Hardware { units, by_op }
    }

    /// Whether the network has any unit (one test per instant).
    #[inline(always)]
    pub(crate) fn any(&self) -> bool {
        !self.units.is_empty()
    }

    /// The unit that sends messages of op `op`.
    pub(crate) fn of_op(&self, op: u8) -> Option<usize> {
        self.by_op.get(op as usize).filter(|&&u| u != NONE).map(|&u| u as usize)
    }

    /// The unit that runs collectives of `kind`: the first that does, else the first (whose
    /// refusal names what it does run).
    pub(crate) fn for_kind(&self, kind: HwKind) -> Option<usize> {
        self.units.iter().position(|u| u.runs(kind)).or((!self.units.is_empty()).then_some(0))
    }

    /// The unit of type `U`, if the network has one.
    pub(crate) fn get<U: Unit>(&self) -> Option<&U> {
        self.units.iter().find_map(|u| AsAny::as_any(&**u).downcast_ref::<U>())
    }
}

/// What a network without collective hardware answers.
pub(crate) const NO_HARDWARE: &str = "this network has no in-network collective hardware (see the scenario's [hardware] section)";

//! The network model: routers, links and network interfaces, driven by the event engine.
//!
//! # Model
//! * **Packets, not flits.** A packet is the unit of routing and flow control. Links move it in
//!   `size / bandwidth` (serialisation) after a fixed `latency`.
//! * **Virtual cut-through.** A router may forward a packet as soon as its head has arrived and
//!   passed the router pipeline (`router_delay`), provided the next input buffer has room for the
//!   *whole* packet. Forwarding never completes before the tail has arrived.
//! * **Credits in bytes.** Each output has, per VC, the free bytes of the downstream input
//!   buffer as credit, which belongs to the output (the sender: see `fabric/records.rs`). Sending consumes
//!   `size` credits; they return `link_latency` after the tail leaves the downstream buffer.
//! * **Arbitration.** Each output grants, among the input VCs whose head packet has chosen it and
//!   fits downstream, the highest priority class first, round-robin within a class. It decides
//!   once per instant, after every event of that instant (`phase/`): a head that becomes
//!   ready, a transmission that ends or credit that arrives only posts the output, so every
//!   request of the instant takes part, whatever order the event queue hands them out in.
//!   NICs inject in the same phase. `sim.tie_order = "shuffle"` (a test mode of the event
//!   queue) draws the order of same-instant events at random; tests check that no result moves.
//! * **NICs.** Each message is dealt (round-robin, unless it names one) to one of the node's
//!   `engines` injection engines, whose own queue cuts it into packets as the engine is idle
//!   and has credit. A packet reaches its first router `nic_latency` after its engine starts
//!   sending. A message with a rate cap holds its engine for each packet's wire size at that
//!   rate (injection rate control).
//! * **Events.** Per hop: the head is ready (after link latency and router pipeline; an event
//!   only when it may find the packet first in an idle input VC, otherwise the release of the
//!   packet ahead makes its request, see `Core::grant`), the output is free again (end of
//!   serialisation), credits return upstream a credit latency later (an event only when the
//!   sender waits for them; otherwise they are counted when next read, see `fabric/records.rs`).
//!   Events at the same time run in a fixed order (workload timers and NIC wake-ups, then
//!   credits, arriving heads, deliveries, message processing, engine and output releases: the
//!   lane order in `sim.rs`), but nothing is decided by it: decisions wait for the phase at the
//!   end of the instant. What the order still fixes is which of the instant's credit returns an
//!   event sees (all of them, from the phase).
//! * **Lookahead routing.** When the routing gives a single hop (dimension order with one VC per
//!   dateline half), a grant already computes the packet's output at the next router; the
//!   request there uses it. This changes no decision (such a route depends on nothing that can
//!   change meanwhile); it moves the work to where the packet's record is in cache, and lets
//!   `fabric/warm.rs` prefetch what coming events will read. Candidate sets (adaptive routing, several
//!   reception engines) are still routed and selected at request time.
//! * **Counters.** Per-port bytes, packets, busy and credit-stall time cover the measurement
//!   window (snapshots at its start and end).
//! * **Zero-load latency** of one packet crossing `h` router-to-router links on a direct network
//!   is exactly `nic_latency + h * (router_delay + link_latency) + size / bandwidth` (the source
//!   router's pipeline is folded into `nic_latency`; see [`NetworkParams`]).
//!
//! # Where later features go
//! * Routing algorithms: new `fabricsim_routing::Kind` variants that read the packet header
//!   (`Header::zone`, `Header::escaped`) and mark candidates adaptive or escape, as the adaptive
//!   and zone routings do. Packets carry `zone` and `escaped`.
//! * Priority classes (collective, system traffic): `Message::class` ([`Api::send_prio`]);
//!   arbitration honours it (tested in `tests/network/arbitration.rs`), and with dedicated class VCs
//!   (`fabricsim_routing::classes`, `NetworkParams::class_buffer_bytes`) a class travels apart
//!   from normal traffic (tested in `tests/network/class_vcs.rs`).
//! * Per-rank programs, collectives, trace replay: implementations of [`Workload`]
//!   (`fabricsim-nic`), addressed by rank through a rank map
//!   ([`Simulation::with_rank_map`]), with Puts, Gets answered by the target NIC, local and
//!   remote completions, timers per rank, and the posting core's software cost. The
//!   `fabricsim-program` crate's `ProgramRun` is one (per-rank operation lists, collectives).
//! * In-network collectives: `Nic::collective_group`, `Nic::collective_start` and
//!   `Workload::collective_done` are the hooks. Each piece of hardware (Tofu's barrier gates,
//!   Blue Gene/Q's class routes, Dawning's switch barrier and multicast) is a unit behind one
//!   trait that sees the network through a narrow context; [`hardware`] has the recipe for
//!   adding one.
//! * Time series, traces, the viewer: an observer ([`fabricsim_stats::Observer`]) given to
//!   [`Simulation::observed`]; `PortSeries` samples per-port utilisation.
//! * Faults: lanes with errors and link protection ([`faults`]), computed when a hop is granted,
//!   behind one test that is false when no fault is configured. Rerouting around failed links
//!   is still to do.
//!
//! # Partitioned parallel runs: what they need, what is in place
//! A partitioned run splits the routers into ranges, each with its own event queue, and
//! exchanges what crosses a cut link (a packet forwarded, a credit returned) as messages that
//! take effect a link latency later; partitions then advance in windows of that lookahead.
//! It needs (1) results independent of the order of same-instant events, since partitions see
//! their neighbours' events in another order than one queue would: in place (arbitration as a
//! phase, tested by shuffling); (2) identifiers and random draws that depend on no global
//! counter: packet ids are per source node and traffic draws from per-node streams; (3) state
//! indexed by port and node in flat arrays that split by ranges: in place; (4) one seam where
//! routers touch each other: `fabric/link.rs`, where `forward` hands a packet to the downstream
//! buffer and `Core::return_credit` sends freed space back to the sender's credit record
//! (credits belong to the sender: an output reads and spends only its own; the record is stored
//! beside the input VC it counts, for speed, and a cut link keeps it with the sender), and
//! nothing else crosses; credit returns in flight are kept as arrival times, not event-queue
//! keys. The claim is guarded: with the `seam-guard` feature, every step of the fabric and the
//! NICs digests every router's state before and after, and a router other than the step's own
//! that changed without the link code crossing to it is reported (`fabric/guard.rs`; CI runs
//! it on loaded tori and fat-trees with dimension-order, adaptive and up/down routing), and
//! [`Simulation::partition_lookahead`] refuses a link without latency. The engine is
//! [`partition`] ([`Builder::build_partitioned`], [`Partitioned`]): blocks of routers in
//! windows of the lookahead on a thread pool, for open-loop workloads so far. Still to do:
//! closed workloads and programs (per-rank state in its node's block), the in-network units'
//! reads of other switches' state (the multicast's load bulletin, `Context::switch_packets` in
//! [`hardware`]), faults, and blocks as contiguous ranges of the arrays.
//!
//! # Building and running
//! [`Builder`] checks every limit once and builds a [`Simulation`]; a run is started, stepped
//! by instants or up to a time, and finished ([`Simulation::start`], [`Simulation::step`],
//! [`Simulation::run_until`], [`Simulation::finish`]), or run in one call
//! ([`Simulation::run`]). A run paused between instants goes on exactly as one that was not.
//!
//! ```
//! use fabricsim_core::Time;
//! use fabricsim_network::{Api, Builder, NetworkParams, PacketFormat, Rank, RunLimits, Workload};
//! use fabricsim_routing::{DimensionOrder, Routing};
//! use fabricsim_topology::Torus;
//!
//! /// Rank 0 sends one 1 KiB message to rank 3.
//! struct One;
//! impl Workload for One {
//!     fn start(&mut self, api: &mut Api) {
//!         api.send(Rank(0), Rank(3), 1024, 0);
//!     }
//! }
//!
//! let torus = Torus::new(vec![4], Some(vec![false]), None).unwrap();
//! let graph = torus.build_graph(1);
//! let routing = Routing::from(DimensionOrder::new(torus, None, 1, 1).unwrap());
//! let params = NetworkParams { vcs: 1, format: PacketFormat::simple(256, 0), ..NetworkParams::default() };
//! let mut sim = Builder::new(graph, routing, params).build(One).unwrap();
//! sim.start(RunLimits { warmup: Time::ZERO, measure: Time::from_us(10), drain: Time::ZERO }).unwrap();
//! sim.run_until(Time::from_ns(100)).unwrap(); // the message is on its way
//! assert!(sim.now() <= Time::from_ns(100));
//! sim.run_to_end(|_| {}).unwrap();
//! let out = sim.finish().unwrap();
//! assert_eq!(out.messages_delivered, 1);
//! ```

mod build;
mod fabric;
pub mod faults;
pub mod format;
#[cfg(test)]
mod guards_fire;
pub mod hardware;
mod meter;
mod nics;
pub mod packet;
pub mod params;
pub mod partition;
mod phase;
mod run;
pub mod sim;
pub mod workload;

pub use build::{check_parts, Builder};
pub use fabric::flits::FlitCounts;
pub use format::PacketFormat;
pub use hardware::{class_routes, gates, multicast, switch_barrier, switch_tree, DawningSwitchParams, DawningUnit, HardwareSpec};
pub use meter::outcome::{Outcome, RunLimits};
pub use params::{EngineChoice, NetworkParams};
pub use partition::{InProcess, Partitioned, Transport};
pub use run::RunState;
pub use sim::Simulation;
pub use workload::{Api, Delivered, HwCollective, HwGroup, HwKind, HwOp, Message, Nic, Op, Rank, Workload};

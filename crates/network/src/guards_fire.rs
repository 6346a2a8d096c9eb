//! The run's books are checked, and the checks are shown to fire: a packet that vanishes from
//! the network fails the conservation check, and a packet delivered twice fails the duplicate
//! check, each with its own error. The faults are made by reaching into the simulation's
//! state between two steps, which only this crate's tests can do.

use crate::packet::PacketId;
use crate::{Api, Builder, NetworkParams, Rank, RunLimits, RunState, Simulation, Workload};
use fabricsim_core::{SimError, Time};
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::Torus;

/// Node 0 sends one single-packet message to node 3 of a 4-node line.
struct One;
impl Workload for One {
    fn start(&mut self, api: &mut Api) {
        api.send(Rank(0), Rank(3), 64, 0);
    }
}

/// A started run of [`One`], stepped until its packet sits in a router's input buffer; the
/// packet's id.
fn packet_on_the_way() -> (Simulation<One>, PacketId) {
    let torus = Torus::new(vec![4], Some(vec![false]), None).unwrap();
    let graph = torus.build_graph(1);
    let routing = Routing::from(DimensionOrder::new(torus, None, 1, 1).unwrap());
    let params = NetworkParams { vcs: 1, ..NetworkParams::default() };
    let mut sim = Builder::new(graph, routing, params).build(One).unwrap();
    sim.start(RunLimits { warmup: Time::ZERO, measure: Time::from_us(10), drain: Time::ZERO }).unwrap();
    loop {
        if let Some(v) = sim.core.fabric.vcq.iter().find(|v| v.head != PacketId::NIL) {
            let pkt = v.head;
            return (sim, pkt);
        }
        assert_eq!(sim.step().unwrap(), RunState::Running, "the packet arrived before it was seen in a buffer");
    }
}

#[test]
fn the_run_goes_through_untouched() {
    let (mut sim, _) = packet_on_the_way();
    while sim.step().unwrap() == RunState::Running {}
    let o = sim.finish().unwrap();
    assert_eq!((o.packets_injected, o.packets_delivered), (1, 1));
}

#[test]
fn a_packet_lost_on_the_way_fails_the_conservation_check() {
    let (mut sim, pkt) = packet_on_the_way();
    // The packet vanishes: its slot is freed as if it had never been.
    sim.core.packets.remove(pkt);
    match sim.finish() {
        Err(SimError::Conservation { injected, delivered, in_flight }) => assert_eq!((injected, delivered, in_flight), (1, 0, 0)),
        other => panic!("a lost packet went unnoticed: {other:?}"),
    }
}

#[test]
fn a_packet_delivered_twice_fails_the_duplicate_check() {
    let (mut sim, pkt) = packet_on_the_way();
    // A copy of the packet reaches its destination early; the original still travels.
    let copy = sim.core.packets.insert(*sim.core.packets.get(pkt));
    assert!(sim.core.deliver(copy).is_some());
    let err = loop {
        match sim.step() {
            Ok(RunState::Running) => continue,
            Ok(_) => break sim.finish().unwrap_err(),
            Err(e) => break e,
        }
    };
    match err {
        SimError::DuplicateDelivery { src, packet } => assert_eq!((src, packet), (0, 0)),
        other => panic!("a duplicate went unnoticed: {other:?}"),
    }
}

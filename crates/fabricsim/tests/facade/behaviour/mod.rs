//! Behaviour of whole simulations built from scenarios, one module per theme; the helpers
//! below build the scenarios they share.

use fabricsim::scenario::{TopologySpec, TorusSpec};
use fabricsim::workloads::{LinkStreamsSpec, OpenLoopSpec, RoundTripSpec, StreamSpec, WorkloadSpec};
use fabricsim::{Plan, Scenario};
use fabricsim_core::{Bandwidth, NodeId, Time};
use fabricsim_topology::Topology;
use proptest::prelude::*;

mod adaptive_routing;
mod all_to_all;
mod bad_input;
mod conservation_and_determinism;
mod cores;
mod nic_engines;
mod nic_model;
mod observers;
mod packaging;
mod router_inputs;
mod selection;
mod sweeps;
mod throughput_and_saturation;
mod zero_load_latency;

fn scenario(toml: &str) -> Scenario {
    Scenario::from_toml_str(toml).unwrap()
}

fn pingpong_torus(shape: &[u32], wrap: &[bool], src: &[u32], dst: &[u32], size: u64) -> Scenario {
    let mut s = Scenario::default();
    torus(&mut s).shape = shape.to_vec();
    torus(&mut s).wrap = Some(wrap.to_vec());
    s.workload = WorkloadSpec::Pingpong(RoundTripSpec {
        src: Some(src.to_vec()),
        dst: Some(dst.to_vec()),
        message_size: fabricsim::Bytes(size),
        iterations: 2,
        ..Default::default()
    });
    s
}

/// The scenario's torus (or mesh) section.
fn torus(s: &mut Scenario) -> &mut TorusSpec {
    match &mut s.topology {
        TopologySpec::Torus(t) | TopologySpec::Mesh(t) => t,
        other => panic!("not a torus: {other:?}"),
    }
}

/// The ping-pong of `pingpong_torus` as a stream of `messages` messages (same endpoints, sizes).
fn as_stream(s: &mut Scenario, messages: u64) {
    let WorkloadSpec::Pingpong(r) = s.workload.clone() else { panic!("not a ping-pong") };
    s.workload = WorkloadSpec::Throughput(StreamSpec { packet_size: r.packet_size, src: r.src, dst: r.dst, message_size: r.message_size, messages });
}

fn set_packet_size(s: &mut Scenario, bytes: u64) {
    *s.workload.keys_mut().packet_size_mut() = fabricsim::Bytes(bytes);
}

/// A scenario from the defaults and `--set`-style overrides.
fn with(sets: &[&str]) -> Scenario {
    let mut s = Scenario::default();
    s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
    s
}

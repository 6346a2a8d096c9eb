//! A stand-in for the network ([`MockContext`]), so a unit's protocol can be tested without
//! routers: it records what the unit schedules and sends, and a test plays the network's part
//! (delivering messages after a latency of its choosing) with [`drive`].

use super::agent::AgentSend;
use super::{Context, HwMessage, Unit};
use crate::params::NetworkParams;
use fabricsim_core::RouterId;
use fabricsim_topology::PortGraph;

/// A network that only records.
pub(crate) struct MockContext {
    pub(crate) now: u64,
    pub(crate) params: NetworkParams,
    pub(crate) graph: PortGraph,
    /// Events the unit scheduled and has not been handed yet: (time, order, event).
    pub(crate) scheduled: Vec<(u64, u64, u32)>,
    order: u64,
    /// Messages the unit sent from NICs and agent packets it sent, in order.
    pub(crate) sent: Vec<(u64, HwMessage)>,
    pub(crate) agent_sent: Vec<(u32, AgentSend)>,
    /// Whether the unit asked for the end-of-instant phase.
    pub(crate) due: bool,
}

impl MockContext {
    /// One rank per node of `graph`.
    pub(crate) fn new(graph: PortGraph, params: NetworkParams) -> Self {
        MockContext { now: 0, params, graph, scheduled: Vec::new(), order: 0, sent: Vec::new(), agent_sent: Vec::new(), due: false }
    }
}

impl Context for MockContext {
    fn now(&self) -> u64 {
        self.now
    }
    fn schedule(&mut self, at: u64, e: u32) {
        assert!(at >= self.now, "event {e} scheduled in the past ({at} < {})", self.now);
        self.scheduled.push((at, self.order, e));
        self.order += 1;
    }
    fn phase_due(&mut self) {
        self.due = true;
    }
    fn send(&mut self, m: HwMessage) {
        self.sent.push((self.now, m));
    }
    fn agent_send(&mut self, out: u32, s: AgentSend) {
        self.agent_sent.push((out, s));
    }
    fn class_route(&self, _class: u8, route: u8) -> u8 {
        route
    }
    fn node(&self, rank: u32) -> u32 {
        rank
    }
    fn ranks(&self) -> u32 {
        self.graph.nodes
    }
    fn params(&self) -> &NetworkParams {
        &self.params
    }
    fn graph(&self) -> &PortGraph {
        &self.graph
    }
    fn class_payload(&self) -> u32 {
        self.params.max_payload()
    }
    fn switch_packets(&self, _r: RouterId) -> u64 {
        0
    }
}

/// Play the network for `unit` until nothing is left to do: each instant, the phase when the
/// unit asks for it, then its messages and agent packets delivered `latency` ps after they were
/// sent, then its events in time order. Returns the members whose collective ended, with when:
/// (time, rank, tag).
pub(crate) fn drive(unit: &mut dyn Unit, cx: &mut MockContext, latency: u64) -> Vec<(u64, u32, u64)> {
    let mut done = Vec::new();
    let mut in_flight: Vec<(u64, u64, (u64, u32, u64))> = Vec::new();
    let mut order = 0;
    loop {
        // The end of the instant.
        while cx.due {
            cx.due = false;
            if unit.phase_due() {
                unit.phase(cx);
            }
            for (at, m) in std::mem::take(&mut cx.sent) {
                in_flight.push((at + latency, order, (m.tag, m.dst, m.bytes)));
                order += 1;
            }
            for (_, s) in std::mem::take(&mut cx.agent_sent) {
                in_flight.push((cx.now + latency, order, (s.tag, s.dst, s.payload as u64)));
                order += 1;
            }
            done.extend(unit.done().drain(..).map(|(r, t)| (cx.now, r, t)));
        }
        // The next instant: the earliest delivery or event.
        let next_msg = in_flight.iter().map(|&(t, o, _)| (t, o)).min();
        let next_ev = cx.scheduled.iter().map(|&(t, o, _)| (t, o)).min();
        let at = match (next_msg, next_ev) {
            (None, None) => return done,
            (a, b) => a.into_iter().chain(b).map(|(t, _)| t).min().unwrap(),
        };
        cx.now = at;
        in_flight.sort_by_key(|&(t, o, _)| (t, o));
        while in_flight.first().is_some_and(|&(t, _, _)| t == at) {
            let (_, _, (tag, dst, bytes)) = in_flight.remove(0);
            unit.on_message(cx, tag, dst, bytes);
        }
        cx.scheduled.sort_by_key(|&(t, o, _)| (t, o));
        while cx.scheduled.first().is_some_and(|&(t, _, _)| t == at) {
            let (_, _, e) = cx.scheduled.remove(0);
            unit.on_event(cx, e);
        }
        cx.due = true;
    }
}

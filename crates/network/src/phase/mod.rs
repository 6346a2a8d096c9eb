//! Arbitration as a phase: decisions are taken once per instant, after every event of it.
//!
//! Several things can happen to an output at the same picosecond: heads become ready and ask
//! for it, it finishes a transmission, credit arrives for it. Hardware arbitrates once per cycle
//! among every request of that cycle; a model that granted the first requester it happened to
//! process would make the winner an artefact of the event queue's order (and silently bypass
//! priorities). So event handlers only *record* what happened (a request bit, credit, a freed
//! output) and *post* the output for arbitration; when the last event of the instant has been
//! handled, the run loop calls [`Core::end_instant`], which arbitrates every posted output once,
//! among all its requests, by priority then round-robin.
//!
//! A packet with a choice of hops (several reception engines, a forced first hop with a choice
//! of VC, later adaptive routing) chooses in the phase too, before arbitration: choices are made
//! in ascending order of input VC, each seeing which outputs the ones before it requested, so
//! packets that arrive together spread over equivalent outputs instead of all picking the one
//! that looked free at the start of the instant.
//!
//! NICs work the same way: messages that reach a NIC during the instant are dealt to its
//! engines in an order of their own (by node, posts before Get data, then by posting rank: a
//! rank's messages keep their order), and an engine finishing a packet, credit or a free host
//! link post the node; the phase lets its engines inject (engine 0 first: they share the host
//! link and memory).
//!
//! Before all this, the simulation hands the instant's completions to the workload, sorted by
//! their own content (`Simulation::end_instant`), so what a workload posts in reaction does not
//! depend on the order of events either; the receiving core's polling cost is assigned there.
//!
//! Posted outputs and nodes are handled in ascending id order, so the phase itself does not
//! depend on the order in which they were posted (grants at different outputs are independent,
//! except for a node's memory, which ejection ports of one node share: the order by id decides
//! there; and for a shared crossbar, where the VCs of one input port compete for it: the input
//! ranks them as an output ranks its requesters, by class then round-robin, and outputs that
//! passed a request over for it arbitrate again until the input is settled). The result: a run's outcome does not depend on how same-instant events are ordered,
//! which `sim.tie_order = "shuffle"` (a test mode of the event queue) checks.
//!
//! Cost: one bit and one push per posted output, and a check after each event whether the
//! instant is over (a minimum over the queue's lane fronts).

use crate::packet::PacketId;
use crate::sim::Core;
use fabricsim_stats::Observer;

/// The end-of-instant phase: what waits for the instant to end (see [`crate::phase`]).
pub(crate) struct Phase {
    /// Completions of the current instant, handed to the workload at its end.
    pub(crate) handover: Vec<crate::nics::delivery::Handover>,
    /// Outputs posted for arbitration at the end of the instant, each once (its bit in
    /// `arb_mark`), and nodes whose NICs inject then (`nic_mark`); see [`crate::phase`].
    pub(crate) arb_due: Vec<u32>,
    /// Head packets that choose among candidate hops at the end of the instant.
    pub(crate) select_due: Vec<u32>,
    pub(crate) arb_mark: Vec<u64>,
    pub(crate) nic_due: Vec<u32>,
    pub(crate) nic_mark: Vec<u64>,
    pub(crate) phase_scratch: Vec<u32>,
    /// Whether anything waits for the end of the instant (a posted output, node or choice, a
    /// message to deal, a completion to hand over).
    pub(crate) due: bool,
}

impl Phase {
    /// Nothing due, for `senders` outputs (router ports and engine pseudo-ports) and `nodes` NICs.
    pub(crate) fn new(senders: usize, nodes: usize) -> Self {
        Phase {
            handover: Vec::new(),
            arb_due: Vec::new(),
            select_due: Vec::new(),
            arb_mark: vec![0; senders.div_ceil(64)],
            nic_due: Vec::new(),
            nic_mark: vec![0; nodes.div_ceil(64)],
            phase_scratch: Vec::new(),
            due: false,
        }
    }
}

impl<O: Observer> Core<O> {
    /// Let packet `pkt` choose among its candidate hops at the end of this instant.
    #[inline]
    pub(crate) fn post_selection(&mut self, pkt: PacketId) {
        self.phase.select_due.push(pkt.0);
        self.phase.due = true;
    }

    /// Arbitrate output `out` at the end of this instant (once, however often it is posted).
    #[inline(always)]
    pub(crate) fn post_arbitration(&mut self, out: u32) {
        let (w, b) = (out as usize / 64, 1u64 << (out % 64));
        if self.phase.arb_mark[w] & b == 0 {
            self.phase.arb_mark[w] |= b;
            self.phase.arb_due.push(out);
            self.phase.due = true;
        }
    }

    /// Let `node`'s NIC engines inject at the end of this instant.
    #[inline]
    pub(crate) fn post_injection(&mut self, node: u32) {
        let (w, b) = (node as usize / 64, 1u64 << (node % 64));
        if self.phase.nic_mark[w] & b == 0 {
            self.phase.nic_mark[w] |= b;
            self.phase.nic_due.push(node);
            self.phase.due = true;
        }
    }

    /// The instant is over. Packets with a choice of hops choose (by input VC); posted outputs
    /// arbitrate; messages that reached NICs are dealt to engines; posted NICs inject; outputs
    /// and nodes in ascending id order. Choices post arbitrations and dealing posts NICs, all
    /// handled here; grants and injections post nothing (they schedule events, at later times
    /// unless a delay is zero: those are handled, and their posts decided, in a further phase
    /// of the same instant).
    #[inline(never)]
    pub(crate) fn end_instant(&mut self) {
        // Credit returns of this instant count whatever their rank (see `records.rs`).
        self.queue.end_of_instant();
        if self.hardware.any() {
            self.hardware_phase();
        }
        // Packets with a choice to make choose first (by input VC: each sees the claims of
        // those before it), then outputs arbitrate among all the instant's requests.
        let mut due = std::mem::take(&mut self.phase.phase_scratch);
        if !self.phase.select_due.is_empty() {
            std::mem::swap(&mut due, &mut self.phase.select_due);
            let packets = self.packets.slots();
            due.sort_unstable_by_key(|&p| packets[p as usize].q);
            for &pkt in &due {
                let pkt = PacketId(pkt);
                self.guarded(|c| c.home_of_packet(pkt), || format!("the choice of packet {}", pkt.0), |c| c.select(pkt));
            }
            due.clear();
        }
        self.phase.phase_scratch = due;
        // Arbitration and injection post nothing: the lists are read in place.
        if self.phase.arb_due.len() > 1 {
            self.phase.arb_due.sort_unstable();
        }
        for i in 0..self.phase.arb_due.len() {
            let out = self.phase.arb_due[i];
            self.phase.arb_mark[out as usize / 64] &= !(1 << (out % 64));
            self.guarded(|c| c.sender_router(out), || format!("the arbitration of output {out}"), |c| c.arbitrate(out));
        }
        self.phase.arb_due.clear();
        if self.fabric.flits_on {
            // Flits: busy links whose transmission a higher priority may suspend now (before
            // the shared crossbars settle, which may concern these grants too).
            self.flit_phase();
        }
        // Shared crossbars: outputs that passed over a request for its input's sake, and the
        // outputs it deferred to, arbitrate again until every input is settled (each round
        // grants at least the first request of some input, so this ends).
        while !self.fabric.xbar_retry.is_empty() {
            let mut list = std::mem::take(&mut self.fabric.xbar_retry);
            list.sort_unstable();
            list.dedup();
            for &out in &list {
                self.arbitrate(out);
            }
        }
        if !self.nics.arrivals.is_empty() {
            self.deal_arrivals();
        }
        if self.phase.nic_due.len() > 1 {
            self.phase.nic_due.sort_unstable();
        }
        for i in 0..self.phase.nic_due.len() {
            let node = self.phase.nic_due[i];
            self.phase.nic_mark[node as usize / 64] &= !(1 << (node % 64));
            self.guarded(|c| c.node_router(node), || format!("the injection of node {node}"), |c| c.try_inject(node));
        }
        self.phase.nic_due.clear();
        // Dealing arrivals posted their nodes (setting `due`); every list is empty now.
        self.phase.due = false;
    }
}

//! Dawning 5000's switch barrier: arrivals reduced up a tree of switches, completion sent down.
//!
//! A group ([`fabricsim_nic::HwGroup`]) gets a [`SwitchTree`] over its members' nodes on one plane
//! of the fat-tree, rooted at a switch (the path is twice the leaf-to-root distance, not the
//! leaf-to-leaf distance plus that, as a tree rooted at a node would need). When every member on
//! a node has started a barrier, the node's NIC barrier logic sends an *arrive* packet to its
//! leaf switch. A
//! switch's barrier logic (an agent, see `crate::hardware::agent`) answers each arrive with an *ack*,
//! and once every child has arrived sends one arrive to its parent; the root, once all its
//! children have arrived, sends *done* to each child, and each switch passes done on to its
//! children, down to the members' NICs. Every packet is a real packet on a real link: it waits
//! for the output behind the transmission in progress, outranks every other packet there, and
//! travels on the dedicated class VC when the switches have one (`router.class_vcs`), or else
//! shares the unicast VCs (and their queues).
//!
//! Reliability, as the paper argues for each direction:
//! * up, request-response: an element that sent an arrive resends it every `retry_timeout`
//!   until its ack comes (a switch acks a repeated arrive again, and counts it once);
//! * down, timeout-urge: an element that sent an arrive and has had no done after
//!   `urge_timeout` sends an *urge* to its parent, and again every `urge_timeout`; a parent
//!   that has passed that round's done on answers an urge with the done again (it keeps no
//!   other state for the distribution).
//!
//! Packets are lost with probability `drop` (a link error that the CRC catches: the packet
//! takes its link, then the receiver throws it away), drawn from the run's seed and the
//! packet's identity, so a run is reproducible whatever order its events tie in.

use super::{Context, Unit};
pub use crate::hardware::switch_tree::{At, SwitchTree};
use crate::packet::SWITCH_BARRIER;
use fabricsim_nic::{HwCollective, HwGroup, HwKind, Rank};
use std::collections::{HashMap, VecDeque};

mod params;
mod protocol;
pub use params::SwitchBarrierParams;

/// Priority class of barrier packets: above every other (the barrier VC's output priority).
pub const BARRIER_CLASS: u8 = 5;

/// What a barrier packet says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    Arrive,
    Ack,
    Done,
    Urge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    /// A packet from element `from` reached this element (lost: `corrupt`).
    Packet {
        kind: Kind,
        from: u32,
        corrupt: bool,
    },
    /// The element's logic has taken it in.
    Process {
        kind: Kind,
        from: u32,
    },
    /// Timers of an arrive sent (its `attempt`-th resend, `attempt`-th urge).
    Retry {
        attempt: u32,
    },
    Urge {
        attempt: u32,
    },
    /// A member's start (of the entry's round, its own count) reaches its NIC's barrier logic.
    Start,
    /// The NIC has finished: member `rank` hears the barrier is over.
    Finish {
        rank: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    group: u32,
    elem: u32,
    round: u32,
    step: Step,
}

impl Entry {
    /// The order an instant's steps are taken in: what packets say (arrivals, dones) before
    /// what timers decide (a done that comes as an urge timer expires cancels the urge), then
    /// by group, element and round.
    fn order(&self) -> (bool, Entry) {
        (matches!(self.step, Step::Retry { .. } | Step::Urge { .. }), *self)
    }
}

/// One element's state in its current round.
#[derive(Debug, Clone, Default)]
struct ElemState {
    /// Rounds it has completed (its current round).
    round: u32,
    /// Inputs arrived: bit `i` for child `i`, bit 0 for the node's members all started (a
    /// switch has fewer than 128 ports).
    got: u128,
    /// Its arrive has gone up; its ack has come; transmissions and urges so far.
    sent: bool,
    acked: bool,
    attempts: u32,
    urges: u32,
    /// Packets it has sent this round (their losses are drawn from it).
    packets: u32,
    /// A node's members that started this round, and the rounds of starts made for later ones.
    local: u32,
    ahead: Vec<u32>,
}

struct Group {
    tree: SwitchTree,
    /// Per element: the member ranks on a node element (none on switches).
    ranks: Vec<Vec<u32>>,
    elem_of: HashMap<u32, u32>,
    state: Vec<ElemState>,
    /// Per member: barriers started, and the tags of those not over yet (oldest first).
    started: HashMap<u32, u32>,
    tags: HashMap<u32, VecDeque<u64>>,
    /// A member node (packets are numbered and counted at a node).
    anchor: u32,
}

/// Barrier packets that left their element this instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Send {
    group: u32,
    round: u32,
    from: u32,
    to: u32,
    kind: Kind,
}

/// Counts of what the barrier hardware did (for tests and reports).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BarrierCounts {
    /// Barrier packets sent (arrives, acks, dones and urges, resends included).
    pub packets: u64,
    /// Barrier packets lost on their link (see [`SwitchBarrierParams::drop`]).
    pub lost: u64,
    /// Arrives sent again for want of an ack.
    pub resent: u64,
    /// Urges sent.
    pub urges: u64,
}

/// The barrier logic of every switch and NIC, and the groups' trees.
pub(crate) struct SwitchBarrier {
    p: SwitchBarrierParams,
    /// Seed of the losses.
    seed: u64,
    tree: fabricsim_topology::FatTree,
    groups: Vec<Group>,
    index: HashMap<u32, u32>,
    events: crate::packet::Slab<Entry>,
    sends: Vec<Send>,
    /// Steps due this instant, taken in the phase (see [`Entry::order`]).
    due: Vec<Entry>,
    pub(crate) counts: BarrierCounts,
    /// Members whose barrier ended this instant: (rank, tag).
    pub(crate) done: Vec<(u32, u64)>,
}

impl SwitchBarrier {
    /// The logic of fat-tree `tree`'s switches, its losses drawn from `seed`.
    pub(crate) fn new(p: SwitchBarrierParams, tree: fabricsim_topology::FatTree, seed: u64) -> Result<Self, String> {
        if p.rail >= tree.rails() {
            return Err(format!("rail {} of a {}-rail network", p.rail, tree.rails()));
        }
        Ok(SwitchBarrier {
            p,
            seed,
            tree,
            groups: Vec::new(),
            index: HashMap::new(),
            events: Default::default(),
            sends: Vec::new(),
            due: Vec::new(),
            counts: BarrierCounts::default(),
            done: Vec::new(),
        })
    }

    /// Whether steps wait to be taken or packets to be sent at the end of the instant.
    pub(crate) fn has_work(&self) -> bool {
        !self.sends.is_empty() || !self.due.is_empty()
    }
}

impl SwitchBarrier {
    /// Make group `g`'s barrier tree (its `root`, a rank, does not apply: the root is a switch).
    fn make_group(&mut self, cx: &mut dyn Context, g: &HwGroup, of_rank: &[u32]) -> Result<(), String> {
        // The NIC's barrier logic gathers its node's members first: the tree is over nodes.
        let mut nodes = of_rank.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        let (unit, graph) = (self, cx.graph());
        if unit.index.contains_key(&g.id) {
            return Err(format!("group {} exists already", g.id));
        }
        let tree = SwitchTree::build(&unit.tree, graph, unit.p.rail, &nodes, g.id).map_err(|e| format!("group {}: {e}", g.id))?;
        let mut ranks = vec![Vec::new(); tree.elements.len()];
        let mut elem_of = HashMap::new();
        let elem_on: HashMap<u32, usize> =
            tree.elements.iter().enumerate().filter_map(|(i, e)| if let At::Node(n) = e.at { Some((n.0, i)) } else { None }).collect();
        for (r, n) in g.members.iter().zip(of_rank) {
            let i = elem_on[n];
            ranks[i].push(r.0);
            elem_of.insert(r.0, i as u32);
        }
        let n = tree.elements.len();
        unit.index.insert(g.id, unit.groups.len() as u32);
        let group =
            Group { tree, ranks, elem_of, state: vec![ElemState::default(); n], started: HashMap::new(), tags: HashMap::new(), anchor: nodes[0] };
        unit.groups.push(group);
        Ok(())
    }

    /// The barrier tree of group `id` (for reports and tests).
    pub(crate) fn tree(&self, id: u32) -> Option<&SwitchTree> {
        let u = self;
        Some(&u.groups[*u.index.get(&id)? as usize].tree)
    }

    /// Member `rank` starts barrier `c`: its NIC's barrier logic hears of it once the NIC has
    /// handled the request (the send overhead).
    fn start_member(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        let at = cx.now() + cx.params().tx_overhead.ps();
        let unit = self;
        if c.kind != HwKind::Barrier {
            return Err(format!("the switch barrier does barriers, not a {:?}", c.kind));
        }
        let gi = *unit.index.get(&c.group).ok_or_else(|| format!("group {} was not made (collective_group)", c.group))?;
        let g = &mut unit.groups[gi as usize];
        let elem = *g.elem_of.get(&rank.0).ok_or_else(|| format!("rank {} is not a member of group {}", rank.0, c.group))?;
        g.tags.entry(rank.0).or_default().push_back(c.tag);
        let k = g.started.entry(rank.0).or_default();
        let round = *k;
        *k += 1;
        let e = unit.events.insert(Entry { group: gi, elem, round, step: Step::Start });
        cx.schedule(at, e);
        Ok(())
    }

    /// An `Ev::SwitchBarrier` event, or a barrier packet delivered to its element (its message's
    /// tag): the entry's step is taken in the phase, with the instant's others.
    fn event(&mut self, cx: &mut dyn Context, e: u32) {
        let unit = self;
        let x = *unit.events.get(e);
        unit.events.remove(e);
        unit.due.push(x);
        cx.phase_due();
    }
}

impl Unit for SwitchBarrier {
    fn runs(&self, kind: HwKind) -> bool {
        kind == HwKind::Barrier
    }
    fn group(&mut self, cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        self.make_group(cx, g, nodes)
    }
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.start_member(cx, rank, c)
    }
    fn on_event(&mut self, cx: &mut dyn Context, e: u32) {
        self.event(cx, e);
    }
    /// A barrier packet delivered to its element (its tag): its step.
    fn on_message(&mut self, cx: &mut dyn Context, tag: u64, _dst: u32, _bytes: u64) {
        self.event(cx, tag as u32);
    }
    fn phase_due(&self) -> bool {
        self.has_work()
    }
    fn phase(&mut self, cx: &mut dyn Context) {
        self.barrier_phase(cx);
    }
    fn done(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.done
    }
    fn ops(&self) -> &'static [u8] {
        &[SWITCH_BARRIER]
    }
}

#[cfg(test)]
mod tests;

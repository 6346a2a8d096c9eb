//! Dawning 5000's switch multicast: a packet copied in the switches down a tree.
//!
//! A broadcast of group `g` ([`fabricsim_nic::HwKind::Broadcast`] from the group's root rank)
//! is sent by the root's NIC as ordinary packets marked for multicast ([`MCAST_HINT`]). The
//! source picks the tree's root switch among the lowest switches that have the source and every
//! member below them (see [`RootChoice`]; once the root is chosen the whole path is fixed). The
//! packets climb from the source to that switch on the unique path to it, then go down its
//! [`SwitchTree`] of the members' nodes: where a switch has several children in the tree, the
//! packet is copied to all of them at once (see `crate::hardware::multicast::replicate`). A node's NIC receives its
//! copies as any packet and hands the broadcast to every member on the node once all its bytes
//! are in (they are done after the receive overhead); members on the root's node have it from
//! the root's NIC. The root is done once its NIC has taken the request.

use super::{Context, HwMessage, Unit};
use crate::hardware::switch_tree::SwitchTree;
use fabricsim_core::{RouterId, Time};

use fabricsim_nic::{HwCollective, HwGroup, HwKind, Rank};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub(crate) mod replicate;

/// A packet's first-hop hint that marks it as a multicast packet.
pub const MCAST_HINT: u8 = 0xFD;

/// How the source picks the tree's root among the equivalent lowest switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RootChoice {
    /// Heavily loaded switch elimination: leave out the candidates whose load (packets in
    /// their input buffers) is above the candidates' mean, then draw among the others.
    #[default]
    Hlse,
    /// Draw among all candidates.
    Random,
    /// Always the same candidate for a group (picked by the group's id).
    Fixed,
}

impl RootChoice {
    /// Its name as a scenario spells it (`hardware.multicast.root`).
    pub fn name(self) -> &'static str {
        match self {
            RootChoice::Hlse => "hlse",
            RootChoice::Random => "random",
            RootChoice::Fixed => "fixed",
        }
    }
}

/// Dawning's multicast in the switches (`[hardware.multicast]` of `type = "dawning_switch"` in
/// a scenario). Defaults: the Global Resource Bulletin on, HLSE root choice, 20 ns of copying
/// over a unicast hop (the paper's 150 ns multicast against 130 ns unicast switch latency), and
/// a grant round trip of four switch cycles (25.6 ns) between consecutive multicasts on an
/// output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MulticastParams {
    /// The plane multicast packets use.
    pub rail: u32,
    /// The Global Resource Bulletin: a packet with several outputs takes them all at once,
    /// when every one is free and has credit. Without it, it takes each as it frees and holds
    /// it while it waits for the others (which can deadlock).
    pub grb: bool,
    /// How the source picks the tree's root switch.
    pub root: RootChoice,
    /// Extra time a copying switch takes over a unicast hop.
    pub copy_delay: Time,
    /// With the bulletin: the time from the end of a multicast's transmission on an output to
    /// the first byte of the next multicast there. Its outputs go back on the bulletin only
    /// when its copies have left, and only then can the next multicast that needs one of them
    /// request, win the arbitration, be taken off the bulletin and be read from its input
    /// queue (unicast arbitration overlaps the transmission before it; this cannot).
    pub grant_delay: Time,
}

impl Default for MulticastParams {
    fn default() -> Self {
        MulticastParams { rail: 0, grb: true, root: RootChoice::default(), copy_delay: Time::from_ns(20), grant_delay: Time(25_600) }
    }
}

/// One broadcast on its way.
#[derive(Debug, Clone)]
pub(crate) struct Cast {
    pub group: u32,
    pub bytes: u64,
    /// Per switch on the way: the up port toward the root (below the root), and the down ports
    /// to the tree's children.
    pub up: HashMap<u32, u32>,
    pub down: HashMap<u32, Vec<u32>>,
    pub root: RouterId,
    /// Which of its group's broadcasts it is (members match their starts to it).
    seq: u32,
    /// Member nodes it goes to, those that have all of it, and bytes received so far per node.
    nodes: u32,
    full: u32,
    received: HashMap<u32, u64>,
}

struct Group {
    /// Its members' nodes (ascending), and the member ranks on each (a node's NIC hands a
    /// broadcast to all of them).
    nodes: Vec<u32>,
    rank_on: HashMap<u32, Vec<u32>>,
    root: u32,
    /// Per member rank: broadcasts it started and still waits for (tags), and broadcasts it
    /// received before starting them: by (rank, broadcast), the start's tag or the arrival time.
    waiting: HashMap<(u32, u32), u64>,
    early: HashMap<(u32, u32), u64>,
    /// Broadcasts the root has started; starts of each other member.
    casts: u32,
    starts: HashMap<u32, u32>,
}

/// What an `Ev::Multicast` entry is.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// The root `rank` of group `group` (its index) sends a broadcast of `bytes`.
    Send { rank: u32, group: u32, bytes: u64, seq: u32 },
    /// Member `rank` hears its broadcast (tag `tag`) is over.
    Finish { rank: u32, tag: u64 },
}

/// The switches' multicast logic and the broadcasts under way.
pub(crate) struct Multicast {
    pub(crate) p: MulticastParams,
    /// Seed of the random choices.
    seed: u64,
    tree: fabricsim_topology::FatTree,
    groups: Vec<Group>,
    index: HashMap<u32, u32>,
    pub(crate) casts: HashMap<u32, Cast>,
    next_cast: u32,
    steps: crate::packet::Slab<Step>,
    /// Broadcasts started so far (their identity for random choices).
    started: u64,
    /// Roots chosen so far, by router id (for reports and tests).
    pub(crate) roots: HashMap<u32, u64>,
    pub(crate) done: Vec<(u32, u64)>,
    /// Broadcasts whose data leaves this instant: (group, broadcast, root rank, bytes), sent in
    /// the phase.
    sending: Vec<(u32, u32, u32, u64)>,
}

impl Multicast {
    /// The logic of fat-tree `tree`'s switches, its random choices drawn from `seed`.
    pub(crate) fn new(p: MulticastParams, tree: fabricsim_topology::FatTree, seed: u64) -> Result<Self, String> {
        if p.rail >= tree.rails() {
            return Err(format!("rail {} of a {}-rail network", p.rail, tree.rails()));
        }
        Ok(Multicast {
            p,
            seed,
            tree,
            groups: Vec::new(),
            index: HashMap::new(),
            casts: HashMap::new(),
            next_cast: 0,
            steps: Default::default(),
            started: 0,
            roots: HashMap::new(),
            done: Vec::new(),
            sending: Vec::new(),
        })
    }

    pub(crate) fn fat_tree(&self) -> &fabricsim_topology::FatTree {
        &self.tree
    }

    /// Whether broadcasts wait to leave at the end of the instant.
    pub(crate) fn sending(&self) -> bool {
        !self.sending.is_empty()
    }
}

impl Multicast {
    /// Make group `g` (its root rank broadcasts; the first member without one).
    fn make_group(&mut self, g: &HwGroup, of_rank: &[u32]) -> Result<(), String> {
        let root = g.root.or(g.members.first().copied()).ok_or_else(|| format!("group {} has no members", g.id))?;
        let unit = self;
        if unit.index.contains_key(&g.id) {
            return Err(format!("group {} exists already", g.id));
        }
        let mut rank_on: HashMap<u32, Vec<u32>> = HashMap::new();
        for (r, &n) in g.members.iter().zip(of_rank) {
            rank_on.entry(n).or_default().push(r.0);
        }
        let mut nodes: Vec<u32> = rank_on.keys().copied().collect();
        nodes.sort_unstable();
        unit.index.insert(g.id, unit.groups.len() as u32);
        let group = Group { nodes, rank_on, root: root.0, waiting: HashMap::new(), early: HashMap::new(), casts: 0, starts: HashMap::new() };
        unit.groups.push(group);
        Ok(())
    }

    /// Member `rank` starts broadcast `c`: the root sends it, the others wait for it.
    fn start_member(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        let now = cx.now();
        let tx = cx.params().tx_overhead.ps();
        if c.kind != HwKind::Broadcast {
            return Err(format!("the switch multicast does broadcasts, not a {:?}", c.kind));
        }
        // (A rank beyond the job is on no node: not a member.)
        let node = if rank.0 < cx.ranks() { cx.node(rank.0) } else { u32::MAX };
        let unit = self;
        let gi = *unit.index.get(&c.group).ok_or_else(|| format!("group {} was not made (collective_group)", c.group))?;
        let g = &mut unit.groups[gi as usize];
        if !g.rank_on.get(&node).is_some_and(|on| on.contains(&rank.0)) {
            return Err(format!("rank {} is not a member of group {}", rank.0, c.group));
        }
        if rank.0 != g.root {
            // Its k-th start waits for the group's k-th broadcast.
            let k = g.starts.entry(rank.0).or_default();
            let key = (rank.0, *k);
            *k += 1;
            match g.early.remove(&key) {
                // Already in: over once the NIC has finished with it.
                Some(arrived) => {
                    let f = unit.steps.insert(Step::Finish { rank: rank.0, tag: c.tag });
                    cx.schedule(now.max(arrived + cx.params().rx_overhead.ps()), f);
                }
                None => {
                    g.waiting.insert(key, c.tag);
                }
            }
            return Ok(());
        }
        // The root's part: its NIC takes the request; the data leaves then, as a message's does.
        let f = unit.steps.insert(Step::Finish { rank: rank.0, tag: c.tag });
        cx.schedule(now + tx, f);
        if g.nodes.len() > 1 || g.rank_on[&g.nodes[0]].len() > 1 {
            let seq = g.casts;
            g.casts += 1;
            let f = unit.steps.insert(Step::Send { rank: rank.0, group: gi, bytes: c.bytes.max(1), seq });
            cx.schedule(now + tx, f);
        }
        Ok(())
    }

    /// End of an instant: the broadcasts whose data leaves now choose their roots (seeing the
    /// switches' loads as the instant left them) and go to their NICs, in an order of their own.
    fn multicast_phase(&mut self, cx: &mut dyn Context) {
        let mut list = std::mem::take(&mut self.sending);
        list.sort_unstable();
        let at = cx.now() + cx.params().rx_overhead.ps();
        for &(gi, seq, src, bytes) in &list {
            let src_node = cx.node(src);
            let g = &self.groups[gi as usize];
            // Members on the root's node have the data from its NIC; the others' nodes get it
            // through the network.
            let local: Vec<u32> = g.rank_on[&src_node].iter().copied().filter(|&r| r != src).collect();
            let dests: Vec<u32> = g.nodes.iter().copied().filter(|&n| n != src_node).collect();
            // The message goes to the member of its only other node, or to its root as a
            // placeholder: copies name their nodes as they reach them.
            let to = if dests.len() == 1 { g.rank_on[&dests[0]][0] } else { src };
            for r in local {
                self.member_has(cx, gi as usize, r, seq, at);
            }
            if dests.is_empty() {
                continue;
            }
            let Ok(cast) = self.make_cast(cx, gi, seq, src_node, &dests, bytes) else {
                unreachable!("the root switches of a group's nodes have them all below")
            };
            let (engine, route) = (self.p.rail as u8, fabricsim_nic::ROUTE_DETERMINISTIC);
            let (hint, op) = (MCAST_HINT, crate::packet::MULTICAST);
            cx.send(HwMessage { src, dst: to, bytes, tag: cast as u64, hint, class: 0, op, engine, route });
        }
        list.clear();
        self.sending = list;
    }

    /// Choose the root of a broadcast of group `gi` from `src` to `dests` and build its paths.
    fn make_cast(&mut self, cx: &mut dyn Context, gi: u32, seq: u32, src: u32, dests: &[u32], bytes: u64) -> Result<u32, String> {
        let unit = &*self;
        let mut all = dests.to_vec();
        all.push(src);
        let candidates = SwitchTree::roots(&unit.tree, unit.p.rail, &all)?;
        let n = unit.started;
        let draw = |k: usize| (fabricsim_core::rng::mix(unit.seed ^ fabricsim_core::rng::mix(n ^ (gi as u64) << 40)) % k as u64) as usize;
        let root = match unit.p.root {
            RootChoice::Fixed => candidates[gi as usize % candidates.len()],
            RootChoice::Random => candidates[draw(candidates.len())],
            RootChoice::Hlse => {
                let loads: Vec<u64> = candidates.iter().map(|&r| cx.switch_packets(r)).collect();
                let mean = loads.iter().sum::<u64>() as f64 / loads.len() as f64;
                let light: Vec<RouterId> = candidates.iter().zip(&loads).filter(|(_, &l)| l as f64 <= mean).map(|(&r, _)| r).collect();
                light[draw(light.len())]
            }
        };
        let f = &unit.tree;
        let tree = SwitchTree::from_root(f, cx.graph(), root, dests)?;
        let down = tree.switch_elements().map(|(r, e)| (r.0, e.children.iter().map(|&(_, port)| port).collect())).collect();
        // The unique path from the root down to the source, climbed the other way: each switch
        // on it below the root sends up on its port toward its parent.
        let path = SwitchTree::from_root(f, cx.graph(), root, &[src])?;
        let up = path.switch_elements().filter(|(_, e)| e.parent != usize::MAX).map(|(r, e)| (r.0, e.up_port)).collect();
        let unit = self;
        unit.started += 1;
        *unit.roots.entry(root.0).or_default() += 1;
        let id = unit.next_cast;
        unit.next_cast = id.wrapping_add(1);
        let nodes = dests.len() as u32;
        unit.casts.insert(id, Cast { group: gi, seq, bytes, up, down, root, nodes, full: 0, received: HashMap::new() });
        Ok(id)
    }

    /// A copy of broadcast `tag` with `payload` bytes reached the node of member `rank`: once
    /// all its bytes are in, every member on the node has it.
    fn received(&mut self, cx: &mut dyn Context, tag: u32, rank: u32, payload: u64) {
        let at = cx.now() + cx.params().rx_overhead.ps();
        let node = cx.node(rank);
        let unit = &mut *self;
        let cast = unit.casts.get_mut(&tag).expect("a copy of a broadcast that is over");
        let got = cast.received.entry(node).or_default();
        *got += payload;
        if *got < cast.bytes {
            return;
        }
        let (gi, seq) = (cast.group as usize, cast.seq);
        cast.full += 1;
        if cast.full == cast.nodes {
            unit.casts.remove(&tag);
        }
        for r in unit.groups[gi].rank_on[&node].clone() {
            self.member_has(cx, gi, r, seq, at);
        }
    }

    /// Member `rank` of group `gi` has broadcast `seq`, its NIC done with it at `at`: its start
    /// of that broadcast ends then, or when it comes.
    fn member_has(&mut self, cx: &mut dyn Context, gi: usize, rank: u32, seq: u32, at: u64) {
        let unit = self;
        let g = &mut unit.groups[gi];
        match g.waiting.remove(&(rank, seq)) {
            Some(t) => {
                let f = unit.steps.insert(Step::Finish { rank, tag: t });
                cx.schedule(at, f);
            }
            None => {
                g.early.insert((rank, seq), at - cx.params().rx_overhead.ps());
            }
        }
    }

    /// A member rank of broadcast `tag`'s group on `node`.
    pub(crate) fn rank_on(&self, tag: u32, node: u32) -> Option<u32> {
        let unit = self;
        let cast = unit.casts.get(&tag)?;
        unit.groups[cast.group as usize].rank_on.get(&node).map(|r| r[0])
    }

    /// An `Ev::Multicast` event.
    fn event(&mut self, cx: &mut dyn Context, f: u32) {
        let unit = self;
        let x = *unit.steps.get(f);
        unit.steps.remove(f);
        match x {
            Step::Finish { rank, tag } => {
                unit.done.push((rank, tag));
                cx.phase_due();
            }
            Step::Send { rank, group, bytes, seq } => {
                unit.sending.push((group, seq, rank, bytes));
                cx.phase_due();
            }
        }
    }
}

impl Unit for Multicast {
    fn runs(&self, kind: HwKind) -> bool {
        kind == HwKind::Broadcast
    }
    fn group(&mut self, _cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        self.make_group(g, nodes)
    }
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.start_member(cx, rank, c)
    }
    fn on_event(&mut self, cx: &mut dyn Context, e: u32) {
        self.event(cx, e);
    }
    /// A copy reached a member's node (the message names the member as its `dst`).
    fn on_message(&mut self, cx: &mut dyn Context, tag: u64, dst: u32, bytes: u64) {
        self.received(cx, tag as u32, dst, bytes);
    }
    fn phase_due(&self) -> bool {
        self.sending()
    }
    fn phase(&mut self, cx: &mut dyn Context) {
        self.multicast_phase(cx);
    }
    fn done(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.done
    }
    fn ops(&self) -> &'static [u8] {
        &[crate::packet::MULTICAST]
    }
}

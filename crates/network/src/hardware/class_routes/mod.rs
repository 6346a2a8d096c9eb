//! Blue Gene/Q class routes: collectives combined in the routers.
//!
//! A group ([`fabricsim_nic::HwGroup`]) whose ranks fill a contiguous sub-rectangle of the
//! torus, one per node, gets a class route: a tree embedded in the rectangle ([`tree`]),
//! rooted at the member the group names or at the rectangle's centre. A collective's data is
//! cut into chunks of one packet. Going up, each node waits for chunk `k` from each of its
//! children and from its own node (the message unit streams the local contribution in at the
//! engine's rate), combines them (`up_delay`, or `float_up_delay` for floating point) and sends
//! the result to its parent; the root turns it round, and going down each node passes chunk
//! `k` to its children and its own node (`down_delay` / `float_down_delay`). A barrier is a
//! combine of one header-only packet through the same logic: each node ORs its inputs and
//! sends a new barrier packet on when the OR changes, at the logic's cost per hop
//! (`barrier_up_delay`, `barrier_down_delay`). A member is done
//! when its last chunk's tail is in (a reduce: the root; the others once the tail of their
//! part has gone up): like a message, a collective pays its last chunk's wire time once, so a
//! 512 B allreduce takes a 512 B packet's serialisation longer than an 8 B one.
//!
//! The collective logic sits in the router: a chunk's packet is taken by the next node's logic
//! as soon as its head has passed the router pipeline (`Packet::agent`: the ejection grant tells
//! the logic), and the combined packet leaves without the NIC's injection latency; so a hop
//! costs what a hop of a message costs, plus the combining delay, and the output streams out as
//! the inputs stream in (cut-through). Chunks travel at the collective priority classes (down
//! above up, both above every point-to-point class), on the class VCs where the routers have
//! them, routed deterministically one link at a time. Values (the first chunk's up to eight
//! elements) are combined at each node in a fixed order of its inputs (its own first, then its
//! children by node id), so a floating-point sum has the same bits whatever order the inputs
//! arrive in. Limits: the uptree and downtree logic of a node serve any number of class routes
//! at once (the hardware serves one at a time each way).

mod chunks;
mod params;
pub mod tree;

use super::{Context, Unit};
use fabricsim_nic::{HwCollective, HwGroup, HwKind, HwOp, Rank};
pub use params::ClassRouteParams;
use std::collections::HashMap;
pub use tree::ClassTree;

/// Priority class of chunks going up the tree (above system traffic).
pub const UP_CLASS: u8 = 3;
/// Priority class of chunks going down the tree (above [`UP_CLASS`]).
pub const DOWN_CLASS: u8 = 4;

/// What one round of a route does (the first member to start it says; the others must agree).
#[derive(Debug, Clone, Copy, PartialEq)]
struct RoundInfo {
    kind: HwKind,
    op: HwOp,
    bytes: u64,
    chunks: u32,
}

struct Route {
    tree: ClassTree,
    /// Per tree node: its member rank; and each member rank's tree node.
    ranks: Vec<u32>,
    node_of: HashMap<u32, u32>,
    /// Per tree node: the engine that sends to each neighbour (child or parent), by direction.
    engine_to: Vec<HashMap<usize, u8>>,
    rounds: HashMap<u32, RoundInfo>,
    /// Per tree node: rounds started, tags not yet over (oldest first), chunks received going
    /// down in the current round, and its latest result.
    started: Vec<u32>,
    tags: Vec<std::collections::VecDeque<u64>>,
    received: Vec<u32>,
    results: Vec<[u64; 8]>,
    /// Broadcasts over for a member before it started them.
    early: Vec<u32>,
    /// Up inputs arrived, by (round, node, chunk).
    pending: HashMap<(u32, u32, u32), Inputs>,
}

/// The inputs of one chunk at one node so far: how many, and (first chunk only) their values by
/// input (0: the node's own, then its children in order).
#[derive(Debug, Default)]
struct Inputs {
    count: u32,
    values: Vec<(u32, [u64; 8])>,
}

/// What an `Ev::Class` entry is.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Chunk `chunk` of the node's own contribution starts into its collective logic.
    Local,
    /// ... and has come in far enough to stream out at the link's rate (its tail cannot
    /// leave before it is in: a local input slower than the link holds the output back).
    LocalIn,
    /// A chunk's head arrived from input `from` (a child going up, the parent going down).
    Arrive { up: bool, from: u32 },
    /// A node finished combining (up) or is ready to pass on (down).
    Send { up: bool },
    /// The member's message unit has written its last chunk: it hears the collective is over.
    Done,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    route: u32,
    round: u32,
    node: u32,
    chunk: u32,
    step: Step,
    value: [u64; 8],
}

/// The collective hardware of every node, and its routes.
pub(crate) struct ClassRoutes {
    p: ClassRouteParams,
    torus: fabricsim_topology::Torus,
    /// Routes each node takes part in.
    used: Vec<u32>,
    routes: Vec<Route>,
    index: HashMap<u32, u32>,
    events: crate::packet::Slab<Entry>,
    /// Time between the chunks of a node's own contribution (ps).
    chunk_time: u64,
    /// Chunks leaving their nodes' logic this instant: (chunk, destination node, up).
    sends: Vec<(Entry, u32, bool)>,
    /// Members whose collective ended this instant: (rank, tag).
    pub(crate) done: Vec<(u32, u64)>,
}

impl ClassRoutes {
    /// Whether chunks wait to be sent at the end of the instant.
    pub(crate) fn sending(&self) -> bool {
        !self.sends.is_empty()
    }

    /// Class routes with parameters `p` in the routers of `torus`.
    pub(crate) fn new(p: ClassRouteParams, torus: fabricsim_topology::Torus) -> Self {
        ClassRoutes {
            used: vec![0; torus.nodes() as usize],
            torus,
            p,
            routes: Vec::new(),
            index: HashMap::new(),
            events: Default::default(),
            chunk_time: 0,
            sends: Vec::new(),
            done: Vec::new(),
        }
    }
}

impl ClassRoutes {
    /// Make group `g` a class route.
    fn class_group(&mut self, cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        let nodes = nodes.to_vec();
        let root = g.root.map(|r| cx.node(r.0));
        let engines = cx.graph().engines;
        let cr = &mut *self;
        if cr.index.contains_key(&g.id) {
            return Err(format!("group {} exists already", g.id));
        }
        let root = root.unwrap_or_else(|| ClassTree::centre(&cr.torus, &nodes));
        let tree = ClassTree::build(&cr.torus, &nodes, root).map_err(|e| format!("group {}: {e}", g.id))?;
        for (i, &v) in tree.nodes.iter().enumerate() {
            if cr.used[v as usize] >= cr.p.routes {
                return Err(format!("hardware.routes: node {v} takes part in {} class routes already, its most", cr.p.routes));
            }
            let inputs = tree.children[i].len() as u32 + 1;
            if inputs > cr.p.inputs {
                return Err(format!("hardware.inputs: node {v} would combine {inputs} inputs, more than {}", cr.p.inputs));
            }
        }
        for &v in &tree.nodes {
            cr.used[v as usize] += 1;
        }
        let mut ranks = vec![0; tree.nodes.len()];
        let mut node_of = HashMap::new();
        for (r, v) in g.members.iter().zip(&nodes) {
            let i = tree.nodes.binary_search(v).unwrap();
            ranks[i] = r.0;
            node_of.insert(r.0, i as u32);
        }
        // A neighbour's engine: one per direction of the link to it (ten on Blue Gene/Q), so
        // the copies going down leave on their links at once.
        let torus = &cr.torus;
        let direction = |a: u32, b: u32| {
            let (ca, cb) = (torus.coords(a.into()), torus.coords(b.into()));
            let axis = (0..ca.len()).find(|&x| ca[x] != cb[x]).unwrap_or(0);
            let n = torus.shape()[axis];
            let plus = (ca[axis] + 1) % n == cb[axis];
            (2 * axis + usize::from(!plus)) as u32 % engines
        };
        let engine_to = (0..tree.nodes.len())
            .map(|i| {
                let v = tree.nodes[i];
                let near = tree.children[i].iter().copied().chain((tree.parent[i] != usize::MAX).then_some(tree.parent[i]));
                near.map(|j| (j, direction(v, tree.nodes[j]) as u8)).collect()
            })
            .collect();
        let n = tree.nodes.len();
        cr.index.insert(g.id, cr.routes.len() as u32);
        cr.routes.push(Route {
            tree,
            ranks,
            node_of,
            engine_to,
            rounds: HashMap::new(),
            started: vec![0; n],
            tags: vec![Default::default(); n],
            received: vec![0; n],
            early: vec![0; n],
            results: vec![[0; 8]; n],
            pending: HashMap::new(),
        });
        Ok(())
    }

    fn class_value(&self, rank: Rank, id: u32) -> Option<[u64; 8]> {
        let cr = self;
        let r = &cr.routes[*cr.index.get(&id)? as usize];
        r.node_of.get(&rank.0).map(|&i| r.results[i as usize])
    }

    /// The tree of group `id`'s class route (for reports and tests).
    pub(crate) fn class_tree(&self, id: u32) -> Option<&ClassTree> {
        let cr = self;
        Some(&cr.routes[*cr.index.get(&id)? as usize].tree)
    }
}

impl Unit for ClassRoutes {
    fn runs(&self, _kind: HwKind) -> bool {
        true
    }
    fn group(&mut self, cx: &mut dyn Context, g: &HwGroup, nodes: &[u32]) -> Result<(), String> {
        self.class_group(cx, g, nodes)
    }
    fn start(&mut self, cx: &mut dyn Context, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.class_start(cx, rank, c)
    }
    fn value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        self.class_value(rank, group)
    }
    fn on_event(&mut self, cx: &mut dyn Context, e: u32) {
        self.class_event(cx, e);
    }
    /// A chunk's packets were delivered: its head was handed to the logic already.
    fn on_message(&mut self, _cx: &mut dyn Context, _tag: u64, _dst: u32, _bytes: u64) {}
    /// A chunk's head reached its node's collective logic (`Ev::AgentHead`): its step.
    fn on_head(&mut self, cx: &mut dyn Context, tag: u64) {
        self.class_event(cx, tag as u32);
    }
    fn phase_due(&self) -> bool {
        self.sending()
    }
    fn phase(&mut self, cx: &mut dyn Context) {
        self.flush_class_sends(cx);
    }
    fn done(&mut self) -> &mut Vec<(u32, u64)> {
        &mut self.done
    }
    fn ops(&self) -> &'static [u8] {
        &[crate::packet::CLASS_CHUNK]
    }
}

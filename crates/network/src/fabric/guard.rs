//! The seam guard (cargo feature `seam-guard`, for tests): a check that the link code
//! ([`crate::fabric::link`]) is the only code that reaches from one router's state into
//! another's, which a partitioned run relies on.
//!
//! Each router's state is digested: its ports' output records, credit-stall bookkeeping, request
//! and phase marks and crossbar state, its input VCs (without the credit stored beside them,
//! which is the sender's), the credit records of the buffers its outputs feed, its sleeping
//! packets, and its nodes' NICs and engines. A step that belongs to one router (an event of
//! the fabric or of a NIC, and the end-of-instant phase's choices, arbitrations and
//! injections) is digested before and after: every router whose digest changed must be that
//! router, or one the link code crossed to during the step (a packet handed to its input
//! buffer, credit returned to its output). Steps of the in-network hardware units and of the
//! workload are not checked (the units still read other switches' state: see the crate docs).

use crate::fabric::records::Credit;
use crate::sim::{Core, Ev};
use fabricsim_stats::Observer;
use fabricsim_topology::PortKind;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The guard's record of a run.
#[derive(Debug, Default)]
pub(crate) struct SeamGuard {
    /// Per router, the nodes attached to it.
    nodes: Vec<Vec<u32>>,
    /// Steps checked.
    pub(crate) steps: u64,
    /// What went wrong: the step, and the router it changed that it should not have.
    pub(crate) violations: Vec<String>,
}

/// A step under way: the router it belongs to, and every router's digest before it.
pub(crate) struct Step {
    home: u32,
    before: Vec<u64>,
}

impl SeamGuard {
    /// A guard for a network of `graph`.
    pub(crate) fn new(graph: &fabricsim_topology::PortGraph) -> Self {
        let mut nodes = vec![Vec::new(); graph.routers as usize];
        for n in 0..graph.nodes {
            nodes[graph.owner[graph.attach[(n * graph.engines) as usize].index()].index()].push(n);
        }
        SeamGuard { nodes, ..SeamGuard::default() }
    }
}

impl<O: Observer> Core<O> {
    /// The router whose credit record input VC `q` holds: its sender's.
    pub(crate) fn credit_router(&self, q: u32) -> u32 {
        match self.fabric.upstream.get((q / self.fabric.vcs) as usize) {
            Some(&s) if s != u32::MAX => self.sender_router(s),
            _ => self.vc_router(q),
        }
    }

    /// The router event `ev` belongs to (`None`: a step of the hardware or the workload).
    pub(crate) fn home_of(&self, ev: &Ev) -> Option<u32> {
        Some(match *ev {
            Ev::Ready(pkt) => self.vc_router(self.packets.get(pkt).q.0),
            Ev::OutFree { out, .. } | Ev::EngineFree(out) | Ev::FlitSlot(out) => self.sender_router(out),
            Ev::Credit(i) => self.credit_router(self.fabric.credit_returns.get(i).q.0),
            Ev::Deliver(pkt) => self.node_router(self.packets.get(pkt).dst),
            Ev::EjectDone(pkt) => self.sender_router(self.packets.get(pkt).out),
            Ev::MsgReady(rank) => self.node_router(self.node(rank)),
            Ev::AnswerReady(node) | Ev::NicWake(node) => self.node_router(node),
            _ => return None,
        })
    }

    /// Start checking a step of router `home` (nothing without a guard).
    pub(crate) fn guard_begin(&mut self, home: Option<u32>) -> Option<Step> {
        let home = home?;
        self.guard.as_ref()?;
        self.fabric.crossings.clear();
        Some(Step { home, before: self.digests() })
    }

    /// End the step `step` (`what` names it in a violation).
    pub(crate) fn guard_end(&mut self, step: Option<Step>, what: &dyn Fn() -> String) {
        let Some(step) = step else { return };
        let after = self.digests();
        let mut allowed = vec![step.home];
        allowed.extend(self.fabric.crossings.packets_to.iter().map(|&q| self.vc_router(q)));
        allowed.extend(self.fabric.crossings.credit_for.iter().map(|&q| self.credit_router(q)));
        let wrong: Vec<usize> = (0..after.len()).filter(|&r| after[r] != step.before[r] && !allowed.contains(&(r as u32))).collect();
        let Some(guard) = self.guard.as_mut() else { return };
        guard.steps += 1;
        for r in wrong {
            guard.violations.push(format!("{} at router {}: changed router {r} outside the link code", what(), step.home));
        }
    }

    /// Every router's digest.
    fn digests(&self) -> Vec<u64> {
        (0..self.graph.routers).map(|r| self.digest(r)).collect()
    }

    /// The digest of router `r`'s state (see the module docs).
    fn digest(&self, r: u32) -> u64 {
        let (f, vcs) = (&self.fabric, self.fabric.vcs as usize);
        let mut h = DefaultHasher::new();
        let sender = |s: usize, h: &mut DefaultHasher| {
            f.outs[s].hash(h);
            f.stall[s].hash(h);
            (f.requested[s / 64] >> (s % 64) & 1).hash(h);
            (self.phase.arb_mark.get(s / 64).map_or(0, |m| m >> (s % 64) & 1)).hash(h);
            let peer = f.outs[s].peer as usize;
            let feeds_router = s >= self.graph.kind.len() || self.graph.kind[s] == PortKind::Network;
            if feeds_router && peer < self.graph.kind.len() {
                for q in peer * vcs..(peer + 1) * vcs {
                    f.vcq[q].credit.hash(h);
                }
            }
        };
        let ports = self.graph.port_offset[r as usize] as usize..self.graph.port_offset[r as usize + 1] as usize;
        for p in ports {
            sender(p, &mut h);
            if !f.in_busy.is_empty() {
                (f.in_busy[p], f.in_rr[p]).hash(&mut h);
            }
            for q in p * vcs..(p + 1) * vcs {
                let mut v = f.vcq[q];
                v.credit = Credit::default();
                v.hash(&mut h);
            }
        }
        if let Some(s) = &f.sleepers {
            s.digest(r, &mut h);
        }
        let engines = self.graph.engines as usize;
        for &n in &self.guard.as_ref().expect("digests are taken under a guard").nodes[r as usize] {
            let n = n as usize;
            self.nics.node[n].hash(&mut h);
            (self.phase.nic_mark[n / 64] >> (n % 64) & 1).hash(&mut h);
            for e in n * engines..(n + 1) * engines {
                self.nics.engines[e].hash(&mut h);
                sender(self.total_ports() as usize + e, &mut h);
            }
        }
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use crate::fabric::records::InputVcId;
    use crate::{Api, Builder, NetworkParams, Workload};
    use fabricsim_routing::{DimensionOrder, Routing};
    use fabricsim_topology::Torus;

    struct Idle;
    impl Workload for Idle {
        fn start(&mut self, _: &mut Api) {}
    }

    #[test]
    fn a_write_into_another_router_is_caught_unless_the_link_code_made_it() {
        let torus = Torus::new(vec![4], Some(vec![false]), None).unwrap();
        let graph = torus.build_graph(1);
        let routing = Routing::from(DimensionOrder::new(torus, None, 1, 1).unwrap());
        let params = NetworkParams { vcs: 1, ..NetworkParams::default() };
        let mut sim = Builder::new(graph, routing, params).build(Idle).unwrap().with_seam_guard();
        let c = &mut sim.core;
        let p1 = c.graph.port_offset[1] as usize;
        // A step of router 0 that writes router 1's output record.
        let step = c.guard_begin(Some(0));
        c.fabric.outs[p1].bytes += 1;
        c.guard_end(step, &|| "a stray write".into());
        // A step of router 0 that hands something to router 1's input buffer through the link.
        let q = InputVcId(p1 as u32);
        let step = c.guard_begin(Some(0));
        c.fabric.crossings.packet(q);
        c.fabric.vcq[q.index()].bytes += 1;
        c.guard_end(step, &|| "a crossing".into());
        // A step of router 1 itself.
        let step = c.guard_begin(Some(1));
        c.fabric.outs[p1].bytes += 1;
        c.guard_end(step, &|| "an own write".into());
        let (steps, violations) = sim.seam_guard().unwrap();
        assert_eq!(steps, 3);
        assert_eq!(violations.len(), 1, "{violations:?}");
        assert!(violations[0].starts_with("a stray write at router 0: changed router 1"), "{violations:?}");
    }
}

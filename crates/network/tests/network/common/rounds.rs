//! A workload of in-network collectives for the tests of the hardware that runs them (barrier
//! gates, class routes), and a runner on a small torus.
#![allow(dead_code)] // not every test binary uses every helper

use fabricsim_core::{NodeId, Time};
use fabricsim_network::{Api, Delivered, HwCollective, HwGroup, HwKind, HwOp, NetworkParams, Rank, RunLimits, Simulation, Workload};
use fabricsim_routing::{DimensionOrder, Routing};
use fabricsim_topology::Torus;

/// `rounds` collectives on one group of every rank; rank `r` starts round `k` `delay(r, k)`
/// after it finished round `k - 1` (or after time zero), with `value(r)` reduced by `op`.
/// Background: each rank also sends `background` 256 B Puts to the rank after it at start.
pub(crate) struct Rounds {
    pub ranks: u32,
    pub rounds: u32,
    pub delay: fn(u32, u32) -> Time,
    pub op: HwOp,
    pub bytes: u64,
    pub value: fn(u32) -> [u64; 8],
    pub background: u32,
    pub started: Vec<Vec<Time>>,
    pub done: Vec<Vec<Time>>,
    pub values: Vec<[u64; 8]>,
    pub error: Option<String>,
    /// What a reduction round is (allreduce unless set).
    pub kind: HwKind,
    /// The group's root, where the hardware has one.
    pub root: Option<u32>,
    /// Bytes rank `r` contributes, when not `bytes`.
    pub bytes_of: Option<fn(u32) -> u64>,
    /// Destination of rank `r`'s background Puts among `ranks` (the next rank unless set).
    pub background_to: Option<fn(u32, u32) -> u32>,
}

impl Rounds {
    pub(crate) fn barrier(ranks: u32, rounds: u32, delay: fn(u32, u32) -> Time) -> Self {
        Rounds {
            ranks,
            rounds,
            delay,
            op: HwOp::None,
            bytes: 0,
            value: |_| [0; 8],
            background: 0,
            started: vec![Vec::new(); ranks as usize],
            done: vec![Vec::new(); ranks as usize],
            values: vec![[0; 8]; ranks as usize],
            error: None,
            kind: HwKind::Allreduce,
            root: None,
            bytes_of: None,
            background_to: None,
        }
    }
    fn start_round(&mut self, r: u32, api: &mut Api) {
        let k = self.started[r as usize].len() as u32;
        self.started[r as usize].push(api.now());
        let kind = if self.op == HwOp::None { HwKind::Barrier } else { self.kind };
        let bytes = self.bytes_of.map_or(self.bytes, |f| f(r));
        let c = HwCollective::new(kind, 7, bytes, k as u64).reducing(self.op, (self.value)(r));
        if let Err(e) = api.collective_start(Rank(r), c) {
            self.error.get_or_insert(e);
        }
    }
}

impl Workload for Rounds {
    fn start(&mut self, api: &mut Api) {
        let g = HwGroup { id: 7, members: (0..self.ranks).map(Rank).collect(), sums: self.op.counts_twice(), root: self.root.map(Rank) };
        if let Err(e) = api.collective_group(&g) {
            self.error = Some(e);
            return;
        }
        for r in 0..self.ranks {
            for _ in 0..self.background {
                let to = self.background_to.map_or((r + 1) % self.ranks, |f| f(r, self.ranks));
                api.send(Rank(r), Rank(to), 256, 0);
            }
            api.wake_at(Rank(r), api.now() + (self.delay)(r, 0));
        }
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        self.start_round(rank.0, api);
    }
    fn delivered(&mut self, _m: &Delivered, _api: &mut Api) {}
    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        let r = rank.0 as usize;
        assert_eq!(tag, self.done[r].len() as u64, "rounds end in order");
        self.done[r].push(api.now());
        self.values[r] = api.collective_value(rank, 7).unwrap();
        let k = self.done[r].len() as u32;
        if k < self.rounds {
            api.wake_at(rank, api.now() + (self.delay)(rank.0, k));
        }
    }
    fn finished(&self) -> bool {
        self.error.is_some() || self.done.iter().all(|d| d.len() == self.rounds as usize)
    }
}

/// Run `w` on a torus of `shape` (dimension order, two VCs) with `per_node` engines and ranks
/// placed by `place(rank, per_node, nodes)`, the hardware set up by `setup`; `shuffle`: draw the
/// order of same-instant events.
pub(crate) fn run_rounds(
    shape: Vec<u32>,
    per_node: u32,
    w: Rounds,
    shuffle: Option<u64>,
    place: fn(u32, u32, u32) -> u32,
    setup: &dyn Fn(&Torus, NetworkParams) -> NetworkParams,
) -> Rounds {
    let t = Torus::new(shape, None, None).unwrap();
    let p = setup(&t, NetworkParams { engines: per_node, ..super::params(2) });
    let g = t.build_graph(per_node);
    let nodes = g.nodes;
    let r = Routing::from(DimensionOrder::new(t, None, per_node, 2).unwrap());
    let mut sim = Simulation::new(g, r, p, w).unwrap();
    if per_node > 1 || sim.workload().ranks != nodes {
        let map = (0..sim.workload().ranks).map(|r| NodeId(place(r, per_node, nodes))).collect();
        sim = sim.with_rank_map(map).unwrap();
    }
    if let Some(seed) = shuffle {
        sim = sim.with_tie_shuffle(seed);
    }
    sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(10_000), drain: Time::ZERO }, |_| {}).unwrap();
    std::mem::replace(sim.workload_mut(), Rounds::barrier(1, 0, |_, _| Time::ZERO))
}

/// The run's error (none expected: the test fails with it).
pub(crate) fn ok(w: Rounds) -> Rounds {
    if let Some(e) = &w.error {
        panic!("{e}");
    }
    w
}

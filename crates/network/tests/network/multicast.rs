//! Dawning's switch multicast: a broadcast reaches every member once, copies leave a switch
//! together, the Global Resource Bulletin prevents the deadlock that holding outputs one at a
//! time runs into, consecutive multicasts on an output are a grant round trip apart, concurrent
//! broadcasts do not depend on the order of same-instant events, and the root choices spread
//! broadcasts over the top switches (HLSE away from loaded ones).

use fabricsim_core::{SimError, Time};
use fabricsim_network::multicast::{MulticastParams, RootChoice};
use fabricsim_network::{
    Api, DawningSwitchParams, DawningUnit, Delivered, HardwareSpec, HwCollective, HwGroup, HwKind, NetworkParams, Rank, RunLimits, Simulation,
    Workload,
};
use fabricsim_routing::{Routing, UpDown};
use fabricsim_topology::FatTree;

use crate::common;

/// Broadcasts: group `g` of `groups[g]` (root first) broadcasts `bytes` at `starts[g]`; every
/// member starts it then. Background: (src, dst, bytes) Puts at time zero.
struct Casts {
    groups: Vec<Vec<u32>>,
    starts: Vec<Time>,
    bytes: u64,
    background: Vec<(u32, u32, u64)>,
    /// Per group, per member (in `groups` order): when it finished.
    done: Vec<Vec<Option<Time>>>,
    error: Option<String>,
}

impl Casts {
    fn new(groups: Vec<Vec<u32>>, starts: Vec<Time>, bytes: u64) -> Self {
        let done = groups.iter().map(|g| vec![None; g.len()]).collect();
        Casts { groups, starts, bytes, background: Vec::new(), done, error: None }
    }
}

impl Workload for Casts {
    fn start(&mut self, api: &mut Api) {
        for (g, members) in self.groups.iter().enumerate() {
            let hg = HwGroup { id: g as u32, members: members.iter().map(|&r| Rank(r)).collect(), sums: false, root: Some(Rank(members[0])) };
            if let Err(e) = api.collective_group(&hg) {
                self.error = Some(e);
                return;
            }
        }
        for &(s, d, b) in &self.background {
            api.send(Rank(s), Rank(d), b, u64::MAX);
        }
        // One timer per rank at its first group's start (tests use distinct start times per rank).
        let mut wakes = std::collections::BTreeSet::new();
        for (g, members) in self.groups.iter().enumerate() {
            for &r in members {
                wakes.insert((r, self.starts[g]));
            }
        }
        for (r, t) in wakes {
            api.wake_at(Rank(r), t);
        }
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        let now = api.now();
        for (g, members) in self.groups.iter().enumerate() {
            if self.starts[g] == now && members.contains(&rank.0) {
                let c = HwCollective::new(HwKind::Broadcast, g as u32, self.bytes, g as u64);
                if let Err(e) = api.collective_start(rank, c) {
                    self.error.get_or_insert(e);
                }
            }
        }
    }
    fn delivered(&mut self, _m: &Delivered, _api: &mut Api) {}
    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        let g = tag as usize;
        let i = self.groups[g].iter().position(|&r| r == rank.0).unwrap();
        assert!(self.done[g][i].is_none(), "rank {} finished broadcast {g} twice", rank.0);
        self.done[g][i] = Some(api.now());
    }
    fn finished(&self) -> bool {
        self.error.is_some() || self.done.iter().flatten().all(|d| d.is_some())
    }
}

fn params(radix: u32, levels: u32, grb: bool, root: RootChoice) -> (FatTree, NetworkParams) {
    params_with(radix, levels, MulticastParams { rail: 0, grb, root, copy_delay: Time::from_ns(20), ..MulticastParams::default() })
}

fn params_with(radix: u32, levels: u32, m: MulticastParams) -> (FatTree, NetworkParams) {
    let tree = FatTree::new(radix, levels, 1, true).unwrap();
    let base = common::params(2);
    let p = NetworkParams {
        buffer_bytes: 2048,
        terminal_latency: base.link_latency,
        terminal_router_delay: base.router_delay,
        nic_latency: Time::ZERO,
        hardware: HardwareSpec::DawningSwitch(DawningSwitchParams { units: vec![DawningUnit::Multicast], multicast: m, ..Default::default() }),
        seed: 5,
        ..base
    };
    (tree, p)
}

fn run(radix: u32, levels: u32, grb: bool, root: RootChoice, w: Casts, shuffle: Option<u64>) -> (Result<(), SimError>, Casts, Vec<(u32, u64)>) {
    run_with(params(radix, levels, grb, root), w, shuffle)
}

fn run_with((tree, p): (FatTree, NetworkParams), w: Casts, shuffle: Option<u64>) -> (Result<(), SimError>, Casts, Vec<(u32, u64)>) {
    let g = tree.build_graph();
    let routing = Routing::from(UpDown::new(tree, 2));
    let mut sim = Simulation::new(g, routing, p, w).unwrap();
    if let Some(seed) = shuffle {
        sim = sim.with_tie_shuffle(seed);
    }
    let r = sim.run(RunLimits { warmup: Time::ZERO, measure: Time::from_us(100_000), drain: Time::ZERO }, |_| {}).map(|o| {
        // Every packet is accounted for: delivered, or consumed into its copies.
        assert_eq!(o.packets_injected, o.packets_delivered, "packets still in flight at the end");
    });
    let roots = sim.multicast_roots();
    (r, std::mem::replace(sim.workload_mut(), Casts::new(Vec::new(), Vec::new(), 0)), roots)
}

#[test]
fn a_broadcast_on_one_switch_reaches_every_member_at_once() {
    // Root 0 to the 7 other nodes of one 8-port switch: a link (20 ns) and the pipeline (40 ns)
    // in, the copying (20 ns) and a link out; the copies leave together, 64 B at 5 GB/s each
    // way (12.8 ns).
    let w = Casts::new(vec![(0..8).collect()], vec![Time::ZERO], 64);
    let (r, w, roots) = run(8, 1, true, RootChoice::Hlse, w, None);
    r.unwrap();
    let ser = 12_800;
    for (i, d) in w.done[0].iter().enumerate().skip(1) {
        assert_eq!(d.unwrap(), Time(20_000 + 40_000 + ser + 20_000 + 20_000), "member {i}");
    }
    assert_eq!(roots.len(), 1);
}

#[test]
fn every_member_gets_every_broadcast_of_an_all_to_all_multicast() {
    // 64 nodes under three levels of 8-port switches, every node broadcasting 3 packets' worth to
    // all the others at once.
    let groups: Vec<Vec<u32>> = (0..64).map(|r| (0..64).map(|k| (r + k) % 64).collect()).collect();
    let w = Casts::new(groups, vec![Time::ZERO; 64], 600);
    let (r, w, _) = run(8, 3, true, RootChoice::Hlse, w, None);
    r.unwrap();
    assert!(w.error.is_none(), "{:?}", w.error);
    assert!(w.done.iter().flatten().all(|d| d.is_some()));
}

/// Two broadcasts from nodes 2 and 5 to nodes 6 and 7 of one switch, arriving while Puts from
/// nodes 3 and 0 hold the two outputs. When both free at once, the outputs' round-robin
/// pointers (after inputs 3 and 0) put the broadcast from 5 first at output 6 and the one from
/// 2 first at output 7.
fn crossing() -> Casts {
    let mut w = Casts::new(vec![vec![2, 6, 7], vec![5, 6, 7]], vec![Time::from_ns(10), Time::from_ns(10)], 64);
    w.background = vec![(3, 6, 1024), (0, 7, 1024)];
    w
}

#[test]
fn holding_outputs_one_at_a_time_deadlocks_and_the_bulletin_does_not() {
    let (r, _, _) = run(8, 1, false, RootChoice::Hlse, crossing(), None);
    match r {
        Err(SimError::Deadlock { .. }) => {}
        other => panic!("expected the hold-and-wait deadlock, got {other:?}"),
    }
    let (r, w, _) = run(8, 1, true, RootChoice::Hlse, crossing(), None);
    r.unwrap();
    // One broadcast takes both outputs, the other follows it.
    let (a, b) = (w.done[0][1].unwrap(), w.done[1][1].unwrap());
    assert!(a != b);
}

#[test]
fn concurrent_broadcasts_do_not_depend_on_the_order_of_same_instant_events() {
    let make = || {
        let groups: Vec<Vec<u32>> =
            (0..16).map(|r| (0..64).map(|k| (r * 4 + k * 3) % 64).collect::<std::collections::BTreeSet<_>>().into_iter().collect()).collect();
        let groups: Vec<Vec<u32>> = groups
            .into_iter()
            .enumerate()
            .map(|(i, mut g)| {
                let root = (i as u32 * 4) % 64;
                g.retain(|&x| x != root);
                g.insert(0, root);
                g
            })
            .collect();
        let mut w = Casts::new(groups, (0..16).map(|i| Time::from_ns(i % 3 * 100)).collect(), 300);
        w.background = (0..64).map(|r| (r, (r + 21) % 64, 2000)).collect();
        w
    };
    for root in [RootChoice::Hlse, RootChoice::Random] {
        let (r, a, ra) = run(8, 3, true, root, make(), None);
        r.unwrap();
        for seed in [3, 4] {
            let (r, b, rb) = run(8, 3, true, root, make(), Some(seed));
            r.unwrap();
            assert_eq!(a.done, b.done, "{root:?}, tie shuffle {seed}");
            assert_eq!(ra, rb);
        }
    }
}

#[test]
fn fixed_roots_stay_put_and_random_and_hlse_spread() {
    // 16 broadcasts over all 64 nodes: each has 16 candidate top switches.
    let make = || {
        let groups: Vec<Vec<u32>> = (0..16).map(|r| (0..64).map(|k| (r + k) % 64).collect()).collect();
        Casts::new(groups, (0..16).map(|i| Time::from_ns(i * 500)).collect(), 64)
    };
    let (_, _, fixed) = run(8, 3, true, RootChoice::Fixed, make(), None);
    let (_, _, random) = run(8, 3, true, RootChoice::Random, make(), None);
    let (_, _, hlse) = run(8, 3, true, RootChoice::Hlse, make(), None);
    // Fixed: by group id, so 16 groups cover the 16 candidates once each; the others draw.
    assert_eq!(fixed.len(), 16);
    assert!(random.len() >= 6, "{random:?}");
    assert!(hlse.len() >= 6, "{hlse:?}");
    assert_eq!(random.iter().map(|r| r.1).sum::<u64>(), 16);
}

#[test]
fn a_broadcast_beside_saturating_unicast_takes_its_outputs_instead_of_starving() {
    // 128 nodes under two levels of 16-port switches. Every node but 0 streams 60 Puts (700 to
    // 1,230 B, so the links' packets end at different times) to the node 37 on, about 10 us of
    // its link, and node 0 broadcasts to all at 1 us. A copying switch takes its outputs off the
    // bulletin at once: they finish their Puts and wait for it, so it goes within a packet time
    // or so of each hop, long before the Puts are over. (Waiting for an instant when all its
    // outputs happen to be idle, it would wait for the Puts to end.)
    let make = || {
        let mut w = Casts::new(vec![(0..128).collect()], vec![Time::from_us(1)], 64);
        w.background = (1..128).flat_map(|r| std::iter::repeat_n((r, (r + 37) % 128, 700 + 53 * (r as u64 % 11)), 60)).collect();
        w
    };
    let (r, w, _) = run(16, 2, true, RootChoice::Hlse, make(), None);
    r.unwrap();
    let last = w.done[0].iter().map(|d| d.unwrap()).max().unwrap();
    assert!(last < Time::from_us(6), "the broadcast took until {last}");
}

#[test]
fn consecutive_multicasts_on_an_output_are_a_grant_round_trip_apart() {
    // Nodes 0 and 1 broadcast 64 B to nodes 6 and 7 of one switch at once: one takes both
    // outputs, the other can ask for them only when the first one's copies have left (12.8 ns
    // of wire), and leaves `grant_delay` later. Its members finish that much after the first's;
    // a broadcast alone on its outputs pays nothing for it (see the one-switch test).
    let ser = Time(12_800);
    let mut gaps = Vec::new();
    for gap in [Time::ZERO, Time(25_600), Time::from_ns(100)] {
        let m = MulticastParams { grant_delay: gap, copy_delay: Time::from_ns(20), ..MulticastParams::default() };
        let w = Casts::new(vec![vec![0, 6, 7], vec![1, 6, 7]], vec![Time::ZERO, Time::ZERO], 64);
        let (r, w, _) = run_with(params_with(8, 1, m), w, None);
        r.unwrap_or_else(|e| panic!("grant delay {gap}: {e}"));
        let (a, b) = (w.done[0][1].unwrap(), w.done[1][1].unwrap());
        assert_eq!((w.done[0][1], w.done[1][1]), (w.done[0][2], w.done[1][2]), "copies leave together");
        let (first, second) = (a.min(b), a.max(b));
        assert_eq!(second - first, ser + gap, "grant delay {gap}");
        gaps.push(second - first);
    }
    assert!(gaps[0] < gaps[1] && gaps[1] < gaps[2]);
}

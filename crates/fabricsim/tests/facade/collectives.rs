//! Collectives on the simulated network: every algorithm completes on tori and meshes of
//! several sizes, costs what its messages cost, and a broken program is reported as a deadlock.

use fabricsim::collective::{run, run_program};
use fabricsim::placement::Ranks;
use fabricsim::{Error, Plan, Scenario};
use fabricsim_program::algorithms::{build, names};
use fabricsim_program::{Collective, Combine, Op, Program, Slots};

fn plan(toml: &str) -> Plan {
    Plan::new(&Scenario::from_toml_str(toml).unwrap()).unwrap()
}

/// Messages a program posts (its Puts and Gets).
fn posts(p: &dyn Program) -> u64 {
    let lists = (0..p.ranks()).flat_map(|r| (0..p.lanes()).map(move |l| (r, l)));
    let ops = lists.flat_map(|(r, l)| (0..p.len(r, l)).map(move |i| (r, l, i)));
    ops.filter(|&(r, l, i)| matches!(p.op(r, l, i), Op::Put { .. } | Op::Get { .. })).count() as u64
}

#[test]
fn every_algorithm_completes_on_tori_and_meshes() {
    let shapes = ["shape = [4, 4]", "shape = [3, 5]\nwrap = [false, false]", "shape = [2, 3, 2]", "shape = [3, 4, 3]"];
    for shape in shapes {
        let pl = plan(&format!("[topology]\n{shape}"));
        let n = pl.topology.nodes();
        for c in Collective::ALL {
            for &a in names(c) {
                for size in [8, 40_000] {
                    let p = match run(&pl, &Ranks::default(), c, a, size, false, |_| {}) {
                        Ok(p) => p,
                        // The topology-aware algorithms refuse meshes, with the reason.
                        Err(e) if shape.contains("false") && e.to_string().contains("torus") => continue,
                        Err(e) => panic!("{} {a} on {shape}: {e}", c.name()),
                    };
                    assert_eq!(p.ranks, n);
                    assert!(p.time_ns > 0.0 && p.rank_done_min_ns <= p.rank_done_median_ns && p.rank_done_median_ns <= p.rank_done_max_ns);
                    assert_eq!(p.messages, posts(build(c, a, &Ranks::default().layout(&pl).unwrap(), size).unwrap().as_ref()), "{} {a}", c.name());
                }
            }
        }
    }
}

#[test]
fn a_two_rank_broadcast_costs_one_message() {
    // Two nodes of a 2-ring: the broadcast is one Put of the whole buffer, so it takes what a
    // ping-pong's one-way trip of the same size takes.
    for size in [8u64, 4096, 100_000] {
        let toml =
            format!("[topology]\nshape = [2]\n[workload]\ntype = \"pingpong\"\nsrc = [0]\ndst = [1]\nmessage_size = \"{size}B\"\niterations = 1");
        let pl = plan(&toml);
        let one_way = pl.run().unwrap().workload.one_way_latency_ns.unwrap();
        for a in ["binomial", "chain"] {
            let p = run(&pl, &Ranks::default(), Collective::Broadcast, a, size, false, |_| {}).unwrap();
            if a == "binomial" || size <= 65536 {
                assert!((p.time_ns - one_way).abs() < 1e-6, "{a} {size}: {} vs {one_way}", p.time_ns);
            } else {
                // Two segments pipeline through the NIC: no slower than one message, no faster
                // than the bytes at link rate.
                assert!(p.time_ns <= one_way * 1.05, "{a} {size}: {} vs {one_way}", p.time_ns);
            }
        }
    }
}

#[test]
fn a_ring_allgather_keeps_the_links_busy_at_large_sizes() {
    // On a one-way ring each step moves one block to the next node: the bus bandwidth nears
    // what one link carries in payload (5 GB/s here, times the packet efficiency).
    let pl = plan("[topology]\nshape = [8]\nlink_bandwidth = \"5GB/s\"");
    let p = run(&pl, &Ranks::default(), Collective::Allgather, "ring", 8 << 20, false, |_| {}).unwrap();
    let bus = p.busbw_gb_per_s.unwrap();
    assert!(bus > 0.75 * 5.0 && bus < 5.0, "bus bandwidth {bus} GB/s");
    // A small buffer is latency-bound: far below.
    let small = run(&pl, &Ranks::default(), Collective::Allgather, "ring", 64, false, |_| {}).unwrap();
    assert!(small.busbw_gb_per_s.unwrap() < 0.1 * bus);
}

struct Stuck;

impl Program for Stuck {
    fn ranks(&self) -> u32 {
        4
    }
    fn slots(&self) -> u32 {
        1
    }
    fn len(&self, r: u32, _lane: u32) -> u32 {
        (r == 2) as u32
    }
    fn op(&self, _r: u32, _lane: u32, _i: u32) -> Op {
        Op::Wait { from: 0, tag: 9, into: Slots::range(0, 1, 1), combine: Combine::Copy }
    }
}

#[test]
fn a_wait_nobody_answers_is_a_deadlock_naming_rank_and_operation() {
    let pl = plan("[topology]\nshape = [4]");
    let e = run_program(&pl, &Ranks::default(), Box::new(Stuck), 8, false, |_| {}).unwrap_err();
    let Error::Failed(m) = e else { panic!("{e:?}") };
    assert!(m.contains("deadlock") && m.contains("rank 2") && m.contains("operation 0"), "{m}");
    // A program for another rank count is refused.
    let e = run_program(&plan("[topology]\nshape = [5]"), &Ranks::default(), Box::new(Stuck), 8, false, |_| {}).unwrap_err();
    assert!(e.to_string().contains("4 ranks"), "{e}");
}

#[test]
fn per_port_counters_show_which_links_a_collective_uses() {
    // A ring allgather on an 8-ring sends only to r + 1: every + link carries 7 blocks (of 128
    // packets), every - link nothing.
    let pl = plan("[topology]\nshape = [8]");
    let size = 8 * 64 * 1024;
    let ring = run(&pl, &Ranks::default(), Collective::Allgather, "ring", size, true, |_| {}).unwrap();
    let net: Vec<_> = ring.ports.iter().filter(|p| p.kind == "network").collect();
    assert_eq!(net.len(), 16);
    for p in &net {
        if p.label.ends_with('+') {
            assert_eq!(p.packets, 7 * 128, "{p:?}");
            assert!(p.utilization > 0.5, "{p:?}");
        } else {
            assert_eq!(p.bytes, 0, "{p:?}");
        }
    }
    assert!(run(&pl, &Ranks::default(), Collective::Allgather, "ring", size, false, |_| {}).unwrap().ports.is_empty());
}

#[test]
fn the_virtual_torus_of_a_6d_shape_puts_virtual_neighbours_one_link_apart() {
    // A Tofu-shaped 6D network (X, Z, B rings; Y, A, C lines): each step along a virtual axis,
    // wrap-around included, is one physical link, and every node holds one rank.
    for shape in ["[4, 6, 4, 2, 3, 2]", "[3, 5, 2, 2, 3, 2]"] {
        let pl = plan(&format!(
            "[topology]\nshape = {shape}\nwrap = [true, false, true, false, true, false]\n[workload]\ntype = \"pingpong\"\nsrc = [0,0,0,0,0,0]\ndst = [1,0,0,0,0,0]"
        ));
        let ranks = fabricsim::virtual_torus::virtual_torus(&pl).unwrap();
        let map = ranks.map.clone().unwrap();
        let grid = fabricsim_program::Grid::new(ranks.grid.as_ref().unwrap(), &[true; 3]);
        assert_eq!(grid.ranks(), pl.topology.nodes());
        let mut nodes = map.clone();
        nodes.sort();
        nodes.dedup();
        assert_eq!(nodes.len() as u32, pl.topology.nodes(), "every node once");
        for r in 0..grid.ranks() {
            for a in 0..grid.dims().len() {
                let n = grid.shift(r, a, 1);
                assert_eq!(pl.topology.distance(map[r as usize], map[n as usize]), 1, "{shape}: rank {r} axis {a}");
            }
        }
        // The topology-aware collectives run on it and beat the binomial tree at 1 MiB.
        let tree = run(&pl, &ranks, Collective::Broadcast, "trinary_tree", 1 << 20, false, |_| {}).unwrap();
        let binomial = run(&pl, &ranks, Collective::Broadcast, "binomial", 1 << 20, false, |_| {}).unwrap();
        assert!(tree.time_ns < binomial.time_ns, "{shape}: {} vs {}", tree.time_ns, binomial.time_ns);
        run(&pl, &ranks, Collective::Allgather, "quad_rings", 4096, false, |_| {}).unwrap();
    }
}

#[test]
fn hardware_barriers_and_allreduces_run_where_the_preset_has_gates() {
    // A K-computer corner (Tofu gates on TNI 0): the hardware barrier beats the software one,
    // and a one-element allreduce goes through the gates too.
    let pl = plan("[machine]\npreset = \"tofu-k\"\n[topology]\nshape = [4, 3, 2, 2, 3, 2]");
    let hw = run(&pl, &Ranks::default(), Collective::Barrier, "hardware", 8, false, |_| {}).unwrap();
    let sw = run(&pl, &Ranks::default(), Collective::Barrier, "dissemination", 8, false, |_| {}).unwrap();
    assert!(hw.time_ns < sw.time_ns, "{} vs {}", hw.time_ns, sw.time_ns);
    let g = hw.gates.clone().unwrap();
    // 288 nodes, one rank each: recursive doubling with a fold, 256 core TNIs.
    assert_eq!((g.tnis, g.max_channels_per_tni), (288, 1));
    assert!(g.stages >= 9, "{g:?}");
    let ar = run(&pl, &Ranks::default(), Collective::Allreduce, "hardware", 8, false, |_| {}).unwrap();
    assert!(ar.gates.unwrap().exact);
    // More elements than K's gates reduce at once: refused, naming the field.
    let e = run(&pl, &Ranks::default(), Collective::Allreduce, "hardware", 16, false, |_| {}).unwrap_err().to_string();
    assert!(e.contains("bytes") && e.contains("1 to 1 floating-point"), "{e}");
    // APEnet+ has no collective hardware: the hardware algorithm says so.
    let apenet = plan("[machine]\npreset = \"apenet-quong\"");
    let e = run(&apenet, &Ranks::default(), Collective::Barrier, "hardware", 8, false, |_| {}).unwrap_err().to_string();
    assert!(e.contains("no in-network collective hardware"), "{e}");
}

#[test]
fn blue_gene_q_combines_in_its_class_routes() {
    // The midplane: a tree rooted at the centre, 2 + 2 + 2 + 2 + 1 links deep; a long
    // allreduce streams at nearly the links' user-data rate (1.8 GB/s), far above software's.
    let pl = plan("[machine]\npreset = \"bgq\"");
    let small = run(&pl, &Ranks::default(), Collective::Allreduce, "hardware", 8, false, |_| {}).unwrap();
    let c = small.class_route.clone().unwrap();
    assert_eq!((c.nodes, c.depth), (512, 9));
    let long = run(&pl, &Ranks::default(), Collective::Allreduce, "hardware", 1 << 20, false, |_| {}).unwrap();
    assert!(long.algbw_gb_per_s > 1.7 && long.algbw_gb_per_s < 1.8, "{}", long.algbw_gb_per_s);
    let sw = run(&pl, &Ranks::default(), Collective::Allreduce, "recursive_doubling", 8, false, |_| {}).unwrap();
    assert!(small.time_ns * 2.0 < sw.time_ns, "{} vs {}", small.time_ns, sw.time_ns);
}

#[test]
fn a_program_file_makes_its_groups() {
    let pl = plan("[machine]\npreset = \"tofu-k\"\n[topology]\nshape = [4, 3, 2, 2, 3, 2]");
    let text = "ranks 3\ngroup 5 0,2\n0 hw barrier 5 0B tag=1\n2 hw barrier 5 0B tag=1\n0 hwwait tag=1\n2 hwwait tag=1\n1 compute 1us\n";
    let prog = fabricsim_program::FileProgram::parse(text).unwrap();
    let ranks = Ranks { map: Some((0..3).map(fabricsim_core::NodeId).collect()), ..Ranks::default() };
    let p = run_program(&pl, &ranks, Box::new(prog), 0, false, |_| {}).unwrap();
    // Ranks 0 and 2 on nodes 0 and 2: two start gates, one signal each way.
    assert!(p.time_ns > 480.0 && p.time_ns < 2000.0, "{}", p.time_ns);
}

#[test]
fn back_to_back_hardware_collectives_run_without_waiting_for_other_events() {
    // Each rank starts its second barrier from the first one's completion: it must be served at
    // once, not at some later event (nor never, when nothing else is going on).
    let text = |barriers: u32| {
        let mut t = String::from("ranks 4\ngroup 0 all\n");
        for r in 0..4 {
            for b in 1..=barriers {
                t += &format!("{r} hw barrier 0 0B tag={b}\n{r} hwwait tag={b}\n");
            }
        }
        fabricsim_program::FileProgram::parse(&t).unwrap()
    };
    let ranks = Ranks { map: Some((0..4).map(fabricsim_core::NodeId).collect()), ..Ranks::default() };
    for preset in ["tofu-k\"\n[topology]\nshape = [4, 3, 2, 2, 3, 2]", "bgq\""] {
        let pl = plan(&format!("[machine]\npreset = \"{preset}"));
        let t1 = run_program(&pl, &ranks, Box::new(text(1)), 0, false, |_| {}).unwrap().time_ns;
        let t2 = run_program(&pl, &ranks, Box::new(text(2)), 0, false, |_| {}).unwrap().time_ns;
        assert!((t2 - 2.0 * t1).abs() < 0.5 * t1, "{preset}: one barrier {t1} ns, two {t2} ns");
    }
}

#[test]
fn collectives_run_beside_background_traffic() {
    use fabricsim::collective::run_in;
    // A 4x4x4 torus under uniform random traffic at 20% load: the collective starts after the
    // warm-up and ends while the traffic goes on; it takes longer than on an idle network.
    let pl = plan("[topology]\nshape = [4, 4, 4]\n[workload]\ntype = \"uniform_random\"\nload = 0.2");
    let idle = run_in(&pl, &Ranks::default(), Collective::Allreduce, "recursive_doubling", 8, false, false, |_| {}).unwrap();
    let busy = run_in(&pl, &Ranks::default(), Collective::Allreduce, "recursive_doubling", 8, false, true, |_| {}).unwrap();
    assert!(busy.time_ns > idle.time_ns, "{} vs {}", busy.time_ns, idle.time_ns);
    assert_eq!(busy.messages, idle.messages, "background messages are not the program's");
    // The background must be open-loop traffic.
    let pingpong = plan("[topology]\nshape = [4, 4, 4]\n[workload]\ntype = \"pingpong\"\nsrc = [0, 0, 0]\ndst = [1, 0, 0]");
    let e = run_in(&pingpong, &Ranks::default(), Collective::Barrier, "dissemination", 8, false, true, |_| {}).unwrap_err().to_string();
    assert!(e.contains("--background") && e.contains("pingpong"), "{e}");
}

#[test]
fn all_algorithms_are_those_that_apply_at_each_size() {
    use fabricsim::collective::select;
    use fabricsim::workloads::CollectiveSpec;
    use fabricsim::Bytes;
    let all = vec!["all".to_string()];
    let pick = |preset: &str, c: Collective, size: u64, virtual_torus: bool| {
        let base = Scenario::from_toml_str(&format!("[machine]\npreset = \"{preset}\"")).unwrap();
        let w = CollectiveSpec { op: Some(c), virtual_torus, ..Default::default() };
        select(&base, &w, &all, &[Bytes(size)]).unwrap()
    };
    let has = |preset: &str, c: Collective| pick(preset, c, 8, false).points.iter().any(|(_, a)| a == "hardware");
    // Tofu's gates: barriers, and allreduces of a few 8-byte elements (3 floating-point ones
    // on TofuD), not broadcasts.
    assert!(has("tofud", Collective::Barrier) && has("tofud", Collective::Allreduce) && !has("tofud", Collective::Broadcast));
    let big = pick("tofud", Collective::Allreduce, 1024, false);
    let why = |sel: &fabricsim::collective::Selection, a: &str| sel.skipped.iter().find(|s| s.algorithm == a).map(|s| s.reason.clone());
    assert!(why(&big, "hardware").unwrap().contains("at most 3 floating-point elements"), "{big:?}");
    // 6D Tofu and 5D Blue Gene/Q: no triple trinary tree, unless on the virtual 3D torus.
    assert!(why(&big, "trinary_tree").unwrap().contains("torus"));
    let virt = pick("tofud", Collective::Allreduce, 8, true);
    assert!(virt.skipped.is_empty(), "{virt:?}");
    assert!(virt.points.iter().any(|(_, a)| a == "trinary_tree") && virt.points.iter().any(|(_, a)| a == "hardware"));
    // Blue Gene/Q's class routes: barrier, allreduce, broadcast; an allgather takes a route
    // per rank, more than a node has.
    assert!(has("bgq", Collective::Barrier) && has("bgq", Collective::Allreduce) && has("bgq", Collective::Broadcast));
    assert!(why(&pick("bgq", Collective::Allgather, 8, false), "hardware").unwrap().contains("hardware.routes"));
    // A network without any: `hardware` is not mentioned at all.
    let apenet = pick("apenet-quong", Collective::Barrier, 8, false);
    assert!(apenet.skipped.is_empty() && !apenet.points.iter().any(|(_, a)| a == "hardware"));
    // Dawning's switches: a barrier, and broadcasts (an allgather is all-to-all multicast).
    assert!(has("dawning5000", Collective::Barrier) && has("dawning5000", Collective::Broadcast));
    assert!(has("dawning5000", Collective::Allgather) && !has("dawning5000", Collective::Allreduce));
    // Whatever is selected can be built for its ranks (the run would not refuse it).
    for preset in ["tofu-k", "tofud", "bgq-sequoia", "dawning5000", "apenet-quong"] {
        for c in Collective::ALL {
            let sel = pick(preset, c, 64, false);
            let named: Vec<&str> = sel.points.iter().map(|(_, a)| a.as_str()).chain(sel.skipped.iter().map(|s| s.algorithm.as_str())).collect();
            for a in names(c) {
                assert!(named.contains(a), "{preset} {c:?}: {a} neither run nor skipped");
            }
        }
    }
    // `info` says what each has.
    let hw = |preset: &str| plan(&format!("[machine]\npreset = \"{preset}\"")).collective_hardware();
    assert!(hw("tofud").unwrap().contains("16 channels and 48 gates on each of 6 TNIs"));
    assert!(hw("bgq").unwrap().contains("class routes"));
    let d = hw("dawning5000").unwrap();
    assert!(
        d.contains("switch barrier") && d.contains("dedicated class VC") && d.contains("with the Global Resource Bulletin, root choice hlse"),
        "{d}"
    );
    assert_eq!(hw("apenet-quong"), None);
}

#[test]
fn dawning_switch_hardware_settings_are_checked_by_name() {
    let err = |toml: &str| Scenario::from_toml_str(toml).and_then(|s| Plan::new(&s)).err().map(|e| e.to_string()).unwrap_or_default();
    let dawning = "[machine]\npreset = \"dawning5000\"\n";
    // On a torus there are no switches to hold the logic.
    assert!(err("[hardware]\ntype = \"dawning_switch\"").contains("hardware.type"));
    // The old sections reach the same checks.
    assert!(err("[multicast]\nenabled = true").contains("hardware.type"));
    assert!(err(&format!("{dawning}[hardware.barrier]\nrail = 4")).contains("hardware.barrier.rail"));
    assert!(err(&format!("{dawning}[hardware.multicast]\nrail = 9")).contains("hardware.multicast.rail"));
    assert!(err(&format!("{dawning}[hardware.barrier]\ndrop = 1.5")).contains("hardware.barrier.drop"));
    assert!(err(&format!("{dawning}[switch_barrier]\nretry_timeout = \"0ns\"")).contains("hardware.barrier.retry_timeout"));
    assert!(err(&format!("{dawning}[hardware.multicast]\nroot = \"best\"")).contains("hardware.multicast.root"));
    assert!(err(&format!("{dawning}[hardware.multicast]\nroots = 1")).contains("hardware.multicast.roots"));
    // A barrier packet must fit the 128 B barrier VC.
    assert!(err(&format!("{dawning}[hardware.barrier]\npayload = \"512B\"")).contains("hardware.barrier.payload"));
    assert_eq!(err(dawning), "");
    // Two ranks per node: the NICs gather their nodes' members for the barrier and hand a
    // broadcast to both: the same times as one rank per node.
    let d = plan(dawning);
    let two = Ranks { per_node: 2, ..Ranks::default() };
    let one = run(&d, &Ranks::default(), Collective::Barrier, "hardware", 0, false, |_| {}).unwrap();
    let b = run(&d, &two, Collective::Barrier, "hardware", 0, false, |_| {}).unwrap();
    assert_eq!((b.ranks, b.time_ns), (2048, one.time_ns));
    let one = run(&d, &Ranks::default(), Collective::Broadcast, "hardware", 8, false, |_| {}).unwrap();
    let b = run(&d, &two, Collective::Broadcast, "hardware", 8, false, |_| {}).unwrap();
    assert_eq!((b.ranks, b.time_ns), (2048, one.time_ns));
}

#[test]
fn flits_let_the_dawning_barrier_past_unicast_packets_and_are_refused_where_not_modelled() {
    use fabricsim::collective::run_in;
    // Dawning's switch barrier on 128 nodes (two levels) beside 1 KB hot-region unicast traffic at 30% load
    // (below saturation): with whole packets a barrier packet waits out the unicast packet on
    // each of its links; with the preset's 16 B flits it takes each switch output at the next
    // flit boundary, and the run counts the suspensions.
    let barrier = |flit: &str| {
        let toml = format!(
            "[machine]\npreset = \"dawning5000\"\n[topology]\nlevels = 2\n[workload]\ntype = \"hot_region\"\npacket_size = \"1024B\"\nload = 0.3\n\
             [packet]\nmax_payload = \"1008B\"\n[sim]\nwarmup = \"20us\"\n[router]\nflit_size = \"{flit}\""
        );
        run_in(&plan(&toml), &Ranks::default(), Collective::Barrier, "hardware", 8, false, true, |_| {}).unwrap()
    };
    let (whole, flits) = (barrier("0B"), barrier("16B"));
    assert!(whole.flits.is_none(), "whole packets: no flits object");
    let f = flits.flits.expect("a flits object");
    assert_eq!(f.flit_bytes, 16);
    assert!(f.preemptions > 0, "{f:?}");
    assert!(flits.time_ns < 0.8 * whole.time_ns, "flits {} ns vs whole packets {} ns", flits.time_ns, whole.time_ns);
    // Not with faulty links, nor on several threads: refused by name.
    for extra in ["[faults]\nlane_ber = 1e-6", "[sim]\nthreads = 2"] {
        let toml = format!("[router]\nflit_size = \"16B\"\n{extra}");
        let e = Plan::new(&Scenario::from_toml_str(&toml).unwrap()).and_then(|p| p.run()).expect_err("refused").to_string();
        assert!(e.starts_with("router.flit_size"), "{e}");
    }
}

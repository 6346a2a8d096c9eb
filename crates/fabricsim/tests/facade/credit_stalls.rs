//! Credit-stall time per VC (`Plan::queues`, `run --queues`: `credit_stall_vc_ns`), against the
//! ports' own credit-stall counters (kept by the network, by other code) and against the VCs the
//! packets took (counted here from the grants).

use fabricsim::{Plan, RunReport, Scenario, Time};
use fabricsim_core::{PortId, RouterId};
use fabricsim_stats::Observer;

/// Packets granted per `port * vcs + vc` over the whole run.
struct VcPackets {
    vcs: usize,
    n: Vec<u64>,
}

impl Observer for VcPackets {
    fn on_queue_wait(&mut self, port: PortId, vc: u8, _ready: Time, _granted: Time, _bytes: u32) {
        self.n[port.index() * self.vcs + vc as usize] += 1;
    }
}

/// One metered port of a run: its credit-stall counter and its VCs' (ps), and the packets each
/// of its VCs carried.
struct Port {
    kind: &'static str,
    stall_ps: u64,
    vc_stall_ps: Vec<u64>,
    vc_packets: Vec<u64>,
}

fn ps(ns: f64) -> u64 {
    (ns * 1e3).round() as u64
}

/// Run `toml` with the queue meter on; the report and every port's counters.
fn run(toml: &str) -> (RunReport, Vec<Port>) {
    let plan = Plan { queues: true, ..Plan::new(&Scenario::from_toml_str(toml).unwrap()).unwrap() };
    let vcs = plan.params.vcs as usize;
    let ports = plan.build_graph().total_ports() as usize;
    let obs = VcPackets { vcs, n: vec![0; ports * vcs] };
    let (report, (n, graph)) = plan.run_observed(obs, |_| {}, |o, g| (o.n.clone(), g.clone())).unwrap();
    let out = report
        .ports
        .iter()
        .map(|p| {
            let q = p.queue.as_ref().expect("queue counters with Plan::queues");
            assert_eq!(q.credit_stall_vc_ns.len(), vcs, "one figure per VC");
            let g = graph.port(RouterId(p.router), p.port).index();
            Port {
                kind: p.kind,
                stall_ps: ps(p.credit_stall_ns),
                vc_stall_ps: q.credit_stall_vc_ns.iter().map(|&x| ps(x)).collect(),
                vc_packets: n[g * vcs..(g + 1) * vcs].to_vec(),
            }
        })
        .collect();
    (report, out)
}

fn scenario(topology: &str, vcs: u32, workload: &str) -> String {
    format!(
        "[topology]\n{topology}\nlink_bandwidth = \"5GB/s\"\nlink_latency = \"20ns\"\n\
         [router]\ndelay = \"40ns\"\nvcs = {vcs}\nbuffer = \"1KiB\"\n\
         [workload]\n{workload}\npacket_size = \"256B\"\n\
         [sim]\nseed = 3\nduration = \"6us\"\nwarmup = \"1us\"\n"
    )
}

#[test]
fn with_one_vc_the_vc_waits_exactly_as_long_as_its_port_stalls() {
    // One VC, one packet size, deterministic routing: a port stalls from an arbitration where
    // every request lacked credit to its next grant, and each credit return in between
    // triggers an arbitration in its instant that either grants or waits again; so the VC's
    // wait covers the stall exactly, however many packets wait in it (counted once).
    let toml = scenario("type = \"mesh\"\nshape = [4, 4]", 1, "type = \"uniform_random\"\nload = 0.9");
    let (_, ports) = run(&toml);
    let mut total = 0;
    for p in &ports {
        assert_eq!(p.vc_stall_ps, vec![p.stall_ps], "{} port: the VC's credit wait is the port's credit stall", p.kind);
        total += p.stall_ps;
    }
    assert!(total > 0, "a saturated mesh with small buffers stalls for credit");
}

#[test]
fn with_several_vcs_each_waits_within_the_window_and_together_cover_the_ports_stall() {
    // Two VCs (the torus's dateline halves): while a port stalls, some VC waits, so the port's
    // stall is at most its VCs' sum; a VC's wait fits in the window.
    let toml = scenario("type = \"torus\"\nshape = [4, 4]", 2, "type = \"uniform_random\"\nload = 0.9");
    let (report, ports) = run(&toml);
    let window = ps(report.window_ns);
    let (mut port_total, mut vc_total) = (0, 0);
    for p in &ports {
        let sum: u64 = p.vc_stall_ps.iter().sum();
        assert!(p.vc_stall_ps.iter().all(|&x| x <= window), "{:?} beyond the window {window} ps", p.vc_stall_ps);
        assert!(p.stall_ps <= sum, "{} port stalled {} ps, its VCs waited {:?}", p.kind, p.stall_ps, p.vc_stall_ps);
        if p.kind == "terminal" {
            assert_eq!(sum, 0, "an ejection port never lacks credit");
        }
        (port_total, vc_total) = (port_total + p.stall_ps, vc_total + sum);
    }
    assert!(port_total > 0 && vc_total >= port_total);
    // The summary: the network VCs' share of the window spent waiting.
    let f = report.queues.as_ref().unwrap().credit_stall_vc_fraction;
    let network_vcs = ports.iter().filter(|p| p.kind != "terminal").count() * 2;
    let expect =
        ports.iter().filter(|p| p.kind != "terminal").flat_map(|p| &p.vc_stall_ps).sum::<u64>() as f64 / (window * network_vcs as u64) as f64;
    assert!((f - expect).abs() <= 1e-9 * expect.max(1e-9) + 1e-12, "fraction {f}, expected {expect}");
}

#[test]
fn a_vc_no_packet_takes_never_waits_for_credit() {
    // A ring of 8 with two VCs (dateline halves) and all traffic to node 0: packets from nodes
    // 1-4 reach it without crossing the wrap-around link, on the lower VC only, and those from
    // 5-7 cross it at node 7. Ports next to node 0 stall, on the VC their packets take.
    let toml = scenario("type = \"torus\"\nshape = [8]", 2, "type = \"hot_region\"\nload = 0.5\nhot_fraction = 1.0\nhot_nodes = 1");
    let (_, ports) = run(&toml);
    let mut one_vc_stalled = 0;
    for p in &ports {
        for (vc, (&n, &stall)) in p.vc_packets.iter().zip(&p.vc_stall_ps).enumerate() {
            assert!(n > 0 || stall == 0, "{} port: VC {vc} carried nothing but waited {stall} ps", p.kind);
        }
        one_vc_stalled += (p.vc_packets.contains(&0) && p.vc_stall_ps.iter().any(|&x| x > 0)) as u32;
    }
    assert!(one_vc_stalled > 0, "some port used one VC and stalled on it");
}

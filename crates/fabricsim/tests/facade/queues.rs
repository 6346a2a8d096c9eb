//! Queue counters (`Plan::queues`, `run --queues`): the queue-length integral of each output
//! and the wait Little's law derives from it, against the waits measured packet by packet.

use fabricsim::{Plan, Scenario, Time};
use fabricsim_core::{PortId, RouterId};
use fabricsim_stats::Observer;

/// Per port: packets granted inside `[from, to)` and the sum of their whole waits (ready to
/// granted), measured packet by packet.
struct Waits {
    from: u64,
    to: u64,
    n: Vec<u64>,
    sum_ps: Vec<u64>,
}

impl Observer for Waits {
    fn on_queue_wait(&mut self, port: PortId, _vc: u8, ready: Time, granted: Time, _bytes: u32) {
        if (self.from..self.to).contains(&granted.ps()) {
            self.n[port.index()] += 1;
            self.sum_ps[port.index()] += granted.ps() - ready.ps();
        }
    }
}

fn plan(load: f64) -> Plan {
    let toml = format!(
        "[topology]\ntype = \"torus\"\nshape = [4, 4]\nlink_bandwidth = \"5GB/s\"\nlink_latency = \"20ns\"\n\
         [router]\ndelay = \"40ns\"\nvcs = 2\nbuffer = \"2KiB\"\n\
         [workload]\ntype = \"uniform_random\"\nload = {load}\npacket_size = \"256B\"\n\
         [sim]\nseed = 11\nduration = \"40us\"\nwarmup = \"2us\"\n"
    );
    Plan { queues: true, ..Plan::new(&Scenario::from_toml_str(&toml).unwrap()).unwrap() }
}

/// The report of a run at `load`, with each port's queue fields, and the waits measured per
/// packet by [`Waits`]: (report, Little's-law wait over `kind`'s ports, measured mean wait over
/// them, packets those ports sent in the window, packets granted there per the measurement).
fn run(load: f64, kind: &str) -> (fabricsim::RunReport, f64, f64, u64, u64) {
    let plan = plan(load);
    let (from, to) = fabricsim::queues::window(&plan);
    let ports = plan.build_graph().total_ports() as usize;
    let waits = Waits { from: from.ps(), to: to.ps(), n: vec![0; ports], sum_ps: vec![0; ports] };
    let (report, (n, sum_ps, graph)) = plan.run_observed(waits, |_| {}, |w, g| (w.n.clone(), w.sum_ps.clone(), g.clone())).unwrap();
    let (mut integral_ns, mut sent, mut granted, mut measured_ps) = (0.0, 0u64, 0u64, 0u64);
    for p in report.ports.iter().filter(|p| p.kind == kind) {
        let q = p.queue.as_ref().expect("queue counters with Plan::queues");
        integral_ns += q.queue_packet_ns;
        sent += p.packets;
        let g = graph.port(RouterId(p.router), p.port).index();
        granted += n[g];
        measured_ps += sum_ps[g];
    }
    let little = integral_ns / sent as f64;
    let measured = measured_ps as f64 / 1e3 / granted as f64;
    (report, little, measured, sent, granted)
}

#[test]
fn littles_law_wait_matches_the_waits_measured_per_packet() {
    for kind in ["network", "terminal"] {
        let (report, little, measured, sent, granted) = run(0.7, kind);
        // The packets the ports' own counters saw in the window are those the measurement saw
        // granted there (the two count at the same grants, by different code).
        assert!(sent > 1000 && (sent as f64 - granted as f64).abs() <= 0.01 * sent as f64, "{kind}: {sent} sent, {granted} granted");
        // At 70% load packets do queue, for a sizable part of a hop's time.
        let hop_ns = report.packet_latency_ns.mean / 10.0;
        assert!(measured > 0.01 * hop_ns, "{kind}: mean wait {measured} ns");
        // Little's law: the integral over the window divided by the packets through is the mean
        // wait, up to the packets queued across the window's edges (few, against thousands).
        assert!((little - measured).abs() <= 0.03 * measured, "{kind}: Little {little} ns vs measured {measured} ns");
        // Mean occupancy is the integral over the window's length.
        for p in report.ports.iter().filter(|p| p.kind == kind) {
            let q = p.queue.as_ref().unwrap();
            assert!((q.queue_mean_packets * report.window_ns - q.queue_packet_ns).abs() <= 1e-6 * q.queue_packet_ns.max(1.0));
            let vcs: f64 = q.queue_vc_packet_ns.iter().sum();
            assert!((vcs - q.queue_packet_ns).abs() <= 1e-6 * vcs.max(1.0), "the VCs' integrals add up to the port's");
        }
        // The waits are part of the packets' latency: summed over a packet's hops, they stay
        // below it.
        let summary = report.queues.as_ref().expect("a queue summary");
        assert!(summary.network_wait_ns < report.packet_latency_ns.mean && summary.mean_packets_queued > 0.0);
    }
}

#[test]
fn queues_grow_with_the_load() {
    let (_, low, _, _, _) = run(0.1, "network");
    let (_, high, _, _, _) = run(0.7, "network");
    assert!(high > 2.0 * low, "wait per hop {low} ns at 10% load, {high} ns at 70%");
}

#[test]
fn reports_without_the_meter_have_no_queue_fields() {
    let plan = Plan { queues: false, ..plan(0.3) };
    let r = plan.run().unwrap();
    assert!(r.queues.is_none() && r.ports.iter().all(|p| p.queue.is_none()));
    let v = serde_json::to_value(&r).unwrap();
    assert!(v["ports"][0].get("queue_packet_ns").is_none() && v.get("queues").is_none());
}

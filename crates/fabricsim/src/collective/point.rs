//! The point a finished run gives: when ranks finished, bandwidths, traffic, and what the
//! collective hardware did.

use super::{ClassRouteUse, CollectivePoint, GateUse, SwitchBarrierUse};
use crate::report::port_reports;
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_network::{Outcome, Simulation, Workload};
use fabricsim_program::JobRun;
use fabricsim_stats::Observer;

/// The point of a finished run of program `w` in `sim`; `(ranks, size, ports, wall-clock start,
/// the program's start)`.
pub(super) fn point<W: Workload, O: Observer, R: JobRun>(
    plan: &Plan,
    sim: &Simulation<W, O>,
    w: &R,
    outcome: &Outcome,
    (n, size, ports, started, from): (u32, u64, bool, std::time::Instant, Time),
) -> Result<CollectivePoint, Error> {
    let s = &plan.scenario.sim;
    if let Some(e) = w.error() {
        return Err(ConfigError::new("program", e).into());
    }
    if !w.finished() {
        if let Some(e) = crate::disconnected::cut_off(sim.fault_counts()) {
            return Err(e);
        }
        // Beside background traffic (`from` > 0) a stuck program runs on to `sim.max_time`.
        if let (true, Some(why)) = (outcome.sim_time < s.max_time || from > Time::ZERO, w.stuck()) {
            return Err(Error::Failed(why));
        }
        return Err(ConfigError::new("sim.max_time", format!("{} was reached before the program finished", s.max_time)).into());
    }
    let mut done: Vec<Time> = w.done_at().iter().map(|&t| Time(t.ps().saturating_sub(from.ps()))).collect();
    let rank_done_ns = done.iter().map(|t| t.as_ns_f64()).collect();
    done.sort_unstable();
    let time = done.last().copied().unwrap_or(Time::ZERO);
    let ns = |t: Time| t.as_ns_f64();
    let algbw = if time > Time::ZERO { size as f64 / time.as_secs_f64() / 1e9 } else { 0.0 };
    let (messages, message_bytes) = w.traffic();
    Ok(CollectivePoint {
        op: "program",
        algorithm: String::new(),
        bytes: size,
        ranks: n,
        time_ns: ns(time),
        rank_done_min_ns: done.first().map_or(0.0, |&t| ns(t)),
        rank_done_median_ns: done.get(done.len() / 2).map_or(0.0, |&t| ns(t)),
        rank_done_max_ns: ns(time),
        rank_done_ns,
        ops: w.op_log().map_or_else(Vec::new, |l| l.slices().iter().map(|o| o.since(from)).collect()),
        algbw_gb_per_s: algbw,
        busbw_gb_per_s: None,
        messages,
        message_bytes,
        events: outcome.events,
        wall_s: Some(started.elapsed().as_secs_f64()),
        ports: if ports { port_reports(&plan.topology, sim.graph(), &sim.port_counters(), time.ps()) } else { Vec::new() },
        queues: None,
        gates: sim.gate_wiring(0).map(GateUse::of),
        class_route: sim.class_tree(0).map(|t| ClassRouteUse { nodes: t.nodes.len() as u32, root: t.nodes[t.root], depth: t.depth() }),
        switch_barrier: sim.barrier_tree(0).zip(sim.barrier_counts()).map(|(t, c)| SwitchBarrierUse {
            switches: t.switches() as u32,
            root_level: t.root_level as u32,
            packets: c.packets,
            lost: c.lost,
            resent: c.resent,
            urges: c.urges,
        }),
        flits: sim.flit_counts(),
        provenance: None,
        // A trace's replay: its ranks' time computing and communicating.
        trace: w.calc_time().map(|calc| {
            let done: Vec<Time> = w.done_at().iter().map(|&t| t.saturating_sub(from)).collect();
            crate::trace::TraceReport::new(&done, calc)
        }),
    })
}

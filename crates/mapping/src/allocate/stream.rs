//! A stream of jobs on one machine, scheduled first come, first served with backfilling
//! (EASY): jobs start in arrival order while they fit; when the first waiting job does not, it
//! gets a reservation (the earliest time, as running jobs end, when it would fit, and the
//! region it would take then), and a later job may start now if it fits and ends before that
//! time or stays off the reserved region.

use super::{Occupancy, Policy};
use crate::embed::Region;
use rand::{Rng, SeedableRng};

/// One job of a stream: when it arrives, the box it asks for, how long it runs (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamJob {
    /// Seconds from the stream's start.
    pub arrival: f64,
    /// Length along each axis.
    pub shape: Vec<u32>,
    /// Seconds.
    pub runtime: f64,
}

/// Where and when one job ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    /// Seconds from the stream's start.
    pub start: f64,
    /// Its box (padding included).
    pub region: Region,
    /// Nodes allocated (padding included) and nodes asked for.
    pub nodes: u32,
    /// Nodes asked for.
    pub asked: u32,
}

/// What a schedule came to.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamStats {
    /// Jobs in the stream.
    pub jobs: u32,
    /// Jobs that never fit the machine under the policy (left out of the rest).
    pub refused: u32,
    /// From the first arrival to the last end, seconds.
    pub makespan: f64,
    /// Node-seconds asked for (shape x runtime) over machine node-seconds in the makespan.
    pub utilization: f64,
    /// Node-seconds allocated (padding included) over machine node-seconds.
    pub allocated: f64,
    /// Mean and longest wait from arrival to start, seconds.
    pub wait_mean: f64,
    /// Longest wait, seconds.
    pub wait_max: f64,
    /// Of the node-seconds while some job was waiting, the share of free nodes: capacity lost
    /// to fragmentation (nodes free but in no place the waiting job fits).
    pub fragmentation: f64,
    /// Jobs started ahead of an earlier one (backfilled).
    pub backfilled: u32,
}

/// Schedule `jobs` (in arrival order) on `occ` (an empty machine) under `policy`: each job's
/// placement (`None`: it never fits) and the statistics.
pub fn schedule(mut occ: Occupancy, jobs: &[StreamJob], policy: Policy) -> (Vec<Option<Placed>>, StreamStats) {
    let n = occ.nodes() as f64;
    let mut placed: Vec<Option<Placed>> = vec![None; jobs.len()];
    let mut fits_empty = vec![false; jobs.len()];
    let empty = occ.clone();
    for (i, j) in jobs.iter().enumerate() {
        fits_empty[i] = empty.find(&j.shape, policy).is_some();
    }
    // Running: (end, job, node ids).
    let mut running: Vec<(f64, usize, Vec<u32>)> = Vec::new();
    let mut waiting: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut now = jobs.first().map_or(0.0, |j| j.arrival);
    let (mut waiting_node_s, mut free_waiting_node_s) = (0.0, 0.0);
    let mut backfilled = 0;
    loop {
        // Arrivals up to now join the queue.
        while next < jobs.len() && jobs[next].arrival <= now {
            if fits_empty[next] {
                waiting.push(next);
            }
            next += 1;
        }
        // Start what may start.
        let mut k = 0;
        let mut reservation: Option<(f64, Vec<u32>)> = None;
        // Shapes that found no place since the machine last changed.
        let mut failed: Vec<&[u32]> = Vec::new();
        while k < waiting.len() {
            let i = waiting[k];
            let j = &jobs[i];
            let spot = if failed.contains(&j.shape.as_slice()) { None } else { occ.find(&j.shape, policy) };
            if spot.is_none() {
                failed.push(&j.shape);
            }
            let allowed = match (&spot, &reservation) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some((_, ids)), Some((shadow, reserved))) => now + j.runtime <= *shadow || ids.iter().all(|x| !reserved.contains(x)),
            };
            if allowed {
                let (region, ids) = spot.expect("allowed only with a spot");
                occ.set(&ids, true);
                failed.clear();
                if reservation.is_some() {
                    backfilled += 1;
                }
                placed[i] = Some(Placed { start: now, region, nodes: ids.len() as u32, asked: j.shape.iter().product() });
                running.push((now + j.runtime, i, ids));
                waiting.remove(k);
                continue;
            }
            if reservation.is_none() {
                reservation = Some(reserve(&occ, &running, &j.shape, policy));
            }
            k += 1;
        }
        // Advance to the next arrival or end.
        let next_end = running.iter().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let next_arrival = jobs.get(next).map_or(f64::INFINITY, |j| j.arrival);
        let t = next_end.min(next_arrival);
        if !t.is_finite() {
            break;
        }
        if !waiting.is_empty() {
            waiting_node_s += n * (t - now);
            free_waiting_node_s += occ.free() as f64 * (t - now);
        }
        now = t;
        running.retain(|(end, _, ids)| {
            if *end <= now {
                occ.set(ids, false);
                false
            } else {
                true
            }
        });
    }
    let first = jobs.first().map_or(0.0, |j| j.arrival);
    let ran: Vec<(&StreamJob, &Placed)> = jobs.iter().zip(&placed).filter_map(|(j, p)| p.as_ref().map(|p| (j, p))).collect();
    let end = ran.iter().map(|(j, p)| p.start + j.runtime).fold(first, f64::max);
    let makespan = end - first;
    let machine = n * makespan;
    let share = |x: f64| if machine > 0.0 { x / machine } else { 0.0 };
    let waits: Vec<f64> = ran.iter().map(|(j, p)| p.start - j.arrival).collect();
    let stats = StreamStats {
        jobs: jobs.len() as u32,
        refused: (jobs.len() - ran.len()) as u32,
        makespan,
        utilization: share(ran.iter().map(|(j, p)| p.asked as f64 * j.runtime).sum()),
        allocated: share(ran.iter().map(|(j, p)| p.nodes as f64 * j.runtime).sum()),
        wait_mean: if waits.is_empty() { 0.0 } else { waits.iter().sum::<f64>() / waits.len() as f64 },
        wait_max: waits.iter().copied().fold(0.0, f64::max),
        fragmentation: if waiting_node_s > 0.0 { free_waiting_node_s / waiting_node_s } else { 0.0 },
        backfilled,
    };
    (placed, stats)
}

/// The reservation of a job of `shape` that does not fit now: the earliest end of a running
/// job after which it fits, and the nodes it would take then.
fn reserve(occ: &Occupancy, running: &[(f64, usize, Vec<u32>)], shape: &[u32], policy: Policy) -> (f64, Vec<u32>) {
    let mut by_end: Vec<&(f64, usize, Vec<u32>)> = running.iter().collect();
    by_end.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut later = occ.clone();
    for (end, _, ids) in by_end {
        later.set(ids, false);
        if let Some((_, nodes)) = later.find(shape, policy) {
            return (*end, nodes);
        }
    }
    (f64::INFINITY, Vec::new())
}

/// A stream of `count` jobs on a machine of `dims`: Poisson arrivals `mean_gap` seconds apart
/// on average, runtimes exponential with mean `mean_runtime`, and boxes whose node counts are
/// log-uniform between 1 and `max_nodes` (each axis's length drawn in turn up to the machine's),
/// from `seed`.
pub fn generate(dims: &[u32], count: u32, mean_gap: f64, mean_runtime: f64, max_nodes: u32, seed: u64) -> Vec<StreamJob> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut t = 0.0;
    (0..count)
        .map(|_| {
            t += -(1.0 - rng.gen::<f64>()).ln() * mean_gap;
            let target = (rng.gen::<f64>() * (max_nodes.max(1) as f64).ln()).exp();
            let mut shape = vec![1u32; dims.len()];
            let mut volume = 1.0;
            // Grow random axes until the box holds the target count.
            for _ in 0..64 {
                if volume >= target {
                    break;
                }
                let a = rng.gen_range(0..dims.len());
                if shape[a] < dims[a] {
                    volume = volume / shape[a] as f64 * (shape[a] + 1) as f64;
                    shape[a] += 1;
                }
            }
            let runtime = -(1.0 - rng.gen::<f64>()).ln() * mean_runtime;
            StreamJob { arrival: t, shape, runtime }
        })
        .collect()
}

/// Read a job stream: CSV lines `arrival,shape,runtime` (seconds; a shape as `4x4x2`), an
/// optional header line, `#` comments. Errors name the line and the value.
pub fn parse(text: &str, axes: usize) -> Result<Vec<StreamJob>, String> {
    let mut out = Vec::new();
    for (no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() || (out.is_empty() && line.starts_with("arrival")) {
            continue;
        }
        let at = |m: String| format!("line {}: {m}", no + 1);
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        let [a, s, r] = f.as_slice() else { return Err(at(format!("'{line}' is not arrival,shape,runtime"))) };
        let num = |v: &str, what: &str| {
            v.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).ok_or_else(|| at(format!("{what} '{v}' is not a number of seconds")))
        };
        let shape: Vec<u32> = s
            .split('x')
            .map(|l| l.parse::<u32>().ok().filter(|&l| l > 0))
            .collect::<Option<_>>()
            .ok_or_else(|| at(format!("shape '{s}' is not lengths like 4x4x2")))?;
        if shape.len() != axes {
            return Err(at(format!("shape '{s}' has {} axes, the machine {axes}", shape.len())));
        }
        let arrival = num(a, "arrival")?;
        if out.last().is_some_and(|p: &StreamJob| p.arrival > arrival) {
            return Err(at(format!("arrival '{a}' is before the line above's: list jobs in arrival order")));
        }
        out.push(StreamJob { arrival, shape, runtime: num(r, "runtime")? });
    }
    Ok(out)
}

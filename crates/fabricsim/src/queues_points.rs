//! Queue counters of the points of a sweep or a collective comparison (`sweep --queues`,
//! `collective --queues`): each point carries the summary `run --queues` gives for the same
//! scenario ([`QueueSummary`]); a point of several runs (seeds) carries the mean of theirs. The
//! per-port fields come with a collective's `--ports`; a sweep keeps the summaries only.

use crate::queues::QueueSummary;
use crate::{Error, Plan};
use fabricsim_core::ConfigError;

/// Refuse queue counters for a plan that would run on several threads (`sim.threads`), as
/// `run --queues` does: a partitioned run cannot feed the meter yet.
pub fn check_threads(plan: &Plan) -> Result<(), Error> {
    match plan.scenario.sim.threads {
        1 => Ok(()),
        t => {
            Err(ConfigError::new("sim.threads", format!("{t}: queue counters cannot come from a partitioned run yet: run with sim.threads = 1"))
                .into())
        }
    }
}

/// The summary of a point of several runs: the mean of their waits and occupancies, and the
/// longest queue of them all (`None` when no run was metered).
pub fn mean_of<'a>(runs: impl IntoIterator<Item = Option<&'a QueueSummary>>) -> Option<QueueSummary> {
    let runs: Vec<&QueueSummary> = runs.into_iter().flatten().collect();
    let n = runs.len() as f64;
    let mean = |f: fn(&QueueSummary) -> f64| runs.iter().map(|q| f(q)).sum::<f64>() / n;
    if runs.is_empty() {
        return None;
    }
    let longest = runs.iter().filter_map(|q| q.longest.as_ref()).fold(None, |best: Option<&crate::queues::LongestQueue>, l| match best {
        Some(b) if b.mean_packets >= l.mean_packets => Some(b),
        _ => Some(l),
    });
    Some(QueueSummary {
        network_wait_ns: mean(|q| q.network_wait_ns),
        terminal_wait_ns: mean(|q| q.terminal_wait_ns),
        mean_packets_queued: mean(|q| q.mean_packets_queued),
        longest: longest.cloned(),
        credit_stall_vc_fraction: mean(|q| q.credit_stall_vc_fraction),
    })
}

/// The CSV columns the summary adds to a row (after [`CSV_HEADER`]'s names).
pub const CSV_HEADER: &str = ",queue_network_wait_ns,queue_terminal_wait_ns,queue_mean_packets";

/// A row's cells for [`CSV_HEADER`] (empty cells for a point without counters).
pub fn csv_cells(q: Option<&QueueSummary>) -> String {
    match q {
        Some(q) => format!(",{:.4},{:.4},{:.4}", q.network_wait_ns, q.terminal_wait_ns, q.mean_packets_queued),
        None => ",,,".into(),
    }
}

/// The summaries of points as a text table: one row per point, named by `label` (the point's
/// load, size, or algorithm and size), with the port whose queue was longest on average.
pub fn table(label: &str, rows: &[(String, Option<&QueueSummary>)]) -> String {
    let mut s = format!(
        "queues (Little's law)\n{label:>24} {:>12} {:>12} {:>10}  longest queue (mean packets, wait ns)\n",
        "hop wait ns", "eject ns", "queued"
    );
    for (name, q) in rows {
        let Some(q) = q else { continue };
        let longest = q.longest.as_ref().map_or_else(String::new, |l| {
            let at = match &l.coords {
                Some(c) => format!("({})", c.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")),
                None => format!("router {}", l.router),
            };
            format!("{} of {at} ({:.2}, {:.1})", l.label, l.mean_packets, l.wait_ns)
        });
        s += &format!("{name:>24} {:>12.2} {:>12.2} {:>10.2}  {longest}\n", q.network_wait_ns, q.terminal_wait_ns, q.mean_packets_queued);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queues::LongestQueue;

    fn summary(wait: f64, longest: f64) -> QueueSummary {
        let l = LongestQueue { router: longest as u32, port: 0, label: "X+".into(), coords: None, mean_packets: longest, wait_ns: 1.0 };
        QueueSummary {
            network_wait_ns: wait,
            terminal_wait_ns: wait / 2.0,
            mean_packets_queued: 2.0 * wait,
            longest: Some(l),
            credit_stall_vc_fraction: wait / 10.0,
        }
    }

    #[test]
    fn a_point_of_several_runs_takes_their_means_and_the_longest_queue() {
        let (a, b) = (summary(1.0, 0.5), summary(3.0, 2.0));
        let m = mean_of([Some(&a), Some(&b)]).unwrap();
        assert_eq!((m.network_wait_ns, m.terminal_wait_ns, m.mean_packets_queued, m.credit_stall_vc_fraction), (2.0, 1.0, 4.0, 0.2));
        assert_eq!(m.longest.unwrap().router, 2);
        assert_eq!(mean_of([Some(&a)]).unwrap(), a);
        assert!(mean_of([None, None]).is_none());
        assert_eq!(csv_cells(None), ",,,");
        assert_eq!(csv_cells(Some(&a)).split(',').count(), CSV_HEADER.split(',').count());
    }
}

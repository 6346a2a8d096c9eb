//! The points as CSV and as a text table.

use super::CollectivePoint;

/// The points as CSV.
pub fn to_csv(points: &[CollectivePoint]) -> String {
    // Queue columns only when the points were metered (`--queues`).
    let queues = points.iter().any(|p| p.queues.is_some());
    let mut s = format!(
        "op,algorithm,bytes,ranks,time_ns,rank_done_min_ns,rank_done_median_ns,rank_done_max_ns,algbw_gb_per_s,busbw_gb_per_s,messages,message_bytes{}\n",
        if queues { crate::queues_points::CSV_HEADER } else { "" }
    );
    for p in points {
        let bus = p.busbw_gb_per_s.map(|b| format!("{b:.4}")).unwrap_or_default();
        let q = if queues { crate::queues_points::csv_cells(p.queues.as_ref()) } else { String::new() };
        s += &format!(
            "{},{},{},{},{:.1},{:.1},{:.1},{:.1},{:.4},{},{},{}{q}\n",
            p.op,
            p.algorithm,
            p.bytes,
            p.ranks,
            p.time_ns,
            p.rank_done_min_ns,
            p.rank_done_median_ns,
            p.rank_done_max_ns,
            p.algbw_gb_per_s,
            bus,
            p.messages,
            p.message_bytes
        );
    }
    s
}

/// The points as a table: one row per size and algorithm.
pub fn table(points: &[CollectivePoint]) -> String {
    let mut s = format!("{:>10} {:<20} {:>14} {:>12} {:>12}\n", "bytes", "algorithm", "time us", "algbw GB/s", "busbw GB/s");
    for p in points {
        let bus = p.busbw_gb_per_s.map(|b| format!("{b:.3}")).unwrap_or_else(|| "-".into());
        s += &format!("{:>10} {:<20} {:>14.3} {:>12.3} {:>12}\n", p.bytes, p.algorithm, p.time_ns / 1e3, p.algbw_gb_per_s, bus);
    }
    if points.iter().any(|p| p.queues.is_some()) {
        let rows: Vec<_> = points.iter().map(|p| (format!("{} {} B", p.algorithm, p.bytes), p.queues.as_ref())).collect();
        s += &crate::queues_points::table("algorithm, bytes", &rows);
    }
    s
}

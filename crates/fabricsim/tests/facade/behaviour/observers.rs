//! Observers watching a run: the port series against the port counters.

use super::*;

#[test]
fn the_port_series_adds_up_to_the_port_counters_and_changes_nothing() {
    // A closed workload: the report's port counters cover the whole run, as the series does.
    let s = scenario(include_str!("../../../../../examples/all-to-all.toml"));
    let plan = Plan::new(&s).unwrap();
    let plain = plan.run().unwrap();
    let (observed, series) = plan.run_with_series(Time::from_ns(37), |_| {}).unwrap();
    assert_eq!(
        plain.summary().lines().filter(|l| !l.starts_with("engine")).collect::<Vec<_>>(),
        observed.summary().lines().filter(|l| !l.starts_with("engine")).collect::<Vec<_>>()
    );
    let mut checked = 0;
    for p in &plain.ports {
        let rows: Vec<_> = series.rows.iter().filter(|r| r.router == p.router && r.port == p.port).collect();
        assert!(!rows.is_empty());
        let busy_ns: f64 = rows.iter().map(|r| r.utilization * series.interval_ns).sum();
        let packets: u64 = rows.iter().map(|r| r.packets as u64).sum();
        assert!((busy_ns - p.busy_ns).abs() < 1e-6, "router {} port {}: {busy_ns} vs {}", p.router, p.port, p.busy_ns);
        assert_eq!(packets, p.packets);
        assert!(rows.iter().all(|r| r.utilization <= 1.0 + 1e-12 && r.label == p.label && r.kind == p.kind));
        checked += (p.packets > 0) as u32;
    }
    assert!(checked > 50, "{checked} busy ports");
    assert!(series.to_csv().starts_with("t_ns,router,port,kind,label,utilization,packets\n"));
}

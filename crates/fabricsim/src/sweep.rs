//! Latency-load curves. Each point is an independent run at one offered load with the same
//! seed; a point is saturated when measured messages could not drain, or when accepted
//! throughput falls more than 5% below the offered load.

use crate::plan::Plan;
use crate::scenario::Scenario;
use crate::Error;
use fabricsim_core::ConfigError;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct SweepPoint {
    pub offered_load: f64,
    pub accepted_fraction: f64,
    pub latency_mean_ns: f64,
    pub latency_p99_ns: f64,
    pub drained: bool,
    pub saturated: bool,
    pub wall_seconds: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepReport {
    pub points: Vec<SweepPoint>,
    /// Lowest offered load found saturated, if any.
    pub saturation_load: Option<f64>,
    /// Highest accepted throughput seen, as a fraction of injection bandwidth.
    pub saturation_throughput: f64,
}

/// Run `scenario` at each load; `each` is called after every point (for progress bars).
pub fn sweep(scenario: &Scenario, loads: &[f64], mut each: impl FnMut(&SweepPoint)) -> Result<SweepReport, Error> {
    if loads.is_empty() {
        return Err(ConfigError::new("--loads", "is empty").into());
    }
    let mut points = Vec::new();
    for &load in loads {
        let mut s = scenario.clone();
        s.workload.load = load;
        let plan = Plan::new(&s)?;
        if plan.closed {
            return Err(ConfigError::new("workload.type", format!("'{}' has no offered load to sweep", s.workload.kind)).into());
        }
        let r = plan.run()?;
        let acc = r.accepted_throughput.fraction_of_injection;
        let saturated = !r.drained || acc < 0.95 * load;
        let p = SweepPoint {
            offered_load: load,
            accepted_fraction: acc,
            latency_mean_ns: r.latency_ns.mean,
            latency_p99_ns: r.latency_ns.p99,
            drained: r.drained,
            saturated,
            wall_seconds: r.wall_seconds,
        };
        each(&p);
        points.push(p);
    }
    let saturation_load = points.iter().find(|p| p.saturated).map(|p| p.offered_load);
    let saturation_throughput = points.iter().map(|p| p.accepted_fraction).fold(0.0, f64::max);
    Ok(SweepReport { points, saturation_load, saturation_throughput })
}

impl SweepReport {
    pub fn to_csv(&self) -> String {
        let mut s = String::from("offered_load,accepted_fraction,latency_mean_ns,latency_p99_ns,drained,saturated\n");
        for p in &self.points {
            s.push_str(&format!(
                "{},{:.6},{:.3},{:.3},{},{}\n",
                p.offered_load, p.accepted_fraction, p.latency_mean_ns, p.latency_p99_ns, p.drained, p.saturated
            ));
        }
        s
    }
}

//! A run taken a step at a time ([`Plan::start`]): advance it to a simulated time, read the
//! port counters where it stands, then finish it for the same report [`Plan::run`] gives. The
//! Python package's `Simulation` is a thin layer over this.

use crate::report::{port_reports, RunReport};
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use fabricsim_network::{RunState, Simulation};
use fabricsim_stats::PortReport;
use fabricsim_workload::AnyWorkload;

/// A started run of a plan (see [`Plan::start`]).
pub struct Stepper {
    plan: Plan,
    sim: Simulation<AnyWorkload>,
    started: std::time::Instant,
    ended: bool,
}

impl Plan {
    /// Start a run to take step by step. Jobs (`collective`, `program` workloads) are run
    /// whole by [`Plan::run`] only.
    pub fn start(&self) -> Result<Stepper, Error> {
        if self.job.is_some() {
            let ty = self.scenario.workload.type_name();
            return Err(ConfigError::new("workload.type", format!("'{ty}' runs whole (run it), it cannot be stepped")).into());
        }
        let graph = self.build_graph();
        let workload = self.build_workload(Some(&graph))?;
        let mut sim = self.network(graph).build(workload)?;
        sim.start(self.limits)?;
        Ok(Stepper { plan: self.clone(), sim, started: std::time::Instant::now(), ended: false })
    }
}

impl Stepper {
    /// The simulated time the run stands at.
    pub fn now(&self) -> Time {
        self.sim.now()
    }

    /// Whether the run has ended (its workload done, or its time limits reached).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Run every event up to and including simulated time `t`; returns whether the run ended.
    pub fn run_until(&mut self, t: Time) -> Result<bool, Error> {
        if !self.ended {
            self.ended = self.sim.run_until(t)? == RunState::Ended;
        }
        Ok(self.ended)
    }

    /// Run the events of the next instant; returns whether the run ended.
    pub fn step(&mut self) -> Result<bool, Error> {
        if !self.ended {
            self.ended = self.sim.step()? == RunState::Ended;
        }
        Ok(self.ended)
    }

    /// Every port's counters so far in the measurement window (all zero during the warm-up),
    /// as the report's `ports` gives them at the end.
    pub fn ports(&self) -> Vec<PortReport> {
        let window = self.plan.limits.warmup.ps();
        let elapsed = self.now().ps().saturating_sub(window).min(self.plan.limits.measure.ps());
        port_reports(&self.plan.topology, self.sim.graph(), &self.sim.port_counters(), elapsed)
    }

    /// Run to the end and report, as [`Plan::run`] does (the wall-clock time counts from
    /// [`Plan::start`]).
    pub fn finish(mut self, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        if !self.ended {
            self.sim.run_to_end(progress)?;
        }
        let outcome = self.sim.finish()?;
        self.plan.report_of(&self.sim, &outcome, self.started)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Plan, Scenario};
    use fabricsim_core::Time;

    fn plan(sets: &[&str]) -> Plan {
        let mut s = Scenario::default();
        s.apply_overrides(&sets.iter().map(|x| x.to_string()).collect::<Vec<_>>()).unwrap();
        Plan::new(&s).unwrap()
    }

    #[test]
    fn a_stepped_run_reports_as_a_whole_one() {
        let p = plan(&["topology.shape=[4,4]", "sim.duration=2us"]);
        let whole = p.run().unwrap();
        let mut st = p.start().unwrap();
        assert!(st.ports().iter().all(|x| x.bytes == 0), "nothing counted before the window");
        assert!(!st.run_until(Time::from_ns(1000)).unwrap());
        assert!(st.now() <= Time::from_ns(1000) && st.now() > Time::ZERO);
        let mid: u64 = st.ports().iter().map(|x| x.bytes).sum();
        assert!(mid > 0 && mid < whole.ports.iter().map(|x| x.bytes).sum::<u64>());
        st.step().unwrap();
        let stepped = st.finish(|_| {}).unwrap();
        let strip = |r: &crate::RunReport| {
            let mut v = serde_json::to_value(r).unwrap();
            for k in ["wall_seconds", "events_per_second", "packet_hops_per_second"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        };
        assert_eq!(strip(&stepped), strip(&whole));
    }

    #[test]
    fn jobs_are_not_stepped() {
        let p = plan(&["topology.shape=[4,4]", "workload.type=collective", "workload.op=barrier"]);
        let e = p.start().err().unwrap().to_string();
        assert!(e.starts_with("workload.type: 'collective'"), "{e}");
    }
}

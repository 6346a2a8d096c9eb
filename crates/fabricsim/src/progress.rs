//! What a long run says about its progress: the simulated time reached, the share of the run
//! done and an estimate of the time left, taken from the rate of the run so far (the first
//! seconds set it, later ones refine it). A terminal shows it on a live line; elsewhere (a log,
//! a pipe) a run that lasts says it now and then on a line of its own, and a short run says
//! nothing.

use fabricsim_core::Time;

/// Wall-clock seconds before a run not on a terminal first reports, and between reports.
pub const QUIET_FOR_S: f64 = 10.0;
pub const REPORT_EVERY_S: f64 = 30.0;
/// Wall-clock seconds of running before an estimate of the time left is given.
pub const ESTIMATE_AFTER_S: f64 = 2.0;

/// Progress of one run: fed the simulated time now and then with the wall-clock seconds since
/// it started.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Simulated time the run ends at, when known (an open-loop run: warm-up plus window; a
    /// drain may follow), else `None` (a job or benchmark runs until its work is done).
    horizon: Option<Time>,
    /// Wall-clock seconds of the last line printed (not on a terminal).
    last_line_s: Option<f64>,
}

impl Progress {
    pub fn new(horizon: Option<Time>) -> Progress {
        Progress { horizon: horizon.filter(|h| h.ps() > 0), last_line_s: None }
    }

    /// The share of the run done at simulated time `t` (0 to 1), when the end is known.
    pub fn fraction(&self, t: Time) -> Option<f64> {
        self.horizon.map(|h| (t.ps() as f64 / h.ps() as f64).clamp(0.0, 1.0))
    }

    /// Wall-clock seconds left at `t` after `elapsed_s` seconds, at the rate so far; `None`
    /// before [`ESTIMATE_AFTER_S`] or when the end is not known.
    pub fn seconds_left(&self, t: Time, elapsed_s: f64) -> Option<f64> {
        let f = self.fraction(t)?;
        (elapsed_s >= ESTIMATE_AFTER_S && f > 0.0).then(|| elapsed_s * (1.0 - f) / f)
    }

    /// The state at `t` after `elapsed_s` seconds, in words: `simulated 12.0 us of 25.0 us
    /// (48%) in 31 s, about 34 s left`.
    pub fn describe(&self, t: Time, elapsed_s: f64) -> String {
        let us = |t: Time| t.as_ns_f64() / 1e3;
        let mut s = match (self.horizon, self.fraction(t)) {
            (Some(h), Some(f)) => format!("simulated {:.1} us of {:.1} us ({:.0}%)", us(t), us(h), 100.0 * f),
            _ => format!("simulated {:.1} us", us(t)),
        };
        s += &format!(" in {}", duration(elapsed_s));
        if let Some(left) = self.seconds_left(t, elapsed_s) {
            s += &format!(", about {} left", duration(left));
        }
        s
    }

    /// The line to print at `t` after `elapsed_s` seconds when not on a terminal: none for
    /// the first [`QUIET_FOR_S`] seconds, then one every [`REPORT_EVERY_S`] seconds.
    pub fn line(&mut self, t: Time, elapsed_s: f64) -> Option<String> {
        let due = match self.last_line_s {
            None => elapsed_s >= QUIET_FOR_S,
            Some(last) => elapsed_s - last >= REPORT_EVERY_S,
        };
        if !due {
            return None;
        }
        self.last_line_s = Some(elapsed_s);
        Some(self.describe(t, elapsed_s))
    }
}

/// Seconds as `42 s`, `12 min 5 s` or `3 h 20 min`.
pub fn duration(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_follows_the_rate_so_far() {
        let p = Progress::new(Some(Time::from_us(1000)));
        // 10 us of 1000 in 5 s: 99% left at that rate, 495 s.
        assert_eq!(p.seconds_left(Time::from_us(10), 5.0).map(|s| s.round()), Some(495.0));
        assert_eq!(p.seconds_left(Time::from_us(10), 1.0), None, "too early to say");
        assert!(p.describe(Time::from_us(10), 5.0).ends_with("(1%) in 5 s, about 8 min 15 s left"), "{}", p.describe(Time::from_us(10), 5.0));
        // A run of unknown end says how far it got.
        let closed = Progress::new(None);
        assert_eq!(closed.describe(Time::from_us(3), 12.0), "simulated 3.0 us in 12 s");
    }

    #[test]
    fn lines_come_after_a_quiet_start_and_then_now_and_then() {
        let mut p = Progress::new(Some(Time::from_us(100)));
        let at = |p: &mut Progress, s: f64| p.line(Time::from_us(s as u64), s).is_some();
        assert!(!at(&mut p, 1.0) && !at(&mut p, 9.0));
        assert!(at(&mut p, 10.0));
        assert!(!at(&mut p, 20.0) && !at(&mut p, 39.0));
        assert!(at(&mut p, 40.0) && !at(&mut p, 41.0));
        assert_eq!(duration(7300.0), "2 h 1 min");
    }
}

//! What the command shows on standard error while it works: a bar for a known number of runs,
//! and the progress of one run (see `fabricsim::progress`).

use std::io::IsTerminal;

/// A bar over `len` runs (none when standard error is not a terminal).
pub(crate) fn progress_bar(len: u64, what: &str) -> Option<indicatif::ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = indicatif::ProgressBar::new(len);
    pb.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {msg} [{bar:30}] {pos}/{len} {elapsed}, about {eta} left")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb.set_message(what.to_string());
    Some(pb)
}

/// Progress of one run on standard error (see `fabricsim::progress`): a live line on a
/// terminal; elsewhere a line now and then once the run has lasted a while.
pub(crate) struct Watch {
    started: std::time::Instant,
    progress: fabricsim::progress::Progress,
    line: Option<indicatif::ProgressBar>,
}

impl Watch {
    /// A run ending at simulated time `horizon`, if known.
    pub(crate) fn new(horizon: Option<fabricsim::Time>) -> Watch {
        let line = std::io::stderr().is_terminal().then(|| {
            let pb = indicatif::ProgressBar::new_spinner();
            pb.set_style(indicatif::ProgressStyle::with_template("{spinner} {msg}").unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()));
            pb
        });
        Watch { started: std::time::Instant::now(), progress: fabricsim::progress::Progress::new(horizon), line }
    }

    /// Lines now and then on standard error only, never a live line (beside a bar of its own).
    pub(crate) fn lines_only(horizon: Option<fabricsim::Time>) -> Watch {
        Watch { started: std::time::Instant::now(), progress: fabricsim::progress::Progress::new(horizon), line: None }
    }

    /// [`Watch::tick`] with `what` before the line (`point 2 of 8: `).
    pub(crate) fn tick_at(&mut self, what: &str, t: fabricsim::Time) {
        let elapsed = self.started.elapsed().as_secs_f64();
        if self.line.is_none() {
            if let Some(l) = self.progress.line(t, elapsed) {
                eprintln!("fabricsim: {what}{l}");
            }
        }
    }

    pub(crate) fn tick(&mut self, t: fabricsim::Time) {
        let elapsed = self.started.elapsed().as_secs_f64();
        match &self.line {
            Some(pb) => pb.set_message(self.progress.describe(t, elapsed)),
            None => {
                if let Some(l) = self.progress.line(t, elapsed) {
                    eprintln!("fabricsim: {l}");
                }
            }
        }
    }

    pub(crate) fn finish(self) {
        if let Some(pb) = self.line {
            pb.finish_and_clear();
        }
    }
}

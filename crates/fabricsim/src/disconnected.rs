//! A closed workload that did not finish because failed links cut some of its pairs off: the
//! error that says so (rather than a deadlock or a time limit).

use crate::Error;
use fabricsim_core::SimError;
use fabricsim_network::faults::FaultCounts;

/// The error for a closed workload that did not finish, when the run's faults (`counts`) cut
/// pairs off; `None` when none was.
pub(crate) fn cut_off(counts: Option<FaultCounts>) -> Option<Error> {
    let c = counts.filter(|c| c.pairs_cut > 0)?;
    Some(Error::Sim(SimError::Disconnected(format!(
        "the failed links left the routing no way for {} source-destination pair(s){}, so {} message(s) never arrived and the workload cannot finish",
        c.pairs_cut,
        c.cut_list(8),
        c.messages_cut
    ))))
}

//! Credit-stall time per output port and VC: how long an output had a packet for a VC that could
//! not go because the VC's buffer downstream was full (its credit depleted), the counter
//! hardware keeps per VC beside the per-port one.
//!
//! **Definition.** Output `port` waits for credit on VC `vc` from an arbitration that grants
//! nothing because every request lacks credit, one of them a packet for `vc`
//! ([`Observer::on_credit_wait`]), until credit on `vc` next reaches the output
//! ([`Observer::on_credit_back`]). A VC blocked while the output sends other VCs' packets is not
//! counted: this splits the port's stall by VC. The credit triggers an arbitration at the
//! same instant: if the packet still lacks credit (the return was too small), a new wait starts
//! there, so the time is counted without a gap; if it goes, or the output sends another VC's
//! packet meanwhile, the wait is over. Several packets waiting for one VC's credit at one output
//! count the wall time once, not once per packet: the counter is the length of the union of
//! their waits. Adaptive requests that find no credit are withdrawn and choose again; they do
//! not wait here.
//!
//! **Against the per-port counter.** A port's `credit_stall_ns` runs from an arbitration in
//! which every request lacked credit to the port's next grant, whatever its VC. On a port with a
//! single VC, packets of one size and deterministic routing, the two are equal: each wait ends
//! with a credit return whose arbitration, in the same instant, either grants (ending both) or
//! waits again. With several VCs every instant of a port's stall lies in some VC's wait, so the
//! port's stall is at most the sum of its VCs'; a VC's wait may outlast the port's stall, when
//! the port sends another VC's packet meanwhile.
//!
//! **Exact whatever the order of same-instant events.** A wait starts in an arbitration, which
//! comes after every event of its instant (credit returns included), and ends at a credit
//! return; starting twice, or ending a wait not open, changes nothing. Both hooks are called only
//! where an output waits for credit, so a run without this meter pays nothing, and one with it
//! nothing per hop.

use fabricsim_core::{PortId, Time};

/// `since` of a VC that does not wait.
const NOT_WAITING: u64 = u64::MAX;

/// Per (output port, VC): credit-stall time inside a window (see the module docs).
#[derive(Debug, Clone)]
pub struct CreditWaits {
    vcs: usize,
    from_ps: u64,
    to_ps: u64,
    /// Per `port * vcs + vc`: since when it waits ([`NOT_WAITING`]), and the picoseconds
    /// counted so far inside the window.
    cells: Vec<[u64; 2]>,
}

impl CreditWaits {
    /// Meters of `ports` output ports with `vcs` VCs each, counting inside `[from, to)`.
    pub fn new(ports: usize, vcs: usize, from: Time, to: Time) -> Self {
        let vcs = vcs.max(1);
        CreditWaits { vcs, from_ps: from.ps(), to_ps: to.ps().max(from.ps()), cells: vec![[NOT_WAITING, 0]; ports * vcs] }
    }

    /// The cell of `port`'s VC `vc`, if metered (a NIC engine's pseudo-port is not).
    fn cell(&mut self, port: PortId, vc: u8) -> Option<&mut [u64; 2]> {
        debug_assert!((vc as usize) < self.vcs, "VC {vc} of {}", self.vcs);
        self.cells.get_mut(port.index() * self.vcs + vc as usize)
    }

    /// A wait from `since` to `until`, clipped to the window.
    fn inside(&self, since: u64, until: u64) -> u64 {
        until.min(self.to_ps).saturating_sub(since.max(self.from_ps))
    }

    /// `port`'s VC `vc` waits for credit from `at` (unless it already does).
    pub fn start(&mut self, port: PortId, vc: u8, at: Time) {
        if let Some(c) = self.cell(port, vc) {
            if c[0] == NOT_WAITING {
                c[0] = at.ps();
            }
        }
    }

    /// Credit reached `port` on VC `vc` at `at`: a wait it was in ends.
    pub fn end(&mut self, port: PortId, vc: u8, at: Time) {
        let Some(&mut [since, _]) = self.cell(port, vc) else { return };
        if since != NOT_WAITING {
            let add = self.inside(since, at.ps());
            let c = self.cell(port, vc).unwrap();
            (c[0], c[1]) = (NOT_WAITING, c[1] + add);
        }
    }

    /// End the waits still open at `at` (the end of a run that stopped before they did).
    pub fn close(&mut self, at: Time) {
        for i in 0..self.cells.len() {
            let since = self.cells[i][0];
            if since != NOT_WAITING {
                let add = self.inside(since, at.ps().max(since));
                self.cells[i] = [NOT_WAITING, self.cells[i][1] + add];
            }
        }
    }

    /// The credit-stall picoseconds of each VC of `port` (waits that have ended).
    pub fn port(&self, port: usize) -> Vec<u64> {
        self.cells[port * self.vcs..(port + 1) * self.vcs].iter().map(|c| c[1]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_count_once_per_vc_clipped_to_the_window() {
        let mut w = CreditWaits::new(2, 2, Time(100), Time(1000));
        // Two packets of VC 0 find no credit at 150 and 200: one wait, 150 to the return at 400.
        w.start(PortId(1), 0, Time(150));
        w.start(PortId(1), 0, Time(200));
        w.end(PortId(1), 0, Time(400));
        // A return too small: the arbitration at 400 waits again, until 450.
        w.start(PortId(1), 0, Time(400));
        w.end(PortId(1), 0, Time(450));
        // A return with nothing waiting (another sender waited) changes nothing.
        w.end(PortId(1), 1, Time(500));
        // Before the window: counted from its start.
        w.start(PortId(0), 1, Time(40));
        w.end(PortId(0), 1, Time(160));
        assert_eq!((w.port(1), w.port(0)), (vec![300, 0], vec![0, 60]));
        // Open at the end of the run: counted up to the window's end.
        w.start(PortId(0), 0, Time(900));
        assert_eq!(w.port(0), vec![0, 60], "an open wait is not counted before it ends");
        w.close(Time(5000));
        assert_eq!(w.port(0), vec![100, 60]);
        // Ports beyond the meter (an engine's pseudo-port) are ignored.
        w.start(PortId(7), 0, Time(100));
        w.end(PortId(7), 0, Time(200));
    }
}

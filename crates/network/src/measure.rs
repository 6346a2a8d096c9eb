//! Measurement and guards: port-counter snapshots at the window's edges (with credit stalls
//! split there), the deadlock watchdog and its report of stuck buffers.

use crate::channel;
use crate::packet::{PacketId, NIL};
use crate::records;
use crate::sim::Core;
use fabricsim_core::{PortId, SimError};
use fabricsim_stats::Observer;
use fabricsim_stats::PortCounters;

impl<O: Observer> Core<O> {
    /// A deadlock: packets are buffered but nothing has moved for longer than `watchdog`.
    pub(crate) fn check_watchdog(&self, now: u64, watchdog: u64) -> Result<(), SimError> {
        if self.in_network > 0 && now.saturating_sub(self.last_progress) > watchdog {
            return Err(SimError::Deadlock { buffered: self.in_network, idle_ns: (now - self.last_progress) / 1000, ports: self.stuck_ports() });
        }
        Ok(())
    }

    pub(crate) fn counters_now(&self) -> Vec<PortCounters> {
        let tp = self.total_ports() as usize;
        self.outs[..tp].iter().zip(&self.stall).map(|(o, s)| records::counters(o, s)).collect()
    }

    /// Take the window-start and window-end snapshots of the port counters that are due at
    /// `now` (all of them once the run is over). Open credit stalls are split at the window's
    /// boundary first, so stall time falls in the phase where it happened.
    pub(crate) fn snapshot_counters(&mut self, now: u64, run_over: bool) {
        if self.counters_at_start.is_empty() && (run_over || now >= self.window_start) {
            self.split_stalls(self.window_start.min(now));
            self.counters_at_start = self.counters_now();
        }
        if self.counters_at_end.is_empty() && (run_over || now >= self.window_end) {
            self.split_stalls(self.window_end.min(now));
            self.counters_at_end = self.counters_now();
        }
    }

    /// Count open credit stalls up to `at` and restart them there.
    pub(crate) fn split_stalls(&mut self, at: u64) {
        for (o, s) in self.outs.iter().zip(&mut self.stall) {
            if o.stalled && s.since < at {
                s.total_ps += at - s.since;
                s.since = at;
            }
        }
    }

    /// The next time the run loop must look at the phase: the window's start or end while a
    /// snapshot is pending, then just past the hard end.
    pub(crate) fn next_phase(&self, hard_end: u64) -> u64 {
        let after_end = hard_end.saturating_add(1);
        if self.counters_at_start.is_empty() {
            self.window_start.min(after_end)
        } else if self.counters_at_end.is_empty() {
            self.window_end.min(after_end)
        } else {
            after_end
        }
    }

    /// Describe up to 8 stuck input VCs for the deadlock report.
    pub(crate) fn stuck_ports(&self) -> String {
        let mut v = Vec::new();
        for q in 0..self.vcq.len() {
            let h = self.vcq[q].head;
            if h == PacketId::NIL {
                continue;
            }
            let port = q as u32 / self.vcs;
            let router = self.graph.owner[port as usize];
            let pk = self.packets.get(h);
            let now = crate::records::credit_seen(&self.queue);
            let want = if pk.out == NIL {
                String::new()
            } else {
                let vc = pk.out_vc;
                let o = &self.outs[pk.out as usize];
                let credits = if o.class == channel::TERMINAL {
                    "unlimited".to_string()
                } else {
                    self.vcq[(o.peer * self.vcs + vc as u32) as usize].credit.free_at(now).to_string()
                };
                format!(" -> out port {} vc {} (credits {credits})", self.graph.local(PortId(pk.out)), vc)
            };
            v.push(format!("router {router} port {} vc {}{want}", self.graph.local(PortId(port)), q as u32 % self.vcs));
            if v.len() == 8 {
                v.push("...".into());
                break;
            }
        }
        v.join("; ")
    }
}

//! Measurement and guards: port-counter snapshots at the window's edges (with credit stalls
//! split there), the deadlock watchdog and its report of stuck buffers.

use crate::fabric::channel;
use crate::packet::{PacketId, NIL};
use crate::sim::Core;
use fabricsim_core::{PortId, SimError};
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// A deadlock: packets are buffered but nothing has moved for longer than `watchdog`.
    pub(crate) fn check_watchdog(&self, now: u64, watchdog: u64) -> Result<(), SimError> {
        if self.meter.in_network > 0 && now.saturating_sub(self.meter.last_progress) > watchdog {
            return Err(SimError::Deadlock {
                buffered: self.meter.in_network,
                idle_ns: (now - self.meter.last_progress) / 1000,
                ports: self.stuck_ports(),
            });
        }
        Ok(())
    }

    /// Take the window-start and window-end snapshots of the port counters that are due at
    /// `now` (all of them once the run is over). Open credit stalls are split at the window's
    /// boundary first, so stall time falls in the phase where it happened.
    pub(crate) fn snapshot_counters(&mut self, now: u64, run_over: bool) {
        if self.meter.counters_at_start.is_empty() && (run_over || now >= self.meter.window_start) {
            self.fabric.split_stalls(self.meter.window_start.min(now));
            self.meter.counters_at_start = self.fabric.counters_now(self.total_ports());
        }
        if self.meter.counters_at_end.is_empty() && (run_over || now >= self.meter.window_end) {
            self.fabric.split_stalls(self.meter.window_end.min(now));
            self.meter.counters_at_end = self.fabric.counters_now(self.total_ports());
        }
    }

    /// Describe up to 8 stuck input VCs for the deadlock report.
    pub(crate) fn stuck_ports(&self) -> String {
        let mut v = Vec::new();
        for q in 0..self.fabric.vcq.len() {
            let h = self.fabric.vcq[q].head;
            if h == PacketId::NIL {
                continue;
            }
            let port = q as u32 / self.fabric.vcs;
            let router = self.graph.owner[port as usize];
            let pk = self.packets.get(h);
            let now = crate::fabric::records::credit_seen(&self.queue);
            let want = if pk.out == NIL {
                String::new()
            } else {
                let vc = pk.out_vc;
                let o = &self.fabric.outs[pk.out as usize];
                let credits = if o.class == channel::TERMINAL {
                    "unlimited".to_string()
                } else {
                    self.fabric.vcq[(o.peer * self.fabric.vcs + vc as u32) as usize].credit.free_at(now).to_string()
                };
                format!(" -> out port {} vc {} (credits {credits})", self.graph.local(PortId(pk.out)), vc)
            };
            v.push(format!("router {router} port {} vc {}{want}", self.graph.local(PortId(port)), q as u32 % self.fabric.vcs));
            if v.len() == 8 {
                v.push("...".into());
                break;
            }
        }
        v.join("; ")
    }
}

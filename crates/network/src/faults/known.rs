//! What the routers know of their links: a link direction is known to be down
//! `faults.awareness` after it goes down, and known to be up again as long after it comes back
//! (the status packets' news; APEnet+'s fault awareness). The knowledge is a function of time
//! alone, cached per interval in which it does not change, so every event of an instant reads
//! the same answer whatever their order.
//!
//! Routing reads it (see `fabricsim_routing::detour`); when it changes, the requests that wait
//! for a link now known to be down are withdrawn and their packets route again
//! (`Core::faults_known`).

use super::schedule::{next_change, state_at, Change};
use super::Faults;

/// The routers' knowledge of dead links over `[from, until)`.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// One bit per global port: its link direction is known to be down.
    bits: Vec<u64>,
    from: u64,
    until: u64,
    /// Some bit is set.
    some: bool,
    /// The ports whose links have scheduled events (the only ones that can be down).
    ports: Vec<u32>,
    /// When the knowledge changes: every link event that takes a link down or up, plus the
    /// awareness delay; sorted, each once.
    changes: Vec<u64>,
}

impl Known {
    /// The knowledge for `faults`'s schedule, not yet computed for any time.
    pub(crate) fn new(total_ports: u32, faults: &Faults) -> Known {
        let mut ports: Vec<u32> = faults.schedule.per_port.keys().copied().collect();
        ports.sort_unstable();
        let aware = faults.spec.awareness.ps();
        let mut changes: Vec<u64> = ports
            .iter()
            .flat_map(|p| faults.events(*p).iter().filter(|e| matches!(e.what, Change::Down | Change::Up)).map(|e| e.at + aware))
            .collect();
        changes.sort_unstable();
        changes.dedup();
        Known { bits: vec![0; (total_ports as usize).div_ceil(64)], from: u64::MAX, until: 0, some: false, ports, changes }
    }

    /// Whether some link ever goes down (the routing must then look at the knowledge).
    pub(crate) fn can_change(&self) -> bool {
        !self.changes.is_empty()
    }

    /// The first time after `t` the knowledge changes (`None`: the first time at all).
    pub(crate) fn next_after(&self, t: Option<u64>) -> Option<u64> {
        self.changes.iter().copied().find(|&c| t.is_none_or(|t| c > t))
    }

    /// Whether some link direction is known to be down (as of the last refresh).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.some
    }

    /// Whether link direction `port` is known to be down (as of the last refresh).
    #[inline]
    pub(crate) fn down(&self, port: u32) -> bool {
        self.bits[port as usize / 64] >> (port % 64) & 1 != 0
    }

    /// The ports known to be down (as of the last refresh).
    pub(crate) fn down_ports(&self) -> impl Iterator<Item = u32> + '_ {
        self.ports.iter().copied().filter(|&p| self.down(p))
    }
}

impl Faults {
    /// Bring the knowledge up to `now` (nothing to do within the interval it was computed for).
    #[inline]
    pub(crate) fn refresh_known(&mut self, now: u64) {
        let k = &self.known;
        if now >= k.from && now < k.until {
            return;
        }
        let aware = self.spec.awareness.ps();
        let mut known = std::mem::take(&mut self.known);
        known.bits.iter_mut().for_each(|w| *w = 0);
        let mut until = u64::MAX;
        for &p in &known.ports {
            let events = self.events(p);
            match now.checked_sub(aware) {
                Some(t) => {
                    if state_at(events, t).1 {
                        known.bits[p as usize / 64] |= 1 << (p % 64);
                    }
                    until = until.min(next_change(events, t).saturating_add(aware));
                }
                None => until = until.min(events.first().map_or(u64::MAX, |e| e.at.saturating_add(aware))),
            }
        }
        known.some = known.bits.iter().any(|&w| w != 0);
        (known.from, known.until) = (now, until);
        self.known = known;
    }

    /// The routers' knowledge (call [`refresh_known`](Self::refresh_known) first).
    #[inline]
    pub(crate) fn known(&self) -> &Known {
        &self.known
    }

    /// If link direction `port` is down at `now` with no event bringing it back: when its
    /// routers learn of it.
    pub(crate) fn down_for_good(&self, port: u32, now: u64) -> Option<u64> {
        let events = self.events(port);
        let (_, down, up) = state_at(events, now);
        if !down || up.is_some() {
            return None;
        }
        // The start of the current down interval: the first Down after the last Up.
        let past = events.iter().take_while(|e| e.at <= now);
        let last_up = past.clone().filter(|e| e.what == Change::Up).map(|e| e.at).last();
        let since = past.filter(|e| e.what == Change::Down && last_up.is_none_or(|u| e.at > u)).map(|e| e.at).next().unwrap_or(now);
        Some(since + self.spec.awareness.ps())
    }
}

//! The event loop: a run starts ([`Simulation::start`]), advances by instants
//! ([`Simulation::step`], [`Simulation::run_until`]) or to its end, and is closed by
//! [`Simulation::finish`], which checks conservation and returns the [`Outcome`].
//! [`Simulation::run`] does all three. Pausing between instants changes nothing: a paused run
//! resumes exactly where it would have gone on (tested).

use crate::fabric::records::InputVcId;
use crate::meter::outcome::{Outcome, RunLimits};
use crate::sim::{Ev, Simulation};
use crate::workload::{Api, Rank, Workload};
use fabricsim_core::{SimError, Time};
use fabricsim_stats::Observer;

/// Events between checks of rare conditions (errors, the deadlock watchdog).
const RARE_CHECK_EVERY: u64 = 4096;
/// Events between progress reports (a multiple of `RARE_CHECK_EVERY`).
const PROGRESS_EVERY: u64 = 1 << 20;

/// Where a started run stands between calls.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Running {
    /// The latest the run may go on (warm-up + window + drain), ps.
    hard_end: u64,
    /// The next phase boundary: the window's start and end (port counters are snapshotted
    /// there), then the hard end.
    phase_end: u64,
    watchdog: u64,
    /// Events handled so far in this run's loop.
    events: u64,
    /// Whether a stopping rule (or an error) ended the run.
    ended: bool,
    /// The stopping rules are judged when the run crosses a multiple of this period, ps (the
    /// network's lookahead, see [`Simulation::lookahead`]; 0: after every instant), so that a
    /// partitioned run, whose blocks meet at those times, stops where a sequential one does.
    sync: u64,
    /// The next such multiple.
    next_sync: u64,
    /// The last instant handled (the hard end, once the run reached it).
    last: u64,
    /// Events taken from the queue but not handled: the run ended before them (0 or 1).
    discarded: u64,
}

/// The first moment after `now` at which the stopping rules are judged: the next multiple of
/// `sync`, or the next instant when `sync` is 0.
#[inline]
pub(crate) fn next_sync_after(now: u64, sync: u64) -> u64 {
    match now.checked_div(sync) {
        Some(k) => (k + 1) * sync,
        None => now + 1,
    }
}

/// Whether a run goes on after a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunState {
    /// Events remain and no stopping rule has ended the run.
    Running,
    /// The run is over: call [`Simulation::finish`] for its outcome.
    Ended,
}

impl<W: Workload, O: Observer> Simulation<W, O> {
    /// Handle one event. Always inlined: it is the body of both event loops (`advance`, and a
    /// partitioned run's `advance_block`); called out of line, the sequential loop lost 1%.
    #[inline(always)]
    fn dispatch(&mut self, now: u64, ev: Ev) {
        let c = &mut self.core;
        match ev {
            Ev::Ready(pkt) => {
                c.warm_ready();
                c.on_ready(pkt)
            }
            Ev::OutFree { out, bit } => {
                if c.fabric.warm_releases {
                    c.warm_out_free();
                }
                if c.fabric.flits_on {
                    return c.out_free_special(out, bit);
                }
                let q = InputVcId(c.first_vc_of(out) + bit as u32);
                let bytes = c.fabric.vcq[q.index()].bytes;
                c.on_out_free(out, q, bytes);
            }
            Ev::Credit(i) => {
                let r = *c.fabric.credit_returns.get(i);
                c.fabric.credit_returns.remove(i);
                c.on_credit(r.q, r.bytes);
            }
            Ev::EngineFree(ps) => {
                let node = c.nics.engines_div.div(ps - c.total_ports());
                c.post_injection(node);
            }
            Ev::Deliver(pkt) => {
                if c.fabric.flits_on && c.flit_late(pkt, ev) {
                    return;
                }
                if let Some(d) = c.deliver(pkt) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::EjectDone(pkt) => {
                if c.fabric.warm_releases {
                    c.warm_out_free();
                }
                if c.fabric.flits_on && c.flit_late(pkt, ev) {
                    return;
                }
                let p = c.packets.get(pkt);
                let (port, q, bytes) = (p.out, p.q, p.wire_bytes);
                c.on_out_free(port, q, bytes);
                if c.fabric.flits_on {
                    c.flit_released(port);
                }
                if let Some(d) = c.deliver(pkt) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::Wake(node) => {
                c.warm_wake();
                self.workload.wake(Rank(node), &mut Api::new(c));
            }
            Ev::MsgReady(src) => c.message_ready(src),
            Ev::AnswerReady(node) => c.answer_ready(node),
            Ev::Sent(i) | Ev::Polled(i) => {
                let d = *c.nics.notes.get(i);
                c.nics.notes.remove(i);
                c.hand_over(d, matches!(ev, Ev::Sent(_)), true);
            }
            Ev::MsgDone(m) => {
                if let Some(d) = c.complete(m, true) {
                    c.hand_over(d, false, false);
                }
            }
            Ev::Unit { unit, e } => c.unit_event(unit, e),
            Ev::AgentHead(pkt) => c.unit_head(pkt),
            Ev::AgentFree(out) => c.agent_free(out),
            Ev::CopyDone(pkt) => c.copy_done(pkt),
            Ev::FaultsKnown => c.faults_known(),
            Ev::FlitSlot(out) => c.flit_due(out),
            Ev::NicWake(node) => {
                // A wake-up replaced by an earlier one is stale: that one already ran.
                if c.nics.node[node as usize].wake == now {
                    c.nics.node[node as usize].wake = 0;
                    c.post_injection(node);
                }
            }
        }
    }

    /// The end of an instant: its completions reach the workload, in an order that depends on
    /// them only (a workload's reactions, e.g. new posts, then take part in the phase), unless
    /// the receiving core still has to poll them; then the network's phase (see `phase.rs`).
    #[inline(never)]
    fn end_instant(&mut self) {
        if !self.core.phase.handover.is_empty() {
            self.core.queue.end_of_instant();
            let mut list = std::mem::take(&mut self.core.phase.handover);
            list.sort_unstable_by_key(|h| h.key());
            let poll = self.core.p.poll_overhead.ps() > 0;
            for h in &list {
                let c = &mut self.core;
                if poll && !h.polled {
                    c.poll_later(h.d);
                } else if h.sent {
                    self.workload.sent(&h.d, &mut Api::new(c));
                } else if c.nics.listen {
                    self.workload.delivered(&h.d, &mut Api::new(c));
                }
            }
            // Completions the reactions produced at once (none today) wait for the next phase.
            let more = std::mem::take(&mut self.core.phase.handover);
            list.clear();
            list.extend(more);
            self.core.phase.handover = list;
        }
        // Members whose in-network collective ended, by rank then tag, before the network's
        // phase: what they start next is served in it. Gates fire in the phase, and may end
        // collectives there: hand those over and run the phase again until none is left.
        if !self.core.hardware.any() {
            self.core.end_instant();
        } else {
            self.hardware_end_instant();
        }
        if !self.core.phase.handover.is_empty() {
            self.core.phase.due = true;
        }
    }

    /// [`end_instant`](Self::end_instant)'s phase with collective hardware: ended collectives
    /// first, then the phase, again while the phase ends more.
    #[inline(never)]
    fn hardware_end_instant(&mut self) {
        loop {
            let mut done = self.core.take_done();
            if !done.is_empty() {
                done.sort_unstable();
                for &(rank, tag) in &done {
                    self.workload.collective_done(Rank(rank), tag, &mut Api::new(&mut self.core));
                }
            }
            self.core.end_instant();
            if !self.core.hardware_ends_more() {
                break;
            }
        }
    }

    /// Start a run with measurement window and stopping rules `limits`: the workload starts and
    /// the instant 0 phase runs. Then [`step`](Self::step), [`run_until`](Self::run_until) and
    /// [`finish`](Self::finish).
    pub fn start(&mut self, limits: RunLimits) -> Result<(), SimError> {
        if self.running.is_some() {
            return Err(SimError::Usage("this simulation has already been started; build a new one for another run"));
        }
        limits.check("sim.duration")?;
        let c = &mut self.core;
        c.meter.window_start = limits.warmup.ps();
        c.meter.window_end = limits.warmup.ps().saturating_add(limits.measure.ps());
        let hard_end = limits.hard_end().ps();
        self.core.nics.notify_sent = self.workload.wants_local_completion();
        self.core.nics.listen = self.workload.hears_completions();
        if self.core.fabric.detours {
            self.core.schedule_faults_known(None);
        }
        self.workload.start(&mut Api::new(&mut self.core));
        if self.core.phase.due && !self.core.queue.instant_pending() {
            self.end_instant();
        }
        let (watchdog, phase_end) = (self.core.p.watchdog.ps(), self.core.meter.next_phase(hard_end));
        let sync = self.lookahead().map_or(0, |t| t.ps());
        let now = self.core.queue.now().ps();
        let next_sync = next_sync_after(now, sync);
        self.running = Some(Running { hard_end, phase_end, watchdog, events: 0, ended: false, sync, next_sync, last: now, discarded: 0 });
        Ok(())
    }

    /// Handle every event of the next instant (and its phase).
    pub fn step(&mut self) -> Result<RunState, SimError> {
        match self.core.queue.peek_time() {
            Some(t) => self.run_until(t),
            None => self.advance::<false>(0, &mut |_| {}),
        }
    }

    /// Handle every event up to and including time `t` (and their instants' phases); the run
    /// then stands between instants, with nothing of time `t` left to do.
    pub fn run_until(&mut self, t: Time) -> Result<RunState, SimError> {
        self.advance::<true>(t.ps(), &mut |_| {})
    }

    /// Run a started run to its end. `progress` is called now and then with the current
    /// simulated time.
    pub fn run_to_end(&mut self, mut progress: impl FnMut(Time)) -> Result<RunState, SimError> {
        self.advance::<false>(0, &mut progress)
    }

    /// The current simulated time.
    pub fn now(&self) -> Time {
        self.core.queue.now()
    }

    /// Run to completion: [`start`](Self::start), [`run_to_end`](Self::run_to_end),
    /// [`finish`](Self::finish). `progress` is called now and then with the current simulated
    /// time.
    pub fn run(&mut self, limits: RunLimits, progress: impl FnMut(Time)) -> Result<Outcome, SimError> {
        self.start(limits)?;
        self.run_to_end(progress)?;
        self.finish()
    }

    /// The loop: events in order, each instant's phase once its last event is handled, the
    /// stopping rules, rare checks. `LIMITED`: stop before the first event later than `limit`.
    #[inline(always)]
    fn advance<const LIMITED: bool>(&mut self, limit: u64, progress: &mut dyn FnMut(Time)) -> Result<RunState, SimError> {
        let Some(r) = self.running else {
            return Err(SimError::Usage("start the run before stepping it"));
        };
        if r.ended {
            return Ok(RunState::Ended);
        }
        let Running { hard_end, mut phase_end, watchdog, events: mut n, sync, mut next_sync, mut last, .. } = r;
        let mut discarded = 0;
        // The earlier of the two moments the loop must look at besides handling events.
        let mut next_check = phase_end.min(next_sync);
        let ended = loop {
            let c = &mut self.core;
            if LIMITED && c.queue.peek_time().is_some_and(|t| t.ps() > limit) {
                break false;
            }
            let Some((now, ev)) = c.queue.pop() else {
                if c.meter.in_network > 0 || c.nics.messages.live() > 0 {
                    let idle = c.queue.now().ps().saturating_sub(c.meter.last_progress) / 1000;
                    let ports = if c.meter.in_network > 0 { c.stuck_ports() } else { format!("{} messages waiting in NICs", c.nics.messages.live()) };
                    return Err(SimError::Deadlock { buffered: c.meter.in_network, idle_ns: idle, ports });
                }
                break true;
            };
            let now = now.ps();
            if now >= next_check {
                // The run crossed a multiple of `sync`: the stopping rules are judged on every
                // event before it (this one is not handled if they end the run).
                if now >= next_sync {
                    if self.judge(last) {
                        discarded = 1;
                        break true;
                    }
                    next_sync = next_sync_after(now, sync);
                }
                let c = &mut self.core;
                if now > hard_end {
                    // The run covered its whole time.
                    (discarded, last) = (1, hard_end);
                    break true;
                }
                if now >= phase_end {
                    c.snapshot_counters(now, false);
                    phase_end = c.meter.next_phase(hard_end);
                }
                next_check = phase_end.min(next_sync);
            }
            #[cfg(feature = "seam-guard")]
            let step = self.core.guard_begin(self.core.home_of(&ev));
            self.dispatch(now, ev);
            #[cfg(feature = "seam-guard")]
            self.core.guard_end(step, &|| format!("event {ev:?}"));
            last = now;
            let c = &mut self.core;
            n += 1;
            if n.is_multiple_of(RARE_CHECK_EVERY) {
                // Rare conditions are checked every few thousand events (and once more when the
                // loop ends): an error waits in `error` until then, and a deadlock is reported a
                // little after the watchdog expires. An observer that failed stops the run too.
                if let Some(why) = c.obs.failed() {
                    c.error.get_or_insert(SimError::Observer(why));
                }
                if c.error.is_some() {
                    break true;
                }
                c.check_watchdog(now, watchdog)?;
                if n.is_multiple_of(PROGRESS_EVERY) {
                    progress(Time(now));
                }
            }
            // Once the instant's last event is handled: its phase (completions to the workload,
            // selection, arbitration, injection). A phase may schedule events at the same
            // instant; they come first.
            if c.phase.due && !c.queue.instant_pending() {
                self.end_instant();
            }
        };
        self.running = Some(Running { phase_end, events: n, ended, next_sync, last, discarded, ..r });
        Ok(if ended { RunState::Ended } else { RunState::Running })
    }

    /// The stopping rules, judged on the run as it stands after instant `now`: past the window,
    /// every measured message has arrived, or the workload knows the network is saturated
    /// (draining would only wait on its backlog); or the workload has finished with nothing in
    /// flight; or the workload has ended (its run may end with traffic in flight).
    fn judge(&self, now: u64) -> bool {
        let c = &self.core;
        if now >= c.meter.window_end && (c.meter.measured_outstanding == 0 || self.workload.saturated()) {
            return true;
        }
        let idle = c.meter.in_network == 0 && c.nics.messages.live() == 0 && c.nics.notes.live() == 0;
        (idle && self.workload.finished()) || self.workload.ended()
    }

    /// Close a run (ended, or stopped where it stands): a pending error, a deadlock the sampled
    /// checks did not reach, the window closed, the conservation check, and the outcome.
    pub fn finish(&mut self) -> Result<Outcome, SimError> {
        let Some(r) = self.running else {
            return Err(SimError::Usage("start the run before finishing it"));
        };
        // An observer that failed after the last sampled check.
        if let Some(why) = self.core.obs.failed() {
            self.core.error.get_or_insert(SimError::Observer(why));
        }
        if let Some(e) = self.core.error.take() {
            return Err(e);
        }
        // A deadlock the sampled checks above did not reach before the run ended.
        let end = r.last;
        self.core.check_watchdog(end, r.watchdog)?;
        let c = &self.core;
        let in_flight = c.packets.live() as u64;
        // Two independent counts must agree: packets alive in the slab, and the running
        // injected - delivered balance kept by the event handlers.
        let o = &c.meter.out;
        let cut = c.faults.as_deref().map_or(0, |f| f.counts.packets_cut);
        if o.packets_injected != o.packets_delivered + o.packets_lost + cut + in_flight || c.meter.in_network != in_flight {
            return Err(SimError::Conservation { injected: o.packets_injected, delivered: o.packets_delivered, in_flight });
        }
        Ok(self.close(end, r.discarded))
    }

    /// The outcome of a run that ended at `end` (the last instant handled, or the hard end),
    /// having taken `discarded` events from the queue it did not handle.
    fn close(&mut self, end: u64, discarded: u64) -> Outcome {
        let c = &mut self.core;
        // A run that ends early closes its window (and opens it, if it never began).
        c.snapshot_counters(end, true);
        c.meter.out.drained = c.meter.measured_outstanding == 0;
        c.meter.out.sim_time = Time(end);
        c.meter.out.events = c.queue.events_processed() - discarded;
        c.meter.out.window = Time(end.min(c.meter.window_end).saturating_sub(c.meter.window_start));
        c.meter.out.peak_packets = c.packets.capacity_used();
        c.meter.out.peak_messages = c.nics.messages.capacity_used();
        let mut out = c.meter.out.clone();
        out.packet_latency.merge(&c.meter.single_latency);
        out.message_latency.merge(&c.meter.single_latency);
        out
    }

    /// Handle every event before `end`: a window of a block of a partitioned run (see
    /// [`crate::partition`]), which judges the stopping rules over all blocks and never asks
    /// for a window past the hard end.
    pub(crate) fn advance_block(&mut self, end: u64) -> Result<(), SimError> {
        let Some(r) = self.running else {
            return Err(SimError::Usage("start the run before stepping it"));
        };
        let Running { hard_end, mut phase_end, events: mut n, mut last, .. } = r;
        loop {
            let c = &mut self.core;
            if c.queue.peek_time().is_none_or(|t| t.ps() >= end) {
                break;
            }
            let Some((now, ev)) = c.queue.pop() else { break };
            let now = now.ps();
            if now >= phase_end {
                c.snapshot_counters(now, false);
                phase_end = c.meter.next_phase(hard_end);
            }
            self.dispatch(now, ev);
            last = now;
            n += 1;
            let c = &mut self.core;
            if n.is_multiple_of(RARE_CHECK_EVERY) && c.error.is_some() {
                break;
            }
            if c.phase.due && !c.queue.instant_pending() {
                self.end_instant();
            }
        }
        self.running = Some(Running { phase_end, events: n, last, ..r });
        Ok(())
    }

    /// The last instant a block handled.
    pub(crate) fn last_handled(&self) -> u64 {
        self.running.map_or(0, |r| r.last)
    }

    /// Close a block of a partitioned run that ended at `end` (the run checks conservation
    /// over all blocks).
    pub(crate) fn finish_block(&mut self, end: u64) -> Result<Outcome, SimError> {
        if let Some(e) = self.core.error.take() {
            return Err(e);
        }
        Ok(self.close(end, 0))
    }
}

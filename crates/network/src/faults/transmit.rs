//! One frame across one faulty link direction: the attempts, each sliced over the lanes and
//! checked by the receiver, and what the protection does after a failed one (see the module
//! doc of [`super`]).

use super::schedule::{next_change, state_at};
use super::spec::Protection;
use super::{Faults, Link};

/// What became of a frame: its (last) attempt started at `start`, the sender's output is busy
/// until `finish`; `lost`: it never got through (protection `none`).
/// A frame offered to a link direction: output port `out` (its reverse direction `rev`,
/// latency `lat` either way), granted at `now`, `size` wire bytes taking `ser` to send, its
/// tail reaching this router at `tail`; `protectable`: with protection `none`, a failed frame
/// is lost (the in-network hardware's own packets are always resent).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub out: u32,
    pub rev: u32,
    pub now: u64,
    pub size: u32,
    pub ser: u64,
    pub lat: u64,
    pub tail: u64,
    pub protectable: bool,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Sent {
    pub start: u64,
    pub finish: u64,
    pub lost: bool,
    /// With `lost`: the frame was caught by a link failure for good (in its retransmission
    /// buffer when the link died): its packet counts as cut off, not as lost to an error.
    pub caught: bool,
}

/// Size of an ACK or NAK on the way back (bytes).
const CONTROL_BYTES: u64 = 16;

/// A uniform draw in [0, 1) from `l`'s stream.
#[inline]
fn u01(l: &mut Link) -> f64 {
    l.draws += 1;
    let z = fabricsim_core::rng::mix(l.seed.wrapping_add(l.draws.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Time to the next burst of a Poisson process of `rate` per second, ps (`u64::MAX`: none).
pub(crate) fn exp_gap(l: &mut Link, rate: f64) -> u64 {
    if rate <= 0.0 {
        return u64::MAX;
    }
    let u = u01(l);
    let s = -(1.0 - u).ln() / rate;
    (s * 1e12).min(u64::MAX as f64 / 4.0) as u64
}

/// How a lane slice was corrupted.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cause {
    Clean,
    Random,
    Burst,
    Dark,
}

impl Faults {
    /// Send `frame` (see [`Frame`]; `ser` is its serialisation on the full link): when it
    /// starts and ends on the link, or whether it was lost. An error: the link is down for
    /// good, or failed more than `max_attempts` times in a row with no recovery scheduled.
    pub(crate) fn transmit(&mut self, frame: Frame) -> Result<Sent, String> {
        // The schedule is read while the links change: held apart meanwhile (no copy).
        let schedule = std::mem::take(&mut self.schedule.per_port);
        let none = Vec::new();
        let events = schedule.get(&frame.out).unwrap_or(&none);
        let rev_events = schedule.get(&frame.rev).unwrap_or(&none);
        let r = self.attempts(frame, events, rev_events);
        self.schedule.per_port = schedule;
        r
    }

    fn attempts(&mut self, frame: Frame, events: &[super::LinkEvent], rev_events: &[super::LinkEvent]) -> Result<Sent, String> {
        let Frame { out, now, size, ser, lat, tail, protectable, .. } = frame;
        let scheme = self.link.protection;
        let lanes = self.link.lanes as usize;
        let retry = self.link.retry.clone();
        let (ack_delay, timeout) = (retry.ack_delay.ps(), retry.timeout.ps());
        let base = out as usize * lanes;
        let mut t = now;
        // A resend after a lost acknowledgement holds the link.
        let hold = self.links[out as usize].hold;
        if t >= hold.0 && t < hold.1 {
            t = hold.1;
        }
        // Room in the retransmission buffer.
        if scheme != Protection::None {
            let l = &mut self.links[out as usize];
            while let Some(&(ack, bytes)) = l.window.front() {
                if ack <= t || l.in_flight + size > retry.buffer.0 as u32 {
                    t = t.max(ack);
                    l.window.pop_front();
                    l.in_flight -= bytes;
                } else {
                    break;
                }
            }
        }
        self.counts.retry_buffer_wait_ns += t.saturating_sub(now) as f64 / 1000.0;
        let mut failures = 0u32;
        loop {
            let (dark, down, up) = state_at(events, t);
            if down {
                self.counts.errors_link_down += 1;
                self.counts.frames_sent += 1;
                if scheme == Protection::None && protectable {
                    return Ok(self.lose(out, t, ser, tail));
                }
                match up {
                    // The sender keeps resending on its timeout; the first resend after the
                    // link is back gets through (the link retrains meanwhile).
                    Some(u) => {
                        self.counts.timeouts += 1;
                        self.counts.frames_retransmitted += 1;
                        failures += 1;
                        t = u.max(t + timeout);
                        continue;
                    }
                    // Down for good: the routers route around it, but this frame was already
                    // given to it (it waited for room, or was being resent, when the link died).
                    None => return Ok(Sent { start: t, finish: (t + ser).max(tail), lost: true, caught: true }),
                }
            }
            self.apply_stat(out, t);
            let l = &self.links[out as usize];
            let active = l.active;
            let n = active.count_ones() as u64;
            let duplicate = scheme == Protection::Slicing && l.duplicate;
            // Slices: split mode spreads the frame over the active lanes; duplicate mode sends a
            // whole copy on each half of them.
            let per_lane_bytes = if duplicate { (size as u64 * 2).div_ceil(n) } else { (size as u64).div_ceil(n) };
            let ser_t = ser * lanes as u64 / n * if duplicate { 2 } else { 1 };
            let mut bad_halves = [false; 2];
            let mut any_bad = false;
            let mut k = 0u64;
            for lane in 0..lanes {
                if active >> lane & 1 == 0 {
                    continue;
                }
                let cause = self.lane_slice(out, base + lane, dark >> lane & 1 != 0, t, ser_t, per_lane_bytes * 8);
                if cause != Cause::Clean {
                    any_bad = true;
                    bad_halves[(k >= n / 2) as usize] = true;
                    self.lanes[base + lane].window_errors += 1;
                }
                k += 1;
            }
            let failed = if duplicate { bad_halves[0] && bad_halves[1] } else { any_bad };
            self.counts.frames_sent += 1;
            self.counts.frames_duplicated += duplicate as u64;
            self.count_window(out, base, lanes, t + ser_t + lat);
            if failed {
                let l = &mut self.links[out as usize];
                let escaped = self.spec.undetected > 0.0 && u01(l) < self.spec.undetected;
                if escaped {
                    self.counts.undetected += 1;
                } else if scheme == Protection::None && protectable {
                    return Ok(self.lose(out, t, ser_t, tail));
                } else {
                    failures += 1;
                    self.counts.frames_retransmitted += 1;
                    if failures >= retry.max_attempts && next_change(events, t) == u64::MAX {
                        return Err(format!(
                            "link direction of port {out}: {failures} attempts in a row failed at {} ns (a dark lane with protection '{}'?) and no recovery is scheduled",
                            t as f64 / 1000.0,
                            scheme.name()
                        ));
                    }
                    // The NAK comes back over the reverse direction; if it is corrupted or that
                    // direction is down, the sender's timeout resends.
                    let (_, rev_down, _) = state_at(rev_events, t);
                    let nak_lost = rev_down || self.control_lost(out);
                    if nak_lost {
                        self.counts.timeouts += 1;
                        t += ser_t + timeout;
                    } else {
                        self.counts.naks += 1;
                        t += ser_t + lat + ack_delay + lat;
                    }
                    continue;
                }
            }
            // Through: the receiver takes it by its sequence number.
            let finish = (t + ser_t).max(tail);
            let (_, rev_down, _) = state_at(rev_events, finish);
            let ack_lost = scheme != Protection::None && (rev_down || self.control_lost(out));
            let l = &mut self.links[out as usize];
            let seq = l.next_seq;
            l.next_seq = l.next_seq.wrapping_add(1);
            if seq == l.expected {
                l.expected = l.expected.wrapping_add(1);
            }
            if scheme != Protection::None {
                let mut ack = finish + lat + ack_delay + lat;
                if ack_lost {
                    // The sender times out and resends the frame; the receiver discards the
                    // copy by its sequence number (and acknowledges again).
                    let resend = t + ser_t + timeout;
                    l.hold = (resend, resend + ser_t);
                    ack = resend + ser_t + lat + ack_delay + lat;
                    self.counts.timeouts += 1;
                    self.counts.frames_retransmitted += 1;
                    self.counts.duplicates_discarded += 1;
                }
                l.window.push_back((ack, size));
                l.in_flight += size;
            }
            if failures == 0 {
                self.recovered_at(out, events, t, finish);
            }
            return Ok(Sent { start: t, finish, lost: false, caught: false });
        }
    }

    /// The slice of `bits` bits lane record `lane` carries from `t` for `ser`: corrupted how?
    fn lane_slice(&mut self, out: u32, lane: usize, dark: bool, t: u64, ser: u64, bits: u64) -> Cause {
        let len = self.spec.burst_length.ps();
        let rate = self.spec.burst_rate;
        // Bursts: skip those over before `t`; one overlapping [t, t + ser) corrupts the slice.
        let mut in_burst = false;
        if rate > 0.0 && len > 0 {
            loop {
                let nb = self.lanes[lane].next_burst;
                if nb.saturating_add(len) <= t {
                    let gap = exp_gap(&mut self.links[out as usize], rate);
                    self.lanes[lane].next_burst = nb.saturating_add(len).saturating_add(gap);
                    continue;
                }
                in_burst = nb < t + ser;
                break;
            }
        }
        let cause = if dark {
            Cause::Dark
        } else if in_burst {
            Cause::Burst
        } else if self.spec.lane_ber > 0.0 {
            let p = -(bits as f64 * self.ln_good_bit).exp_m1();
            if u01(&mut self.links[out as usize]) < p {
                Cause::Random
            } else {
                Cause::Clean
            }
        } else {
            Cause::Clean
        };
        match cause {
            Cause::Clean => {}
            Cause::Random => self.counts.errors_random += 1,
            Cause::Burst => self.counts.errors_burst += 1,
            Cause::Dark => self.counts.errors_dark_lane += 1,
        }
        cause
    }

    /// Whether an ACK or NAK on its way back is corrupted (random bit errors on one lane).
    fn control_lost(&mut self, out: u32) -> bool {
        if self.spec.lane_ber <= 0.0 {
            return false;
        }
        let p = -((CONTROL_BYTES * 8) as f64 * self.ln_good_bit).exp_m1();
        u01(&mut self.links[out as usize]) < p
    }

    /// The receiver has counted one more frame of link direction `out`; at the end of a window
    /// it reports (slicing: a STAT that reaches the sender at `report_at`) or drops lanes
    /// (degrade).
    fn count_window(&mut self, out: u32, base: usize, lanes: usize, report_at: u64) {
        let scheme = self.link.protection;
        let window = match scheme {
            Protection::Slicing => self.link.slicing.window,
            Protection::Degrade => self.link.degrade.window,
            _ => return,
        };
        // A report is due at the end of the window, or as soon as a lane's errors alone decide
        // it (a dark lane is reported after a few frames, not a whole window).
        let eager = match scheme {
            Protection::Slicing => (self.link.slicing.duplicate_above * window as f64).floor() as u32 + 1,
            _ => self.link.degrade.threshold,
        };
        let worst_now = (0..lanes).map(|k| self.lanes[base + k].window_errors).max().unwrap_or(0);
        let l = &mut self.links[out as usize];
        l.counted += 1;
        if l.counted < window && worst_now < eager {
            return;
        }
        let window = l.counted;
        l.counted = 0;
        let active = l.active;
        let errors: Vec<u32> = (0..lanes).map(|k| std::mem::take(&mut self.lanes[base + k].window_errors)).collect();
        let l = &mut self.links[out as usize];
        if scheme == Protection::Slicing {
            let worst = errors.iter().copied().max().unwrap_or(0) as f64 / window as f64;
            let s = &self.link.slicing;
            let verdict = if worst > s.duplicate_above {
                2
            } else if worst <= s.split_below {
                1
            } else {
                0
            };
            if verdict != 0 {
                l.stat = (report_at, verdict);
            }
        } else {
            let threshold = self.link.degrade.threshold;
            let mut keep = active;
            for (k, &e) in errors.iter().enumerate() {
                if e >= threshold && keep >> k & 1 != 0 && (keep & !(1 << k)) != 0 {
                    keep &= !(1 << k);
                    self.counts.lanes_dropped += 1;
                }
            }
            if keep != active {
                if active.count_ones() as usize == lanes {
                    self.counts.degraded_links += 1;
                }
                l.active = keep;
            }
        }
    }

    /// Slicing: the latest STAT that has reached the sender by `t` sets the mode (PAT).
    fn apply_stat(&mut self, out: u32, t: u64) {
        let l = &mut self.links[out as usize];
        let (at, verdict) = l.stat;
        if verdict == 0 || at > t {
            return;
        }
        l.stat = (u64::MAX, 0);
        let dup = verdict == 2;
        if dup != l.duplicate {
            l.duplicate = dup;
            if dup {
                self.counts.switches_to_duplicate += 1;
            } else {
                self.counts.switches_to_split += 1;
            }
        }
    }

    /// A frame of link direction `out` got through cleanly at `t`: the scheduled events before
    /// it are recovered from at `finish`.
    fn recovered_at(&mut self, out: u32, events: &[super::LinkEvent], t: u64, finish: u64) {
        let l = &mut self.links[out as usize];
        let from = l.recovered_upto as usize;
        let upto = events.iter().take_while(|e| e.at <= t).count();
        if upto <= from {
            return;
        }
        l.recovered_upto = upto as u32;
        for e in &events[from..upto] {
            let r = &mut self.recovered[e.source as usize];
            if r.is_none_or(|x| x > finish) {
                *r = Some(finish);
            }
        }
    }

    /// Protection `none`: the frame failed and its packet is lost.
    fn lose(&mut self, _out: u32, t: u64, ser: u64, tail: u64) -> Sent {
        self.counts.packets_lost += 1;
        Sent { start: t, finish: (t + ser).max(tail), lost: true, caught: false }
    }
}

//! Faulty lanes and link protection, as mechanisms at the link.
//!
//! A link direction is made of lanes (`link.lanes`); each has its own error process: random
//! bit errors (`faults.lane_ber`), bursts (`faults.burst_rate`, `faults.burst_length`) and
//! scheduled events (a lane or the link going dark, a node failing; [`schedule`]). A frame is
//! sliced across the lanes it uses, and the receiver checks its CRC: a frame with a corrupted
//! slice fails, unless the corruption escapes the check (`faults.undetected`; counted, never
//! passed off as good).
//!
//! What a failed frame costs depends on the link's protection ([`spec::Protection`]):
//! * `retry`: every frame carries a sequence number and stays in the sender's retransmission
//!   buffer until acknowledged; a NAK (or, when the NAK is corrupted on the way back, the
//!   timeout) makes the sender resend it. The buffer bounds the bytes in flight: a frame waits
//!   for room, which is visible in the link's bandwidth when the buffer is smaller than the
//!   link's round trip. Resending is go-back-N: the frames behind the failed one wait (they
//!   would be resent anyway), so order on the link is kept.
//! * `slicing` (TofuD): in split mode a frame's slices go on all lanes (full rate); in
//!   duplicate mode a whole copy goes on each half of the lanes (half the rate) and the frame
//!   survives a bad half. Receivers count errors per lane and report them (STAT) every
//!   `link.slicing.window` frames, or as soon as one lane's errors exceed the duplicate
//!   threshold for the window; the report reaches the sender a link latency later, and the
//!   sender picks the mode for each frame (PAT) from the latest report. Retry underneath.
//! * `degrade` (Tofu2): a lane with `link.degrade.threshold` errors within a window of frames
//!   is dropped for good (at once, when it reaches the threshold); the link runs at the rate of
//!   the lanes left. Retry underneath.
//! * `none`: a failed frame is a lost packet (counted; its message never completes).
//!
//! All of it is computed when the router grants the frame its output (`Core::grant` calls
//! [`Faults::transmit`] once per router-to-router hop, behind one test of whether faults are
//! configured): the attempts are drawn in order, the output stays busy until the attempt that
//! got through, and the packet reaches the next router as that attempt does. The draws come
//! from one stream per link direction derived from the seed and the port, so they do not depend
//! on the order of events elsewhere. Links to and from NICs are not faulty.

pub mod counts;
mod cut;
mod known;
mod lost;
mod schedule;
pub mod spec;
mod transmit;
pub(crate) use transmit::Frame;

pub use counts::{CutPair, FaultCounts, Recovery};
pub use spec::{DegradeParams, Direction, EventKind, FaultEvent, FaultSpec, LinkRef, LinkSpec, Protection, RetryParams, SlicingParams};

use fabricsim_core::{ConfigError, Time};
use fabricsim_topology::{PortGraph, PortKind, Torus};
use schedule::{LinkEvent, Schedule};

/// Per-link-direction state of the protocol (the sender's and the receiver's ends of one
/// direction; both are updated as the frame crosses).
#[derive(Debug, Clone, Default)]
pub(crate) struct Link {
    /// Draws made from this link's stream.
    draws: u64,
    seed: u64,
    /// Lanes in use (a bit each; degrade drops some for good).
    active: u16,
    /// Sender: next sequence number; receiver: the one it expects.
    next_seq: u32,
    expected: u32,
    /// Retransmission buffer: (acknowledgement time, bytes) of frames not yet acknowledged.
    window: std::collections::VecDeque<(u64, u32)>,
    in_flight: u32,
    /// A resend after a lost acknowledgement holds the link over this interval.
    hold: (u64, u64),
    /// Slicing: the mode frames go out in, the frames the receiver has counted towards its
    /// next report, and the latest report on its way back (arrival time, 1: clean, 2: bad).
    duplicate: bool,
    counted: u32,
    stat: (u64, u8),
    /// Index of the first of this link's scheduled events not yet recovered from.
    recovered_upto: u32,
}

/// Per-lane state: its bursts (the next one's start, drawn ahead) and its errors in the
/// receiver's current counting window.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Lane {
    next_burst: u64,
    window_errors: u32,
}

/// Fault state of a network: the configuration and every link direction's record.
pub(crate) struct Faults {
    spec: FaultSpec,
    link: LinkSpec,
    /// `ln(1 - lane_ber)`.
    ln_good_bit: f64,
    links: Vec<Link>,
    lanes: Vec<Lane>,
    schedule: Schedule,
    /// Per scenario event: when the struck link carried a clean frame again.
    recovered: Vec<Option<u64>>,
    pub(crate) counts: FaultCounts,
    /// Messages that lost a packet (protection `none`): dropped when their last byte is in.
    pub(crate) lost_messages: std::collections::HashSet<u32>,
    /// What the routers know of dead links (see [`known`]).
    known: known::Known,
    /// Packets that found no live way on (see [`cut`]), by source and destination node:
    /// (packets, when the first was stopped, ps).
    pub(crate) cut: std::collections::BTreeMap<(u32, u32), (u64, u64)>,
    /// Messages that had a packet stopped: dropped when their last byte is accounted for.
    pub(crate) cut_messages: std::collections::HashSet<u32>,
}

impl Faults {
    /// The fault state of `graph` for `spec` and `link` (`None` when no fault is configured:
    /// the links are perfect and the hop path never looks here). `torus`: for events naming
    /// links by coordinates.
    pub(crate) fn new(
        spec: &FaultSpec,
        link: &LinkSpec,
        graph: &PortGraph,
        torus: Option<&Torus>,
        seed: u64,
    ) -> Result<Option<Box<Faults>>, ConfigError> {
        spec.validate(link)?;
        if !spec.any() {
            return Ok(None);
        }
        let schedule = schedule::resolve(spec, graph, torus, link.lanes)?;
        let tp = graph.total_ports() as usize;
        let lanes = link.lanes as usize;
        let all = if lanes == 16 { u16::MAX } else { (1u16 << lanes) - 1 };
        let mut links = vec![Link::default(); tp];
        let mut lane_recs = vec![Lane::default(); tp * lanes];
        for (p, l) in links.iter_mut().enumerate() {
            l.seed = fabricsim_core::rng::splitmix(seed ^ fabricsim_core::rng::splitmix(0xFA17 ^ (p as u64) << 20));
            l.active = all;
            l.stat = (u64::MAX, 0);
            if graph.kind[p] != PortKind::Network {
                continue;
            }
            for k in 0..lanes {
                let first = transmit::exp_gap(l, spec.burst_rate);
                lane_recs[p * lanes + k].next_burst = first;
            }
        }
        let counts = FaultCounts { protection: link.protection.name(), lanes: link.lanes, ..Default::default() };
        let mut f = Box::new(Faults {
            spec: spec.clone(),
            link: link.clone(),
            ln_good_bit: (-spec.lane_ber).ln_1p(),
            links,
            lanes: lane_recs,
            schedule,
            recovered: vec![None; spec.events.len()],
            counts,
            lost_messages: Default::default(),
            known: Default::default(),
            cut: Default::default(),
            cut_messages: Default::default(),
        });
        f.known = known::Known::new(tp as u32, &f);
        Ok(Some(f))
    }

    /// Whether some link goes down in the run (routing must then go around it).
    pub(crate) fn links_can_fail(&self) -> bool {
        self.known.can_change()
    }

    /// The scheduled events of link direction `port`.
    fn events(&self, port: u32) -> &[LinkEvent] {
        self.schedule.per_port.get(&port).map_or(&[], |v| v.as_slice())
    }

    /// Whether link direction `port` is down at `t` (both directions of a link always agree:
    /// they share its link events).
    pub(crate) fn link_down_at(&self, port: u32, t: Time) -> bool {
        schedule::state_at(self.events(port), t.ps()).1
    }

    /// The counts with the recovery times filled in.
    pub(crate) fn report(&self) -> FaultCounts {
        let mut c = self.counts.clone();
        c.recovery = self
            .spec
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| Recovery {
                event: i as u32,
                kind: match e.kind {
                    EventKind::LaneDown => "lane_down",
                    EventKind::LaneUp => "lane_up",
                    EventKind::LinkDown => "link_down",
                    EventKind::LinkUp => "link_up",
                    EventKind::NodeDown => "node_down",
                },
                at_ns: e.at.as_ns_f64(),
                recovered_after_ns: self.recovered[i].map(|t| (t.saturating_sub(e.at.ps())) as f64 / 1000.0),
            })
            .collect();
        c.pairs_cut = self.cut.len() as u64;
        c.cut =
            self.cut.iter().map(|(&(src, dst), &(packets, first))| counts::CutPair { src, dst, packets, first_ns: first as f64 / 1000.0 }).collect();
        c
    }
}

/// A grant's frame crosses a faulty link direction (see [`Faults::transmit`]); a link that
/// can never carry it again leaves an error for the run loop (the frame is then passed on as
/// if sent, so the state stays consistent until the run stops). Out of the hop path's way.
#[cold]
#[inline(never)]
pub(crate) fn hop(f: &mut Faults, error: &mut Option<fabricsim_core::SimError>, frame: Frame) -> transmit::Sent {
    match f.transmit(frame) {
        Ok(s) => s,
        Err(msg) => {
            error.get_or_insert(fabricsim_core::SimError::LinkFailed(msg));
            transmit::Sent { start: frame.now, finish: (frame.now + frame.ser).max(frame.tail), lost: false, caught: false }
        }
    }
}

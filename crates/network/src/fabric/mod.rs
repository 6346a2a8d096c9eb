//! The fabric: routers (input VCs, outputs, arbitration, selection) and the links between them.

pub(crate) mod channel;
pub(crate) mod crossbar;
pub(crate) mod flits;
#[cfg(feature = "seam-guard")]
pub(crate) mod guard;
pub(crate) mod home;
pub(crate) mod link;
pub(crate) mod records;
pub(crate) mod router;
pub(crate) mod sleep;
pub(crate) mod vc_pick;
pub(crate) mod warm;

use crate::packet::Slab;
use crate::sim::CreditReturn;
use channel::ChannelTiming;
use fabricsim_core::FastDiv;
use fabricsim_routing::Candidates;
use fabricsim_stats::PortCounters;
use records::{InputVc, OutPort, Stall};

/// The routers, their input VCs and outputs, arbitration, selection and the links between them.
pub(crate) struct Fabric {
    pub(crate) timing: ChannelTiming,
    pub(crate) vcs: u32,
    /// Divides input-VC indices by `vcs` (and engine pseudo-ports by engines per node) without
    /// a hardware divide.
    pub(crate) vcs_div: FastDiv,
    /// Ports per router when every router has the same number (tori, and the built-in
    /// fat-trees): the owner and first port of a port are then computed, not loaded from memory.
    /// Otherwise the port graph's `owner` and `port_offset` are read.
    pub(crate) router_div: Option<FastDiv>,
    /// Hot state of every sender: router output ports, then NIC engine pseudo-ports
    /// (`total_ports + node * engines + e`).
    pub(crate) outs: Vec<OutPort>,
    /// One bit per sender: whether its request mask is non-empty (a dense copy of `req != 0`,
    /// so a transmission's end can skip arbitration without loading the record).
    pub(crate) requested: Vec<u64>,
    /// With a shared crossbar (`NetworkParams::shared_crossbar`), when each router port's
    /// crossbar input frees (its packet under way has left); empty otherwise.
    pub(crate) in_busy: Vec<u64>,
    /// With a shared crossbar: each port's last VC to take its crossbar input (round-robin).
    pub(crate) in_rr: Vec<u8>,
    /// With a shared crossbar: outputs to arbitrate again at the end of the instant (see
    /// `Core::crossbar`).
    pub(crate) xbar_retry: Vec<u32>,
    /// Credit-stall bookkeeping of every sender, indexed like `outs`.
    pub(crate) stall: Vec<Stall>,
    /// Who feeds each router port's input side: the peer output, or the NIC engine pseudo-port
    /// (`NIL`: none). Read only when a credit return travels as an event (or at once, with no
    /// credit latency), not for one waiting in its slot.
    pub(crate) upstream: Vec<u32>,
    /// Every input VC, with its sender's credit, indexed `port * vcs + vc`.
    pub(crate) vcq: Vec<InputVc>,
    /// Credit returns travelling as events.
    pub(crate) credit_returns: Slab<CreditReturn>,
    pub(crate) cands: Candidates,
    /// Whether credit returns nobody waits for may travel without an event (see
    /// [`crate::fabric::records`]).
    pub(crate) silent_credits: bool,
    /// With bubble flow control (on the VCs the routing says, `Routing::bubble_vcs`), every
    /// packet in such a VC's buffer is charged a slot, the largest packet's size, whatever its
    /// own: the buffer then holds whole slots, and the free space of a ring cannot fragment into
    /// pieces too small for the packets waiting to move. Other VCs charge packets their size.
    pub(crate) slots: link::Slots,
    /// With a transit ratio (`NetworkParams::transit_ratio`), per sender: the grants in a row
    /// it gave packets cutting through while injection requests waited. Empty without.
    pub(crate) transit_run: Vec<u32>,
    /// One bit per VC that is a queue after the first of a shared buffer (see
    /// `records::POOL`): injection names the first queue only, as hops do.
    pub(crate) queue_followers: u8,
    /// Largest payload of a packet on a class VC (its buffer may be smaller than others).
    pub(crate) class_payload: u32,
    /// Dedicated class VCs (see `fabricsim_routing::classes`): messages of a priority class
    /// above 0 travel on them when there are any.
    pub(crate) class_vcs: u8,
    /// Whether output releases prefetch ahead (see [`crate::fabric::warm`]): only when the input VC
    /// records outgrow the second-level cache.
    pub(crate) warm_releases: bool,
    /// Whether a grant looks the packet's next hop up (when the routing gives a single one)
    /// instead of leaving it to the packet's request at the next router.
    pub(crate) lookahead: bool,
    /// Whether the run has faulty links or cut links (a partitioned run's): grants then take
    /// the copy built for them (see `Core::grant`).
    pub(crate) special: bool,
    /// Whether links can fail in this run: packets then route around the links the routers
    /// know are down, at every hop (see `crate::faults::cut`).
    pub(crate) detours: bool,
    /// Adaptive routing: head packets waiting for room on any of their hops (see
    /// [`crate::fabric::sleep`]; `None`: other routings, or blocked packets commit to the escape hop).
    pub(crate) sleepers: Option<Box<crate::fabric::sleep::Sleepers>>,
    /// Flit multiplexing of the links' VCs (`None`: links send whole packets; see
    /// [`crate::fabric::flits`]). When on, `special` is set, so grants take the path that
    /// checks for it.
    pub(crate) flits: Option<Box<crate::fabric::flits::Flits>>,
    /// Whether `flits` is on (a flag beside the other hot ones, so handlers test it cheaply).
    pub(crate) flits_on: bool,
    /// What the link code handed across during the current step (for the seam guard; empty
    /// and free without the `seam-guard` feature).
    pub(crate) crossings: link::Crossings,
}

impl Fabric {
    /// The port counters of the router ports (the first `total_ports` senders) as they stand.
    pub(crate) fn counters_now(&self, total_ports: u32) -> Vec<PortCounters> {
        let tp = total_ports as usize;
        self.outs[..tp].iter().zip(&self.stall).map(|(o, s)| records::counters(o, s)).collect()
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
}

//! Prefetching along the event queue: the hop path's loads miss the first-level cache (its
//! records are spread over a working set larger than it), and most of its events sit in FIFO
//! lanes whose next entries are known. Handling an event therefore also asks for the cache lines
//! that events a little further down its lane will read, so those misses overlap with work
//! instead of stalling it (see `fabricsim_core::prefetch`). Nothing here changes state: the
//! functions read records and issue hints, and a run is bit-identical without them.
//!
//! Measured (BENCHMARKS.md, session 5): the hop-ready stages remove most of the stall samples on
//! the packet and input-VC loads of a head-ready event. Output releases prefetch the input VC
//! they will free (and the stages after it) only when the input-VC records outgrow the
//! second-level cache: on the 8x8x8 benchmark (229 KB of them) that cost 2-3% (the lines come
//! from the second-level cache, and the address costs a division); on a 16x16x16 torus the VC
//! alone gained about 13%, the three stages about 20% more.

use crate::sim::{lane, Core, Ev};
use fabricsim_core::prefetch;
use fabricsim_stats::Observer;

/// How far ahead (in events of the same lane) the hop path prefetches.
const AHEAD: u32 = 2;

/// Input-VC records (bytes) above which output releases prefetch the VC they free: below, the
/// records stay in the second-level cache and the prefetch costs more than it saves.
pub(crate) const WARM_RELEASES_ABOVE: usize = 1 << 20;

impl<O: Observer> Core<O> {
    /// Prefetch what coming hop-ready events will read, in three stages along the hop lane so
    /// each stage reads lines the one before fetched: the packet (`3k` events ahead, `k` =
    /// [`AHEAD`]), its input VC and looked-ahead output (`2k`), and that output's downstream VC
    /// (`k`). Injection events are not warmed: they are few, and trying did not pay.
    #[inline]
    pub(crate) fn warm_ready(&self) {
        let k = AHEAD;
        let slots = self.packets.slots();
        let at = |i: u32| match self.queue.lane_ahead(lane::HOP_READY, i) {
            Some(&Ev::Ready(pkt)) => slots.get(pkt.index()),
            _ => None,
        };
        if let Some(p) = at(3 * k) {
            prefetch(p);
        }
        if let Some(p) = at(2 * k) {
            if let Some(v) = self.fabric.vcq.get(p.q.index()) {
                prefetch(v);
            }
            if let Some(o) = self.fabric.outs.get(p.out as usize) {
                prefetch(o);
            }
        }
        if let Some(p) = at(k) {
            if let Some(o) = self.fabric.outs.get(p.out as usize) {
                // An ejection port's `peer` names a node, not a buffer: the hint then fetches a
                // line nobody needs, which costs less than a branch that mispredicts.
                if let Some(d) = self.fabric.vcq.get(o.peer.wrapping_mul(self.fabric.vcs).wrapping_add(p.out_vc as u32) as usize) {
                    prefetch(d);
                }
            }
        }
    }

    /// Prefetch what the next workload timer will touch when it sends a message: the node's
    /// engine records and the input VC they feed, and the slab slots the new message and packet
    /// will take. Timers come out of the heap about once every dozen events, so this runs well
    /// ahead of the timer.
    #[inline]
    pub(crate) fn warm_wake(&self) {
        if let Some(&Ev::Wake(rank)) = self.queue.off_lane_front() {
            let node = self.node(rank);
            let e = self.graph.engines;
            let first = (node * e) as usize;
            if let Some(o) = self.fabric.outs.get(self.total_ports() as usize + first) {
                prefetch(o);
            }
            if let Some(&gp) = self.graph.attach.get(first) {
                if let Some(v) = self.fabric.vcq.get((gp.0 * self.fabric.vcs) as usize) {
                    prefetch(v);
                }
            }
            if let Some(m) = self.nics.messages.next_slot() {
                prefetch(m);
            }
            if let Some(p) = self.packets.next_slot() {
                prefetch(p);
            }
        }
    }

    /// Prefetch, along the release lane, what coming releases will read: the input VC an
    /// output release frees (`3k` ahead), the packet behind it, which may request next (`2k`),
    /// and that packet's looked-ahead output (`k`); for an ejection into an on-chip NIC, the
    /// packet (`2k`), then its message and input VC (`k`).
    #[inline]
    pub(crate) fn warm_out_free(&self) {
        let k = AHEAD;
        let slots = self.packets.slots();
        let vc_of = |out: u32, bit: u8| self.fabric.vcq.get((self.first_vc_of(out) + bit as u32) as usize);
        if let Some(&Ev::OutFree { out, bit }) = self.queue.lane_ahead(lane::OUT_FREE, 3 * k) {
            if let Some(v) = vc_of(out, bit) {
                prefetch(v);
            }
        }
        match self.queue.lane_ahead(lane::OUT_FREE, 2 * k) {
            Some(&Ev::OutFree { out, bit }) => {
                if let Some(p) = vc_of(out, bit).and_then(|v| slots.get(v.head.index())) {
                    prefetch(p);
                }
            }
            Some(&Ev::EjectDone(pkt)) => {
                if let Some(p) = slots.get(pkt.index()) {
                    prefetch(p);
                }
            }
            _ => {}
        }
        match self.queue.lane_ahead(lane::OUT_FREE, k) {
            Some(&Ev::OutFree { out, bit }) => {
                let next = vc_of(out, bit).and_then(|v| slots.get(v.head.index()));
                if let Some(o) = next.and_then(|p| self.fabric.outs.get(p.out as usize)) {
                    prefetch(o);
                }
            }
            Some(&Ev::EjectDone(pkt)) => {
                if let Some(p) = slots.get(pkt.index()) {
                    if let Some(m) = self.nics.messages.slots().get(p.msg as usize) {
                        prefetch(m);
                    }
                    if let Some(v) = self.fabric.vcq.get(p.q.index()) {
                        prefetch(v);
                    }
                }
            }
            _ => {}
        }
    }
}

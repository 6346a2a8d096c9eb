//! Adaptive packets that find no room on any of their hops wait for room on any of them.
//!
//! A router whose VCs request an output only once that output's link and downstream credit are
//! there (as the Blue Gene/Q router arbitrates) never commits a blocked dynamic packet to one
//! hop: the packet stays in its queue and takes whichever of its hops, adaptive or escape, has
//! room first. Committing it to the escape hop whenever nothing has room at the instant it
//! looks would send most packets of a loaded network onto the escape sub-network, where they
//! stay (deterministic to their destination) even when an adaptive buffer frees a moment later.
//!
//! So a head packet of an adaptive routing whose selection finds no candidate with room (and
//! that still has adaptive candidates) *sleeps*: it requests nothing, and every downstream VC
//! of its candidates gets a credit waiter (credit returns to them travel as events). A credit
//! return to one of the router's outputs that a sleeper could use wakes it: it chooses again in
//! that instant's phase, among the same candidates, and sleeps again if what came back is not
//! enough. Escape credit always returns (the escape sub-network is deadlock-free), so sleeping
//! keeps Duato's guarantee: a blocked packet can always take the escape hop once it has room.
//!
//! `[routing] blocked = "escape"` (`Routing::committing`) restores the committing behaviour,
//! for comparison.

use crate::fabric::records::InputVcId;
use crate::packet::PacketId;
use crate::sim::Core;
use fabricsim_stats::Observer;

/// A sleeping head packet: its input VC, the packet, and the local output ports of its
/// candidates (bit `min(port, 63)`).
#[derive(Debug, Clone, Copy)]
#[cfg_attr(feature = "seam-guard", derive(Hash))]
struct Sleeper {
    q: u32,
    pkt: u32,
    ports: u64,
}

/// Every router's sleepers.
#[derive(Debug, Default)]
pub(crate) struct Sleepers {
    /// Per router: its sleeping heads.
    by_router: Vec<Vec<Sleeper>>,
    /// Per router: the union of its sleepers' port bits (a credit return on another port
    /// wakes nobody).
    ports: Vec<u64>,
    scratch: Vec<(u32, u32)>,
}

impl Sleepers {
    /// Hash router `r`'s sleepers into `h` (for the seam guard).
    #[cfg(feature = "seam-guard")]
    pub(crate) fn digest(&self, r: u32, h: &mut impl std::hash::Hasher) {
        use std::hash::Hash;
        self.by_router[r as usize].hash(h);
        self.ports[r as usize].hash(h);
    }

    pub(crate) fn new(routers: u32) -> Self {
        Sleepers { by_router: vec![Vec::new(); routers as usize], ports: vec![0; routers as usize], ..Sleepers::default() }
    }
}

#[inline]
fn port_bit(local: u32) -> u64 {
    1 << local.min(63)
}

impl<O: Observer> Core<O> {
    /// Head packet `pkt` of input VC `q`, at `router` (first global port `base`), found no
    /// candidate in `self.fabric.cands` with room: put it to sleep if it has an adaptive candidate
    /// (true), else leave it to wait for its single (escape) hop (false).
    #[cold]
    #[inline(never)]
    pub(crate) fn sleep(&mut self, pkt: PacketId, q: InputVcId, router: u32, base: u32) -> bool {
        if self.fabric.cands.as_slice().iter().all(|h| h.escape) {
            return false;
        }
        let mut ports = 0u64;
        for i in 0..self.fabric.cands.len() {
            let h = self.fabric.cands.as_slice()[i];
            let out = base + h.port;
            let o = &self.fabric.outs[out as usize];
            if o.class == crate::fabric::channel::TERMINAL {
                continue; // an ejection never lacks room
            }
            self.wait_for_credit(out, h.vc);
            ports |= port_bit(h.port);
        }
        let s = self.fabric.sleepers.as_deref_mut().expect("sleeping needs sleepers");
        s.by_router[router as usize].push(Sleeper { q: q.0, pkt: pkt.0, ports });
        s.ports[router as usize] |= ports;
        true
    }

    /// Credit came back to output `port`: wake its router's sleepers that could use it (they
    /// choose again in this instant's phase).
    #[cold]
    #[inline(never)]
    pub(crate) fn wake_sleepers(&mut self, port: u32) {
        let (router, base) = self.router_of(port);
        let bit = port_bit(port - base);
        let Some(s) = self.fabric.sleepers.as_deref_mut() else { return };
        if s.ports[router as usize] & bit == 0 {
            return;
        }
        let mut woken = std::mem::take(&mut s.scratch);
        let mut union = 0;
        s.by_router[router as usize].retain(|e| {
            if e.ports & bit != 0 {
                woken.push((e.q, e.pkt));
                false
            } else {
                union |= e.ports;
                true
            }
        });
        s.ports[router as usize] = union;
        for &(q, pkt) in &woken {
            let v = &self.fabric.vcq[q as usize];
            if v.head.0 == pkt && !v.busy() {
                self.ready_again(InputVcId(q));
            }
        }
        woken.clear();
        if let Some(s) = self.fabric.sleepers.as_deref_mut() {
            s.scratch = woken;
        }
    }
}

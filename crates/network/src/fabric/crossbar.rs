//! A shared crossbar input per router port (`NetworkParams::shared_crossbar`): the VCs of a
//! port take turns at it, one packet at a time, ranked as an output ranks its requesters (by
//! class, then round-robin), whatever order the outputs decide in.

use crate::fabric::records::InputVcId;
use crate::packet::PacketId;
use crate::sim::Core;
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// Whether input VC `q` may take its port's crossbar input `now` (always, with a crossbar
    /// input per VC).
    #[inline(always)]
    pub(crate) fn input_free(&mut self, q: InputVcId, now: u64) -> bool {
        self.fabric.in_busy.is_empty() || self.crossbar(q, now).is_ok()
    }

    /// Shared crossbar: may input VC `q` take its port's crossbar input `now`? `Err(None)`: the
    /// input still carries a packet. `Err(Some(out))`: another VC of the port comes first there
    /// and could be granted now (its request at idle output `out` has credit): a higher class,
    /// or the same class and next in the port's round-robin. The input arbitrates among its
    /// VCs as an output does among its requesters, whatever order the outputs decide in.
    pub(crate) fn crossbar(&mut self, q: InputVcId, now: u64) -> Result<(), Option<u32>> {
        let (port, vc) = self.fabric.vcs_div.div_rem(q.0);
        if self.fabric.in_busy[port as usize] > now {
            return Err(None);
        }
        let (vcs, rr) = (self.fabric.vcs, self.fabric.in_rr[port as usize] as u32);
        let rank = |prio: u8, v: u32| (prio, vcs - (v + vcs - rr - 1) % vcs);
        let mine = rank(self.fabric.vcq[q.index()].prio, vc);
        let slots = self.fabric.slots;
        for s in (0..vcs).filter(|&s| s != vc) {
            let other = port * vcs + s;
            let v = self.fabric.vcq[other as usize];
            if rank(v.prio, s) < mine {
                continue;
            }
            if let Some(out) = self.head_request(other) {
                if self.fabric.outs[out as usize].busy_until <= now && self.credit(out, v.out_vc) >= v.need(slots) {
                    return Err(Some(out));
                }
            }
        }
        Ok(())
    }

    /// The output the head packet of input VC `q` requests now (its request bit is set), if any.
    pub(crate) fn head_request(&self, q: u32) -> Option<u32> {
        let v = &self.fabric.vcq[q as usize];
        if v.head == PacketId::NIL || v.busy() {
            return None;
        }
        let out = self.packets.get(v.head).out;
        let o = self.fabric.outs.get(out as usize)?;
        (o.requests() >> (q - o.qbase) & 1 != 0).then_some(out)
    }

    /// Output `out` passed over a request whose port's crossbar input goes first to a request
    /// at output `first`: both arbitrate again at the end of the instant, after the outputs
    /// posted for it (see `Core::end_instant`), until every such input is settled.
    #[inline(never)]
    pub(crate) fn retry_crossbar(&mut self, out: u32, first: u32) {
        self.fabric.xbar_retry.extend([out, first]);
        self.phase.due = true;
    }

    /// The crossbar input of input VC `q`'s port has freed: the outputs that the port's other
    /// VCs' heads request arbitrate again (they were passed over while it was busy).
    #[inline(never)]
    pub(crate) fn crossbar_input_freed(&mut self, q: InputVcId) {
        let (port, _) = self.fabric.vcs_div.div_rem(q.0);
        for other in (port * self.fabric.vcs..(port + 1) * self.fabric.vcs).filter(|&o| o != q.0) {
            if let Some(out) = self.head_request(other) {
                self.post_arbitration(out);
                if self.fabric.flits_on {
                    self.flit_released(out);
                }
            }
        }
    }
}

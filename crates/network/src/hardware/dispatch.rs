//! How the core reaches its hardware units: by index (events), by message op (deliveries and
//! agent packet heads), by collective kind (starts), and all of them in order (the phase).

use super::{UnitCx, NO_HARDWARE};
use crate::packet::PacketId;
use crate::sim::Core;
use fabricsim_nic::{HwCollective, HwGroup, Rank};
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// Run `f` on unit `i` with the core as its context. The unit list is out of the core
    /// meanwhile: nothing a unit does through its context reaches another unit at once.
    fn with_unit<R>(&mut self, i: usize, f: impl FnOnce(&mut dyn super::Unit, &mut UnitCx<'_, O>) -> R) -> R {
        let mut units = std::mem::take(&mut self.hardware.units);
        let r = f(&mut *units[i], &mut UnitCx { core: self, unit: i as u8 });
        debug_assert!(self.hardware.units.is_empty(), "a unit reached the units through its context");
        self.hardware.units = units;
        r
    }

    /// Make in-network collective group `g` in every unit.
    pub(crate) fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        let nodes = self.group_nodes(g)?;
        if !self.hardware.any() {
            return Err(NO_HARDWARE.to_string());
        }
        for i in 0..self.hardware.units.len() {
            self.with_unit(i, |u, cx| u.group(cx, g, &nodes))?;
        }
        Ok(())
    }

    /// Member `rank` starts collective `c` on the unit that runs its kind.
    pub(crate) fn collective_start(&mut self, rank: Rank, c: HwCollective) -> Result<(), String> {
        let i = self.hardware.for_kind(c.kind).ok_or_else(|| NO_HARDWARE.to_string())?;
        self.with_unit(i, |u, cx| u.start(cx, rank, c))
    }

    /// The result of member `rank`'s last collective on group `group`.
    pub(crate) fn collective_value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        self.hardware.units.first()?.value(rank, group)
    }

    /// An `Ev::Unit` event.
    #[cold]
    #[inline(never)]
    pub(crate) fn unit_event(&mut self, unit: u8, e: u32) {
        self.with_unit(unit as usize, |u, cx| u.on_event(cx, e));
    }

    /// A message of op `op` (a unit's) was delivered to rank `dst`.
    #[cold]
    #[inline(never)]
    pub(crate) fn unit_message(&mut self, op: u8, tag: u64, dst: u32, bytes: u64) {
        let i = self.hardware.of_op(op).expect("a hardware message without its unit");
        self.with_unit(i, |u, cx| u.on_message(cx, tag, dst, bytes));
    }

    /// An agent packet's head reached its node's logic (`Ev::AgentHead`).
    #[cold]
    #[inline(never)]
    pub(crate) fn unit_head(&mut self, pkt: PacketId) {
        let m = self.nics.messages.get(self.packets.get(pkt).msg);
        let (op, tag) = (m.op, m.tag);
        let i = self.hardware.of_op(op).expect("an agent packet without its unit");
        self.with_unit(i, |u, cx| u.on_head(cx, tag));
    }

    /// The units' part of the phase, in their order.
    #[inline(never)]
    pub(crate) fn hardware_phase(&mut self) {
        for i in 0..self.hardware.units.len() {
            if self.hardware.units[i].phase_due() {
                self.with_unit(i, |u, cx| u.phase(cx));
            }
        }
    }

    /// Members whose collective ended, as (rank, tag), from every unit.
    pub(crate) fn take_done(&mut self) -> Vec<(u32, u64)> {
        let mut done = Vec::new();
        for u in &mut self.hardware.units {
            done.append(u.done());
        }
        done
    }

    /// Whether the end of the instant must run the phase again.
    pub(crate) fn hardware_ends_more(&mut self) -> bool {
        self.hardware.units.iter_mut().any(|u| u.ends_more())
    }
}

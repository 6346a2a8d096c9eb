//! Packets lost on a link with protection `none`, and the messages they belonged to (counted,
//! never completed to the workload), and the messages of packets stopped on a cut pair.

use crate::packet::PacketId;
use crate::sim::Core;
use fabricsim_stats::Observer;

impl<O: Observer> Core<O> {
    /// Packet `pkt` failed its CRC check on a link without recovery: it is gone. Its bytes
    /// count towards its message as far as completion goes, but a message that lost a packet
    /// is dropped, not delivered, once its last byte is in (see [`Core::drop_if_lost`]).
    #[cold]
    pub(crate) fn lose_packet(&mut self, pkt: PacketId) {
        let p = *self.packets.get(pkt);
        self.packets.remove(pkt);
        self.meter.in_network -= 1;
        self.meter.out.packets_lost += 1;
        self.meter.last_progress = self.meter.last_progress.max(self.queue.now().ps());
        if let Some(f) = self.faults.as_deref_mut() {
            f.lost_messages.insert(p.msg);
        }
        let m = self.nics.messages.get_mut(p.msg);
        m.delivered += p.payload as u64;
        if m.delivered >= m.bytes {
            self.drop_if_lost(p.msg);
        }
    }

    /// Message `msg` has all its bytes in: if it lost a packet or had one stopped (its pair cut
    /// off), drop it (counted) and say so.
    #[cold]
    pub(crate) fn drop_if_lost(&mut self, msg: u32) -> bool {
        let Some(f) = self.faults.as_deref_mut() else { return false };
        if f.lost_messages.remove(&msg) {
            f.counts.messages_lost += 1;
            f.cut_messages.remove(&msg);
        } else if f.cut_messages.remove(&msg) {
            f.counts.messages_cut += 1;
        } else {
            return false;
        }
        let m = *self.nics.messages.get(msg);
        self.nics.messages.remove(msg);
        if m.measured {
            self.meter.measured_outstanding -= 1;
        }
        true
    }
}

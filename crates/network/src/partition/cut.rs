//! One block's side of the links cut by a partition: what leaves over them during a window
//! (packets, credit returns, and notices that a message of another block's node has completed
//! here), and what arrives from other blocks when the next window starts. Only the link seam
//! (`fabric/link.rs`) and message completion call in here.

use crate::fabric::link;
use crate::fabric::records::{InputVcId, FROM_OTHER_BLOCK};
use crate::packet::{Message, Packet, PacketId};
use crate::sim::Core;
use fabricsim_stats::Observer;
use std::collections::HashMap;
use std::sync::Arc;

/// Which block everything belongs to: shared, read-only, by every block of a run.
#[derive(Debug)]
pub(crate) struct Layout {
    /// Block of each router.
    pub(crate) router_block: Vec<u32>,
    /// Block of each node (its NIC's router's).
    pub(crate) node_block: Vec<u32>,
    /// One bit per router port whose link leads to a router of another block.
    pub(crate) cut_ports: Vec<u64>,
    pub(crate) blocks: u32,
}

impl Layout {
    #[inline(always)]
    pub(crate) fn is_cut(&self, port: u32) -> bool {
        self.cut_ports.get(port as usize / 64).is_some_and(|w| w >> (port % 64) & 1 != 0)
    }
}

/// A packet crossing a cut link: the packet, what its destination's NIC needs of its message,
/// and what `link::forward` would have done with it downstream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CutPacket {
    pub(crate) p: Packet,
    pub(crate) m: Message,
    /// Its message's handle in the block of its source node.
    pub(crate) origin_msg: u32,
    pub(crate) ds_q: InputVcId,
    pub(crate) tail: u64,
    pub(crate) ready: u64,
    pub(crate) back_to_back: bool,
}

/// A credit return crossing a cut link back to its sender, with the time it was returned.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CutCredit {
    pub(crate) q: InputVcId,
    pub(crate) bytes: u32,
    pub(crate) at: u64,
    pub(crate) silent: bool,
}

/// What one block sends another during a window, in the order it was sent.
#[derive(Debug, Default)]
pub(crate) struct Outbox {
    pub(crate) packets: Vec<CutPacket>,
    pub(crate) credits: Vec<CutCredit>,
    /// Handles (in the receiving block) of messages that completed here: the receiver may free
    /// and reuse them.
    pub(crate) frees: Vec<u32>,
}

impl Outbox {
    pub(crate) fn is_empty(&self) -> bool {
        self.packets.is_empty() && self.credits.is_empty() && self.frees.is_empty()
    }
}

/// A block's cut links and what crosses them.
#[derive(Debug)]
pub(crate) struct Cut {
    pub(crate) me: u32,
    pub(crate) layout: Arc<Layout>,
    /// Per destination block.
    pub(crate) out: Vec<Outbox>,
    /// Messages of other blocks' nodes with packets here (or ending here): (block of the
    /// source node, handle there) -> a copy in this block's message slab. A copy keeps the
    /// source's handle in `next` and the number of its packets here in `packetized`.
    pub(crate) copies: HashMap<(u32, u32), u32>,
}

impl Cut {
    pub(crate) fn new(me: u32, layout: Arc<Layout>) -> Self {
        let out = (0..layout.blocks).map(|_| Outbox::default()).collect();
        Cut { me, layout, out, copies: HashMap::new() }
    }

    /// Whether `node` is this block's.
    #[inline]
    pub(crate) fn owns_node(&self, node: u32) -> bool {
        self.layout.node_block[node as usize] == self.me
    }
}

impl<O: Observer> Core<O> {
    /// Make this core block `me` of a partitioned run laid out by `layout`.
    pub(crate) fn join_partition(&mut self, me: u32, layout: Arc<Layout>) {
        let vcs = self.fabric.vcs;
        for port in (0..self.graph.total_ports()).filter(|&p| layout.is_cut(p)) {
            for q in port * vcs..(port + 1) * vcs {
                self.fabric.vcq[q as usize].flags |= FROM_OTHER_BLOCK;
            }
        }
        self.fabric.special = true;
        self.cut = Some(Box::new(Cut::new(me, layout)));
    }

    /// Packet `pkt` leaves over cut output `out` into input VC `ds_q` of a router of another
    /// block (its head and tail times as `link::forward` takes them; the sender's credit is
    /// already spent): it is sent there with what its destination needs of its message.
    pub(crate) fn cut_send(&mut self, out: u32, pkt: PacketId, ds_q: InputVcId, tail: u64, ready: u64, back_to_back: bool) {
        let p = *self.packets.get(pkt);
        self.packets.remove(pkt);
        let cut = self.cut.as_deref_mut().expect("a cut link in a partitioned run");
        let origin = cut.layout.node_block[p.src as usize];
        let (m, origin_msg) = if origin == cut.me {
            (*self.nics.messages.get(p.msg), p.msg)
        } else {
            let c = self.nics.messages.get_mut(p.msg);
            c.packetized -= 1;
            let (m, origin_msg) = (*c, c.next);
            // A copy in a block the message only crosses goes with its last packet here.
            if c.packetized == 0 && cut.layout.node_block[p.dst as usize] != cut.me {
                self.nics.messages.remove(p.msg);
                cut.copies.remove(&(origin, origin_msg));
            }
            (m, origin_msg)
        };
        let to = cut.layout.router_block[self.graph.owner[self.fabric.outs[out as usize].peer as usize].index()];
        cut.out[to as usize].packets.push(CutPacket { p, m, origin_msg, ds_q, tail, ready, back_to_back });
    }

    /// A packet from another block arrives (at the start of a window, before its head does):
    /// it joins its input VC as `link::forward` would have put it there when it left.
    pub(crate) fn cut_arrive(&mut self, cp: &CutPacket) {
        let mut p = cp.p;
        let cut = self.cut.as_deref_mut().expect("arrivals in a partitioned run");
        let origin = cut.layout.node_block[p.src as usize];
        p.msg = if origin == cut.me {
            cp.origin_msg
        } else {
            let messages = &mut self.nics.messages;
            let local = *cut.copies.entry((origin, cp.origin_msg)).or_insert_with(|| {
                let m = Message { next: cp.origin_msg, packetized: 0, delivered: 0, ..cp.m };
                messages.insert(m)
            });
            messages.get_mut(local).packetized += 1;
            local
        };
        let pkt = self.packets.insert(p);
        let (vcq, packets) = (&mut self.fabric.vcq[..], self.packets.slots_mut());
        let join = link::pool_queue(vcq, packets, cp.ds_q);
        link::arrive(&mut self.fabric.crossings, vcq, packets, &mut self.queue, pkt, join, cp.tail, cp.ready, cp.back_to_back);
    }

    /// Whether input VC `q`'s sender is in another block (flagged in the VC's record, which a
    /// release has at hand): its credit returns are sent there.
    #[inline(always)]
    pub(crate) fn cut_credit(&mut self, q: InputVcId, bytes: u32, now: u64, silent: bool) -> bool {
        if self.fabric.vcq[q.index()].flags & FROM_OTHER_BLOCK == 0 {
            return false;
        }
        let cut = self.cut.as_deref_mut().expect("a VC fed from another block is in a partitioned run");
        let port = self.fabric.vcs_div.div(q.0);
        let up = self.fabric.upstream[port as usize];
        let to = cut.layout.router_block[self.graph.owner[up as usize].index()];
        cut.out[to as usize].credits.push(CutCredit { q, bytes, at: now, silent });
        self.fabric.crossings.credit(q);
        true
    }

    /// Message `m` (handle `msg` here) completed: if it is a copy of another block's message,
    /// forget the copy and let the source's block free its record.
    pub(crate) fn cut_complete(&mut self, m: &Message) {
        let node = self.node(m.src);
        let Some(cut) = self.cut.as_deref_mut() else { return };
        let origin = cut.layout.node_block[node as usize];
        if origin != cut.me {
            cut.copies.remove(&(origin, m.next));
            cut.out[origin as usize].frees.push(m.next);
        }
    }

    /// Take in what another block sent during the window that just ended.
    pub(crate) fn take_in(&mut self, from: &Outbox) {
        for &h in &from.frees {
            self.nics.messages.remove(h);
        }
        for c in &from.credits {
            self.credit_back(c.q, c.bytes, c.at, c.silent);
        }
        for cp in &from.packets {
            self.cut_arrive(cp);
        }
    }
}

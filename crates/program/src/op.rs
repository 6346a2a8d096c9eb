//! Operations of a per-rank program, and the buffer slots they move.

use fabricsim_core::{Bandwidth, Time};

/// A set of slots of a rank's buffer, in a fixed order (a message carries its slots in this
/// order, and the receiver stores them in the order of its own set). Compact and `Copy`, so
/// programs of 160k ranks can be generated operation by operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slots {
    /// No data (a flag message, as a barrier's).
    None,
    /// `count` slots from `start` upwards within the window `[base, base + window)`, wrapping
    /// at its end.
    Range { base: u32, window: u32, start: u32, count: u32 },
    /// `count` slots from `start` downwards within the window, wrapping at its start.
    Down { base: u32, window: u32, start: u32, count: u32 },
    /// The slots `base + p`, `p` in `0..window`, whose bit `bit` is set.
    Bit { base: u32, window: u32, bit: u8 },
    /// Opaque data of this many bytes, in no slot (a program written by hand or replayed from
    /// a trace says how much it sends, not what).
    Bytes(u64),
}

impl Slots {
    /// `count` consecutive slots from `start`, in a window of the whole buffer (`total` slots).
    pub fn range(start: u32, count: u32, total: u32) -> Slots {
        Slots::Range { base: 0, window: total.max(1), start: start % total.max(1), count }
    }

    /// How many slots.
    pub fn count(&self) -> u32 {
        match *self {
            Slots::None | Slots::Bytes(_) => 0,
            Slots::Range { count, .. } | Slots::Down { count, .. } => count,
            Slots::Bit { window, bit, .. } => {
                // Numbers below `window` with bit `bit` set: full periods, then the partial one.
                let period = 2u64 << bit;
                let half = 1u64 << bit;
                let w = window as u64;
                ((w / period) * half + (w % period).saturating_sub(half)) as u32
            }
        }
    }

    /// The slots, in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let s = *self;
        let n = match s {
            Slots::Bit { window, .. } => window,
            _ => s.count(),
        };
        (0..n).filter_map(move |i| match s {
            Slots::None | Slots::Bytes(_) => None,
            Slots::Range { base, window, start, .. } => Some(base + (start + i) % window),
            Slots::Down { base, window, start, .. } => Some(base + (start + window - i % window) % window),
            Slots::Bit { base, bit, .. } => (i >> bit & 1 == 1).then_some(base + i),
        })
    }
}

/// How received slots join what the receiver holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// Replace (a copy: broadcast, gather, all-to-all).
    Copy,
    /// Reduce into (a sum: the contributions must be disjoint, or one would count twice).
    Reduce,
    /// Merge what is known (an idempotent "or": a barrier's knowledge of who has arrived).
    Union,
}

/// One operation of a rank's program. A rank runs its operations in order: a Put or Get is
/// posted and the rank goes on at once (the NIC works meanwhile); a Wait blocks until the
/// matching message has arrived (it may have arrived earlier: data lands by RDMA, without a
/// posted receive); a Compute blocks for its duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Write `slots` of this rank's buffer into rank `to`, tagged `tag`.
    Put { to: u32, slots: Slots, tag: u32 },
    /// Read `slots` of rank `from` (a Get, answered by `from`'s NIC). The data is this rank's
    /// message from `from` tagged `tag`: a Wait names it, and says where it goes.
    Get { from: u32, slots: Slots, tag: u32 },
    /// Block until the message tagged `tag` from rank `from` has arrived, and store it in
    /// `into` with `combine`.
    Wait { from: u32, tag: u32, into: Slots, combine: Combine },
    /// Block until messages from rank `from` tagged `tag` totalling at least `bytes` have
    /// arrived (a byte count, as a stream or a trace gives it); they are consumed whole. Meant
    /// for opaque data ([`Slots::Bytes`]); do not mix with Waits on the same rank and tag.
    WaitBytes { from: u32, tag: u32, bytes: u64 },
    /// Block until every Put and Get this rank has posted (in any of its lanes) has completed:
    /// the Put's data delivered, the Get's data back.
    WaitAll,
    /// Local copy of `from` into `to` (free: a buffer rotation of Bruck's algorithms).
    Copy { from: Slots, to: Slots },
    /// Block for a duration of local work.
    Compute(Time),
    /// Cap the injection rate of this rank's following Puts (`None`: lift the cap), as the
    /// NIC's injection rate control does.
    Rate(Option<Bandwidth>),
    /// Send this rank's following Puts on this injection engine of its node (`None`: let the
    /// NIC deal them round-robin).
    Engine(Option<u8>),
    /// Start an in-network collective (`kind` over the ranks and resources of `group`, this
    /// rank contributing `slots`), tagged `tag`; the rank goes on at once. Networks without the
    /// hardware refuse it (the run fails, naming it).
    HwStart { kind: fabricsim_nic::HwKind, group: u32, slots: Slots, tag: u32 },
    /// Block until this rank's in-network collective tagged `tag` is over.
    HwWait { tag: u32 },
}

impl Op {
    /// What a rank blocked at this operation waits for, in words (`waits for rank 0's message
    /// tagged 1`); the operations that do not block say what they do.
    pub fn waiting_for(&self) -> String {
        match *self {
            Op::Wait { from, tag, .. } => format!("waits for rank {from}'s message tagged {tag}"),
            Op::WaitBytes { from, tag, bytes } => format!("waits for {bytes} B from rank {from} tagged {tag}"),
            Op::WaitAll => "waits for its puts and gets to complete".into(),
            Op::HwWait { tag } => format!("waits for the end of its in-network collective tagged {tag}"),
            Op::Compute(t) => format!("computes for {t}"),
            Op::Put { to, tag, .. } => format!("puts into rank {to} (tag {tag})"),
            Op::Get { from, tag, .. } => format!("gets from rank {from} (tag {tag})"),
            Op::HwStart { kind, group, tag, .. } => format!("starts an in-network {kind:?} on group {group} (tag {tag})").to_lowercase(),
            Op::Copy { .. } => "copies locally".into(),
            Op::Rate(_) => "sets its rate".into(),
            Op::Engine(_) => "chooses its engine".into(),
        }
    }
}

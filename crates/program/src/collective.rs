//! The collective operations: what each rank holds before and must hold after, and how the
//! usual bandwidth figures are normalised.

use crate::check::Item;
use serde::Serialize;

/// A collective operation on `P` ranks. `size` (bytes) is one rank's buffer: the vector of a
/// broadcast, reduce or allreduce; the gathered result of an allgather; the input of a
/// reduce-scatter; everything a rank sends in an all-to-all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    Barrier,
    Broadcast,
    Reduce,
    Allgather,
    ReduceScatter,
    Allreduce,
    AllToAll,
}

impl Collective {
    pub const ALL: [Collective; 7] = [
        Collective::Barrier,
        Collective::Broadcast,
        Collective::Reduce,
        Collective::Allgather,
        Collective::ReduceScatter,
        Collective::Allreduce,
        Collective::AllToAll,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Collective::Barrier => "barrier",
            Collective::Broadcast => "broadcast",
            Collective::Reduce => "reduce",
            Collective::Allgather => "allgather",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::Allreduce => "allreduce",
            Collective::AllToAll => "all_to_all",
        }
    }

    pub fn parse(s: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == s || c.name().replace('_', "") == s.replace(['_', '-'], ""))
    }

    /// What the operation's layout requires of a program's slot count, or why it is wrong:
    /// a block per rank (or several) for allgather and reduce-scatter, a send and a receive
    /// block per rank for all-to-all, one slot for a barrier.
    pub fn check_slots(self, ranks: u32, slots: u32) -> Result<(), String> {
        let ok = match self {
            Collective::Allgather | Collective::ReduceScatter => slots > 0 && slots.is_multiple_of(ranks.max(1)),
            Collective::AllToAll => slots == 2 * ranks,
            Collective::Barrier => slots == 1,
            _ => slots > 0,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("{} cannot use {slots} slots per rank on {ranks} ranks", self.name()))
        }
    }

    /// Bus bandwidth over algorithm bandwidth (the normalisation NCCL's performance notes
    /// use): the fraction of the buffer every rank must move over its links whatever the
    /// algorithm, so a figure near the link bandwidth means the links were kept busy.
    pub fn bus_factor(self, ranks: u32) -> Option<f64> {
        let n = ranks as f64;
        match self {
            Collective::Barrier => None,
            Collective::Broadcast | Collective::Reduce => Some(1.0),
            Collective::Allreduce => Some(2.0 * (n - 1.0) / n),
            Collective::Allgather | Collective::ReduceScatter | Collective::AllToAll => Some((n - 1.0) / n),
        }
    }

    /// What `rank` holds in `slot` before the operation (root: rank 0 for rooted operations);
    /// `owner`: the rank the slot's block belongs to (gather-like layouts).
    pub fn initial(self, ranks: u32, rank: u32, slot: u32, owner: u32) -> Option<Item> {
        match self {
            Collective::Barrier => Some(Item::of(0, ranks, &[rank])),
            Collective::Broadcast => (rank == 0).then(|| Item::of(slot, ranks, &[0])),
            Collective::Reduce | Collective::Allreduce | Collective::ReduceScatter => Some(Item::of(slot, ranks, &[rank])),
            Collective::Allgather => (owner == rank).then(|| Item::of(slot, ranks, &[rank])),
            // Send buffer: the block for each destination; receive buffer empty.
            Collective::AllToAll => (slot < ranks).then(|| Item::of(rank * ranks + slot, ranks, &[rank])),
        }
    }

    /// What `rank` must hold in `slot` afterwards (`None`: anything).
    pub fn expected(self, ranks: u32, rank: u32, slot: u32, owner: u32) -> Option<Item> {
        let all: Vec<u32> = (0..ranks).collect();
        match self {
            Collective::Barrier => Some(Item::of(0, ranks, &all)),
            Collective::Broadcast => Some(Item::of(slot, ranks, &[0])),
            Collective::Reduce => (rank == 0).then(|| Item::of(slot, ranks, &all)),
            Collective::Allreduce => Some(Item::of(slot, ranks, &all)),
            Collective::ReduceScatter => (owner == rank).then(|| Item::of(slot, ranks, &all)),
            Collective::Allgather => Some(Item::of(slot, ranks, &[owner])),
            Collective::AllToAll => (slot >= ranks).then(|| {
                let src = slot - ranks;
                Item::of(src * ranks + rank, ranks, &[src])
            }),
        }
    }
}

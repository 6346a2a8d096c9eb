//! The records the queue holds: a heap entry ordered by one `u128`, and a lane entry.

use std::cmp::Ordering;

/// An event in the heap. `order` packs the ordering key (high 64 bits) and a sequence number
/// (low 64 bits), so one `u128` compare orders by key and keeps equal keys in scheduling order.
pub(crate) struct HeapEntry<E> {
    pub(crate) order: u128,
    pub(crate) event: E,
}

impl<E> PartialEq for HeapEntry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.order == o.order
    }
}
impl<E> Eq for HeapEntry<E> {}
impl<E> PartialOrd for HeapEntry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for HeapEntry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the least order first.
    fn cmp(&self, o: &Self) -> Ordering {
        o.order.cmp(&self.order)
    }
}

/// An event in a lane: lanes are FIFO, so no sequence number is needed. `key` is the ordering
/// key (time and rank), from which the time is recovered.
#[derive(Clone, Copy)]
pub(crate) struct LaneEntry<E> {
    pub(crate) key: u64,
    pub(crate) event: E,
}

//! A timing wheel for events that fit no lane: workload timers, mostly, which a node re-arms a
//! random interval ahead each time one fires.
//!
//! Time is cut into buckets of 512 ps ([`SHIFT`]), [`BUCKETS`] of them in a ring covering
//! the near future. An event goes into the bucket of its time (an unsorted list, in a slab), and
//! an occupancy bitmap finds the next non-empty bucket; the earliest event of a bucket is found
//! by scanning it. Scheduling is therefore O(1), and taking the earliest event costs a bitmap
//! scan and a short list walk, where a binary heap walks about log2(n) levels with a dependent
//! load and an unpredictable comparison at each.
//!
//! The wheel refuses an event beyond its horizon or into a bucket that already holds
//! [`CROWDED`] events (dense timers would make the scan long); the queue keeps those in its
//! heap and takes whichever of the two fronts comes first, so the order of events is exactly
//! the heap's: by `order` (ordering key, then sequence number).

const NIL: u32 = u32::MAX;
/// log2 of the bucket width in picoseconds: 512 ps.
const SHIFT: u32 = 9;
/// Buckets in the ring: a horizon of about 2.1 us.
pub(crate) const BUCKETS: usize = 4096;
/// Most events a bucket takes.
pub(crate) const CROWDED: u8 = 8;

#[derive(Clone, Copy)]
struct Slot<E> {
    order: u128,
    event: E,
    next: u32,
}

pub(crate) struct Wheel<E> {
    slots: Vec<Slot<E>>,
    /// Free slots, linked through `next`.
    free: u32,
    /// First slot of each bucket's list.
    heads: Vec<u32>,
    counts: Vec<u8>,
    /// One bit per bucket: non-empty.
    occupied: Vec<u64>,
    len: usize,
    /// Order of the earliest event, `u128::MAX` when empty.
    front: u128,
}

/// The time in an `order` (see the queue's ordering key: time, then 4 rank bits, then the
/// 64-bit sequence number).
#[inline]
fn time_of(order: u128) -> u64 {
    (order >> (64 + crate::RANK_BITS)) as u64
}

#[inline]
fn bucket_of(time: u64) -> usize {
    (time >> SHIFT) as usize & (BUCKETS - 1)
}

impl<E: Copy> Wheel<E> {
    pub(crate) fn new() -> Self {
        Wheel {
            slots: Vec::new(),
            free: NIL,
            heads: vec![NIL; BUCKETS],
            counts: vec![0; BUCKETS],
            occupied: vec![0; BUCKETS / 64],
            len: 0,
            front: u128::MAX,
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Order of the earliest event (`u128::MAX`: none).
    #[inline]
    pub(crate) fn front(&self) -> u128 {
        self.front
    }

    /// The earliest event, if any.
    pub(crate) fn peek(&self) -> Option<&E> {
        (self.front != u128::MAX).then(|| &self.slots[self.find(self.front).1 as usize].event)
    }

    /// Take `event` (at `order`; its time is at least `now`) unless it lies beyond the horizon
    /// or its bucket is crowded; it is handed back then.
    #[inline]
    pub(crate) fn push(&mut self, now: u64, order: u128, event: E) -> Result<(), E> {
        let time = time_of(order);
        if (time >> SHIFT) - (now >> SHIFT) >= BUCKETS as u64 {
            return Err(event);
        }
        let b = bucket_of(time);
        if self.counts[b] >= CROWDED {
            return Err(event);
        }
        let slot = Slot { order, event, next: self.heads[b] };
        let i = if self.free != NIL {
            let i = self.free;
            self.free = self.slots[i as usize].next;
            self.slots[i as usize] = slot;
            i
        } else {
            self.slots.push(slot);
            (self.slots.len() - 1) as u32
        };
        self.heads[b] = i;
        self.counts[b] += 1;
        self.occupied[b / 64] |= 1 << (b % 64);
        self.len += 1;
        self.front = self.front.min(order);
        Ok(())
    }

    /// The slot before the one holding `order` in its bucket's list (`NIL`: it is the head),
    /// and that slot.
    fn find(&self, order: u128) -> (u32, u32) {
        let (mut prev, mut i) = (NIL, self.heads[bucket_of(time_of(order))]);
        while self.slots[i as usize].order != order {
            (prev, i) = (i, self.slots[i as usize].next);
        }
        (prev, i)
    }

    /// Remove the earliest event.
    pub(crate) fn pop(&mut self) -> Option<(u128, E)> {
        if self.front == u128::MAX {
            return None;
        }
        let order = self.front;
        let b = bucket_of(time_of(order));
        let (prev, i) = self.find(order);
        let Slot { event, next, .. } = self.slots[i as usize];
        if prev == NIL {
            self.heads[b] = next;
        } else {
            self.slots[prev as usize].next = next;
        }
        self.slots[i as usize].next = self.free;
        self.free = i;
        self.counts[b] -= 1;
        if self.counts[b] == 0 {
            self.occupied[b / 64] &= !(1 << (b % 64));
        }
        self.len -= 1;
        self.front = self.earliest_from(b);
        Some((order, event))
    }

    /// Order of the earliest event, searching buckets from `b` on (every event is at or after
    /// the bucket of the one just taken, and within the horizon of it, so the first non-empty
    /// bucket in ring order holds the earliest).
    fn earliest_from(&self, b: usize) -> u128 {
        if self.len == 0 {
            return u128::MAX;
        }
        let words = BUCKETS / 64;
        let (w0, bit0) = (b / 64, b % 64);
        // The first word from bucket `b` on, then the following words around the ring (the
        // first word again, whole, for buckets before `b` in it).
        let mut found = None;
        let first = self.occupied[w0] & (!0u64 << bit0);
        if first != 0 {
            found = Some(w0 * 64 + first.trailing_zeros() as usize);
        } else {
            for k in 1..=words {
                let w = (w0 + k) % words;
                if self.occupied[w] != 0 {
                    found = Some(w * 64 + self.occupied[w].trailing_zeros() as usize);
                    break;
                }
            }
        }
        let b = found.expect("a non-empty wheel has an occupied bucket");
        let mut i = self.heads[b];
        let mut best = u128::MAX;
        while i != NIL {
            best = best.min(self.slots[i as usize].order);
            i = self.slots[i as usize].next;
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WIDTH: u64 = 1 << SHIFT;

    fn order(time: u64, seq: u64) -> u128 {
        ((time << crate::RANK_BITS) as u128) << 64 | seq as u128
    }

    #[test]
    fn refuses_beyond_the_horizon_and_into_crowded_buckets() {
        let mut w = Wheel::new();
        let now = 5 * WIDTH + 3;
        assert!(w.push(now, order(now + (BUCKETS as u64 - 6) * WIDTH, 1), 'a').is_ok());
        assert_eq!(w.push(now, order(now + BUCKETS as u64 * WIDTH, 2), 'b'), Err('b'));
        for s in 0..CROWDED as u64 {
            assert!(w.push(now, order(now + 10, 10 + s), 'c').is_ok());
        }
        assert_eq!(w.push(now, order(now + 11, 99), 'd'), Err('d'));
        assert_eq!(w.len(), 1 + CROWDED as usize);
    }

    #[test]
    fn pops_in_order_across_the_ring() {
        // Times spread over more than one turn of the ring, pushed as time advances, so
        // buckets are reused; equal times keep their sequence order.
        let mut w = Wheel::new();
        let (mut now, mut seq, mut want) = (0u64, 0u64, Vec::new());
        let mut got = Vec::new();
        for step in 0..3000u64 {
            let t = now + (step * 7919) % (BUCKETS as u64 * WIDTH / 2);
            seq += 1;
            if w.push(now, order(t, seq), seq).is_ok() {
                want.push(order(t, seq));
            }
            if step % 3 == 2 {
                let (o, e) = w.pop().unwrap();
                assert_eq!(o & u64::MAX as u128, e as u128);
                now = time_of(o);
                got.push(o);
            }
        }
        while let Some((o, _)) = w.pop() {
            got.push(o);
        }
        assert!(got.windows(2).all(|p| p[0] < p[1]), "out of order");
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!((w.len(), w.front()), (0, u128::MAX));
    }
}

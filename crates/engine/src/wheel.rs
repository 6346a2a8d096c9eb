//! A timing wheel for events that fit no lane: workload timers, mostly, which a node re-arms a
//! random interval ahead each time one fires.
//!
//! Time is cut into buckets (512 ps to start with), a power of two of them in a ring covering
//! the near future (about 2.1 us). An event goes into the bucket of its time (an unsorted list,
//! in a slab), and an occupancy bitmap finds the next non-empty bucket; the earliest event of a
//! bucket is found by scanning it. Scheduling is therefore O(1), and taking the earliest event
//! costs a bitmap scan and a short list walk, where a binary heap walks about log2(n) levels
//! with a dependent load and an unpredictable comparison at each.
//!
//! The wheel refuses an event beyond its horizon or into a bucket that already holds
//! [`CROWDED`] events (dense timers would make the scan long); the queue keeps those in its
//! heap and takes whichever of the two fronts comes first, so the order of events is exactly
//! the heap's: by `order` (ordering key, then sequence number). When many events are refused
//! for crowding (a large machine's timers: one per node), the wheel halves its bucket width and
//! doubles its buckets, keeping the horizon, up to [`MAX_BUCKETS`].

const NIL: u32 = u32::MAX;
/// log2 of the starting bucket width in picoseconds: 512 ps.
const SHIFT: u32 = 9;
/// Buckets in the ring to start with: a horizon of about 2.1 us.
pub(crate) const BUCKETS: usize = 4096;
/// Most buckets the wheel grows to (with 1 ps buckets, 4 bytes of list head and 1 of count
/// each: about 5 MB).
pub(crate) const MAX_BUCKETS: usize = 1 << 20;
/// Most events a bucket takes.
pub(crate) const CROWDED: u8 = 8;
/// Scheduling attempts between checks of how many were refused for crowding.
const REVIEW_EVERY: u32 = 4096;

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
    /// log2 of the bucket width in ps.
    shift: u32,
    /// First slot of each bucket's list (the length is the number of buckets, a power of two).
    pub(crate) heads: Vec<u32>,
    counts: Vec<u8>,
    /// One bit per bucket: non-empty.
    occupied: Vec<u64>,
    /// One bit per word of `occupied`: non-zero (so a grown, sparse wheel finds its next event
    /// without scanning every word).
    summary: Vec<u64>,
    len: usize,
    /// Order of the earliest event, `u128::MAX` when empty.
    front: u128,
    /// Scheduling attempts, and those refused for crowding, since the last review.
    attempts: u32,
    crowded: u32,
}

/// The time in an `order` (the queue's ordering key in the high 64 bits, the sequence number in
/// the low ones).
#[inline]
fn time_of(order: u128) -> u64 {
    crate::time_of((order >> 64) as u64)
}

impl<E: Copy> Wheel<E> {
    pub(crate) fn new() -> Self {
        Self::with_buckets(SHIFT, BUCKETS)
    }

    fn with_buckets(shift: u32, buckets: usize) -> Self {
        Wheel {
            slots: Vec::new(),
            free: NIL,
            shift,
            heads: vec![NIL; buckets],
            counts: vec![0; buckets],
            occupied: vec![0; buckets / 64],
            summary: vec![0; (buckets / 64).div_ceil(64)],
            len: 0,
            front: u128::MAX,
            attempts: 0,
            crowded: 0,
        }
    }

    #[inline]
    fn bucket_of(&self, time: u64) -> usize {
        (time >> self.shift) as usize & (self.heads.len() - 1)
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
    ///
    /// Every [`REVIEW_EVERY`] attempts, if over a quarter were refused for crowding, the wheel
    /// first grows: finer buckets, same horizon.
    #[inline]
    pub(crate) fn push(&mut self, now: u64, order: u128, event: E) -> Result<(), E> {
        self.attempts += 1;
        if self.attempts == REVIEW_EVERY {
            self.review(now);
        }
        self.insert(now, order, event)
    }

    /// [`Wheel::push`] without the review.
    #[inline]
    fn insert(&mut self, now: u64, order: u128, event: E) -> Result<(), E> {
        let time = time_of(order);
        if (time >> self.shift) - (now >> self.shift) >= self.heads.len() as u64 {
            return Err(event);
        }
        let b = self.bucket_of(time);
        if self.counts[b] >= CROWDED {
            self.crowded += 1;
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
        self.summary[b / 4096] |= 1 << (b / 64 % 64);
        self.len += 1;
        self.front = self.front.min(order);
        Ok(())
    }

    /// Grow (half the bucket width, twice the buckets) if many attempts were refused for
    /// crowding since the last review. Every event still fits: a bucket splits in two, each
    /// taking part of its events, and an event's distance from now in buckets at most doubles,
    /// plus one.
    #[cold]
    fn review(&mut self, now: u64) {
        let crowded = self.crowded > REVIEW_EVERY / 4;
        (self.attempts, self.crowded) = (0, 0);
        if !crowded || self.shift == 0 || self.heads.len() >= MAX_BUCKETS {
            return;
        }
        let mut grown = Self::with_buckets(self.shift - 1, self.heads.len() * 2);
        for b in 0..self.heads.len() {
            let mut i = self.heads[b];
            while i != NIL {
                let s = self.slots[i as usize];
                let kept = grown.insert(now, s.order, s.event);
                assert!(kept.is_ok(), "a finer wheel keeps every event of the coarser one");
                i = s.next;
            }
        }
        grown.crowded = 0;
        *self = grown;
    }

    /// The slot before the one holding `order` in its bucket's list (`NIL`: it is the head),
    /// and that slot.
    fn find(&self, order: u128) -> (u32, u32) {
        let (mut prev, mut i) = (NIL, self.heads[self.bucket_of(time_of(order))]);
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
        let b = self.bucket_of(time_of(order));
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
            if self.occupied[b / 64] == 0 {
                self.summary[b / 4096] &= !(1 << (b / 64 % 64));
            }
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
        let (w0, bit0) = (b / 64, b % 64);
        // Bucket `b` and the rest of its word first; then the next non-empty word in ring order
        // (found through the summary), which may be `b`'s own word again, for the buckets
        // before `b` in it.
        let first = self.occupied[w0] & (!0u64 << bit0);
        let found = if first != 0 {
            Some(w0 * 64 + first.trailing_zeros() as usize)
        } else {
            next_set(&self.summary, (w0 + 1) % self.occupied.len()).map(|w| w * 64 + self.occupied[w].trailing_zeros() as usize)
        };
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

/// The first set bit at or after position `from` of `bits`, in ring order (wrapping to 0).
fn next_set(bits: &[u64], from: usize) -> Option<usize> {
    let (w0, bit0) = (from / 64, from % 64);
    let head = bits[w0] & (!0u64 << bit0);
    if head != 0 {
        return Some(w0 * 64 + head.trailing_zeros() as usize);
    }
    (1..=bits.len()).map(|k| (w0 + k) % bits.len()).find(|&w| bits[w] != 0).map(|w| w * 64 + bits[w].trailing_zeros() as usize)
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

    /// Push `n` events `gap` ps apart (after `now`), popping one after every `pop_every`
    /// pushes; returns every order popped or refused, and the wheel.
    fn churn(n: u64, gap: u64, pop_every: u64) -> (Vec<u128>, Vec<u128>, Wheel<u64>) {
        let mut w = Wheel::new();
        let (mut now, mut popped, mut elsewhere) = (0u64, Vec::new(), Vec::new());
        for seq in 1..=n {
            let t = now + (seq * 7919 * gap) % (BUCKETS as u64 * WIDTH / 2);
            if w.push(now, order(t, seq), seq).is_err() {
                elsewhere.push(order(t, seq));
            }
            if seq % pop_every == 0 {
                let (o, e) = w.pop().unwrap();
                assert_eq!(o & u64::MAX as u128, e as u128);
                now = time_of(o);
                popped.push(o);
            }
        }
        while let Some((o, _)) = w.pop() {
            popped.push(o);
        }
        (popped, elsewhere, w)
    }

    #[test]
    fn next_set_searches_in_ring_order() {
        let bits = [0b100u64, 0, 1 << 63];
        assert_eq!(next_set(&bits, 0), Some(2));
        assert_eq!(next_set(&bits, 3), Some(191));
        assert_eq!(next_set(&bits, 191), Some(191));
        assert_eq!(next_set(&bits, 130), Some(191));
        assert_eq!(next_set(&[0b100u64, 0, 0], 5), Some(2), "wraps to the start");
        assert_eq!(next_set(&[0u64; 3], 7), None);
    }

    #[test]
    fn pops_in_order_across_the_ring() {
        // Times spread over more than one turn of the ring, pushed as time advances, so
        // buckets are reused; equal times keep their sequence order.
        let (popped, elsewhere, w) = churn(3000, 1, 3);
        assert!(popped.windows(2).all(|p| p[0] < p[1]), "out of order");
        assert_eq!(popped.len() + elsewhere.len(), 3000);
        assert_eq!((w.len(), w.front(), w.shift), (0, u128::MAX, SHIFT), "sparse: no growth");
    }

    #[test]
    fn crowded_buckets_make_the_wheel_finer() {
        // 20,000 events kept pending over a few hundred buckets: most are refused at first,
        // then the wheel refines until they fit; nothing is lost or reordered.
        let (popped, elsewhere, w) = churn(40_000, 1, 2);
        assert!(popped.windows(2).all(|p| p[0] < p[1]), "out of order");
        assert_eq!(popped.len() + elsewhere.len(), 40_000);
        assert!(w.shift < SHIFT && w.heads.len() > BUCKETS, "shift {} buckets {}", w.shift, w.heads.len());
        assert!(popped.len() > 20_000, "after growing, most events fit: {} of 40000", popped.len());
    }
}

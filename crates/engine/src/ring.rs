//! A FIFO ring buffer of `Copy` items with a power-of-two capacity: the queue's lanes push and
//! pop millions of times per second, and masking an index is cheaper than `VecDeque`'s general
//! wrap-around arithmetic. Slots outside `head..tail` (positions taken modulo the capacity) hold
//! stale copies, never read.

pub(crate) struct Ring<T> {
    buf: Vec<T>,
    /// `buf.len() - 1` (the capacity is a power of two, or 0).
    mask: u32,
    /// Free-running positions of the first item and one past the last (they wrap; only
    /// `tail - head` and the masked values are used).
    head: u32,
    tail: u32,
}

impl<T: Copy> Ring<T> {
    pub(crate) fn new() -> Self {
        Ring { buf: Vec::new(), mask: 0, head: 0, tail: 0 }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.tail.wrapping_sub(self.head) as usize
    }

    /// The slot at free-running position `pos` (the ring must be non-empty).
    #[inline]
    fn slot(&self, pos: u32) -> &T {
        &self.buf[(pos & self.mask) as usize]
    }

    #[inline]
    pub(crate) fn front(&self) -> Option<&T> {
        (self.head != self.tail).then(|| self.slot(self.head))
    }

    /// The item `k` places behind the front (0: the front), if there is one.
    #[inline]
    pub(crate) fn get(&self, k: u32) -> Option<&T> {
        (k < self.tail.wrapping_sub(self.head)).then(|| self.slot(self.head.wrapping_add(k)))
    }

    #[cfg(test)]
    pub(crate) fn back(&self) -> Option<&T> {
        (self.head != self.tail).then(|| self.slot(self.tail.wrapping_sub(1)))
    }

    #[inline]
    pub(crate) fn push_back(&mut self, v: T) {
        if self.len() == self.buf.len() {
            self.grow(v);
        }
        self.buf[(self.tail & self.mask) as usize] = v;
        self.tail = self.tail.wrapping_add(1);
    }

    /// Drop the front item (the caller knows there is one; it already has a copy).
    #[inline]
    pub(crate) fn skip_front(&mut self) {
        debug_assert!(self.head != self.tail, "skip_front on an empty ring");
        self.head = self.head.wrapping_add(1);
    }

    #[cfg(test)]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.head == self.tail {
            return None;
        }
        let v = *self.slot(self.head);
        self.head = self.head.wrapping_add(1);
        Some(v)
    }

    /// Double the capacity (at least 1024), unwrapping the contents to start at 0. `fill`
    /// initialises the new slots.
    #[cold]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(1024);
        assert!(cap <= 1 << 31, "event lane too long");
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len() as u32).map(|k| self.buf[(self.head.wrapping_add(k) & self.mask) as usize]));
        let len = buf.len() as u32;
        buf.resize(cap, fill);
        self.buf = buf;
        self.mask = cap as u32 - 1;
        self.head = 0;
        self.tail = len;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn keeps_fifo_order_across_wrap_and_growth() {
        let mut r = Ring::new();
        let mut next_out = 0u32;
        let mut next_in = 0u32;
        // Interleave pushes and pops so the contents wrap around, then grow while wrapped.
        for round in 0..5000u32 {
            for _ in 0..(1 + round % 3) {
                r.push_back(next_in);
                next_in += 1;
            }
            if round % 2 == 0 {
                assert_eq!(r.pop_front(), Some(next_out));
                next_out += 1;
            }
            assert_eq!(r.len(), (next_in - next_out) as usize);
            if next_in > next_out {
                assert_eq!(r.front(), Some(&next_out));
                assert_eq!(r.back(), Some(&(next_in - 1)));
            } else {
                assert!(r.front().is_none() && r.back().is_none());
            }
        }
        while let Some(v) = r.pop_front() {
            assert_eq!(v, next_out);
            next_out += 1;
        }
        assert_eq!(next_out, next_in);
        assert!(r.front().is_none() && r.back().is_none());
    }
}

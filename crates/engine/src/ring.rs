//! A FIFO ring buffer of `Copy` items with a power-of-two capacity: the queue's lanes push and
//! pop millions of times per second, and masking an index is cheaper than `VecDeque`'s general
//! wrap-around arithmetic. Slots outside `head..head + len` hold stale copies, never read.

pub(crate) struct Ring<T> {
    buf: Vec<T>,
    head: usize,
    len: usize,
}

impl<T: Copy> Ring<T> {
    pub(crate) fn new() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buf.len().wrapping_sub(1)
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }

    #[inline]
    pub(crate) fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[(self.head + self.len - 1) & self.mask()])
    }

    #[inline]
    pub(crate) fn push_back(&mut self, v: T) {
        if self.len == self.buf.len() {
            self.grow(v);
        }
        let i = (self.head + self.len) & self.mask();
        self.buf[i] = v;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let v = self.buf[self.head];
        self.head = (self.head + 1) & self.mask();
        self.len -= 1;
        Some(v)
    }

    /// Double the capacity (at least 1024), unwrapping the contents to start at 0. `fill`
    /// initialises the new slots.
    #[cold]
    fn grow(&mut self, fill: T) {
        let cap = (self.buf.len() * 2).max(1024);
        let mut buf = Vec::with_capacity(cap);
        buf.extend((0..self.len).map(|k| self.buf[(self.head + k) & self.mask()]));
        buf.resize(cap, fill);
        self.buf = buf;
        self.head = 0;
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

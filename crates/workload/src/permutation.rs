//! A seeded pseudo-random permutation of `0..len` evaluated one index at a time, with no table:
//! a small balanced Feistel network over the smallest even number of bits that covers `len`,
//! cycle-walking the values that fall outside (fewer than four steps expected). One node's
//! random all-to-all schedule on a 160k-node machine then costs no memory.

use fabricsim_core::rng::splitmix;

/// A pseudo-random permutation of `0..len` (see the module docs).
#[derive(Debug, Clone, Copy)]
pub struct Permutation {
    len: u32,
    half: u32,
    keys: [u32; 4],
}

impl Permutation {
    /// A permutation of `0..len` chosen by `key`.
    pub fn new(len: u32, key: u64) -> Self {
        let bits = (32 - len.saturating_sub(1).leading_zeros()).max(2);
        let half = bits.div_ceil(2);
        let keys = std::array::from_fn(|i| splitmix(key ^ splitmix(i as u64)) as u32);
        Permutation { len, half, keys }
    }

    /// The image of `i` (which must be below the length).
    pub fn apply(&self, i: u32) -> u32 {
        debug_assert!(i < self.len);
        let mask = (1u32 << self.half) - 1;
        let mut x = i;
        loop {
            let (mut l, mut r) = (x >> self.half, x & mask);
            for k in self.keys {
                let f = (splitmix((r as u64) << 32 | k as u64) as u32) & mask;
                (l, r) = (r, l ^ f);
            }
            x = l << self.half | r;
            if x < self.len {
                return x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_gets_a_bijection_that_depends_on_the_key() {
        for len in [1, 2, 3, 5, 16, 17, 100, 511, 1000] {
            let p = Permutation::new(len, 7);
            let mut seen = vec![false; len as usize];
            for i in 0..len {
                let j = p.apply(i) as usize;
                assert!(!seen[j], "len {len}: {j} twice");
                seen[j] = true;
            }
        }
        let (a, b) = (Permutation::new(1000, 1), Permutation::new(1000, 2));
        assert!((0..1000).filter(|&i| a.apply(i) != b.apply(i)).count() > 900);
        // Not the identity, nor close to it.
        assert!((0..1000).filter(|&i| a.apply(i) == i).count() < 10);
    }
}

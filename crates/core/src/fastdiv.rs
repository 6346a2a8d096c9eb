//! Division of `u32` values by a divisor fixed at set-up (VCs per port, engines per node), done
//! with one multiplication instead of a hardware divide, which costs tens of cycles on the hot
//! path. The method (a 64-bit reciprocal, exact for every `u32` numerator) is from Lemire, Kaser
//! and Kurz, "Faster remainder by direct computation".

/// Divides `u32` numerators by one fixed divisor (at least 1) with a multiplication.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FastDiv {
    divisor: u32,
    /// ceil(2^64 / divisor) (wrapping to 0 for divisor 1, handled separately).
    magic: u64,
}

impl FastDiv {
    /// A divider by `divisor` (must be at least 1).
    pub fn new(divisor: u32) -> Self {
        assert!(divisor >= 1, "division by zero");
        FastDiv { divisor, magic: (u64::MAX / divisor as u64).wrapping_add(1) }
    }

    /// The divisor this divider was built for.
    pub fn divisor(&self) -> u32 {
        self.divisor
    }

    /// `n / divisor`.
    #[inline]
    pub fn div(&self, n: u32) -> u32 {
        if self.divisor == 1 {
            return n;
        }
        ((self.magic as u128 * n as u128) >> 64) as u32
    }

    /// `(n / divisor, n % divisor)`.
    #[inline]
    pub fn div_rem(&self, n: u32) -> (u32, u32) {
        let q = self.div(n);
        (q, n - q * self.divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::FastDiv;

    #[test]
    fn matches_hardware_division() {
        let numerators = (0..5000u32).chain([u32::MAX, u32::MAX - 1, 1 << 31, (1 << 31) - 1, 123_456_789]);
        let numerators: Vec<u32> = numerators.collect();
        for d in (1..=64u32).chain([100, 1000, 65_535, 1 << 20, u32::MAX]) {
            let f = FastDiv::new(d);
            for &n in &numerators {
                assert_eq!(f.div_rem(n), (n / d, n % d), "{n} / {d}");
            }
        }
    }
}

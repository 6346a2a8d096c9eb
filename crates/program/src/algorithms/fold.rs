//! Folding a rank count onto a power of two, for the recursive doubling and halving
//! algorithms (as MPICH does): with `q` the largest power of two not above `P` and
//! `rem = P - q`, the first `2 * rem` ranks pair up (even with odd) and the odd one of each
//! pair stands for both; the ranks from `2 * rem` on stand for themselves. Member `g` of the
//! `q` members then covers ranks (and blocks) `start(g)..start(g + 1)`, contiguous, so a
//! member group's blocks are one range.

/// The fold of `p` ranks.
#[derive(Debug, Clone, Copy)]
pub struct Fold {
    pub p: u32,
    pub q: u32,
    pub rem: u32,
}

impl Fold {
    pub fn new(p: u32) -> Fold {
        let q = 1u32 << (31 - p.max(1).leading_zeros());
        Fold { p, q, rem: p - q }
    }
    /// log2 of the member count.
    pub fn rounds(&self) -> u32 {
        self.q.trailing_zeros()
    }
    /// An even rank of the first pairs: it sits out the core rounds.
    pub fn is_extra(&self, r: u32) -> bool {
        r < 2 * self.rem && r.is_multiple_of(2)
    }
    /// The member a (non-extra) rank is.
    pub fn member(&self, r: u32) -> u32 {
        if r < 2 * self.rem {
            r / 2
        } else {
            r - self.rem
        }
    }
    /// The rank that is member `g`.
    pub fn rank(&self, g: u32) -> u32 {
        if g < self.rem {
            2 * g + 1
        } else {
            g + self.rem
        }
    }
    /// First rank member `g` covers (`start(q) = P`).
    pub fn start(&self, g: u32) -> u32 {
        if g < self.rem {
            2 * g
        } else {
            g + self.rem
        }
    }
    /// Whether `r` is the odd rank of a pair (it has an extra partner, `r - 1`).
    pub fn has_extra(&self, r: u32) -> bool {
        r < 2 * self.rem && r % 2 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_cover_every_rank_once_in_order() {
        for p in 1..70 {
            let f = Fold::new(p);
            assert!(f.q <= p && p < 2 * f.q);
            let mut covered = 0;
            for g in 0..f.q {
                assert_eq!(f.start(g), covered);
                assert_eq!(f.member(f.rank(g)), g);
                assert!(!f.is_extra(f.rank(g)));
                covered = if g + 1 < f.q { f.start(g + 1) } else { p };
            }
            assert_eq!(covered, p);
        }
    }
}

//! Three-phase quad rings allgather (Tofu's tuned collectives): every block in four parts, and
//! each part gathered by rings along the axes one after the other (three phases on a 3D
//! torus: after phase `h` a rank holds the blocks of every rank that differs from it only in
//! the first `h + 1` axes of the part's order). The four parts take different directions so
//! that in every phase they use different links:
//!
//! ```text
//!   part 0: axes x, y, z  in the + direction     part 1: x, y, z  in the - direction
//!   part 2: axes y, z, x  in the + direction     part 3: y, z, x  in the - direction
//! ```
//!
//! In phase `h` parts 0 and 1 ride the rings of one axis in opposite directions and parts 2
//! and 3 those of the next axis, so the four flows share no link; part `q` sends on engine
//! `q`. A 2D torus runs the same in two phases. Slots: part-major (`q * P + i`), and within a
//! part ranks numbered in the part's axis order, so what a rank holds after each phase is one
//! range of slots.

use crate::grid::Grid;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;

pub struct QuadRings {
    grid: Grid,
}

impl QuadRings {
    pub fn new(grid: Grid) -> Result<Self, String> {
        let n = grid.dims().len();
        if !grid.is_torus() || !(2..=3).contains(&n) {
            return Err(format!("needs a 2D or 3D torus (every axis a ring; this grid has {n} axes longer than 1)"));
        }
        Ok(QuadRings { grid })
    }

    fn n(&self) -> usize {
        self.grid.dims().len()
    }
    /// Axis of phase `h` for part `q`, and the part's direction.
    fn axis(&self, q: u32, h: usize) -> (usize, i64) {
        ((h + (q as usize / 2)) % self.n(), if q.is_multiple_of(2) { 1 } else { -1 })
    }
    /// Rank `r`'s position in part `q`'s numbering (the part's first axis fastest).
    fn pos(&self, q: u32, r: u32) -> u32 {
        let (mut p, mut stride) = (0, 1);
        for h in 0..self.n() {
            let a = self.axis(q, h).0;
            p += self.grid.coord(r, a) * stride;
            stride *= self.grid.dims()[a];
        }
        p
    }
    /// Ranks in a unit at the start of phase `h` (product of the earlier axes' lengths).
    fn unit(&self, q: u32, h: usize) -> u32 {
        (0..h).map(|i| self.grid.dims()[self.axis(q, i).0]).product()
    }
    /// The slots of rank `r`'s unit at phase `h` of part `q`.
    fn unit_of(&self, q: u32, h: usize, r: u32) -> Slots {
        let u = self.unit(q, h);
        let p = self.pos(q, r);
        let n = self.grid.ranks();
        Slots::Range { base: q * n, window: n, start: p - p % u, count: u }
    }
    /// Global step `g` of part `q` as (phase, step within the phase).
    fn phase_step(&self, q: u32, mut g: u32) -> (usize, u32) {
        for h in 0..self.n() {
            let k = self.grid.dims()[self.axis(q, h).0] - 1;
            if g < k {
                return (h, g);
            }
            g -= k;
        }
        unreachable!("step beyond the last phase")
    }
    /// Steps of every part (the same for all: each axis once).
    fn steps(&self) -> u32 {
        self.grid.dims().iter().map(|k| k - 1).sum()
    }
}

impl Program for QuadRings {
    fn ranks(&self) -> u32 {
        self.grid.ranks()
    }
    fn slots(&self) -> u32 {
        4 * self.grid.ranks()
    }
    fn owner(&self, slot: u32) -> u32 {
        let n = self.grid.ranks();
        let (q, p) = (slot / n, slot % n);
        // Invert the part's numbering.
        let (mut r, mut rest) = (0, p);
        for h in 0..self.n() {
            let a = self.axis(q, h).0;
            let k = self.grid.dims()[a];
            r = self.grid.shift(r, a, (rest % k) as i64);
            rest /= k;
        }
        r
    }
    /// One lane per part: the four parts progress independently.
    fn lanes(&self) -> u32 {
        4
    }
    fn len(&self, _r: u32, _q: u32) -> u32 {
        1 + 2 * self.steps()
    }
    fn op(&self, r: u32, q: u32, i: u32) -> Op {
        if i == 0 {
            return Op::Engine(Some(q as u8));
        }
        let g = (i - 1) / 2;
        let (h, s) = self.phase_step(q, g);
        let (a, dir) = self.axis(q, h);
        // Unique per part and step (a phase may have more than 2^16 steps).
        let tag = g * 4 + q;
        if (i - 1).is_multiple_of(2) {
            let behind = self.grid.shift(r, a, -dir * s as i64);
            return Op::Put { to: self.grid.shift(r, a, dir), slots: self.unit_of(q, h, behind), tag };
        }
        let from = self.grid.shift(r, a, -dir);
        let theirs = self.grid.shift(r, a, -dir * (s as i64 + 1));
        Op::Wait { from, tag, into: self.unit_of(q, h, theirs), combine: Combine::Copy }
    }
}

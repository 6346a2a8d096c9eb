//! Uniformly overlaid symmetrical pattern all-to-all (Tofu's tuned collectives), on a torus.
//!
//! Phases: the offsets `d` (from a rank to a destination, the short way round each ring) are
//! grouped by their absolute values `m = (|d_x|, |d_y|, ...)`, nearest first; a phase's
//! destinations are the offsets with those absolute values and every choice of signs, so in a
//! phase each rank sends to ranks at symmetric relative coordinates, and every rank does the
//! same (a uniform pattern). Each offset is a sub-phase, sent on its own engine (sub-phase `j`
//! on engine `j`). Under dimension-order routing a link along axis `a` in direction `s`
//! carries, in a phase, `L = sum of |d_a|` over the phase's offsets with sign `s` on `a`
//! transfers at once; with rate control each transfer is capped at `link bandwidth / L` (the
//! busiest link's share), so the phase's transfers fill the links without oversubscribing any
//! one, and packets do not pile up in buffers (congestion spreads from a full buffer to the
//! links that feed it). A rank waits for its phase's arrivals before the next phase.
//! Without rate control (`symmetric_no_rate`) the same schedule injects at full speed.

use crate::grid::Grid;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;
use fabricsim_core::Bandwidth;

pub struct SymmetricAllToAll {
    grid: Grid,
    /// Per phase: its offsets, and the rate cap of its transfers.
    phases: Vec<(Vec<Vec<i64>>, Option<Bandwidth>)>,
    /// First operation of each phase (after the initial copy), and the total.
    starts: Vec<u32>,
}

impl SymmetricAllToAll {
    /// `link`: the link bandwidth the rate cap divides (`None`: no rate control).
    pub fn new(grid: Grid, link: Option<Bandwidth>) -> Result<Self, String> {
        if !grid.is_torus() {
            return Err("needs a torus (every axis a ring): on a mesh the offsets are not the same for every rank".into());
        }
        let dims = grid.dims().to_vec();
        // Every absolute offset vector, nearest first.
        let mut ms: Vec<Vec<i64>> = vec![vec![]];
        for &k in &dims {
            ms = ms.into_iter().flat_map(|m| (0..=(k as i64) / 2).map(move |x| [m.clone(), vec![x]].concat())).collect();
        }
        ms.retain(|m| m.iter().any(|&x| x != 0));
        ms.sort_by_key(|m| (m.iter().sum::<i64>(), m.clone()));
        let mut phases = Vec::new();
        for m in ms {
            // Every sign choice; an offset of 0 or exactly half a ring has one.
            let mut offs: Vec<Vec<i64>> = vec![vec![]];
            for (a, &x) in m.iter().enumerate() {
                let signs: &[i64] = if x == 0 || 2 * x == dims[a] as i64 { &[1] } else { &[1, -1] };
                offs = offs.into_iter().flat_map(|o| signs.iter().map(move |s| [o.clone(), vec![s * x]].concat())).collect();
            }
            let load = (0..dims.len())
                .flat_map(|a| [1i64, -1].map(|s| (a, s)))
                .map(|(a, s)| {
                    offs.iter().filter(|o| o[a] != 0 && (o[a].signum() == s || 2 * o[a].abs() == dims[a] as i64)).map(|o| o[a].abs()).sum::<i64>()
                })
                .max()
                .unwrap_or(1)
                .max(1);
            let cap = link.map(|b| Bandwidth((b.bytes_per_sec() / load as u64).max(1)));
            phases.push((offs, cap));
        }
        let mut starts = vec![1];
        for (offs, _) in &phases {
            starts.push(starts.last().unwrap() + 1 + 3 * offs.len() as u32);
        }
        Ok(SymmetricAllToAll { grid, phases, starts })
    }

    fn at(&self, r: u32, off: &[i64], sign: i64) -> u32 {
        off.iter().enumerate().fold(r, |x, (a, &d)| self.grid.shift(x, a, sign * d))
    }
}

impl Program for SymmetricAllToAll {
    fn ranks(&self) -> u32 {
        self.grid.ranks()
    }
    fn slots(&self) -> u32 {
        2 * self.grid.ranks()
    }
    fn len(&self, _r: u32, _lane: u32) -> u32 {
        *self.starts.last().unwrap()
    }
    fn op(&self, r: u32, _lane: u32, i: u32) -> Op {
        let p = self.grid.ranks();
        let recv = |src: u32| Slots::Range { base: p, window: p, start: src, count: 1 };
        if i == 0 {
            return Op::Copy { from: Slots::range(r, 1, p), to: recv(r) };
        }
        let ph = self.starts.partition_point(|&s| s <= i) - 1;
        let (offs, cap) = &self.phases[ph];
        let j = i - self.starts[ph];
        let d = offs.len() as u32;
        if j == 0 {
            return Op::Rate(*cap);
        }
        let j = j - 1;
        let tag = ph as u32;
        if j < 2 * d {
            let o = &offs[(j / 2) as usize];
            if j.is_multiple_of(2) {
                return Op::Engine(Some((j / 2) as u8));
            }
            let to = self.at(r, o, 1);
            return Op::Put { to, slots: Slots::range(to, 1, p), tag };
        }
        let o = &offs[(j - 2 * d) as usize];
        let from = self.at(r, o, -1);
        Op::Wait { from, tag, into: recv(from), combine: Combine::Copy }
    }
}

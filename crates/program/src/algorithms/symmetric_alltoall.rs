//! Uniformly overlaid symmetrical pattern all-to-all (Tofu's tuned collectives), on a torus.
//!
//! Phases: the offsets `d` (from a rank to a destination, the short way round each ring) are
//! grouped by their absolute values `m = (|d_x|, |d_y|, ...)`, nearest first; a phase's
//! destinations are the offsets with those absolute values and every choice of signs, so in a
//! phase each rank sends to ranks at symmetric relative coordinates, and every rank does the
//! same (a uniform pattern). A phase is cut into sub-phases of as many offsets as the node has
//! injection engines, sent at once, one per engine. Under dimension-order routing a link along
//! axis `a` in direction `s` then carries `L = sum of |d_a|` transfers at once, over the
//! sub-phase's offsets with sign `s` on `a`; with rate control each transfer of the sub-phase is
//! capped at `link bandwidth / L` (the busiest link's fair share), so the links are filled
//! without being oversubscribed and packets do not pile up in buffers (a full buffer stalls
//! the links feeding it: congestion spreads). A rank waits for its phase's arrivals before the
//! next phase. Without rate control (`symmetric_no_rate`) the same schedule runs at full speed.

use crate::grid::Grid;
use crate::op::{Combine, Op, Slots};
use crate::program::Program;
use fabricsim_core::Bandwidth;

pub struct SymmetricAllToAll {
    grid: Grid,
    /// Per phase: its offsets, each with the rate cap of its sub-phase.
    phases: Vec<Vec<(Vec<i64>, Option<Bandwidth>)>>,
    /// Offsets sent at once (the node's injection engines).
    engines: u32,
    /// First operation of each phase (after the initial copy), and the total.
    starts: Vec<u32>,
}

impl SymmetricAllToAll {
    /// `link`: the link bandwidth the rate cap divides (`None`: no rate control); `engines`:
    /// offsets sent at once.
    pub fn new(grid: Grid, link: Option<Bandwidth>, engines: u32) -> Result<Self, String> {
        let engines = engines.max(1);
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
            // Sub-phases of `engines` offsets, each with the cap its busiest link allows.
            let mut capped = Vec::new();
            for sub in offs.chunks(engines as usize) {
                let load = (0..dims.len())
                    .flat_map(|a| [1i64, -1].map(|s| (a, s)))
                    .map(|(a, s)| {
                        sub.iter().filter(|o| o[a] != 0 && (o[a].signum() == s || 2 * o[a].abs() == dims[a] as i64)).map(|o| o[a].abs()).sum::<i64>()
                    })
                    .max()
                    .unwrap_or(1)
                    .max(1);
                let cap = link.map(|b| Bandwidth((b.bytes_per_sec() / load as u64).max(1)));
                capped.extend(sub.iter().map(|o| (o.clone(), cap)));
            }
            phases.push(capped);
        }
        let mut starts = vec![1];
        for offs in &phases {
            starts.push(starts.last().unwrap() + 4 * offs.len() as u32);
        }
        Ok(SymmetricAllToAll { grid, phases, engines, starts })
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
        let offs = &self.phases[ph];
        let (j, d) = (i - self.starts[ph], offs.len() as u32);
        let tag = ph as u32;
        // Per offset: its rate cap, its engine, the Put; then the phase's waits.
        if j < 3 * d {
            let (o, cap) = &offs[(j / 3) as usize];
            return match j % 3 {
                0 => Op::Rate(*cap),
                1 => Op::Engine(Some(((j / 3) % self.engines) as u8)),
                _ => {
                    let to = self.at(r, o, 1);
                    Op::Put { to, slots: Slots::range(to, 1, p), tag }
                }
            };
        }
        let from = self.at(r, &offs[(j - 3 * d) as usize].0, -1);
        Op::Wait { from, tag, into: recv(from), combine: Combine::Copy }
    }
}

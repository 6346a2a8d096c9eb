//! "Sphere" (locality) traffic: a destination drawn uniformly among the moves of 1 to `radius`
//! hops from the source, a move being an offset per axis (its L1 norm is the hop count) that
//! goes at most half way round a ring, and stays inside a mesh.
//!
//! Drawing offsets at random and rejecting those outside the sphere takes many tries in many
//! dimensions (on a 6-D torus with radius 1, one try in about 70 lands on one of the 12
//! neighbours; with 11 or 12 axes, 10,000 tries miss for a third to two thirds of the
//! messages). Instead the moves are counted:
//! `w[a][b]` is the number of ways to give axes `a..` offsets of total norm at most `b`, so the
//! offset of each axis in turn can be drawn with the weight of what remains possible after it.
//! Each move comes out with the same probability, as with rejection, in one pass.

use crate::pattern::Shape;
use rand::Rng;

/// Count-table entries kept on the stack (larger tables, from many axes and a large radius, use
/// the heap).
const STACK: usize = 256;

/// Offsets allowed on one axis from coordinate `c`: at most `radius`, half a ring, or to the
/// mesh's ends.
fn range(k: u32, ring: bool, c: u32, radius: u32) -> (i64, i64) {
    let (k, c, r) = (k as i64, c as i64, radius as i64);
    if ring {
        let span = r.min(k / 2);
        (-span, span)
    } else {
        (-r.min(c), r.min(k - 1 - c))
    }
}

/// Draw a destination within `radius` hops of the node at coordinates `c` into `out`;
/// `false` if there is none (every axis has length 1).
pub(crate) fn draw(s: &Shape, c: &[u32], radius: u32, rng: &mut impl Rng, out: &mut [u32]) -> bool {
    let d = c.len();
    let reach: u32 = (0..d)
        .map(|a| {
            let (lo, hi) = range(s.dims[a], s.wrap[a], c[a], radius);
            (-lo).max(hi) as u32
        })
        .sum();
    let r = radius.min(reach) as usize;
    if r == 0 {
        return false;
    }
    let row = r + 1;
    let mut stack = [0f64; STACK];
    let mut heap = Vec::new();
    let need = (d + 2) * row;
    let buf: &mut [f64] = if need <= STACK {
        &mut stack[..need]
    } else {
        heap.resize(need, 0.0);
        &mut heap
    };
    // Rows 0..=d: `w[a]`; the last row holds prefix sums of the row below the one being built.
    let (w, prefix) = buf.split_at_mut((d + 1) * row);
    w[d * row..].fill(1.0);
    for a in (0..d).rev() {
        let (lo, hi) = range(s.dims[a], s.wrap[a], c[a], radius);
        let (this, below) = w[a * row..(a + 2) * row].split_at_mut(row);
        let mut sum = 0.0;
        for (p, &v) in prefix.iter_mut().zip(below.iter()) {
            sum += v;
            *p = sum;
        }
        // Sum of `below[b - j]` for j in 1..=h: prefix[b - 1] - prefix[b - 1 - h].
        let run = |b: usize, h: usize| if h == 0 { 0.0 } else { prefix[b - 1] - if b > h { prefix[b - 1 - h] } else { 0.0 } };
        for b in 0..row {
            this[b] = below[b] + run(b, (hi as usize).min(b)) + run(b, ((-lo) as usize).min(b));
        }
    }
    // Some axis can move (`r >= 1`), so besides the empty move there is at least one more: the
    // loop below ends.
    debug_assert!(w[r] >= 2.0);
    loop {
        let mut b = r;
        let mut moved = false;
        for a in 0..d {
            let (lo, hi) = range(s.dims[a], s.wrap[a], c[a], radius);
            let below = &w[(a + 1) * row..(a + 2) * row];
            // Offsets in the order 0, 1, -1, 2, -2, ...: each weighs the moves left after it.
            let mut u = rng.gen::<f64>() * w[a * row + b];
            let mut o = 0;
            let offsets = std::iter::once(0).chain((1..=b as i64).flat_map(|m| [m, -m]));
            for cand in offsets.filter(|&x| lo <= x && x <= hi) {
                o = cand;
                u -= below[b - cand.unsigned_abs() as usize];
                if u < 0.0 {
                    break;
                }
            }
            b -= o.unsigned_abs() as usize;
            moved |= o != 0;
            let k = s.dims[a] as i64;
            out[a] = (c[a] as i64 + o).rem_euclid(k) as u32;
        }
        if moved {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::collections::HashMap;

    /// Every move of 1 to `radius` hops from `c`, by brute force, as destination coordinates.
    fn moves(s: &Shape, c: &[u32], radius: u32) -> Vec<Vec<u32>> {
        let mut all = vec![(vec![], 0u32)];
        for (a, &ca) in c.iter().enumerate() {
            let (lo, hi) = range(s.dims[a], s.wrap[a], ca, radius);
            all = all
                .into_iter()
                .flat_map(|(v, n)| {
                    (lo..=hi).map(move |o| {
                        let mut v = v.clone();
                        v.push(o);
                        (v, n + o.unsigned_abs() as u32)
                    })
                })
                .collect();
        }
        all.into_iter()
            .filter(|(_, n)| (1..=radius).contains(n))
            .map(|(v, _)| v.iter().enumerate().map(|(a, &o)| (c[a] as i64 + o).rem_euclid(s.dims[a] as i64) as u32).collect())
            .collect()
    }

    #[test]
    fn every_move_within_the_radius_is_equally_likely() {
        // A ring of 5, a mesh of 4, a ring of 2 (both of its moves reach the same node, so
        // that node is twice as likely), from a corner, an edge and the middle.
        let s = Shape { dims: vec![5, 4, 2], wrap: vec![true, false, true] };
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        for (c, radius) in [(vec![0, 0, 0], 2), (vec![2, 3, 1], 2), (vec![4, 1, 0], 1), (vec![1, 2, 1], 5)] {
            let all = moves(&s, &c, radius);
            let mut want: HashMap<Vec<u32>, f64> = HashMap::new();
            for m in &all {
                *want.entry(m.clone()).or_default() += 1.0 / all.len() as f64;
            }
            let n = 40_000;
            let mut got: HashMap<Vec<u32>, f64> = HashMap::new();
            let mut out = vec![0; 3];
            for _ in 0..n {
                assert!(draw(&s, &c, radius, &mut rng, &mut out));
                *got.entry(out.clone()).or_default() += 1.0 / n as f64;
            }
            assert_eq!(got.len(), want.len(), "{c:?} r {radius}: destinations reached");
            for (dst, p) in &want {
                let f = got.get(dst).copied().unwrap_or(0.0);
                // Five standard deviations of a frequency out of `n` draws.
                let tol = 5.0 * (p * (1.0 - p) / n as f64).sqrt();
                assert!((f - p).abs() < tol, "{c:?} r {radius} -> {dst:?}: {f:.4} drawn, {p:.4} expected");
            }
        }
    }

    #[test]
    fn a_large_count_table_on_the_heap_draws_uniformly_too() {
        // A ring of 600 with radius 300: 3 x 301 counts exceed the stack buffer. All 600 moves
        // (-300..=300 but 0; +300 and -300 reach the same node) are equally likely: ten bands
        // of 60 moves each.
        let s = Shape { dims: vec![600], wrap: vec![true] };
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        let (n, mut bands) = (60_000, [0u32; 10]);
        let mut out = [0u32];
        for _ in 0..n {
            assert!(draw(&s, &[0], 300, &mut rng, &mut out));
            let o = if out[0] > 300 { out[0] as i64 - 600 } else { out[0] as i64 };
            assert!(o != 0 && o.abs() <= 300);
            // Moves -300..=-1 are bands 0-4, 1..=300 bands 5-9.
            let band = if o < 0 { (o + 300) / 60 } else { 5 + (o - 1) / 60 };
            bands[band as usize] += 1;
        }
        // The node 300 away (moves +300 and -300) counts in the last band: the first and last
        // bands expect 59 and 61 moves' worth, 1/600 off 0.1.
        for (i, &b) in bands.iter().enumerate() {
            let f = b as f64 / n as f64;
            assert!((f - 0.1).abs() < 5.0 * (0.09f64 / n as f64).sqrt() + 0.1 / 60.0, "band {i}: {f:.4}");
        }
    }

    #[test]
    fn many_axes_and_a_small_radius_still_find_a_neighbour() {
        let s = Shape { dims: vec![2; 20], wrap: vec![false; 20] };
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let c = vec![1; 20];
        let mut out = vec![0; 20];
        for _ in 0..100 {
            assert!(draw(&s, &c, 1, &mut rng, &mut out));
            assert_eq!(out.iter().zip(&c).filter(|(a, b)| a != b).count(), 1);
        }
        let single = Shape { dims: vec![1, 1], wrap: vec![true, false] };
        assert!(!draw(&single, &[0, 0], 3, &mut rng, &mut [0, 0]), "no move on a single node");
    }
}

//! Periodic halo exchange on a 2D or 3D grid of ranks (rank numbers along axis 0 fastest): each
//! rank sends `bytes` to each of its two neighbours along every axis longer than 1 (one, when
//! the axis is 2 long: both neighbours are the same rank, which then gets twice the bytes).

use crate::pattern::{Flow, Pattern};

/// The halo exchange of the grid `dims`, `bytes` per face; an error when the grid holds more
/// than `u32::MAX` ranks.
pub fn pattern(dims: &[u32], bytes: u64) -> Result<Pattern, String> {
    let ranks = dims.iter().try_fold(1u32, |a, &d| a.checked_mul(d)).ok_or_else(|| format!("{dims:?} holds too many ranks"))?;
    let mut flows = Vec::with_capacity(ranks as usize * dims.len() * 2);
    for r in 0..ranks {
        let mut stride = 1;
        let mut rest = r;
        for &d in dims {
            let x = rest % d;
            rest /= d;
            if d > 1 {
                for nx in [(x + 1) % d, (x + d - 1) % d] {
                    flows.push(Flow { src: r, dst: r - x * stride + nx * stride, bytes });
                }
            }
            stride *= d;
        }
    }
    Ok(Pattern::new(ranks, flows, "halo").map_err(|e| e.message)?.with_grid(dims.to_vec()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_rank_sends_to_its_face_neighbours() {
        let p = super::pattern(&[4, 3, 2], 10).unwrap();
        assert_eq!(p.ranks(), 24);
        // Per rank: 2 along x, 2 along y, 2 (the same rank) along the 2-long z.
        assert_eq!(p.flows().len(), 24 * 6);
        let nb = p.neighbours();
        assert_eq!(nb.of(0).iter().map(|&(r, _)| r).collect::<Vec<_>>(), vec![1, 3, 4, 8, 12]);
        assert_eq!(nb.of(0).iter().find(|x| x.0 == 12).unwrap().1, 40, "z both ways, both directions");
    }
}

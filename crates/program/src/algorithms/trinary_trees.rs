//! Three spanning trees of a torus that share no directed link, each with fan-out at most
//! three: the paths of the triple trinary tree collectives.
//!
//! Construction (our own; the Tofu slides give only the properties). Tree `t` of the `+`
//! family, in coordinates relative to the root, is the dimension-order broadcast tree whose
//! order starts at axis `t` (`t, t+1, ..., t+n-1`, cyclically) with one change: a node whose
//! coordinate on axis `t` is 0 is entered from the node at `k_t - 1` by the wrap-around link
//! of axis `t`. A node with `c_t != 0` is entered along the last axis (in the tree's order)
//! where its coordinate is not 0, from one step back in the `+` direction.
//!
//! Why the trees share no link: the `+` link into `c` along axis `d` (not a wrap link) is used
//! by tree `t` only if `c_t != 0` and every axis after `d` before `t` (cyclically) is 0; two
//! trees `t1`, `t2` cannot both qualify, since one of them lies strictly between `d` and the
//! other (so its coordinate would have to be both 0 and not 0), and the tree `t = d` needs all
//! other coordinates 0. Wrap links of axis `t` are used by tree `t` alone. Fan-out: children
//! along axes `t..` at most `n`, and the child along `t` (`c_t + 1`) and the wrap child
//! (`c_t = k_t - 1`) exclude each other, so in 3D the fan-out is at most three.
//!
//! A 3D torus gives three `+` trees. A 2D torus has two; the third is the first tree of the
//! `-` family (coordinates mirrored, links in the `-` direction), which shares no link with
//! the `+` trees. Every axis must be a ring (the wrap links enter the `c_t = 0` nodes) of
//! length 2 or more; meshes and other dimensions are refused.

use crate::grid::Grid;

/// One tree: the direction family (`+1` or `-1`) and the axis its order starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tree {
    pub sign: i64,
    pub start: usize,
}

/// The three trees for `grid`, or why it has none.
pub fn trees(grid: &Grid) -> Result<[Tree; 3], String> {
    if !grid.is_torus() {
        return Err("needs a torus: every axis a ring (a mesh's corners have too few links for three disjoint trees)".into());
    }
    match grid.dims().len() {
        3 => Ok([0, 1, 2].map(|start| Tree { sign: 1, start })),
        2 => Ok([Tree { sign: 1, start: 0 }, Tree { sign: 1, start: 1 }, Tree { sign: -1, start: 0 }]),
        n => Err(format!("needs a 2D or 3D torus (this one has {n} axes longer than 1; map a 6D shape onto a virtual 3D torus first)")),
    }
}

/// `rank`'s parent in tree `t` rooted at `root` (`None` for the root).
pub fn parent(grid: &Grid, root: u32, t: Tree, rank: u32) -> Option<u32> {
    let n = grid.dims().len();
    // Relative coordinate along axis a, in the tree's direction.
    let rel = |a: usize| (t.sign * (grid.coord(rank, a) as i64 - grid.coord(root, a) as i64)).rem_euclid(grid.dims()[a] as i64);
    if rank == root {
        return None;
    }
    if rel(t.start) == 0 {
        // Entered by the wrap link of the start axis, from relative k - 1.
        return Some(grid.shift(rank, t.start, -t.sign));
    }
    let last = (0..n).map(|i| (t.start + i) % n).rev().find(|&a| rel(a) != 0).unwrap_or(t.start);
    Some(grid.shift(rank, last, -t.sign))
}

/// `rank`'s children in tree `t` (its neighbours whose parent it is), in axis order.
pub fn children(grid: &Grid, root: u32, t: Tree, rank: u32) -> Vec<u32> {
    let mut v = Vec::with_capacity(3);
    for a in 0..grid.dims().len() {
        let c = grid.shift(rank, a, t.sign);
        if c != rank && !v.contains(&c) && parent(grid, root, t, c) == Some(rank) {
            v.push(c);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn three_spanning_trees_of_fan_out_three_share_no_directed_link() {
        let shapes: &[&[u32]] =
            &[&[2, 2], &[3, 3], &[4, 2], &[5, 7], &[8, 8], &[2, 2, 2], &[3, 4, 5], &[4, 4, 4], &[2, 6, 3], &[6, 5, 4], &[8, 3, 2]];
        for &dims in shapes {
            let g = Grid::new(dims, &vec![true; dims.len()]);
            let n = g.ranks();
            for root in [0, n / 2, n - 1] {
                let mut used: HashSet<(u32, usize, i64)> = HashSet::new();
                for t in trees(&g).unwrap() {
                    let mut links = 0;
                    for r in 0..n {
                        // Spans: every rank reaches the root, in fewer than n steps.
                        let (mut x, mut steps) = (r, 0);
                        while let Some(p) = parent(&g, root, t, x) {
                            x = p;
                            steps += 1;
                            assert!(steps < n, "{dims:?} root {root} {t:?}: cycle through {r}");
                        }
                        assert_eq!(x, root);
                        assert!(children(&g, root, t, r).len() <= 3, "{dims:?} {t:?}: rank {r} has more than three children");
                        if let Some(p) = parent(&g, root, t, r) {
                            // The directed link p -> r: its axis and direction.
                            let a = (0..g.dims().len()).find(|&a| g.shift(p, a, t.sign) == r).expect("parent is a neighbour");
                            assert!(used.insert((p, a, t.sign)), "{dims:?} root {root}: link {p} -> {r} in two trees");
                            links += 1;
                        }
                    }
                    assert_eq!(links, n - 1);
                }
            }
        }
    }

    #[test]
    fn meshes_and_other_dimensions_are_refused() {
        assert!(trees(&Grid::new(&[4, 4], &[true, false])).unwrap_err().contains("torus"));
        assert!(trees(&Grid::new(&[8], &[true])).is_err());
        assert!(trees(&Grid::new(&[2, 2, 2, 2], &[true; 4])).unwrap_err().contains("virtual 3D"));
        // Axes of length 1 do not count.
        assert!(trees(&Grid::new(&[4, 1, 4], &[true; 3])).is_ok());
    }
}

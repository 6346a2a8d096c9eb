//! Blocks of neighbouring routers for the viewer, when a network has more links than a screen
//! can show. Each link has a group (its label and kind: `X+`, `rail0-L2-up`, terminal ports
//! apart from network ones) and a position: a torus router's coordinates, or a fat-tree
//! switch's rank among the switches whose ports carry that group's label. A blocking cuts each
//! axis of positions into runs of neighbouring coordinates; all links of one group whose
//! routers fall in one block become one drawn link.
//!
//! The blocks grow by halving the axis with the most blocks (the first such axis on a tie)
//! until the drawn links fit the budget, so blocks stay about as long along every axis and a
//! torus keeps its proportions on the screen.

/// How many links a page draws at most per run unless told otherwise (`--max-links`).
///
/// The page draws a torus as 2D slices, one cell per router. On a one-run page (a 1200 px wide
/// window gives a canvas of about 1180x700 px) a 16x16x16 torus is drawn in 16 slices of 16x16
/// cells of about 10 px, enough for a cell's four link bars to be a pixel or more thick with a
/// gap between them; at 20x20x20 cells are under 8 px and the bars run together. 16^3 routers
/// with their 6 links are 24,576 links; the budget is the next power of two. Its cost to play
/// stays small: in headless Chromium a frame of 16^3 links is drawn in about 45 ms, of 8^3 in
/// about 10 ms, against 200 ms per step at the page's default speed.
pub const MAX_LINKS: usize = 32_768;

/// Routers per block along each axis of positions.
#[derive(Debug, Clone, PartialEq)]
pub struct Blocking {
    /// Positions per block along each axis (the last block of an axis may be shorter).
    pub sizes: Vec<u32>,
    /// Positions along each axis (a torus's shape).
    pub shape: Vec<u32>,
}

impl Blocking {
    /// Blocks along each axis.
    pub fn coarse(&self) -> Vec<u32> {
        self.shape.iter().zip(&self.sizes).map(|(s, b)| s.div_ceil(*b)).collect()
    }

    /// The block holding `pos`, numbered with the first axis fastest.
    pub fn block(&self, pos: &[u32]) -> usize {
        self.index(&self.coarse(), pos)
    }

    /// [`Blocking::block`] with the blocks per axis already counted.
    pub(crate) fn index(&self, coarse: &[u32], pos: &[u32]) -> usize {
        let mut k = 0usize;
        for ((p, b), c) in pos.iter().zip(&self.sizes).zip(coarse).rev() {
            k = k * *c as usize + (p / b) as usize;
        }
        k
    }

    /// The block coordinates of `pos`.
    pub fn block_coords(&self, pos: &[u32]) -> Vec<u32> {
        pos.iter().zip(&self.sizes).map(|(p, b)| p / b).collect()
    }

    /// The positions block `k` spans along `axis`, first and last.
    pub fn range(&self, axis: usize, k: u32) -> [u32; 2] {
        let b = self.sizes[axis];
        [k * b, ((k + 1) * b).min(self.shape[axis]) - 1]
    }

    /// Drawn links under this blocking: distinct (block, group) pairs.
    fn count(&self, places: &Places) -> usize {
        let coarse = self.coarse();
        let blocks: usize = coarse.iter().map(|&c| c as usize).product();
        let mut seen = vec![false; blocks * places.groups];
        let mut n = 0;
        for (pos, g) in places.pos.chunks(places.dims.max(1)).zip(&places.group) {
            let k = self.index(&coarse, &pos[..places.dims]) * places.groups + *g as usize;
            if !seen[k] {
                seen[k] = true;
                n += 1;
            }
        }
        n
    }
}

/// Where the links are: per link its group and `dims` position coordinates (flat).
#[derive(Debug, Clone, Default)]
pub(crate) struct Places {
    pub(crate) dims: usize,
    /// Positions along each axis.
    pub shape: Vec<u32>,
    /// Groups there are (group numbers are below it).
    pub groups: usize,
    pub group: Vec<u32>,
    pub pos: Vec<u32>,
}

/// The blocking that fits `places` in `max_links` drawn links, or `None` when they fit as they
/// are. When even one block per group is more, that coarsest blocking is returned.
pub(crate) fn choose(places: &Places, max_links: usize) -> Option<Blocking> {
    if places.group.len() <= max_links {
        return None;
    }
    let mut b = Blocking { sizes: vec![1; places.dims], shape: places.shape.clone() };
    while b.count(places) > max_links {
        let coarse = b.coarse();
        // The axis with the most blocks; ties go to the first.
        let Some(axis) = (0..coarse.len()).filter(|&i| coarse[i] > 1).max_by_key(|&i| (coarse[i], std::cmp::Reverse(i))) else {
            break;
        };
        let half = coarse[axis].div_ceil(2);
        b.sizes[axis] = b.shape[axis].div_ceil(half);
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A torus of `shape` with `labels` links on every router.
    fn torus(shape: &[u32], labels: u32) -> Places {
        let routers: u32 = shape.iter().product();
        let mut p = Places { dims: shape.len(), shape: shape.to_vec(), groups: labels as usize, ..Default::default() };
        for r in 0..routers {
            let mut rest = r;
            let coords: Vec<u32> = shape
                .iter()
                .map(|s| {
                    let c = rest % s;
                    rest /= s;
                    c
                })
                .collect();
            for g in 0..labels {
                p.group.push(g);
                p.pos.extend(&coords);
            }
        }
        p
    }

    #[test]
    fn halves_the_axis_with_most_blocks_until_the_links_fit() {
        let p = torus(&[8, 4, 2], 6);
        assert_eq!(choose(&p, 384), None, "64 routers x 6 links fit in 384");
        // 383: halve X (8 -> 4 blocks of 2): 32 blocks x 6 = 192.
        let b = choose(&p, 383).unwrap();
        assert_eq!((b.sizes.clone(), b.coarse()), (vec![2, 1, 1], vec![4, 4, 2]));
        // 100: X again, the first of the two axes with 4 blocks: 2x4x2 = 16 blocks, 96 links.
        let b = choose(&p, 100).unwrap();
        assert_eq!((b.sizes.clone(), b.coarse()), (vec![4, 1, 1], vec![2, 4, 2]));
        assert_eq!(b.count(&p), 96);
        // Uneven axes: 23 positions in blocks of 12 (two blocks, the second of 11).
        let p = torus(&[23], 2);
        let b = choose(&p, 4).unwrap();
        assert_eq!((b.sizes.clone(), b.coarse(), b.range(0, 1)), (vec![12], vec![2], [12, 22]));
        // A budget below the groups: one block per group.
        let b = choose(&torus(&[4, 4], 4), 1).unwrap();
        assert_eq!((b.coarse(), b.count(&torus(&[4, 4], 4))), (vec![1, 1], 4));
    }

    #[test]
    fn block_numbers_follow_coordinates() {
        let b = Blocking { sizes: vec![2, 3], shape: vec![5, 7] };
        assert_eq!(b.coarse(), vec![3, 3]);
        assert_eq!(b.block(&[0, 0]), 0);
        assert_eq!(b.block(&[4, 0]), 2);
        assert_eq!(b.block(&[1, 6]), 6);
        assert_eq!(b.block_coords(&[3, 5]), vec![1, 1]);
        assert_eq!((b.range(0, 2), b.range(1, 1)), ([4, 4], [3, 5]));
    }
}

//! Allocation: which nodes of a torus or mesh are taken, and where a job's region goes.
//!
//! A job asks for a box (a length per axis). [`Occupancy::find`] places it at the first free
//! place in node order (origin axis 0 fastest), optionally trying every order of the shape's
//! lengths (rotation) and, with padding, boxes of a few more nodes whose lengths differ (the
//! extra nodes are allocated and idle). A box may wrap round a ring axis. [`stream`] schedules a
//! stream of such jobs first come, first served with backfilling.

pub mod stream;

use crate::embed::Region;

/// Which nodes of a torus or mesh are taken.
#[derive(Debug, Clone)]
pub struct Occupancy {
    dims: Vec<u32>,
    wrap: Vec<bool>,
    busy: Vec<bool>,
    free: u32,
}

/// How a job's shape may be changed to fit: rotated (its lengths in any order) and padded
/// (any box of at least its node count and at most `pad` times it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// Whether the shape's lengths may go in any order.
    pub rotate: bool,
    /// 1.0: no padding.
    pub pad: f64,
}

impl Policy {
    /// The shape as asked, nothing else.
    pub const EXACT: Policy = Policy { rotate: false, pad: 1.0 };
}

impl Occupancy {
    /// An empty machine of `dims` (`wrap`: which axes are rings).
    pub fn new(dims: &[u32], wrap: &[bool]) -> Self {
        let n: u32 = dims.iter().product();
        Occupancy { dims: dims.to_vec(), wrap: wrap.to_vec(), busy: vec![false; n as usize], free: n }
    }

    /// Length of each axis.
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }

    /// Nodes in the machine, and free ones.
    pub fn nodes(&self) -> u32 {
        self.busy.len() as u32
    }
    /// Nodes not taken.
    pub fn free(&self) -> u32 {
        self.free
    }

    /// Whether node `id` is taken.
    pub fn is_busy(&self, id: u32) -> bool {
        self.busy[id as usize]
    }

    /// Mark `nodes` taken (`true`) or free.
    pub fn set(&mut self, nodes: &[u32], busy: bool) {
        for &n in nodes {
            if self.busy[n as usize] != busy {
                self.busy[n as usize] = busy;
                if busy {
                    self.free -= 1;
                } else {
                    self.free += 1;
                }
            }
        }
    }

    /// The node ids of `r` (wrapping round ring axes), axis 0 fastest; `None` if it leaves a
    /// line axis or is longer than an axis.
    pub fn nodes_of(&self, r: &Region) -> Option<Vec<u32>> {
        region_nodes(&self.dims, &self.wrap, r)
    }

    /// The first free place for `shape` under `policy`: the region and its node ids. Shapes
    /// are tried in order: as asked, then its rotations, then padded boxes, fewest nodes first.
    pub fn find(&self, shape: &[u32], policy: Policy) -> Option<(Region, Vec<u32>)> {
        let want: u64 = shape.iter().map(|&l| l as u64).product();
        if want > self.free as u64 || shape.len() != self.dims.len() {
            return None;
        }
        candidates(shape, &self.dims, policy).into_iter().find_map(|s| self.first_fit(&s))
    }

    /// The first free box of `shape` in node order of its origin.
    fn first_fit(&self, shape: &[u32]) -> Option<(Region, Vec<u32>)> {
        let dims = &self.dims;
        if shape.iter().zip(dims).any(|(&s, &d)| s == 0 || s > d) {
            return None;
        }
        let total: u32 = shape.iter().product();
        let mut c = vec![0u32; dims.len()];
        let origin = (0..self.nodes()).find(|&o| {
            if self.busy[o as usize] {
                return false;
            }
            let at = coords(dims, o);
            if at.iter().zip(shape).zip(dims.iter().zip(&self.wrap)).any(|((&a, &s), (&d, &w))| !w && a + s > d) {
                return false;
            }
            // Every node of the box free: stop at the first taken one.
            c.iter_mut().for_each(|x| *x = 0);
            for _ in 0..total {
                if self.busy[id_at(dims, &at, &c) as usize] {
                    return false;
                }
                advance(&mut c, shape);
            }
            true
        })?;
        let r = Region { origin: coords(dims, origin), shape: shape.to_vec() };
        let ids = self.nodes_of(&r)?;
        Some((r, ids))
    }
}

/// The coordinates of node `id` on `dims` (axis 0 fastest).
pub fn coords(dims: &[u32], mut id: u32) -> Vec<u32> {
    dims.iter()
        .map(|&d| {
            let c = id % d;
            id /= d;
            c
        })
        .collect()
}

/// The node ids of region `r` on a torus or mesh of `dims` (`wrap`: rings), axis 0 fastest;
/// `None` if it leaves a line axis, is longer than an axis or has a zero length.
pub fn region_nodes(dims: &[u32], wrap: &[bool], r: &Region) -> Option<Vec<u32>> {
    if r.origin.len() != dims.len() || r.shape.len() != dims.len() {
        return None;
    }
    for a in 0..dims.len() {
        let (o, s, d) = (r.origin[a], r.shape[a], dims[a]);
        if s == 0 || s > d || o >= d || (!wrap[a] && o + s > d) {
            return None;
        }
    }
    let total: u32 = r.shape.iter().product();
    let mut out = Vec::with_capacity(total as usize);
    let mut c = vec![0u32; dims.len()];
    for _ in 0..total {
        out.push(id_at(dims, &r.origin, &c));
        advance(&mut c, &r.shape);
    }
    Some(out)
}

/// The id of the node at `origin + c` on `dims` (wrapping round each axis; axis 0 fastest).
fn id_at(dims: &[u32], origin: &[u32], c: &[u32]) -> u32 {
    let mut stride = 1;
    let mut id = 0;
    for ((&d, &o), &x) in dims.iter().zip(origin).zip(c) {
        id += ((o + x) % d) * stride;
        stride *= d;
    }
    id
}

/// `c` moved to the next position in a box of `shape` (axis 0 fastest; back to the start after
/// the last).
fn advance(c: &mut [u32], shape: &[u32]) {
    for (x, &s) in c.iter_mut().zip(shape) {
        *x += 1;
        if *x < s {
            return;
        }
        *x = 0;
    }
}

/// The shapes `policy` lets `shape` take on a machine of `dims`, in the order they are tried.
pub fn candidates(shape: &[u32], dims: &[u32], policy: Policy) -> Vec<Vec<u32>> {
    let mut out = vec![shape.to_vec()];
    let push = |out: &mut Vec<Vec<u32>>, s: Vec<u32>| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    if policy.rotate {
        for p in permutations(shape) {
            push(&mut out, p);
        }
    }
    if policy.pad > 1.0 {
        let want: u64 = shape.iter().map(|&l| l as u64).product();
        let most = (want as f64 * policy.pad).floor() as u64;
        let mut boxes = Vec::new();
        boxes_within(dims, want, most, &mut vec![], 1, &mut boxes);
        // Fewest nodes first, then the closest to the asked shape (sorted lengths).
        let mut sorted = shape.to_vec();
        sorted.sort_unstable();
        let distance = |b: &Vec<u32>| {
            let mut s = b.clone();
            s.sort_unstable();
            s.iter().zip(&sorted).map(|(&x, &y)| x.abs_diff(y)).sum::<u32>()
        };
        boxes.sort_by_key(|b| (b.iter().map(|&l| l as u64).product::<u64>(), distance(b), b.clone()));
        for b in boxes.into_iter().take(MAX_PADDED) {
            push(&mut out, b);
        }
    }
    out
}

/// Most padded boxes tried for one job (the smallest).
const MAX_PADDED: usize = 64;

/// Every box on `dims` of between `least` and `most` nodes.
fn boxes_within(dims: &[u32], least: u64, most: u64, prefix: &mut Vec<u32>, volume: u64, out: &mut Vec<Vec<u32>>) {
    let a = prefix.len();
    if a == dims.len() {
        if volume >= least {
            out.push(prefix.clone());
        }
        return;
    }
    for l in 1..=dims[a] {
        let v = volume * l as u64;
        if v > most {
            break;
        }
        prefix.push(l);
        boxes_within(dims, least, most, prefix, v, out);
        prefix.pop();
    }
}

/// Every order of `s`'s lengths (distinct orders once), the identity first.
fn permutations(s: &[u32]) -> Vec<Vec<u32>> {
    let mut idx: Vec<usize> = (0..s.len()).collect();
    let mut out: Vec<Vec<u32>> = Vec::new();
    loop {
        let p: Vec<u32> = idx.iter().map(|&i| s[i]).collect();
        if !out.contains(&p) {
            out.push(p);
        }
        // Next permutation of the indices (lexicographic).
        let Some(i) = (0..idx.len().saturating_sub(1)).rev().find(|&i| idx[i] < idx[i + 1]) else { break };
        let j = (i + 1..idx.len()).rev().find(|&j| idx[j] > idx[i]).expect("a larger index follows");
        idx.swap(i, j);
        idx[i + 1..].reverse();
    }
    out
}

#[cfg(test)]
mod tests;

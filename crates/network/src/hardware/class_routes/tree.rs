//! The tree of a Blue Gene/Q class route: embedded in a contiguous sub-rectangle of the torus,
//! each node's uptree link one step toward the root along the first axis (in axis order) on
//! which the node and the root differ, so every path to the root is in dimension order and
//! stays inside the rectangle. A node hears from at most two children per axis (one each way).

use fabricsim_topology::Torus;

/// A class route's tree over the nodes of a rectangle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassTree {
    /// The nodes, in ascending id order.
    pub nodes: Vec<u32>,
    /// Index (into `nodes`) of the root.
    pub root: usize,
    /// Per node: index of its parent (`usize::MAX` for the root).
    pub parent: Vec<usize>,
    /// Per node: indices of its children, ascending.
    pub children: Vec<Vec<usize>>,
}

impl ClassTree {
    /// The tree over `nodes` (which must fill a sub-rectangle of `torus`), rooted at `root`
    /// (a node of them); errors say what is wrong.
    pub fn build(torus: &Torus, nodes: &[u32], root: u32) -> Result<ClassTree, String> {
        let mut nodes = nodes.to_vec();
        nodes.sort_unstable();
        if nodes.windows(2).any(|w| w[0] == w[1]) {
            return Err("a class route takes one rank per node".into());
        }
        let dims = torus.dims();
        // The rectangle: per axis, the shortest arc of coordinates covering the nodes' ones.
        let mut lo = vec![0u32; dims];
        let mut len = vec![0u32; dims];
        for a in 0..dims {
            let n = torus.shape()[a];
            let mut used = vec![false; n as usize];
            for &v in &nodes {
                used[torus.coord(v.into(), a) as usize] = true;
            }
            (lo[a], len[a]) = arc(&used, torus.is_ring(a));
        }
        let volume: u64 = len.iter().map(|&l| l as u64).product();
        if volume != nodes.len() as u64 {
            return Err(format!(
                "the {} nodes do not fill a rectangle of the torus (their bounding rectangle has {volume}): a class route needs a contiguous sub-rectangle",
                nodes.len()
            ));
        }
        let index = |v: u32| nodes.binary_search(&v).ok();
        let r = index(root).ok_or_else(|| format!("the root, node {root}, is not one of the group's nodes"))?;
        let rc = torus.coords(root.into());
        let full = |a: usize| len[a] == torus.shape()[a] && torus.is_ring(a);
        let mut parent = vec![usize::MAX; nodes.len()];
        let mut children = vec![Vec::new(); nodes.len()];
        for (i, &v) in nodes.iter().enumerate() {
            if i == r {
                continue;
            }
            let mut c = torus.coords(v.into());
            let a = (0..dims).find(|&a| c[a] != rc[a]).unwrap();
            let n = torus.shape()[a];
            // Offsets within the rectangle's arc; on a whole ring the shorter way. On a tie
            // (half-way round an even ring) the way that keeps off the ring's wrap link: the
            // same depth without the link that may close through packaging hardware (a
            // loopback or a long cable, `fabricsim_topology::packaging`).
            let (oc, or) = ((c[a] + n - lo[a]) % n, (rc[a] + n - lo[a]) % n);
            let up = if full(a) {
                let ahead = (or + n - oc) % n;
                if 2 * ahead == n {
                    c[a] < rc[a]
                } else {
                    ahead < n - ahead
                }
            } else {
                or > oc
            };
            c[a] = if up { (c[a] + 1) % n } else { (c[a] + n - 1) % n };
            let p = index(torus.node_at(&c).unwrap().0).unwrap();
            parent[i] = p;
            children[p].push(i);
        }
        Ok(ClassTree { nodes, root: r, parent, children })
    }

    /// Levels from the deepest node to the root.
    pub fn depth(&self) -> u32 {
        (0..self.nodes.len())
            .map(|mut i| {
                let mut d = 0;
                while self.parent[i] != usize::MAX {
                    i = self.parent[i];
                    d += 1;
                }
                d
            })
            .max()
            .unwrap_or(0)
    }

    /// The default root: the node at the middle of the rectangle (rounded down) on every axis,
    /// which keeps the tree shallow.
    pub fn centre(torus: &Torus, nodes: &[u32]) -> u32 {
        let dims = torus.dims();
        let mut c = vec![0u32; dims];
        for (a, x) in c.iter_mut().enumerate() {
            let n = torus.shape()[a];
            let mut used = vec![false; n as usize];
            for &v in nodes {
                used[torus.coord(v.into(), a) as usize] = true;
            }
            let (lo, len) = arc(&used, torus.is_ring(a));
            *x = (lo + (len - 1) / 2) % n;
        }
        torus.node_at(&c).map_or(nodes[0], |v| v.0)
    }
}

/// The shortest run of used coordinates, `(first, length)`, going round a ring if `ring`.
fn arc(used: &[bool], ring: bool) -> (u32, u32) {
    let n = used.len() as u32;
    let count = used.iter().filter(|&&u| u).count() as u32;
    if count == n {
        return (0, n);
    }
    // Start just after an unused coordinate (on a ring), or at the first used one.
    let starts: Vec<u32> = if ring { (0..n).filter(|&s| !used[((s + n - 1) % n) as usize] && used[s as usize]).collect() } else { vec![] };
    let first = used.iter().position(|&u| u).unwrap_or(0) as u32;
    let last = used.iter().rposition(|&u| u).unwrap_or(0) as u32;
    let mut best = (first, last - first + 1);
    for s in starts {
        // Span from s to the last used coordinate going forward.
        let span = (1..=n).rev().find(|&k| used[((s + k - 1) % n) as usize]).unwrap();
        if span < best.1 {
            best = (s, span);
        }
    }
    best
}

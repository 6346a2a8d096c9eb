//! Destination patterns for synthetic traffic, defined on node coordinates. On a torus the
//! coordinates are the torus's; on a fat-tree a node id is a single coordinate on a ring of all
//! nodes (so "nearest neighbour" means id +/- 1).

use fabricsim_core::ConfigError;
use fabricsim_nic::Rank;
use fabricsim_topology::Topology;
use rand::Rng;

/// Coordinates of nodes: per-axis length and wrap.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// Length of each axis; axis 0 varies fastest along node ids.
    pub dims: Vec<u32>,
    /// Whether each axis wraps round (a ring) or not (a line); as long as `dims`.
    pub wrap: Vec<bool>,
}

impl Shape {
    /// The coordinates of `topo`'s nodes: a torus's or mesh's own, or one wrapping axis of all
    /// nodes for a fat-tree.
    pub fn of(topo: &Topology) -> Shape {
        match topo {
            Topology::Torus(t) => Shape { dims: t.shape().to_vec(), wrap: t.wrap().to_vec() },
            Topology::FatTree(f) => Shape { dims: vec![f.nodes()], wrap: vec![true] },
        }
    }
    /// Number of nodes: the product of the axis lengths.
    pub fn nodes(&self) -> u32 {
        self.dims.iter().product()
    }
    /// Coordinates of node `n` (one entry per axis).
    pub fn coords(&self, n: Rank) -> Vec<u32> {
        let mut c = vec![0; self.dims.len()];
        self.coords_into(n, &mut c);
        c
    }
    /// Coordinates of node `n` written into `out` (one entry per axis).
    pub fn coords_into(&self, n: Rank, out: &mut [u32]) {
        let mut n = n.0;
        for (c, &k) in out.iter_mut().zip(&self.dims) {
            *c = n % k;
            n /= k;
        }
    }

    /// `f` applied to the coordinates of node `n`, held on the stack for up to [`STACK_AXES`]
    /// axes: patterns compute a destination per message without allocating.
    fn with_coords<R>(&self, n: Rank, f: impl FnOnce(&mut [u32]) -> R) -> R {
        let mut stack = [0u32; STACK_AXES];
        let mut heap = Vec::new();
        let c = scratch(&mut stack, &mut heap, self.dims.len());
        self.coords_into(n, c);
        f(c)
    }

    /// The node at coordinates `c` (one entry per axis, each below its axis's length).
    pub fn node(&self, c: &[u32]) -> Rank {
        let mut id = 0;
        for (a, &k) in self.dims.iter().enumerate().rev() {
            id = id * k + c[a];
        }
        Rank(id)
    }
}

/// Axes whose coordinates a pattern keeps on the stack (shapes with more use the heap).
const STACK_AXES: usize = 16;

/// A buffer of `len` coordinates: the front of `stack` if it is long enough, else `heap`.
fn scratch<'a>(stack: &'a mut [u32; STACK_AXES], heap: &'a mut Vec<u32>, len: usize) -> &'a mut [u32] {
    if len <= STACK_AXES {
        &mut stack[..len]
    } else {
        heap.resize(len, 0);
        heap
    }
}

/// Where a node's messages go (see the module docs for the coordinates).
#[derive(Debug, Clone, PartialEq)]
pub enum Pattern {
    /// Any other node, uniformly.
    UniformRandom,
    /// A random neighbour one hop away along a random axis.
    NearestNeighbor,
    /// Coordinates reversed: (c0, c1, ..., cn-1) -> (cn-1, ..., c0). 2-D: matrix transpose.
    Transpose,
    /// Every coordinate complemented: c -> k - 1 - c.
    BitComplement,
    /// Every coordinate moved forward by ceil(k/2) - 1 (the classic worst case for rings).
    Tornado,
    /// A fraction `fraction` of messages go to a node among the first `nodes` node ids; the rest
    /// are uniform random.
    HotRegion {
        /// Share of messages sent to the hot region, 0 to 1.
        fraction: f64,
        /// Nodes in the hot region (ids `0..nodes`), at least 1.
        nodes: u32,
    },
    /// Uniformly among the moves of 1 to `radius` hops (L1 distance on coordinates; a move
    /// goes at most half way round a ring, so two moves can reach the same node on an even
    /// ring); drawn by counting moves (`sphere.rs`).
    Sphere {
        /// Largest distance in hops, at least 1.
        radius: u32,
    },
}

impl Pattern {
    /// Check the pattern against a shape.
    pub fn check(&self, s: &Shape) -> Result<(), ConfigError> {
        match self {
            Pattern::Transpose => {
                let d = s.dims.len();
                for i in 0..d {
                    if s.dims[i] != s.dims[d - 1 - i] {
                        return Err(ConfigError::new(
                            "workload.type",
                            format!("'transpose' needs a shape that reads the same reversed; {:?} does not", s.dims),
                        ));
                    }
                }
            }
            Pattern::HotRegion { fraction, nodes } => {
                if !(0.0..=1.0).contains(fraction) {
                    return Err(ConfigError::new("workload.hot_fraction", format!("{fraction} must be between 0 and 1")));
                }
                if *nodes == 0 || *nodes > s.nodes() {
                    return Err(ConfigError::new("workload.hot_nodes", format!("{nodes} must be between 1 and {}", s.nodes())));
                }
            }
            Pattern::Sphere { radius } if *radius == 0 => {
                return Err(ConfigError::new("workload.radius", "0 leaves no destination; use at least 1"));
            }
            _ => {}
        }
        Ok(())
    }

    /// Whether each node's destination is fixed (the pattern draws nothing): a caller may then
    /// tabulate [`Pattern::destination`] once per node.
    pub fn is_permutation(&self) -> bool {
        matches!(self, Pattern::Transpose | Pattern::BitComplement | Pattern::Tornado)
    }

    /// Destination for a message from `src`, or `None` when the pattern maps `src` to itself
    /// (such nodes stay silent).
    pub fn destination(&self, s: &Shape, src: Rank, rng: &mut impl Rng) -> Option<Rank> {
        let n = s.nodes();
        let dst = match self {
            Pattern::UniformRandom => uniform_other(n, src, rng),
            Pattern::NearestNeighbor => {
                // A random axis among those longer than 1 (a shape of two or more nodes has one).
                let mut movable = s.dims.iter().enumerate().filter(|&(_, &k)| k > 1).map(|(a, _)| a);
                let j = rng.gen_range(0..movable.clone().count());
                let a = movable.nth(j).unwrap_or(0);
                let k = s.dims[a];
                let up = rng.gen_bool(0.5);
                s.with_coords(src, |c| {
                    c[a] = match (up, c[a], s.wrap[a]) {
                        (true, x, _) if x + 1 < k => x + 1,
                        (true, _, true) => 0,
                        (true, x, false) => x - 1,
                        (false, 0, true) => k - 1,
                        (false, 0, false) => 1,
                        (false, x, _) => x - 1,
                    };
                    s.node(c)
                })
            }
            Pattern::Transpose => s.with_coords(src, |c| {
                c.reverse();
                s.node(c)
            }),
            Pattern::BitComplement => s.with_coords(src, |c| {
                c.iter_mut().zip(&s.dims).for_each(|(x, &k)| *x = k - 1 - *x);
                s.node(c)
            }),
            Pattern::Tornado => s.with_coords(src, |c| {
                c.iter_mut().zip(&s.dims).for_each(|(x, &k)| *x = (*x + k.div_ceil(2) - 1) % k);
                s.node(c)
            }),
            Pattern::HotRegion { fraction, nodes } => {
                if rng.gen_bool(*fraction) {
                    let d = Rank(rng.gen_range(0..*nodes));
                    if d == src {
                        uniform_other(n, src, rng)
                    } else {
                        d
                    }
                } else {
                    uniform_other(n, src, rng)
                }
            }
            Pattern::Sphere { radius } => sphere(s, src, *radius, rng)?,
        };
        (dst != src).then_some(dst)
    }
}

fn uniform_other(n: u32, src: Rank, rng: &mut impl Rng) -> Rank {
    let d = rng.gen_range(0..n - 1);
    Rank(if d >= src.0 { d + 1 } else { d })
}

/// A destination 1 to `radius` hops from `src` (see `sphere.rs`).
fn sphere(s: &Shape, src: Rank, radius: u32, rng: &mut impl Rng) -> Option<Rank> {
    let (mut stack, mut heap) = ([0u32; STACK_AXES], Vec::new());
    let dst = scratch(&mut stack, &mut heap, s.dims.len());
    s.with_coords(src, |c| crate::sphere::draw(s, c, radius, rng, dst)).then(|| s.node(dst))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_core::NodeId;
    use rand::SeedableRng;

    fn shape(d: &[u32], w: &[bool]) -> Shape {
        Shape { dims: d.to_vec(), wrap: w.to_vec() }
    }

    #[test]
    fn coords_round_trip() {
        let s = shape(&[3, 4, 5], &[true, false, true]);
        for n in 0..60 {
            assert_eq!(s.node(&s.coords(Rank(n))), Rank(n));
        }
    }

    #[test]
    fn permutations_are_as_defined() {
        let s = shape(&[4, 4], &[true, true]);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        // node (1,2) = 1 + 2*4 = 9
        assert_eq!(Pattern::Transpose.destination(&s, Rank(9), &mut rng), Some(Rank(2 + 4)));
        assert_eq!(Pattern::BitComplement.destination(&s, Rank(9), &mut rng), Some(Rank(2 + 4)));
        assert_eq!(Pattern::BitComplement.destination(&s, Rank(0), &mut rng), Some(Rank(15)));
        // tornado on k=4: +1 per axis
        assert_eq!(Pattern::Tornado.destination(&s, Rank(0), &mut rng), Some(Rank(1 + 4)));
        assert_eq!(Pattern::Transpose.destination(&s, Rank(5), &mut rng), None);
        // Open-loop traffic tabulates permutations once, which is exact only if they draw
        // nothing from the generator.
        for p in [Pattern::Transpose, Pattern::BitComplement, Pattern::Tornado] {
            assert!(p.is_permutation());
            let before = rng.clone();
            for src in 0..16 {
                p.destination(&s, Rank(src), &mut rng);
            }
            assert_eq!(rng, before, "{p:?} drew from the generator");
        }
        assert!(!Pattern::UniformRandom.is_permutation() && !Pattern::NearestNeighbor.is_permutation());
    }

    #[test]
    fn random_patterns_respect_their_definitions() {
        let s = shape(&[8, 8, 8], &[true, true, false]);
        let topo = fabricsim_topology::Torus::new(vec![8, 8, 8], Some(vec![true, true, false]), None).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for src in [0u32, 77, 511].map(Rank) {
            for _ in 0..200 {
                let d = Pattern::UniformRandom.destination(&s, src, &mut rng).unwrap();
                assert!(d != src && d.0 < 512);
                let d = Pattern::NearestNeighbor.destination(&s, src, &mut rng).unwrap();
                assert_eq!(topo.distance(NodeId(src.0), NodeId(d.0)), 1);
                let d = Pattern::Sphere { radius: 2 }.destination(&s, src, &mut rng).unwrap();
                assert!((1..=2).contains(&topo.distance(NodeId(src.0), NodeId(d.0))));
            }
        }
        let hot = Pattern::HotRegion { fraction: 1.0, nodes: 8 };
        for _ in 0..100 {
            let d = hot.destination(&s, Rank(100), &mut rng).unwrap();
            assert!(d.0 < 8);
        }
    }

    #[test]
    fn shapes_beyond_the_stack_buffer_give_the_same_destinations() {
        // Coordinates of up to STACK_AXES axes live on the stack, more on the heap: both must
        // follow the definitions. Mixed lengths (1 to 3) over 18 and over 6 axes.
        for dims in [vec![2, 3, 1, 2, 3, 2, 1, 2, 2, 3, 2, 2, 1, 2, 2, 3, 2, 2], vec![3, 2, 1, 2, 3, 2]] {
            let s = shape(&dims, &vec![true; dims.len()]);
            let mut rng = rand::rngs::StdRng::seed_from_u64(3);
            let n = s.nodes();
            for src in [0, 1, n / 3, n - 1].map(Rank) {
                let c = s.coords(src);
                let flip: Vec<u32> = c.iter().zip(&dims).map(|(&x, &k)| k - 1 - x).collect();
                let tor: Vec<u32> = c.iter().zip(&dims).map(|(&x, &k)| (x + k.div_ceil(2) - 1) % k).collect();
                let want = |v: Vec<u32>| Some(s.node(&v)).filter(|&d| d != src);
                assert_eq!(Pattern::BitComplement.destination(&s, src, &mut rng), want(flip));
                assert_eq!(Pattern::Tornado.destination(&s, src, &mut rng), want(tor));
                for _ in 0..50 {
                    let d = Pattern::NearestNeighbor.destination(&s, src, &mut rng).unwrap();
                    let moved: Vec<usize> = (0..dims.len()).filter(|&a| s.coords(d)[a] != c[a]).collect();
                    assert_eq!(moved.len(), 1, "{src} -> {d}");
                    assert!(dims[moved[0]] > 1);
                }
                let d = Pattern::Sphere { radius: 1 }.destination(&s, src, &mut rng).unwrap();
                let l1: u32 = s.coords(d).iter().zip(&c).zip(&dims).map(|((&a, &b), &k)| a.abs_diff(b).min(k - a.abs_diff(b))).sum();
                assert_eq!(l1, 1, "{src} -> {d}");
            }
        }
    }

    #[test]
    fn transpose_needs_a_symmetric_shape() {
        assert!(Pattern::Transpose.check(&shape(&[4, 8], &[true, true])).is_err());
        assert!(Pattern::Transpose.check(&shape(&[4, 2, 4], &[true, true, true])).is_ok());
    }
}

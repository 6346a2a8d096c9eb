//! Cutting a network into blocks of routers, the units a partitioned parallel run gives to its
//! threads or processes.
//!
//! A torus is cut into bricks: the block count is split into prime factors, largest first, and
//! each factor divides the axis whose bricks are longest at that point (the lowest axis on a
//! tie), so long axes are cut first and bricks stay close to cubes; a brick holds the routers
//! whose coordinate `c` on each axis of length `L` cut in `k` parts falls in part `c * k / L`.
//! A fat-tree is cut into subtrees: nodes in contiguous ranges (whole subtrees when the count
//! divides the tree's arity), each switch with the nodes below it; a switch whose subtree spans
//! several blocks (the upper levels) goes to one of them by its copy index, so the copies of an
//! upper switch spread over the blocks they serve. A router's NICs stay with it.
//!
//! A link between two blocks is a *cut link*: what crosses it (a packet, a credit returned)
//! must travel as a message between blocks.

use crate::graph::{PortGraph, PortKind};
use crate::{FatTree, Topology, Torus};
use fabricsim_core::ConfigError;

/// Routers cut into blocks (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocks {
    /// The block of each router.
    pub of_router: Vec<u32>,
    /// Number of blocks.
    pub count: u32,
    /// For a torus, the parts each axis is cut into (their product is `count`); empty for a
    /// fat-tree.
    pub grid: Vec<u32>,
}

impl Blocks {
    /// Cut `topology` into `count` blocks; an error names `field` (the key the count came
    /// from) when the count is zero, exceeds the routers, or cannot cut the torus's shape into
    /// bricks.
    pub fn new(topology: &Topology, count: u32, field: &str) -> Result<Self, ConfigError> {
        let routers = match topology {
            Topology::Torus(t) => t.nodes(),
            Topology::FatTree(f) => f.switches(),
        };
        if count == 0 {
            return Err(ConfigError::new(field, "0: a run needs at least one block"));
        }
        if count > routers {
            return Err(ConfigError::new(field, format!("{count} blocks but the network has {routers} routers")));
        }
        match topology {
            Topology::Torus(t) => bricks(t, count, field),
            Topology::FatTree(f) => Ok(subtrees(f, count)),
        }
    }

    /// Routers in each block.
    pub fn sizes(&self) -> Vec<u32> {
        let mut n = vec![0; self.count as usize];
        for &b in &self.of_router {
            n[b as usize] += 1;
        }
        n
    }

    /// The network ports of `graph` whose link leads into another block (each cut link appears
    /// twice, once from each end).
    pub fn cut_ports<'a>(&'a self, graph: &'a PortGraph) -> impl Iterator<Item = usize> + 'a {
        (0..graph.total_ports() as usize).filter(move |&p| {
            graph.kind[p] == PortKind::Network && {
                let peer_router = graph.owner[graph.peer[p] as usize];
                self.of_router[graph.owner[p].index()] != self.of_router[peer_router.index()]
            }
        })
    }
}

/// Prime factors of `n`, largest first.
fn factors_descending(mut n: u32) -> Vec<u32> {
    let mut f = Vec::new();
    let mut p = 2;
    while p * p <= n {
        while n.is_multiple_of(p) {
            f.push(p);
            n /= p;
        }
        p += 1;
    }
    if n > 1 {
        f.push(n);
    }
    f.reverse();
    f
}

fn bricks(t: &Torus, count: u32, field: &str) -> Result<Blocks, ConfigError> {
    let shape = t.shape();
    let mut grid = vec![1u32; shape.len()];
    for p in factors_descending(count) {
        // The axis with the longest bricks that can still be cut in `p` more parts.
        let axis = (0..shape.len())
            .filter(|&a| grid[a] * p <= shape[a])
            .max_by(|&a, &b| (shape[a] as u64 * grid[b] as u64).cmp(&(shape[b] as u64 * grid[a] as u64)).then(b.cmp(&a)));
        let Some(axis) = axis else {
            return Err(ConfigError::new(
                field,
                format!("{count} blocks cannot cut shape {shape:?} into bricks (a factor of {p} fits no axis after the cuts {grid:?})"),
            ));
        };
        grid[axis] *= p;
    }
    let of_router = (0..t.nodes())
        .map(|n| {
            let coords = t.coord_row(fabricsim_core::NodeId(n));
            let mut block = 0u32;
            for a in (0..shape.len()).rev() {
                block = block * grid[a] + coords[a] as u32 * grid[a] / shape[a];
            }
            block
        })
        .collect();
    Ok(Blocks { of_router, count, grid })
}

fn subtrees(f: &FatTree, count: u32) -> Blocks {
    let nodes = f.nodes() as u64;
    let block_of_node = |n: u64| (n * count as u64 / nodes) as u32;
    let mut of_router = vec![0u32; f.switches() as usize];
    for rail in 0..f.rails() {
        for level in 1..=f.levels() as usize {
            let span = f.span(level) as u64;
            let subtrees = nodes / span;
            for idx in 0..f.level_count(level) {
                let (a, copy) = (idx as u64 % subtrees, idx as u64 / subtrees);
                let (first, last) = (block_of_node(a * span), block_of_node((a + 1) * span - 1));
                let block = first + (copy % (last - first + 1) as u64) as u32;
                of_router[f.router(rail, level, idx).index()] = block;
            }
        }
    }
    Blocks { of_router, count, grid: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn torus(shape: &[u32]) -> Topology {
        Topology::Torus(Torus::new(shape.to_vec(), None, None).unwrap())
    }

    #[test]
    fn long_axes_are_cut_first_and_bricks_are_balanced() {
        let b = Blocks::new(&torus(&[16, 4, 8]), 4, "sim.threads").unwrap();
        assert_eq!(b.grid, vec![4, 1, 1]);
        assert_eq!(b.sizes(), vec![128; 4]);
        let b = Blocks::new(&torus(&[24, 23, 24, 2, 3, 2]), 64, "sim.threads").unwrap();
        assert_eq!(b.grid.iter().product::<u32>(), 64);
        let sizes = b.sizes();
        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        assert!(*hi as f64 / *lo as f64 <= 1.2, "bricks {lo}..{hi} of grid {:?}", b.grid);
        // Two blocks of an 8x8x8 torus: a cut through X only, both rings cross it twice.
        let t = torus(&[8, 8, 8]);
        let b = Blocks::new(&t, 2, "sim.threads").unwrap();
        let g = t.build_graph(1);
        assert_eq!(b.cut_ports(&g).count(), 2 * 2 * 64);
    }

    #[test]
    fn a_brick_is_a_connected_box_of_coordinates() {
        let Topology::Torus(t) = torus(&[6, 5, 4]) else { unreachable!() };
        let b = Blocks::new(&Topology::Torus(t.clone()), 6, "x").unwrap();
        for n in 0..t.nodes() {
            for axis in 0..3 {
                // Neighbours on an uncut axis share the block.
                if b.grid[axis] == 1 {
                    let m = t.step(fabricsim_core::NodeId(n), axis, 1).unwrap();
                    assert_eq!(b.of_router[n as usize], b.of_router[m.index()]);
                }
            }
        }
        assert_eq!(b.sizes().iter().sum::<u32>(), t.nodes());
    }

    #[test]
    fn counts_that_cannot_cut_are_refused_with_the_field() {
        let e = Blocks::new(&torus(&[4, 4]), 0, "sim.threads").unwrap_err();
        assert_eq!(e.field, "sim.threads");
        let e = Blocks::new(&torus(&[4, 4]), 17, "sim.threads").unwrap_err().to_string();
        assert!(e.contains("17 blocks") && e.contains("16 routers"), "{e}");
        let e = Blocks::new(&torus(&[4, 4]), 5, "info --partitions").unwrap_err().to_string();
        assert!(e.contains("factor of 5"), "{e}");
    }

    #[test]
    fn a_fat_tree_is_cut_into_subtrees_with_their_switches() {
        let ft = FatTree::new(8, 3, 1, false).unwrap();
        let g = ft.build_graph();
        let top = Topology::FatTree(ft.clone());
        let b = Blocks::new(&top, 4, "sim.threads").unwrap();
        // Every leaf switch sits in the block of the nodes below it.
        for idx in 0..ft.level_count(1) {
            let r = ft.router(0, 1, idx);
            let first_node = idx % (ft.nodes() / ft.span(1)) * ft.span(1);
            assert_eq!(b.of_router[r.index()], first_node * 4 / ft.nodes());
        }
        // The top switches spread over all four blocks.
        let tops: std::collections::BTreeSet<u32> = (0..ft.level_count(3)).map(|i| b.of_router[ft.router(0, 3, i).index()]).collect();
        assert_eq!(tops.len(), 4);
        assert!(b.cut_ports(&g).count() > 0);
        assert!(b.sizes().iter().all(|&s| s > 0));
    }

    #[test]
    fn prime_factors_come_largest_first() {
        assert_eq!(factors_descending(60), vec![5, 3, 2, 2]);
        assert_eq!(factors_descending(1), Vec::<u32>::new());
        assert_eq!(factors_descending(97), vec![97]);
    }
}

//! Baseline orders: the default, every axis permutation, blocked orders.

use super::Mapped;
use crate::{cost, Pattern};
use fabricsim_core::NodeId;
use fabricsim_topology::{Topology, Torus};

/// Rank `r` on node `r`.
pub fn default_order(ranks: u32) -> Vec<NodeId> {
    (0..ranks).map(NodeId).collect()
}

/// Ranks laid along the axes in `order` (the first fastest), rank `r` at the `r`-th node of
/// that order; the nodes of a box `brick` (per axis) are filled before the next box (bricks in
/// the same axis order).
fn ordered(t: &Torus, order: &[usize], brick: &[u32], ranks: u32) -> Vec<NodeId> {
    let shape = t.shape();
    let outer: Vec<u32> = order.iter().map(|&a| shape[a] / brick[a]).collect();
    let inner: Vec<u32> = order.iter().map(|&a| brick[a]).collect();
    let mut coords = vec![0u32; shape.len()];
    (0..ranks)
        .map(|r| {
            let (mut i, mut o) = (r, 0);
            let mut ic = vec![0u32; order.len()];
            for (k, &l) in inner.iter().enumerate() {
                ic[k] = i % l;
                i /= l;
            }
            o += i;
            for (k, &a) in order.iter().enumerate() {
                coords[a] = (o % outer[k]) * brick[a] + ic[k];
                o /= outer[k];
            }
            t.node_at(&coords).expect("within the shape")
        })
        .collect()
}

/// Every permutation of `0..n` (Heap's algorithm), the identity first.
fn all_orders(n: usize) -> Vec<Vec<usize>> {
    let mut a: Vec<usize> = (0..n).collect();
    let mut out = vec![a.clone()];
    let mut c = vec![0usize; n];
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                a.swap(0, i);
            } else {
                a.swap(c[i], i);
            }
            out.push(a.clone());
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
}

/// Keep the cheaper of two candidates (the earlier on a tie).
fn keep(best: &mut Option<Mapped>, m: Mapped) {
    if best.as_ref().is_none_or(|b| m.hop_bytes < b.hop_bytes) {
        *best = Some(m);
    }
}

/// The axis order with the least hop-bytes (the default on a fat-tree, which has no axes).
pub fn permutations(topo: &Topology, pattern: &Pattern) -> Mapped {
    let Topology::Torus(t) = topo else { return super::run(super::Method::Default, topo, pattern, &Default::default()) };
    let ones = vec![1u32; t.dims()];
    let mut best = None;
    for order in all_orders(t.dims()) {
        let map = ordered(t, &order, &ones, pattern.ranks());
        let names: Vec<&str> = order.iter().map(|&a| t.names()[a].as_str()).collect();
        keep(&mut best, Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail: format!("axes {} (first fastest)", names.join(",")) });
    }
    best.expect("at least the identity")
}

/// The brick shape (each axis 1, 2 or 4 long where that divides it; 1 or 2 beyond four axes)
/// with the least hop-bytes, bricks and ranks in them in axis order.
pub fn blocks(topo: &Topology, pattern: &Pattern) -> Mapped {
    let Topology::Torus(t) = topo else { return super::run(super::Method::Default, topo, pattern, &Default::default()) };
    let sizes: &[u32] = if t.dims() > 4 { &[1, 2] } else { &[1, 2, 4] };
    let options: Vec<Vec<u32>> = t.shape().iter().map(|&l| sizes.iter().copied().filter(|&b| l % b == 0).collect()).collect();
    let order: Vec<usize> = (0..t.dims()).collect();
    let mut best = None;
    let mut pick = vec![0usize; t.dims()];
    loop {
        let brick: Vec<u32> = pick.iter().enumerate().map(|(a, &i)| options[a][i]).collect();
        let map = ordered(t, &order, &brick, pattern.ranks());
        let shape: Vec<String> = brick.iter().map(u32::to_string).collect();
        keep(&mut best, Mapped { hop_bytes: cost::hop_bytes(topo, pattern, &map), map, detail: format!("bricks {}", shape.join("x")) });
        let Some(a) = (0..t.dims()).find(|&a| pick[a] + 1 < options[a].len()) else { break };
        pick[a] += 1;
        pick[..a].iter_mut().for_each(|p| *p = 0);
    }
    best.expect("at least bricks of one node")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_bijections() {
        assert_eq!(all_orders(3).len(), 6);
        let t = Torus::new(vec![4, 2, 6], None, None).unwrap();
        for order in all_orders(3) {
            for brick in [[1, 1, 1], [2, 2, 1], [4, 2, 2]] {
                let mut m = ordered(&t, &order, &brick, 48);
                m.sort();
                m.dedup();
                assert_eq!(m.len(), 48, "{order:?} {brick:?}");
            }
        }
        // Bricks 2x2x1: ranks 0..4 fill the first 2x2 square.
        let m = ordered(&t, &[0, 1, 2], &[2, 2, 1], 4);
        assert_eq!(m, vec![NodeId(0), NodeId(1), NodeId(4), NodeId(5)]);
    }
}

//! The paired virtual torus of a mesh/torus (Tofu's 6D XYZABC seen as a 3D torus): axis `i` is
//! paired with axis `i + n/2`, and the nodes of each pair's 2D grid are threaded on one ring
//! through neighbouring nodes (a Hamiltonian cycle), so every step along a virtual axis is one
//! physical link, wrap-around included.
//!
//! The cycle on a grid of `m` x `k` nodes (first axis `m` long, second `k`): a spine up the
//! first axis at second coordinate 0, then back down through the band of the other second
//! coordinates, row by row in alternate directions, closing at (0, 1) or, when `m` is odd,
//! at (0, k-1) through the second axis's wrap link. So it needs `m` even or the second axis a
//! ring (or 2 long); a grid one node wide needs its long axis to be a ring (or 2 long).
//! [`crate::embed`] generalises this to any grouping of axes.

use fabricsim_core::NodeId;
use fabricsim_topology::Torus;

/// A virtual torus laid on a network: the node of every rank and the virtual torus's shape
/// (rank numbers run along virtual axis 0 fastest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VirtualTorus {
    /// Node of each rank.
    pub map: Vec<NodeId>,
    /// Length of each virtual axis (every one a ring).
    pub dims: Vec<u32>,
}

/// One rank per node, laid out on the paired virtual torus of `t`: with `2n` axes, virtual axis
/// `i` threads axes `i` and `i + n`. The error says why there is none.
pub fn paired_torus(t: &Torus) -> Result<VirtualTorus, String> {
    let (shape, wrap) = (t.shape(), t.wrap());
    if shape.len() % 2 == 1 {
        return Err(format!("pairs axis i with axis i + n/2: the shape has {} axes", shape.len()));
    }
    let n = shape.len() / 2;
    let cycles = (0..n)
        .map(|i| cycle(shape[i], wrap[i], shape[i + n], wrap[i + n]).map_err(|m| format!("axes {} and {}: {m}", t.names()[i], t.names()[i + n])))
        .collect::<Result<Vec<_>, _>>()?;
    let dims: Vec<u32> = cycles.iter().map(|c| c.len() as u32).collect();
    let mut map = Vec::with_capacity(t.nodes() as usize);
    let mut coords = vec![0u32; 2 * n];
    for r in 0..t.nodes() {
        let mut rest = r;
        for (i, c) in cycles.iter().enumerate() {
            let (a, b) = c[(rest % dims[i]) as usize];
            rest /= dims[i];
            (coords[i], coords[i + n]) = (a, b);
        }
        map.push(t.node_at(&coords)?);
    }
    Ok(VirtualTorus { map, dims })
}

/// The cycle on an `m` x `k` grid (`wrap_m`, `wrap_k`: whether each axis is a ring) as the
/// sequence of (first, second) coordinates, or why there is none.
pub fn cycle(m: u32, wrap_m: bool, k: u32, wrap_k: bool) -> Result<Vec<(u32, u32)>, String> {
    if k == 1 || m == 1 {
        let (len, wraps) = if k == 1 { (m, wrap_m) } else { (k, wrap_k) };
        if len > 2 && !wraps {
            return Err(format!("a line of {len} nodes that is not a ring"));
        }
        return Ok((0..len).map(|i| if k == 1 { (i, 0) } else { (0, i) }).collect());
    }
    if m % 2 == 1 && k > 2 && !wrap_k {
        return Err(format!("an {m} x {k} grid with an odd first axis and no wrap on the second"));
    }
    let mut v: Vec<(u32, u32)> = (0..m).map(|y| (y, 0)).collect();
    for (j, y) in (0..m).rev().enumerate() {
        if j % 2 == 0 {
            v.extend((1..k).map(|b| (y, b)));
        } else {
            v.extend((1..k).rev().map(|b| (y, b)));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One step on a ring of `len` (`wrap`) or a line.
    fn adjacent(a: u32, b: u32, len: u32, wrap: bool) -> bool {
        a.abs_diff(b) == 1 || (wrap && len > 2 && a.abs_diff(b) == len - 1)
    }

    #[test]
    fn cycles_visit_every_node_once_through_neighbours() {
        for m in 1..9 {
            for k in 1..5 {
                for (wm, wk) in [(false, false), (true, false), (false, true), (true, true)] {
                    let Ok(c) = cycle(m, wm, k, wk) else { continue };
                    assert_eq!(c.len() as u32, m * k);
                    let mut seen = std::collections::HashSet::new();
                    assert!(c.iter().all(|p| seen.insert(*p)));
                    if c.len() < 3 {
                        continue;
                    }
                    for i in 0..c.len() {
                        let (a, b) = (c[i], c[(i + 1) % c.len()]);
                        let ok = (a.1 == b.1 && adjacent(a.0, b.0, m, wm)) || (a.0 == b.0 && adjacent(a.1, b.1, k, wk));
                        assert!(ok, "{m}x{k} wrap {wm}/{wk}: {a:?} -> {b:?}");
                    }
                }
            }
        }
        // Tofu's pairs: X with A (2), Y with B (3, a ring), Z with C (2), any lengths.
        assert!(cycle(24, true, 2, false).is_ok() && cycle(17, false, 3, true).is_ok() && cycle(16, true, 2, false).is_ok());
        assert!(cycle(5, false, 3, false).is_err());
    }
}

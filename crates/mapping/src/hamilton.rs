//! Hamiltonian paths and cycles through a box of axes (each a ring or a line): the threads a
//! virtual torus axis follows through the physical axes it is given.
//!
//! * A **snake** (boustrophedon) visits every node of a box, one link per step: axis 0 runs
//!   fastest, and each axis runs backwards on every other sweep of the axes above it.
//! * A **cycle** closes such a walk. With an axis of even length `m`, the walk goes up that axis
//!   along a spine, then back down through the band of the other axes, row by row in
//!   alternate directions (a snake through the rest), and ends beside its start. With every
//!   length odd, one ring axis of the group plays the band, so the last row ends at the far
//!   end of the ring, one wrap link from the start. A box of lines with an odd node count has
//!   no cycle (it is bipartite with unequal sides).

/// One axis of a group: its length, whether it is a ring (wrap link present), and its name for
/// errors.
#[derive(Debug, Clone)]
pub(crate) struct Axis {
    pub(crate) len: u32,
    pub(crate) ring: bool,
    pub(crate) name: String,
}

/// The coordinates (one per axis of `lens`) of step `i` of the snake through the box `lens`.
pub(crate) fn snake_at(mut i: u64, lens: &[u32], out: &mut [u32]) {
    let total: u64 = lens.iter().map(|&l| l as u64).product();
    debug_assert!(i < total.max(1));
    let mut above = i;
    for (j, &l) in lens.iter().enumerate() {
        let d = (i % l as u64) as u32;
        i /= l as u64;
        above /= l as u64;
        out[j] = if above.is_multiple_of(2) { d } else { l - 1 - d };
    }
}

/// A cycle through every node of the box of `axes` (coordinates per node, in cycle order, one
/// per axis), consecutive nodes (and last and first) one link apart; or why there is none.
pub(crate) fn cycle(axes: &[Axis]) -> Result<Vec<Vec<u32>>, String> {
    let n: u64 = axes.iter().map(|a| a.len as u64).product();
    let dims = axes.len();
    let long: Vec<usize> = (0..dims).filter(|&a| axes[a].len >= 2).collect();
    let point = |pick: &[(usize, u32)]| {
        let mut c = vec![0u32; dims];
        for &(a, v) in pick {
            c[a] = v;
        }
        c
    };
    match long.as_slice() {
        [] => return Ok(vec![vec![0; dims]]),
        [a] => {
            let ax = &axes[*a];
            if ax.len > 2 && !ax.ring {
                return Err(format!("axis {} is a line of {} nodes, not a ring", ax.name, ax.len));
            }
            return Ok((0..ax.len).map(|i| point(&[(*a, i)])).collect());
        }
        _ => {}
    }
    // The spine axis (`m` long) and the band (a snake through the other axes, `k` nodes).
    let even = long.iter().copied().find(|&a| axes[a].len.is_multiple_of(2));
    let (spine, band_ring) = match even {
        Some(a) => (Some(a), None),
        None => match long.iter().copied().find(|&a| axes[a].ring) {
            Some(r) => (None, Some(r)),
            None => {
                let names: Vec<String> = long.iter().map(|&a| format!("{}={}", axes[a].name, axes[a].len)).collect();
                return Err(format!(
                    "{} has {n} nodes, an odd number, and no ring axis: a cycle through lines needs an even node count or a ring",
                    names.join(" x ")
                ));
            }
        },
    };
    // The first part (`m` positions, walked along its own path) and the band (`k` positions).
    let (first, band): (Vec<usize>, Vec<usize>) = match (spine, band_ring) {
        (Some(s), _) => (vec![s], long.iter().copied().filter(|&a| a != s).collect()),
        (None, Some(r)) => (long.iter().copied().filter(|&a| a != r).collect(), vec![r]),
        (None, None) => unreachable!("one of the two is chosen above"),
    };
    let lens = |set: &[usize]| set.iter().map(|&a| axes[a].len).collect::<Vec<u32>>();
    let (flens, blens) = (lens(&first), lens(&band));
    let m: u64 = flens.iter().map(|&l| l as u64).product();
    let k: u64 = blens.iter().map(|&l| l as u64).product();
    let (mut fc, mut bc) = (vec![0u32; first.len()], vec![0u32; band.len()]);
    let mut at = |y: u64, b: u64| {
        snake_at(y, &flens, &mut fc);
        snake_at(b, &blens, &mut bc);
        let mut c = vec![0u32; dims];
        for (i, &a) in first.iter().enumerate() {
            c[a] = fc[i];
        }
        for (i, &a) in band.iter().enumerate() {
            c[a] = bc[i];
        }
        c
    };
    let mut v = Vec::with_capacity(n as usize);
    for y in 0..m {
        v.push(at(y, 0));
    }
    for (j, y) in (0..m).rev().enumerate() {
        if j % 2 == 0 {
            v.extend((1..k).map(|b| at(y, b)));
        } else {
            v.extend((1..k).rev().map(|b| at(y, b)));
        }
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_link(a: &[u32], b: &[u32], axes: &[Axis]) -> bool {
        let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
        let [i] = diff.as_slice() else { return false };
        let (x, y, l) = (a[*i], b[*i], axes[*i].len);
        x.abs_diff(y) == 1 || (axes[*i].ring && x.abs_diff(y) == l - 1)
    }

    #[test]
    fn snakes_and_cycles_step_one_link_at_a_time() {
        let shapes: &[&[(u32, bool)]] = &[
            &[(3, false), (3, false), (2, false)],
            &[(3, false), (5, true)],
            &[(3, false), (3, false), (3, true)],
            &[(4, false), (3, false)],
            &[(2, false), (3, true), (2, false)],
        ];
        for s in shapes {
            let axes: Vec<Axis> = s.iter().enumerate().map(|(i, &(len, ring))| Axis { len, ring, name: format!("a{i}") }).collect();
            let c = cycle(&axes).unwrap();
            let n: u32 = s.iter().map(|x| x.0).product();
            assert_eq!(c.len() as u32, n);
            let mut seen = std::collections::HashSet::new();
            assert!(c.iter().all(|p| seen.insert(p.clone())), "{s:?} visits a node twice");
            for i in 0..c.len() {
                assert!(one_link(&c[i], &c[(i + 1) % c.len()], &axes), "{s:?}: {:?} -> {:?}", c[i], c[(i + 1) % c.len()]);
            }
        }
        let odd = [Axis { len: 3, ring: false, name: "X".into() }, Axis { len: 5, ring: false, name: "Y".into() }];
        assert!(cycle(&odd).unwrap_err().contains("X=3 x Y=5 has 15 nodes"));
        assert!(cycle(&odd[1..]).unwrap_err().contains("axis Y is a line of 5 nodes"));
    }
}

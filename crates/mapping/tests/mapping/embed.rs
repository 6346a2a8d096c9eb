//! Virtual tori on regions of tori and meshes: bijective, every virtual neighbour one link away.

use fabricsim_mapping::{embed, EmbedError, Region, VirtualTorus};
use fabricsim_topology::Torus;
use proptest::prelude::*;

/// Every node of the region once, and each step along a virtual axis one link.
fn check(t: &Torus, region: &Region, v: &VirtualTorus) {
    let n: u32 = region.shape.iter().product();
    assert_eq!(v.map.len() as u32, n);
    let mut seen = vec![false; t.nodes() as usize];
    for &node in &v.map {
        assert!(!seen[node.index()], "node {node} twice");
        seen[node.index()] = true;
        for a in 0..t.dims() {
            let c = t.coord(node, a);
            assert!(c >= region.origin[a] && c < region.origin[a] + region.shape[a], "node {node} outside the region");
        }
    }
    let dims = &v.dims;
    for r in 0..n {
        let mut rest = r;
        let mut stride = 1;
        for &d in dims {
            let x = rest % d;
            rest /= d;
            let next = r - x * stride + ((x + 1) % d) * stride;
            if d > 1 {
                assert_eq!(t.distance(v.map[r as usize], v.map[next as usize]), 1, "rank {r} -> {next} on {dims:?}");
            }
            stride *= d;
        }
    }
}

fn k_computer() -> Torus {
    let names = ["X", "Y", "Z", "A", "B", "C"].map(String::from).to_vec();
    Torus::new(vec![24, 18, 16, 2, 3, 2], Some(vec![true, true, true, false, true, false]), Some(names)).unwrap()
}

#[test]
fn the_k_computers_three_virtual_tori_are_one_link_per_step() {
    let t = k_computer();
    let whole = Region { origin: vec![0; 6], shape: t.shape().to_vec() };
    for dims in [vec![82_944], vec![576, 144], vec![54, 48, 32]] {
        let v = embed(&t, None, &dims).unwrap();
        assert_eq!(v.dims, dims);
        check(&t, &whole, &v);
    }
}

#[test]
fn a_region_of_a_tofu_network_is_threaded_without_its_wrap_links() {
    let t = k_computer();
    // 4x3x2 of X, Y, Z (lines inside the region), whole A, B, C.
    let region = Region { origin: vec![5, 7, 3, 0, 0, 0], shape: vec![4, 3, 2, 2, 3, 2] };
    for dims in [vec![288], vec![24, 12], vec![8, 6, 6], vec![12, 6, 4]] {
        let v = embed(&t, Some(&region), &dims).unwrap_or_else(|e| panic!("{dims:?}: {e}"));
        check(&t, &region, &v);
    }
}

#[test]
fn impossible_shapes_say_which_axis_and_factor() {
    let t = k_computer();
    let e = embed(&t, None, &[82_944, 2]).map(|v| v.dims).unwrap_err();
    assert!(matches!(e, EmbedError::Size { ranks: 165_888, nodes: 82_944, .. }), "{e}");
    let e = embed(&t, None, &[9, 9216]).map(|v| v.dims).unwrap_err();
    assert_eq!(e.to_string(), "virtual axis 0 (length 9) is no product of the region's axis lengths [24, 18, 16, 2, 3, 2]");
    // 3x5 lines: an odd node count and no ring.
    let mesh = Torus::new(vec![3, 5, 2], Some(vec![false, false, false]), Some(["X", "Y", "Z"].map(String::from).to_vec())).unwrap();
    let e = embed(&mesh, None, &[15, 2]).map(|v| v.dims).unwrap_err();
    assert_eq!(e.to_string(), "virtual axis 0 (length 15): X=3 x Y=5 has 15 nodes, an odd number, and no ring axis: a cycle through lines needs an even node count or a ring");
    let e = embed(&mesh, None, &[7, 2, 1]).map(|v| v.dims).unwrap_err();
    assert!(matches!(e, EmbedError::Size { .. }));
    let e = embed(&mesh, None, &[10, 3]).map(|v| v.dims).unwrap_err();
    assert_eq!(e.to_string(), "virtual axis 1 (length 3): axis X is a line of 3 nodes, not a ring");
    let e = embed(&mesh, None, &[6, 5]).map(|v| v.dims).unwrap_err();
    assert!(e.to_string().contains("virtual axis 1 (length 5): axis Y is a line of 5 nodes, not a ring"), "{e}");
    let far = Region { origin: vec![2, 0, 0], shape: vec![2, 5, 2] };
    assert!(embed(&mesh, Some(&far), &[20]).unwrap_err().to_string().contains("axis X spans 2..4 of 0..3"));
}

fn shapes() -> impl Strategy<Value = (Vec<u32>, Vec<bool>, Vec<usize>)> {
    (2usize..=5).prop_flat_map(|n| (prop::collection::vec(1u32..=6, n), prop::collection::vec(any::<bool>(), n), prop::collection::vec(0usize..3, n)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Any grouping of the axes into 1 to 3 virtual axes: when it embeds, it is a bijection with
    /// every virtual step one link; when the only reason it could fail is absent (some group of
    /// lines with an odd node count or a lone line), it embeds.
    #[test]
    fn embeddings_are_bijective_with_neighbours_one_link_apart((shape, wrap, group) in shapes(), virt in 1usize..=3) {
        prop_assume!(shape.iter().product::<u32>() >= 2);
        let t = Torus::new(shape.clone(), Some(wrap.clone()), None).unwrap();
        let mut dims = vec![1u32; virt];
        for (a, &g) in group.iter().enumerate() {
            dims[g % virt] *= shape[a];
        }
        let whole = Region { origin: vec![0; shape.len()], shape: shape.clone() };
        match embed(&t, None, &dims) {
            Ok(v) => check(&t, &whole, &v),
            Err(e) => {
                // Failure only when some group of the chosen assignment has no cycle.
                let groups_ok = (0..virt).all(|v| {
                    let mine: Vec<usize> = (0..shape.len()).filter(|&a| group[a] % virt == v && shape[a] >= 2).collect();
                    let n: u32 = mine.iter().map(|&a| shape[a]).product();
                    let ring = mine.iter().any(|&a| wrap[a]);
                    match mine.len() {
                        0 => true,
                        1 => ring || n <= 2,
                        _ => n.is_multiple_of(2) || ring,
                    }
                });
                prop_assert!(!groups_ok, "{dims:?} on {shape:?} wrap {wrap:?}: {e}");
            }
        }
    }
}

//! Closed-form analysis of a shape: counts, diameter, exact average distance under uniform
//! random traffic, bisection and injection bandwidth. Everything is computed per axis or per
//! level, so it is instant even for 160k-node machines.

use crate::{FatTree, Topology, Torus};
use fabricsim_core::Bandwidth;
use serde::Serialize;

/// Result of [`analyze`]. Bandwidths are in bytes per second.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Analysis {
    /// Number of nodes.
    pub nodes: u64,
    /// Number of routers: one per node on a torus, every switch of every rail on a fat-tree.
    pub routers: u64,
    /// Router-to-router links (each bidirectional link counted once).
    pub links: u64,
    /// NIC-to-switch links (fat-trees; 0 for direct networks, whose NIC is on the router chip).
    pub terminal_links: u64,
    /// Network ports per node (torus) or per switch (fat-tree).
    pub ports_per_node: u32,
    /// Largest minimal hop distance between two nodes (hops counted as in the crate docs).
    pub diameter: u32,
    /// Mean hops between two distinct nodes chosen uniformly at random.
    pub average_hops: f64,
    /// Minimum over balanced cuts, both directions summed.
    pub bisection_bandwidth: f64,
    /// nodes x injection engines x link bandwidth.
    pub total_injection_bandwidth: f64,
}

/// Analyse `topo` with `engines` injection engines per node and links of `link`.
pub fn analyze(topo: &Topology, engines: u32, link: Bandwidth) -> Analysis {
    let bw = link.bytes_per_sec() as f64;
    match topo {
        Topology::Torus(t) => torus(t, engines, bw),
        Topology::FatTree(f) => fat_tree(f, engines, bw),
    }
}

/// Links along one axis within one ring/line of length k.
fn axis_links(k: u32, wrap: bool) -> u64 {
    match (k, wrap) {
        (1, _) => 0,
        (2, true) => 2,
        (k, true) => k as u64,
        (k, false) => k as u64 - 1,
    }
}

/// Mean per-axis distance over all ordered coordinate pairs (including equal ones).
fn axis_mean_distance(k: u32, wrap: bool) -> f64 {
    let k = k as i64;
    let mut sum = 0i64;
    for d in 0..k {
        // d = b - a mod k occurs k times (once per a).
        let dist = if wrap && k >= 2 { d.min(k - d) } else { 0 };
        sum += dist;
    }
    if wrap && k >= 2 {
        return sum as f64 / k as f64;
    }
    // mesh: E|a-b| = (k^2 - 1) / (3k)
    (k * k - 1) as f64 / (3 * k) as f64
}

fn torus(t: &Torus, engines: u32, bw: f64) -> Analysis {
    torus_shape(t.shape(), t.wrap(), engines, bw)
}

/// The analysis of a torus or mesh from its axis lengths and wrap flags alone, without building
/// it (so shapes too large to simulate can still be described).
pub fn torus_shape(shape: &[u32], wrap: &[bool], engines: u32, bw: f64) -> Analysis {
    let n: u64 = shape.iter().map(|&k| k as u64).product();
    let mut links = 0;
    let mut diameter = 0;
    let mut mean_all_pairs = 0.0;
    let mut ports = 0;
    for (&k, &w) in shape.iter().zip(wrap) {
        links += n / k as u64 * axis_links(k, w);
        diameter += if w && k >= 2 { k / 2 } else { k - 1 };
        mean_all_pairs += axis_mean_distance(k, w);
        ports += crate::torus::axis_port_count(k, w);
    }
    // Exclude self-pairs: the all-pairs sum is over n^2 pairs, n of which have distance 0.
    let average_hops = mean_all_pairs * n as f64 / (n as f64 - 1.0);
    Analysis {
        nodes: n,
        routers: n,
        links,
        terminal_links: 0,
        ports_per_node: ports,
        diameter,
        average_hops,
        bisection_bandwidth: torus_bisection_links(shape, wrap) as f64 * 2.0 * bw,
        total_injection_bandwidth: n as f64 * engines as f64 * bw,
    }
}

/// Links crossing the narrowest cut perpendicular to one axis that splits the nodes in halves.
/// Axes of odd length cannot be halved on their own; they are only used when no axis has even
/// length (then the cut splits as evenly as possible).
fn torus_bisection_links(shape: &[u32], wrap: &[bool]) -> u64 {
    let n: u64 = shape.iter().map(|&k| k as u64).product();
    let crossing = |a: usize| {
        let (k, w) = (shape[a], wrap[a]);
        let per_ring = if w && k >= 2 { 2 } else { 1 };
        n / k as u64 * per_ring
    };
    let even: Vec<usize> = (0..shape.len()).filter(|&a| shape[a].is_multiple_of(2)).collect();
    let candidates: Vec<usize> = if even.is_empty() { (0..shape.len()).filter(|&a| shape[a] > 1).collect() } else { even };
    candidates.into_iter().map(crossing).min().unwrap_or(0)
}

/// The highest all-to-all throughput (bytes per second, all nodes together) the network allows,
/// with every node sending the same amount to every other: `N (N - 1) / T` where `T`, the time
/// per byte of each message, is the largest of these lower bounds:
/// - injection (and, alike, reception): a node sends `N - 1` messages through `injection`
///   bytes/s: `(N - 1) / injection`;
/// - for each torus or mesh axis, the busiest channel under the best balance of minimal routes:
///   the messages' hops along the axis, summed over all ordered pairs (`N^2` times the mean
///   coordinate distance), spread over the axis's directed channels, each at `link` bytes/s;
/// - for each axis, the cut through its middle: the ordered pairs on opposite sides (`s (N - s)`
///   each way) over the channels that cross it one way (a ring crosses twice per line);
/// - for a fat-tree, its bisection: `N^2 / 4` pairs each way over half the bisection bandwidth.
///
/// On a torus both axis bounds agree; on a mesh the cut is the tighter. Dimension-order routing
/// with balanced half-ring ties meets the bound exactly on tori and meshes (a test counts link
/// loads by brute force), except on a lone ring whose half-length is odd, where the tie pairs
/// cannot split evenly pair by pair (splitting them packet by packet would). So
/// `fraction_of_peak` (achieved / this) measures what the schedule, the flow control and the
/// routing's dynamics lose.
pub fn all_to_all_peak(topo: &Topology, injection: f64, link: f64) -> f64 {
    let n = topo.nodes() as f64;
    let mut t = (n - 1.0) / injection;
    match topo {
        Topology::Torus(tt) => {
            for (&k, &w) in tt.shape().iter().zip(tt.wrap()) {
                if k < 2 {
                    continue;
                }
                let lines = n / k as f64;
                let channels = 2.0 * lines * axis_links(k, w) as f64;
                t = t.max(n * n * axis_mean_distance(k, w) / (channels * link));
                let side = lines * (k / 2) as f64;
                let crossing = lines * if w { 2.0 } else { 1.0 };
                t = t.max(side * (n - side) / (crossing * link));
            }
        }
        Topology::FatTree(_) => {
            let bisection = analyze(topo, 1, fabricsim_core::Bandwidth(link as u64)).bisection_bandwidth;
            t = t.max(n * n / 4.0 / (bisection / 2.0));
        }
    }
    n * (n - 1.0) / t
}

/// The highest throughput (aggregate bytes/s of messages, `n * shifts.len()` of them, wire
/// bytes per message 1) of an exchange in which every node `x` of torus `t` sends one message
/// to `x + s` for each translation `s` in `shifts` (coordinate offsets, one per axis, taken
/// modulo the axis length), with minimal routing. A translation loads every link of one axis
/// and direction alike: `|s_a|` hops along axis `a`, the shorter way round (a half-ring tie
/// splits evenly). So each node needs `max(k / injection, max over axis directions of (hops
/// summed over the shifts going that way) / link)` seconds per byte of message. With every
/// non-zero translation of a torus this is [`all_to_all_peak`] (a test checks it).
pub fn translation_peak(t: &Torus, shifts: &[Vec<u32>], injection: f64, link: f64) -> f64 {
    let n = t.nodes() as f64;
    let mut time = shifts.len() as f64 / injection;
    for (a, &k) in t.shape().iter().enumerate() {
        let (mut plus, mut minus) = (0.0, 0.0);
        for s in shifts {
            let d = s[a] % k;
            let back = (k - d) % k;
            if d < back {
                plus += d as f64;
            } else if back < d {
                minus += back as f64;
            } else {
                (plus, minus) = (plus + d as f64 / 2.0, minus + d as f64 / 2.0);
            }
        }
        time = time.max(plus.max(minus) / link);
    }
    n * shifts.len() as f64 / time
}

fn fat_tree(f: &FatTree, engines: u32, bw: f64) -> Analysis {
    let n = f.nodes() as u64;
    let h = f.levels() as usize;
    let rails = f.rails() as u64;
    let mut links = 0u64;
    for i in 1..h {
        links += f.level_count(i) as u64 * f.ups(i) as u64;
    }
    // Pairs whose lowest common ancestor is at level L are 2L hops apart.
    let mut weighted = 0.0;
    for l in 1..=h {
        let same_subtree = f.span(l) as f64 - f.span(l - 1) as f64;
        weighted += 2.0 * l as f64 * same_subtree;
    }
    let average_hops = weighted / (n as f64 - 1.0);
    // Balanced cut at the top: half of the top-level subtrees on each side. Traffic between
    // halves must cross the up links leaving one half (or the NIC links, whichever is fewer).
    let top_children = f.children()[h - 1] as u64;
    let uplinks_per_subtree = if h >= 2 { f.level_count(h - 1) as u64 / top_children * f.ups(h - 1) as u64 } else { 0 };
    let half_uplinks = if h >= 2 { top_children / 2 * uplinks_per_subtree } else { n / 2 };
    let cut = half_uplinks.min(n / 2);
    Analysis {
        nodes: n,
        routers: f.switches() as u64,
        links: links * rails,
        terminal_links: n * rails,
        ports_per_node: f.radix(),
        diameter: 2 * h as u32,
        average_hops,
        bisection_bandwidth: (cut * rails) as f64 * 2.0 * bw,
        total_injection_bandwidth: n as f64 * engines as f64 * bw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_core::NodeId;

    fn brute_average(t: &Topology) -> f64 {
        let n = t.nodes();
        let mut s = 0u64;
        for a in 0..n {
            for b in 0..n {
                s += t.distance(NodeId(a), NodeId(b)) as u64;
            }
        }
        s as f64 / (n as f64 * (n as f64 - 1.0))
    }

    #[test]
    fn average_hops_matches_brute_force() {
        let shapes = [(vec![4, 3, 2], vec![true, false, false]), (vec![5, 2, 3], vec![true, true, true]), (vec![6, 4], vec![false, true])];
        for (s, w) in shapes {
            let t = Topology::Torus(Torus::new(s.clone(), Some(w), None).unwrap());
            let a = analyze(&t, 1, Bandwidth(1));
            assert!((a.average_hops - brute_average(&t)).abs() < 1e-9, "{s:?}");
        }
        for (r, l, full) in [(4, 3, false), (8, 2, true), (6, 3, true)] {
            let f = Topology::FatTree(FatTree::new(r, l, 1, full).unwrap());
            let a = analyze(&f, 1, Bandwidth(1));
            assert!((a.average_hops - brute_average(&f)).abs() < 1e-9, "radix {r} levels {l}");
        }
    }

    #[test]
    fn every_translation_together_has_the_all_to_all_peak() {
        for s in [vec![4, 4, 2], vec![3, 5], vec![8, 4, 1, 2], vec![6, 3, 4]] {
            let t = Torus::new(s.clone(), None, None).unwrap();
            let shifts: Vec<Vec<u32>> = (1..t.nodes()).map(|i| t.coords(NodeId(i))).collect();
            for (inj, link) in [(1e9, 1e9), (10e9, 1e9), (1e9, 10e9)] {
                let want = all_to_all_peak(&Topology::Torus(t.clone()), inj, link);
                let got = translation_peak(&t, &shifts, inj, link);
                assert!((got - want).abs() < 1e-6 * want, "{s:?} {inj} {link}: {got} against {want}");
            }
        }
        // One translation alone: its longest direction bounds it. On a 4x4 torus, (1, 2): one
        // hop + along the first axis, a tie of 2 along the second (1 each way).
        let t = Torus::new(vec![4, 4], None, None).unwrap();
        let p = translation_peak(&t, &[vec![1, 2]], 1e12, 1.0);
        assert!((p - 16.0).abs() < 1e-9, "{p}");
    }

    #[test]
    fn the_shape_alone_counts_the_ports_the_built_torus_has() {
        for (s, w) in [(vec![4, 3, 2], vec![true, false, false]), (vec![2, 2, 5], vec![true, false, true]), (vec![1, 6], vec![true, true])] {
            let t = Torus::new(s.clone(), Some(w.clone()), None).unwrap();
            assert_eq!(torus_shape(&s, &w, 2, 1e9).ports_per_node, t.net_ports(), "{s:?}");
        }
    }

    #[test]
    fn diameter_matches_brute_force() {
        let t = Topology::Torus(Torus::new(vec![5, 4, 2], Some(vec![true, false, true]), None).unwrap());
        let n = t.nodes();
        let brute = (0..n).flat_map(|a| (0..n).map(move |b| (a, b))).map(|(a, b)| t.distance(NodeId(a), NodeId(b))).max().unwrap();
        assert_eq!(analyze(&t, 1, Bandwidth(1)).diameter, brute);
    }

    #[test]
    fn k_computer_links_and_bisection() {
        let k = Torus::new(vec![24, 18, 16, 2, 3, 2], Some(vec![true, false, true, false, true, false]), None).unwrap();
        let a = analyze(&Topology::Torus(k), 4, Bandwidth::parse("5GB/s").unwrap());
        assert_eq!(a.nodes, 82_944);
        // X ring 24 per line, Y line 17, Z ring 16, A 1, B ring 3, C 1 per line.
        let n = 82_944u64;
        let expect = n / 24 * 24 + n / 18 * 17 + n / 16 * 16 + n / 2 + n / 3 * 3 + n / 2;
        assert_eq!(a.links, expect);
        assert_eq!(a.ports_per_node, 10);
        assert_eq!(a.diameter, 12 + 17 + 8 + 1 + 1 + 1);
        // Narrowest balanced cut: across Y (mesh, one link per line): n/18 links.
        assert_eq!(a.bisection_bandwidth, (n / 18) as f64 * 2.0 * 5e9);
        assert_eq!(a.total_injection_bandwidth, n as f64 * 4.0 * 5e9);
    }

    #[test]
    fn fat_tree_has_full_bisection() {
        for full in [false, true] {
            let f = FatTree::new(16, 3, 4, full).unwrap();
            let n = f.nodes() as f64;
            let a = analyze(&Topology::FatTree(f), 4, Bandwidth(1_000));
            assert_eq!(a.bisection_bandwidth, n / 2.0 * 4.0 * 2.0 * 1000.0);
        }
    }

    #[test]
    fn post_k_scale_is_instant() {
        let t = Torus::new(vec![24, 23, 24, 2, 3, 2], Some(vec![true, true, true, false, true, false]), None).unwrap();
        let a = analyze(&Topology::Torus(t), 6, Bandwidth::parse("6.8GB/s").unwrap());
        assert_eq!(a.nodes, 158_976);
    }
}

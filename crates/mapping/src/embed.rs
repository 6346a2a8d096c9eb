//! A virtual torus of any shape (1D, 2D, 3D, ...) laid on a rectangular region of a mesh/torus
//! (a 6D Tofu network, a 3D or 5D torus) so that every virtual neighbour, wrap-around included,
//! is one physical link away.
//!
//! Each physical axis of the region (those longer than 1) is given to one virtual axis, so that
//! the lengths given to virtual axis `i` multiply to its length; the nodes of those axes are
//! then threaded on one cycle (see [`crate::hamilton`]: a spine and a snaking band, through a
//! ring where every length is odd). On the K computer's 24x18x16x2x3x2: 54x48x32 threads
//! (Y,B), (X,A) and (Z,C); 576x144 threads (Y,Z,A) and (X,B,C); 82,944 as 1D threads all six.
//!
//! A region axis is a ring only when it spans the whole physical axis and that axis wraps.
//! Physical axes are not split between virtual axes: a virtual length must be a product of
//! whole region axis lengths.

use crate::hamilton::{cycle, Axis};
use crate::paired::VirtualTorus;
use fabricsim_topology::Torus;

/// Most axis-to-virtual-axis assignments tried.
const MAX_ASSIGNMENTS: u64 = 1 << 22;

/// A box of a mesh/torus: its lowest corner and its length along each axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Coordinates of the corner with the lowest coordinates.
    pub origin: Vec<u32>,
    /// Length along each axis (at least 1).
    pub shape: Vec<u32>,
}

/// Why a virtual torus cannot be laid on a region.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedError {
    /// The region does not fit the network.
    #[error("region {region:?} at {origin:?} does not fit the network {shape:?}: {why}")]
    Region {
        /// The region's shape.
        region: Vec<u32>,
        /// The region's corner.
        origin: Vec<u32>,
        /// The network's shape.
        shape: Vec<u32>,
        /// Which axis is wrong.
        why: String,
    },
    /// A virtual axis of length 0, or no virtual axis.
    #[error("virtual shape {0:?}: give one or more lengths, each at least 1")]
    Shape(Vec<u32>),
    /// Rank and node counts differ.
    #[error("the virtual torus {dims:?} holds {ranks} ranks, the region {region:?} {nodes} nodes")]
    Size {
        /// The virtual shape.
        dims: Vec<u32>,
        /// Its rank count.
        ranks: u64,
        /// The region's shape.
        region: Vec<u32>,
        /// Its node count.
        nodes: u64,
    },
    /// A virtual axis whose length no set of region axes multiplies to.
    #[error("virtual axis {axis} (length {length}) is no product of the region's axis lengths {lengths:?}")]
    NoFactor {
        /// The virtual axis.
        axis: usize,
        /// Its length.
        length: u32,
        /// The region's axis lengths (those above 1).
        lengths: Vec<u32>,
    },
    /// Every virtual length is a product of some region axes, but not all at once.
    #[error("no split of the region's axis lengths {lengths:?} gives the factors {dims:?} at once")]
    NoSplit {
        /// The virtual shape.
        dims: Vec<u32>,
        /// The region's axis lengths (those above 1).
        lengths: Vec<u32>,
    },
    /// The axes given to a virtual axis have no cycle through them.
    #[error("virtual axis {axis} (length {length}): {why}")]
    NoCycle {
        /// The virtual axis.
        axis: usize,
        /// Its length.
        length: u32,
        /// Which physical axes and why.
        why: String,
    },
    /// Too many axes to try every assignment.
    #[error("{0} region axes onto {1} virtual axes is too many assignments to try")]
    TooMany(usize, usize),
}

/// Lay the virtual torus `dims` (rank numbers run along virtual axis 0 fastest) on `region` of
/// `t` (the whole network when `None`), one rank per node.
pub fn embed(t: &Torus, region: Option<&Region>, dims: &[u32]) -> Result<VirtualTorus, EmbedError> {
    let whole = Region { origin: vec![0; t.dims()], shape: t.shape().to_vec() };
    let region = region.unwrap_or(&whole);
    check_region(t, region)?;
    if dims.is_empty() || dims.contains(&0) {
        return Err(EmbedError::Shape(dims.to_vec()));
    }
    let ranks: u64 = dims.iter().map(|&d| d as u64).product();
    let nodes: u64 = region.shape.iter().map(|&d| d as u64).product();
    if ranks != nodes {
        return Err(EmbedError::Size { dims: dims.to_vec(), ranks, region: region.shape.clone(), nodes });
    }
    let axes: Vec<Axis> = (0..t.dims())
        .map(|a| Axis { len: region.shape[a], ring: region.shape[a] == t.shape()[a] && t.wrap()[a], name: t.names()[a].clone() })
        .collect();
    let long: Vec<usize> = (0..axes.len()).filter(|&a| axes[a].len >= 2).collect();
    let lengths: Vec<u32> = long.iter().map(|&a| axes[a].len).collect();
    let d = dims.len() as u64;
    if d.checked_pow(long.len() as u32).is_none_or(|n| n > MAX_ASSIGNMENTS) {
        return Err(EmbedError::TooMany(long.len(), dims.len()));
    }
    let mut first_failure = None;
    let mut owner = vec![0usize; long.len()];
    for code in 0..d.pow(long.len() as u32) {
        let mut c = code;
        for o in owner.iter_mut() {
            *o = (c % d) as usize;
            c /= d;
        }
        let fits = (0..dims.len())
            .all(|v| long.iter().zip(&owner).filter(|(_, &o)| o == v).map(|(&a, _)| axes[a].len as u64).product::<u64>() == dims[v] as u64);
        if !fits {
            continue;
        }
        match cycles(&axes, &long, &owner, dims) {
            Ok(cs) => return Ok(lay(t, region, &cs, dims)),
            Err(e) => {
                first_failure.get_or_insert(e);
            }
        }
    }
    if let Some(e) = first_failure {
        return Err(e);
    }
    for (v, &len) in dims.iter().enumerate() {
        let any = (0u64..1 << lengths.len())
            .any(|s| (0..lengths.len()).filter(|i| s >> i & 1 == 1).map(|i| lengths[i] as u64).product::<u64>() == len as u64);
        if !any {
            return Err(EmbedError::NoFactor { axis: v, length: len, lengths });
        }
    }
    Err(EmbedError::NoSplit { dims: dims.to_vec(), lengths })
}

/// The region must lie inside the network.
fn check_region(t: &Torus, r: &Region) -> Result<(), EmbedError> {
    let bad = |why: String| EmbedError::Region { region: r.shape.clone(), origin: r.origin.clone(), shape: t.shape().to_vec(), why };
    if r.origin.len() != t.dims() || r.shape.len() != t.dims() {
        return Err(bad(format!("the network has {} axes", t.dims())));
    }
    for a in 0..t.dims() {
        if r.shape[a] == 0 || r.origin[a] as u64 + r.shape[a] as u64 > t.shape()[a] as u64 {
            return Err(bad(format!(
                "axis {} spans {}..{} of 0..{}",
                t.names()[a],
                r.origin[a],
                r.origin[a] as u64 + r.shape[a] as u64,
                t.shape()[a]
            )));
        }
    }
    Ok(())
}

/// A virtual axis's physical axes and its cycle through them (coordinates over those axes).
type Thread = (Vec<usize>, Vec<Vec<u32>>);

/// The cycle of each virtual axis through the axes `owner` gives it (coordinates over those
/// axes, in the order of `long`).
fn cycles(axes: &[Axis], long: &[usize], owner: &[usize], dims: &[u32]) -> Result<Vec<Thread>, EmbedError> {
    (0..dims.len())
        .map(|v| {
            let mine: Vec<usize> = long.iter().zip(owner).filter(|(_, &o)| o == v).map(|(&a, _)| a).collect();
            let group: Vec<Axis> = mine.iter().map(|&a| axes[a].clone()).collect();
            cycle(&group).map(|c| (mine, c)).map_err(|why| EmbedError::NoCycle { axis: v, length: dims[v], why })
        })
        .collect()
}

/// The node of every rank, given each virtual axis's cycle.
fn lay(t: &Torus, region: &Region, cycles: &[Thread], dims: &[u32]) -> VirtualTorus {
    let ranks: u64 = dims.iter().map(|&d| d as u64).product();
    let mut map = Vec::with_capacity(ranks as usize);
    let mut coords = region.origin.clone();
    for r in 0..ranks {
        let mut rest = r;
        for (v, (mine, cyc)) in cycles.iter().enumerate() {
            let pos = (rest % dims[v] as u64) as usize;
            rest /= dims[v] as u64;
            for (i, &a) in mine.iter().enumerate() {
                coords[a] = region.origin[a] + cyc[pos][i];
            }
        }
        map.push(t.node_at(&coords).expect("the region lies inside the network"));
    }
    VirtualTorus { map, dims: dims.to_vec() }
}

//! The torus (or mesh) a topology-aware algorithm sees: ranks numbered with axis 0 fastest, as
//! the network numbers the nodes of a torus (so with the identity rank map, rank = node).

/// A grid of ranks. Axes of length 1 are dropped (they change no rank number).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    dims: Vec<u32>,
    wrap: Vec<bool>,
    strides: Vec<u32>,
}

impl Grid {
    pub fn new(dims: &[u32], wrap: &[bool]) -> Grid {
        let (mut d, mut w, mut s) = (Vec::new(), Vec::new(), Vec::new());
        let mut stride = 1;
        for (i, &k) in dims.iter().enumerate() {
            if k > 1 {
                d.push(k);
                w.push(wrap.get(i).copied().unwrap_or(true));
                s.push(stride);
            }
            stride *= k;
        }
        Grid { dims: d, wrap: w, strides: s }
    }

    /// Axes (of length 2 or more).
    pub fn dims(&self) -> &[u32] {
        &self.dims
    }
    pub fn ranks(&self) -> u32 {
        self.dims.iter().product()
    }
    /// Whether every axis is a ring.
    pub fn is_torus(&self) -> bool {
        self.wrap.iter().all(|&w| w)
    }

    /// Coordinate of `rank` on axis `a`.
    pub fn coord(&self, rank: u32, a: usize) -> u32 {
        rank / self.strides[a] % self.dims[a]
    }

    /// `rank` moved by `delta` along axis `a`, wrapping.
    pub fn shift(&self, rank: u32, a: usize, delta: i64) -> u32 {
        let k = self.dims[a] as i64;
        let c = self.coord(rank, a) as i64;
        let n = (c + delta).rem_euclid(k) as u32;
        rank - self.coord(rank, a) * self.strides[a] + n * self.strides[a]
    }
}

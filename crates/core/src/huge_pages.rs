//! Large flat arrays backed by huge pages where the system allows it.
//!
//! At the scale of a full machine the simulator's per-port and per-VC records take hundreds of
//! megabytes, and a hop touches records far apart in them: with 4 KiB pages nearly every such
//! touch also misses the TLB. On Linux, where transparent huge pages are enabled for regions
//! that ask (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise` or `always`), asking for
//! them before the array is first written makes the kernel back it with 2 MiB pages. A hint
//! only: the values are the same, and elsewhere (or when the kernel declines) nothing changes.

/// Arrays smaller than this are left alone: they fit in few pages anyway.
const WORTH_IT: usize = 8 << 20;

/// A vector of `n` copies of `value`, its buffer advised to use huge pages when it is large
/// (see the module docs).
pub fn filled<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(n);
    advise(v.as_ptr() as usize, n.saturating_mul(std::mem::size_of::<T>()));
    v.resize(n, value);
    v
}

/// Grow `v`'s buffer to hold at least `additional` more items (doubling, as `push` would),
/// advised to use huge pages when it is large: for arrays that grow as a run goes (slabs).
pub fn reserve<T>(v: &mut Vec<T>, additional: usize) {
    v.reserve(additional.max(v.capacity()));
    advise(v.as_ptr() as usize, v.capacity().saturating_mul(std::mem::size_of::<T>()));
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize) {
    if len < WORTH_IT {
        return;
    }
    const PAGE: usize = 4096;
    let (from, to) = (start.next_multiple_of(PAGE), (start + len) / PAGE * PAGE);
    // SAFETY: `madvise` with `MADV_HUGEPAGE` changes no contents and no access rights; it only
    // marks the pages in `from..to`, which lie inside this vector's own allocation (rounded
    // inwards to page boundaries), as eligible for huge pages. A failure (kernel without
    // THP, or THP disabled) is ignored: the hint is optional.
    #[allow(unsafe_code)]
    unsafe {
        libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn filled_vectors_hold_their_values_large_or_small() {
        let small = super::filled(10, 7u32);
        assert_eq!(small, vec![7u32; 10]);
        let large = super::filled(3 << 20, (1u64, 2u32));
        assert_eq!(large.len(), 3 << 20);
        assert!(large.iter().all(|&x| x == (1, 2)));
        let mut grown = large.clone();
        super::reserve(&mut grown, 1);
        assert!(grown.capacity() >= 2 * large.len());
        assert_eq!(grown, large);
    }
}

//! A cache prefetch hint: ask for the line holding a value before it is needed, so the load
//! that later needs it does not wait.
//!
//! The simulator's hop path reads records scattered over a working set larger than the L1
//! cache, in an order the event queue knows a few events ahead; prefetching them while the
//! current event is handled overlaps those misses with useful work. An ordinary load cannot
//! do that: it holds up retirement until the line arrives.

/// Prefetch the cache line holding `r` into every cache level. A hint only: it changes no value
/// the program can observe, and on targets without a prefetch instruction it does nothing.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` only hints the cache; it does not dereference the pointer in any
    // way the program can observe, and cannot fault. The pointer comes from a live reference.
    // SSE is part of the x86_64 baseline, so the instruction always exists.
    #[allow(unsafe_code)]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(r as *const T as *const i8)
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

//! Cycles among one rank's dependencies (both kinds: an `irequires` edge also orders a start).

use super::trace::{Trace, IREQ};

/// An operation on a dependency cycle among operations `first..end` (one rank's), if any, the
/// dependencies of operation `first + k` being `deps[dep_start[k]..dep_start[k + 1]]`: Kahn's
/// algorithm removes every operation whose dependencies can all be met; from one left over,
/// following dependencies that are left over reaches a cycle.
pub(crate) fn find_cycle(t: &Trace, first: u32, end: u32, dep_start: &[u32], deps: &[u32]) -> Option<u32> {
    let n = (end - first) as usize;
    let deps_of = |i: u32| &deps[dep_start[(i - first) as usize] as usize..dep_start[(i - first) as usize + 1] as usize];
    let mut left: Vec<u32> = (first..end).map(|i| deps_of(i).len() as u32).collect();
    let mut ready: Vec<u32> = (first..end).filter(|&i| left[(i - first) as usize] == 0).collect();
    let mut removed = 0;
    while let Some(i) = ready.pop() {
        removed += 1;
        for &s in t.successors(i) {
            let s = s & !IREQ;
            let l = &mut left[(s - first) as usize];
            *l -= 1;
            if *l == 0 {
                ready.push(s);
            }
        }
    }
    if removed == n {
        return None;
    }
    // Every operation left has a dependency left: walk n steps back along them.
    let mut at = (first..end).find(|&i| left[(i - first) as usize] > 0)?;
    for _ in 0..n {
        at = deps_of(at).iter().map(|&d| d & !IREQ).find(|&d| left[(d - first) as usize] > 0)?;
    }
    Some(at)
}

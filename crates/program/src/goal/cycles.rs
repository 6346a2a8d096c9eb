//! Cycles among one rank's dependencies (both kinds: an `irequires` edge also orders a start).

use super::trace::IREQ;

/// An operation on a dependency cycle among operations `first..first + n` (one rank's), if
/// any, the dependencies of operation `first + k` being `deps[dep_start[k]..dep_start[k + 1]]`
/// and its successors `succ[succ_start[k]..succ_start[k + 1]]`: Kahn's algorithm removes every
/// operation whose dependencies can all be met; from one left over, following dependencies
/// that are left over reaches a cycle.
pub(crate) fn find_cycle(first: u32, n: u32, dep_start: &[u32], deps: &[u32], succ_start: &[u32], succ: &[u32]) -> Option<u32> {
    let row = |starts: &[u32], k: u32| starts[k as usize] as usize..starts[k as usize + 1] as usize;
    let mut left: Vec<u32> = (0..n).map(|k| row(dep_start, k).len() as u32).collect();
    let mut ready: Vec<u32> = (0..n).filter(|&k| left[k as usize] == 0).collect();
    let mut removed = 0;
    while let Some(k) = ready.pop() {
        removed += 1;
        for &s in &succ[row(succ_start, k)] {
            let s = (s & !IREQ) - first;
            let l = &mut left[s as usize];
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
    let mut at = (0..n).find(|&k| left[k as usize] > 0)?;
    for _ in 0..n {
        at = deps[row(dep_start, at)].iter().map(|&d| (d & !IREQ) - first).find(|&d| left[d as usize] > 0)?;
    }
    Some(first + at)
}

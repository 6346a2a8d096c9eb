//! Which VC a NIC engine's packet enters its first router on, among several with room: the
//! rotation the selection policy gives over the candidate VCs, or the most credit.
//!
//! The queues that follow a shared buffer's first queue (`router.queue_buffer = "shared"`) are
//! not candidates: the first queue stands for the buffer, and the packet is filed in one of its
//! queues later. The rotation runs over the candidates only, so that each is first equally
//! often (skipping followers inside a rotation over every VC would hand their turns to the
//! next candidate, the escape VC at the wrap).

use std::ops::Range;

/// How many of `vcs` are candidates: not set in `followers`.
#[inline(always)]
pub(crate) fn candidates(vcs: &Range<u8>, followers: u8) -> u32 {
    if followers == 0 {
        return vcs.len() as u32;
    }
    vcs.clone().filter(|&vc| followers >> vc & 1 == 0).count() as u32
}

/// The candidate of `vcs` to enter: of those `room` gives a credit for (the VC has room), the
/// first in the rotation that starts at candidate `start` (0 ≤ start < [`candidates`]), or with
/// `by_credit` the one with the most credit, ties to the first in the rotation.
#[inline(always)]
pub(crate) fn pick(vcs: Range<u8>, followers: u8, start: u32, by_credit: bool, mut room: impl FnMut(u8) -> Option<u32>) -> Option<u8> {
    if followers == 0 {
        return pick_any(vcs, start, by_credit, room);
    }
    let n = candidates(&vcs, followers);
    // (credit, place in the rotation, vc) of the best so far.
    let mut best: Option<(u32, u32, u8)> = None;
    let mut k = 0;
    for vc in vcs {
        if followers >> vc & 1 != 0 {
            continue;
        }
        let place = if k >= start { k - start } else { k + n - start };
        k += 1;
        if let Some(cred) = room(vc) {
            if best.is_none_or(|(c, p, _)| if by_credit && cred != c { cred > c } else { place < p }) {
                best = Some((cred, place, vc));
            }
        }
    }
    best.map(|(_, _, vc)| vc)
}

/// [`pick`] when every VC is a candidate: the rotation visited in its order (the first with
/// room wins, or a later one with more credit).
#[inline(always)]
fn pick_any(vcs: Range<u8>, start: u32, by_credit: bool, mut room: impl FnMut(u8) -> Option<u32>) -> Option<u8> {
    let n = vcs.len() as u32;
    let mut best: Option<(u32, u8)> = None;
    let mut i = start;
    for _ in 0..n {
        let vc = vcs.start + i as u8;
        i = if i + 1 == n { 0 } else { i + 1 };
        if let Some(cred) = room(vc) {
            if best.is_none_or(|(c, _)| by_credit && cred > c) {
                best = Some((cred, vc));
            }
        }
    }
    best.map(|(_, vc)| vc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How often each VC is picked over every start, all with the same room.
    fn counts(vcs: Range<u8>, followers: u8) -> Vec<u32> {
        let mut c = vec![0; vcs.end as usize];
        for start in 0..candidates(&vcs, followers) {
            c[pick(vcs.clone(), followers, start, false, |_| Some(100)).unwrap() as usize] += 1;
        }
        c
    }

    #[test]
    fn each_candidate_is_first_equally_often_and_followers_never() {
        // An escape VC and a dynamic VC of three queues sharing a buffer (1 stands for 2 and 3).
        assert_eq!(counts(0..4, 0b1100), [1, 1, 0, 0]);
        assert_eq!(counts(0..4, 0), [1, 1, 1, 1]);
        assert_eq!(counts(0..5, 0b0110), [1, 0, 0, 1, 1]);
    }

    #[test]
    fn without_followers_the_rotation_is_the_general_one() {
        // Rooms and credits of five VCs, and every start, by rotation and by credit: the fast
        // path and the general one (given a follower bit past the range, so it is taken) agree.
        for mask in 0u32..243 {
            let room = |vc: u8| match mask / 3u32.pow(vc as u32) % 3 {
                0 => None,
                c => Some(c),
            };
            for start in 0..5 {
                for by_credit in [false, true] {
                    let general = pick(0..5, 0b1000_0000, start, by_credit, room);
                    assert_eq!(pick(0..5, 0, start, by_credit, room), general, "mask {mask} start {start} {by_credit}");
                }
            }
        }
    }

    #[test]
    fn the_rotation_skips_a_vc_without_room_and_credit_breaks_ties_by_place() {
        let room = |vc: u8| (vc != 3).then_some(10 + vc as u32 % 2);
        // From candidate 2 (vc 3, no room) the next is vc 4 (the rotation wraps after it).
        assert_eq!(pick(0..5, 0b0100, 2, false, room), Some(4));
        // By credit: the most credit wins, vc 1 (11 against 10 for vcs 0 and 4).
        assert_eq!(pick(0..5, 0b0100, 2, true, room), Some(1));
        // Equal credit: the first in the rotation from the start.
        assert_eq!(pick(0..4, 0, 3, true, |_| Some(7)), Some(3));
        assert_eq!(pick(0..4, 0, 3, true, |vc| (vc != 3).then_some(7)), Some(0));
        assert_eq!(pick(0..4, 0, 0, false, |_| None), None);
    }
}

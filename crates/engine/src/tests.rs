use super::*;

#[test]
fn shuffled_ties_keep_time_and_rank_order_but_vary_within_a_key() {
    // 20 events at one time on lane 0 and 20 on lane 1, plus earlier and later ones: the
    // shuffled queue keeps (time, rank) order, and within a key the order depends on the seed.
    let run = |seed: Option<u64>| {
        let mut q = EventQueue::with_lanes(2);
        if let Some(s) = seed {
            q.shuffle_ties(s);
        }
        for i in 0..20 {
            q.schedule_on(1, Time(50), 100 + i);
            q.schedule_on(0, Time(50), i);
        }
        q.schedule(Time(50), 999);
        q.schedule_on(1, Time(10), 500);
        q.schedule_on(0, Time(90), 600);
        std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect::<Vec<_>>()
    };
    let fixed = run(None);
    for seed in [1, 2] {
        let got = run(Some(seed));
        assert_eq!(got.len(), fixed.len());
        assert_eq!((got[0], got[1], got[42]), ((10, 500), (50, 999), (90, 600)));
        let lane0: Vec<_> = got[2..22].iter().map(|e| e.1).collect();
        let lane1: Vec<_> = got[22..42].iter().map(|e| e.1).collect();
        let (mut s0, mut s1) = (lane0.clone(), lane1.clone());
        s0.sort();
        s1.sort();
        assert_eq!((s0, s1), ((0..20).collect::<Vec<_>>(), (100..120).collect::<Vec<_>>()));
        assert_ne!(lane0, (0..20).collect::<Vec<_>>(), "seed {seed} left lane 0's ties in order");
    }
    assert_ne!(run(Some(1)), run(Some(2)));
    assert_eq!(run(Some(3)), run(Some(3)));
}

#[test]
fn instant_pending_tells_whether_the_current_time_has_more_events() {
    let mut q = EventQueue::with_lanes(1);
    q.schedule_on(0, Time(5), 'a');
    q.schedule(Time(5), 'b');
    q.schedule(Time(7), 'c');
    assert_eq!(q.pop(), Some((Time(5), 'b')));
    assert!(q.instant_pending());
    assert_eq!(q.pop(), Some((Time(5), 'a')));
    assert!(!q.instant_pending());
    q.end_of_instant();
    q.schedule_on(0, Time(5), 'd');
    assert!(q.instant_pending(), "an event scheduled at now after the instant's end");
    assert_eq!(q.pop(), Some((Time(5), 'd')));
    assert_eq!(q.pop(), Some((Time(7), 'c')));
    assert!(!q.instant_pending());
}

#[test]
fn same_time_events_are_fifo() {
    let mut q = EventQueue::new();
    q.schedule(Time(10), 'a');
    q.schedule(Time(5), 'b');
    q.schedule(Time(10), 'c');
    q.schedule(Time(5), 'd');
    let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    assert_eq!(q.now(), Time(10));
    assert_eq!(q.events_processed(), 4);
}

#[test]
fn lane_ahead_and_off_lane_front_show_what_comes_next() {
    let mut q = EventQueue::with_lanes(2);
    for (t, e) in [(10, 'a'), (20, 'b'), (30, 'c')] {
        q.schedule_on(1, Time(t), e);
    }
    // Out of the lane's order: falls back to the heap, behind the earlier heap event.
    q.schedule_on(1, Time(15), 'x');
    q.schedule(Time(12), 'h');
    let ahead = |q: &EventQueue<char>| (0..4).map(|k| q.lane_ahead(1, k).copied()).collect::<Vec<_>>();
    assert_eq!(ahead(&q), vec![Some('a'), Some('b'), Some('c'), None]);
    assert_eq!(q.lane_ahead(0, 0), None);
    assert_eq!(q.off_lane_front(), Some(&'h'));
    assert_eq!(q.pop(), Some((Time(10), 'a')));
    assert_eq!(ahead(&q), vec![Some('b'), Some('c'), None, None]);
    assert_eq!(q.pop(), Some((Time(12), 'h')));
    assert_eq!(q.off_lane_front(), Some(&'x'));
    let rest: Vec<char> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    assert_eq!(rest, vec!['x', 'b', 'c']);
    assert_eq!((q.off_lane_front(), q.lane_ahead(1, 0)), (None, None));
}

#[test]
fn a_lane_emptied_and_refilled_gives_its_new_events() {
    // Pops take a lane's front from a copy kept beside the lane keys; the copy of an emptied
    // lane is stale until the lane is pushed to again.
    let mut q = EventQueue::with_lanes(2);
    q.schedule_on(0, Time(1), 'a');
    q.schedule_on(1, Time(2), 'b');
    q.schedule_on(1, Time(3), 'c');
    assert_eq!(q.pop(), Some((Time(1), 'a')));
    q.schedule_on(0, Time(2), 'd');
    q.schedule_on(0, Time(4), 'e');
    let rest: Vec<(u64, char)> = std::iter::from_fn(|| q.pop().map(|(t, e)| (t.0, e))).collect();
    assert_eq!(rest, vec![(2, 'd'), (2, 'b'), (3, 'c'), (4, 'e')]);
    q.schedule_on(1, Time(9), 'f');
    assert_eq!(q.pop(), Some((Time(9), 'f')));
    assert_eq!(q.pop(), None);
}

#[test]
fn pop_until_respects_limit() {
    let mut q = EventQueue::new();
    q.schedule(Time(3), 1);
    q.schedule(Time(9), 2);
    assert_eq!(q.pop_until(Time(5)), Some((Time(3), 1)));
    assert_eq!(q.pop_until(Time(5)), None);
    assert_eq!(q.len(), 1);
}

#[test]
fn same_time_events_come_heap_first_then_by_lane() {
    let mut q = EventQueue::with_lanes(3);
    q.schedule_on(2, Time(7), "lane2");
    q.schedule_on(0, Time(7), "lane0-a");
    q.schedule(Time(7), "heap-a");
    q.schedule_on(1, Time(7), "lane1");
    q.schedule_on(0, Time(7), "lane0-b");
    q.schedule(Time(7), "heap-b");
    q.schedule_on(1, Time(3), "early");
    q.schedule_on(2, Time(5), "lane2-late");
    q.schedule_on(2, Time(7), "lane2-again");
    let order: Vec<&str> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
    // "early" would break lane 1's order and "lane2-late" lane 2's, so both went to the heap;
    // they still come out by time, and a fallen-back event keeps its lane's rank.
    assert_eq!(order, vec!["early", "lane2-late", "heap-a", "heap-b", "lane0-a", "lane0-b", "lane1", "lane2", "lane2-again"]);
}

/// A slow reference: the same lanes-or-heap placement rule, and a pop that searches every
/// pending event for the least (time, source rank, scheduling order).
#[derive(Default)]
struct Reference {
    lanes: Vec<Vec<(u64, usize)>>,
    /// (time, rank, seq, event)
    heap: Vec<(u64, usize, usize, usize)>,
    next: usize,
}

impl Reference {
    fn schedule_on(&mut self, lane: Option<usize>, t: u64, ev: usize) {
        self.next += 1;
        match lane {
            Some(l) if self.lanes[l].last().is_none_or(|&(b, _)| b <= t) => self.lanes[l].push((t, ev)),
            Some(l) => self.heap.push((t, l + 1, self.next, ev)),
            None => self.heap.push((t, 0, self.next, ev)),
        }
    }
    fn pop(&mut self) -> Option<(u64, usize)> {
        // (time, rank, source, seq): source 0 = heap, 1 = lane; the least wins.
        let heap = self.heap.iter().enumerate().map(|(i, &(t, rank, seq, _))| ((t, rank, 0, seq), i));
        let lanes = self.lanes.iter().enumerate().filter_map(|(l, lane)| lane.first().map(|&(t, _)| ((t, l + 1, 1, 0), l)));
        let ((_, _, source, _), at) = heap.chain(lanes).min_by_key(|&(k, _)| k)?;
        Some(if source == 0 {
            let (t, _, _, ev) = self.heap.remove(at);
            (t, ev)
        } else {
            self.lanes[at].remove(0)
        })
    }
}

#[test]
fn far_future_and_interleaved_scheduling_match_the_reference() {
    // Far-apart times, lane order violations, and new events scheduled while draining.
    let mut q = EventQueue::with_lanes(2);
    let mut r = Reference { lanes: vec![Vec::new(); 2], ..Default::default() };
    for (i, t) in [5u64, 1 << 30, 300, 70_000, 1 << 40, 300, 2].into_iter().enumerate() {
        q.schedule_on(i % 2, Time(t), i);
        r.schedule_on(Some(i % 2), t, i);
    }
    let mut extra = 100;
    loop {
        let got = q.pop().map(|(t, e)| (t.0, e));
        assert_eq!(got, r.pop());
        let Some((t, _)) = got else { break };
        if extra < 110 {
            let at = t + 1000 * (extra as u64 % 3);
            q.schedule_on(extra % 2, Time(at), extra);
            r.schedule_on(Some(extra % 2), at, extra);
            extra += 1;
        }
    }
    assert!(q.is_empty());
}

#[test]
fn many_pending_timers_come_out_in_order() {
    // One timer per "node" for 50,000 nodes, each re-armed a pseudo-random interval ahead
    // when it fires (like open-loop traffic on a large machine): the wheel grows finer and
    // shares the events with the heap; the order must stay (time, scheduling order).
    use std::collections::BTreeSet;
    let mut q = EventQueue::new();
    let mut want = BTreeSet::new();
    let mut seq = 0u64;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |range: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % range
    };
    for node in 0..50_000u64 {
        let t = next(400_000);
        q.schedule(Time(t), node);
        want.insert((t, seq, node));
        seq += 1;
    }
    for _ in 0..200_000 {
        let (t, node) = q.pop().unwrap();
        let first = want.pop_first().unwrap();
        assert_eq!((t.0, node), (first.0, first.2));
        let at = t.0 + 1 + next(400_000);
        q.schedule(Time(at), node);
        want.insert((at, seq, node));
        seq += 1;
    }
    assert!(q.wheel.heads.len() > wheel::BUCKETS, "the wheel grew: {} buckets", q.wheel.heads.len());
    while let Some((t, node)) = q.pop() {
        let first = want.pop_first().unwrap();
        assert_eq!((t.0, node), (first.0, first.2));
    }
    assert!(want.is_empty());
}

proptest::proptest! {
    #[test]
    fn pops_like_the_reference(
        ops in proptest::collection::vec((0u64..2_000, 0usize..4, proptest::bool::ANY), 0..300),
        spread in proptest::sample::select(vec![1u64, 1_500, 3_000]),
    ) {
        // Times are offsets from now, many of them equal; a quarter of the events name no
        // lane; a pop follows some pushes, so lanes drain and refill. `spread` 1 crowds the
        // timing wheel's buckets (the rest goes to the heap); 1,500 and 3,000 spread events
        // over about one and two turns of the wheel (beyond it: the heap).
        let mut q = EventQueue::with_lanes(3);
        let mut r = Reference { lanes: vec![Vec::new(); 3], ..Default::default() };
        for (i, &(dt, lane, pop)) in ops.iter().enumerate() {
            let t = q.now().0 + dt / 100 * 100 * spread;
            match lane {
                3 => q.schedule(Time(t), i),
                l => q.schedule_on(l, Time(t), i),
            }
            r.schedule_on((lane < 3).then_some(lane), t, i);
            if pop {
                proptest::prop_assert_eq!(q.pop().map(|(t, e)| (t.0, e)), r.pop());
            }
        }
        loop {
            // What comes next, asked without popping, agrees with what the pop gives.
            let (ahead, pending, before) = (q.peek_time(), q.instant_pending(), q.now());
            let got = q.pop().map(|(t, e)| (t.0, e));
            proptest::prop_assert_eq!(ahead.map(|t| t.0), got.map(|g| g.0));
            proptest::prop_assert_eq!(pending, got.is_some_and(|g| g.0 == before.0));
            proptest::prop_assert_eq!(got, r.pop());
            if got.is_none() {
                break;
            }
        }
    }
}

//! A trace spilled to temporary files and streamed back replays exactly as the same trace in
//! memory (the reference), on hand-written, committed and random traces, and holds only the
//! operations in flight however long the trace.

use super::*;
use crate::JobRun;
use fabricsim_core::Time;
use fabricsim_nic::mock::MockNic;
use std::fmt::Write;
use std::sync::Arc;

/// Both forms of `text`: in memory, and spilled.
fn both(text: &str) -> (Arc<dyn Source>, Arc<dyn Source>) {
    (Arc::new(parse(text).unwrap()), Arc::new(spill(text.as_bytes()).unwrap()))
}

/// A small random generator (xorshift), deterministic for a seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// What a replay did, driven on a mock NIC that delivers posted messages in an order drawn
/// from `seed` and fires timers when nothing is in flight.
#[derive(Debug, PartialEq)]
struct Outcome {
    done: Vec<Time>,
    calc: Vec<Time>,
    traffic: (u64, u64),
    stuck: Option<String>,
    unreceived: Vec<(u32, u32)>,
    posted: Vec<(u32, u32, u64, u64)>,
    peak: usize,
}

fn replay(trace: Arc<dyn Source>, seed: u64) -> Outcome {
    let mut w = TraceRun::new(trace, CalcUnit::default());
    let mut nic = MockNic::new(w.done_at().len() as u32);
    let mut rng = Rng(seed | 1);
    nic.start(&mut w);
    let mut next = 0;
    loop {
        if next < nic.posted.len() {
            // Deliver one of the next few posted messages (out of order now and then).
            let k = next + rng.below((nic.posted.len() - next).min(3) as u64) as usize;
            nic.posted.swap(next, k);
            nic.now += Time::from_ns(rng.below(5));
            nic.deliver(&mut w, next);
            next += 1;
        } else if !nic.fire_next(&mut w) {
            break;
        }
    }
    Outcome {
        done: w.done_at().to_vec(),
        calc: w.calc_time().unwrap().to_vec(),
        traffic: w.traffic(),
        stuck: w.stuck(),
        unreceived: w.unreceived(100),
        posted: nic.posted.iter().map(|(_, m)| (m.src.0, m.dst.0, m.bytes, m.tag)).collect(),
        peak: w.peak_held(),
    }
}

/// A random trace: `ranks` ranks, about `ops` operations each; messages with tags and now and
/// then a wildcard receive; dependencies within a rank pointing backwards or forwards in the
/// file, some written before the operations they name; cycles never (each dependency goes
/// from a later operation to an earlier one of a hidden order).
fn random_trace(seed: u64, ranks: u32, ops: u32) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut blocks: Vec<Vec<String>> = vec![Vec::new(); ranks as usize];
    for k in 0..ranks * ops / 3 {
        let (s, d) = (rng.below(ranks as u64) as u32, rng.below(ranks as u64) as u32);
        let tag = rng.below(4);
        blocks[s as usize].push(format!("send {}b to {d} tag {tag}", 8 + rng.below(3000)));
        let from = if rng.below(8) == 0 { "-1".to_string() } else { s.to_string() };
        let tag = if rng.below(8) == 0 { "-1".to_string() } else { tag.to_string() };
        blocks[d as usize].push(format!("recv {}b from {from} tag {tag}", 8 + k % 5));
        let c = rng.below(ranks as u64) as usize;
        blocks[c].push(format!("calc {}", rng.below(200)));
    }
    let mut text = format!("// random trace {seed}\nnum_ranks {ranks}\n");
    // Blocks in a shuffled rank order, operations in a shuffled order within each.
    let mut order: Vec<usize> = (0..ranks as usize).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    for r in order {
        let b = &mut blocks[r];
        let n = b.len();
        // The hidden order: position p of the file holds operation hidden[p] of it.
        let mut hidden: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            hidden.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut lines: Vec<String> = (0..n).map(|p| format!("o{}: {}", hidden[p], b[p])).collect();
        for p in 0..n {
            for _ in 0..rng.below(3) {
                let q = rng.below(n as u64) as usize;
                if hidden[q] < hidden[p] {
                    let kind = if rng.below(4) == 0 { "irequires" } else { "requires" };
                    let at = rng.below(lines.len() as u64 + 1) as usize;
                    lines.insert(at, format!("o{} {kind} o{}", hidden[p], hidden[q]));
                }
            }
        }
        writeln!(text, "rank {r} {{\n{}\n}}", lines.join("\n")).unwrap();
    }
    text
}

#[test]
fn a_streamed_trace_checks_and_replays_as_the_same_trace_in_memory() {
    let halo = include_str!("../../../../examples/traces/halo-8.goal");
    let mut texts: Vec<String> = vec![halo.to_string()];
    texts.extend((0..40).map(|s| random_trace(s, 1 + (s % 7) as u32, 2 + (s % 11) as u32)));
    let (mut ok, mut failed) = (0, 0);
    for text in &texts {
        let (mem, spilled) = both(text);
        let (a, b) = (check(Arc::clone(&mem), CalcUnit::default()), check(Arc::clone(&spilled), CalcUnit::default()));
        match (&a, &b) {
            (Ok(x), Ok(y)) => {
                let mut y = y.clone();
                y.memory_bytes = x.memory_bytes;
                assert_eq!(x, &y, "{text}");
                ok += 1;
            }
            _ => {
                assert_eq!(a, b, "{text}");
                failed += 1;
            }
        }
        for seed in 1..4 {
            assert_eq!(replay(Arc::clone(&mem), seed), replay(Arc::clone(&spilled), seed), "{text}");
        }
    }
    // The random traces cover both traces that run and traces that deadlock.
    assert!(ok > 5 && failed > 5, "{ok} checked, {failed} refused");
}

#[test]
fn a_bad_trace_streamed_names_the_same_line_as_in_memory() {
    for text in [
        "num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: calc 1\nl2 requires l9\n}",
        "num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}",
        "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}",
        "num_ranks 2\nrank 0 {\nl1: calc 1\nl1: calc 2\n}",
        "num_ranks 2\nrank 0 {\ncalc 1\n",
    ] {
        let (a, b) = (parse(text).unwrap_err(), spill(text.as_bytes()).unwrap_err());
        assert_eq!(a, b);
        assert!(a.line > 0, "{a}");
    }
    // A matching problem found by the check names its line either way.
    let text = "num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1\nsend 8b to 1 tag 2\n}\nrank 1 {\nrecv 8b from 0 tag 1\n}";
    let (mem, spilled) = both(text);
    let e = check(spilled, CalcUnit::default()).unwrap_err();
    assert_eq!(e, check(mem, CalcUnit::default()).unwrap_err());
    assert_eq!(e.line, 4, "{e}");
}

/// A ring exchange of `iters` iterations on `ranks` ranks: calc, send right, receive from the
/// left, both after the calc; the next calc requires the receive and the send (written after
/// the operations). (A receive without dependencies would be posted at the start: in flight
/// from the start to its message.)
fn ring(ranks: u32, iters: u32) -> String {
    let mut t = format!("num_ranks {ranks}\n");
    for r in 0..ranks {
        writeln!(t, "rank {r} {{").unwrap();
        for k in 0..iters {
            let (right, left) = ((r + 1) % ranks, (r + ranks - 1) % ranks);
            writeln!(t, "c{k}: calc {}\ns{k}: send 64b to {right} tag {k}\nr{k}: recv 64b from {left} tag {k}", 10 + (r + k) % 7).unwrap();
            writeln!(t, "s{k} requires c{k}\nr{k} requires c{k}").unwrap();
            if k > 0 {
                writeln!(t, "c{k} requires r{}\nc{k} requires s{}", k - 1, k - 1).unwrap();
            }
        }
        writeln!(t, "}}").unwrap();
    }
    t
}

#[test]
fn a_replay_holds_the_operations_in_flight_not_the_trace() {
    let ranks = 16;
    let peak = |iters: u32| {
        let spilled: Arc<dyn Source> = Arc::new(spill(ring(ranks, iters).as_bytes()).unwrap());
        let s = check(Arc::clone(&spilled), CalcUnit::default()).unwrap();
        assert_eq!(s.sends + s.recvs + s.calcs, (ranks * iters * 3) as u64);
        assert!(s.memory_bytes <= ranks as u64 * 16, "{} bytes", s.memory_bytes);
        (s.peak_held_ops, replay(spilled, 7).peak as u64)
    };
    let (short, long) = (peak(20), peak(2000));
    // 96,000 operations, yet a few per rank held at once, the same as for 960.
    assert!(long.0 > 0 && long.0 <= 4 * ranks as u64, "{long:?}");
    assert!(long.1 > 0 && long.1 <= 4 * ranks as u64, "{long:?}");
    assert_eq!(long, short);
}

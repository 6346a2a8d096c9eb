//! The GOAL reader, checker, replay and writer against hand-written traces.

use super::*;
use crate::algorithms::{build, Layout};
use crate::{Collective, FileProgram, JobRun};
use fabricsim_core::Time;
use fabricsim_nic::mock::MockNic;
use fabricsim_nic::Workload;
use std::sync::Arc;

const PINGPONG: &str = "// two ranks\nnum_ranks 2\n\nrank 0 {\n  l1: send 8b to 1 tag 7\n  l2: recv 8b from 1 tag 7 /* the answer */\n  l2 requires l1\n}\nrank 1 {\n  l2 requires l1   // named before it is defined\n  l1: recv 8b from 0 tag 7\n  l2: send 8b to 0 tag 7 cpu 1 nic 2\n}\n";

fn err(text: &str) -> GoalError {
    parse(text).unwrap_err()
}

fn check_err(text: &str) -> GoalError {
    check(Arc::new(parse(text).unwrap()), CalcUnit::default()).unwrap_err()
}

#[test]
fn a_trace_reads_into_flat_arrays_with_its_edges_both_ways() {
    let t = parse(PINGPONG).unwrap();
    assert_eq!((t.ranks(), t.len(), t.edges()), (2, 4, 2));
    assert_eq!(t.range(1), 2..4);
    assert_eq!(t.op(3), GoalOp { size: 8, peer: 0, tag: 7, kind: Kind::Send, cpu: 1, nic: 2 });
    assert_eq!((t.line(0), t.line(3)), (5, 12));
    assert_eq!(t.successors(0), &[1]);
    assert_eq!(t.successors(2), &[3]);
    assert_eq!(t.successors(1), &[] as &[u32]);
    let t = parse("num_ranks 1;\nrank 0 {\na: calc 5\nb: calc 7\nb irequires a\nrecv 1 b from -1 tag -1\n}").unwrap();
    assert_eq!(t.successors(0), &[1 | IREQ]);
    assert_eq!((t.op(2).peer, t.op(2).tag, t.op(2).size), (ANY, ANY, 1));
}

#[test]
fn every_bad_input_names_its_line_and_value() {
    for (text, line, want) in [
        ("num_ranks 2\nrank 0 {\nl1: send 8b to 1\nl2: calc 1\nl2 requires l9\n}", 5, "unknown label 'l9' in rank 0"),
        ("num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}", 3, "dependency cycle in rank 0"),
        ("num_ranks 1\nrank 0 {\na: calc 1\na requires a\n}", 4, "depends on itself"),
        ("num_ranks 2\nrank 2 {\n}", 2, "rank 2 is beyond num_ranks 2"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 5 tag 0\n}", 3, "rank 5 is beyond num_ranks 2"),
        ("num_ranks 2\nrank 0 {\nl1: sned 8b to 1\n}", 3, "malformed line `l1: sned 8b to 1`"),
        ("num_ranks 2\nrank 0 {\nsend 8 to 1\n}", 3, "'8' is not a size in bytes (write it `8b`)"),
        ("num_ranks 2\nrank 0 {\nsend 8b from 1\n}", 3, "expected `to`, found 'from'"),
        ("num_ranks 2\nrank 0 {\nsend 8b to -1\n}", 3, "'-1' is not a rank"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 1 tag x\n}", 3, "'x' is not a tag"),
        ("num_ranks 2\nrank 0 {\nsend 8b to 1 color 3\n}", 3, "unexpected 'color'"),
        ("num_ranks 2\nrank 0 {\nl1: calc 1\nl1: calc 2\n}", 4, "label 'l1' is defined twice (first at line 3)"),
        ("num_ranks 2\nrank 0 {\n}\nrank 0 {\n}", 4, "rank 0 has a second block (the first at line 2)"),
        ("num_ranks 2\nrank 0 {\ncalc 1\n", 2, "rank 0's block is not closed"),
        ("num_ranks 2\ncalc 1\n", 2, "outside a `rank N { ... }` block"),
        ("rank 0 {\n}", 1, "`num_ranks N` must come before the first rank"),
        ("num_ranks 0", 1, "num_ranks 0: a trace has 1 to"),
        ("// nothing\n", 0, "no `num_ranks N`"),
    ] {
        let e = err(text);
        assert_eq!(e.line, line, "{text:?}: {e}");
        assert!(e.message.contains(want), "{text:?}: {e}");
    }
}

#[test]
fn the_checker_finds_sends_never_received_and_receives_never_matched() {
    let e = check_err("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1\nsend 8b to 1 tag 2\n}\nrank 1 {\nrecv 8b from 0 tag 1\n}");
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("send 8b to 1 tag 2 is never received"), "{e}");
    let e = check_err("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1\n}\nrank 1 {\nrecv 8b from 0 tag 1\nrecv 8b from 0 tag 3\n}");
    assert_eq!(e.line, 7, "{e}");
    assert!(e.message.contains("rank 1: recv 8b from 0 tag 3 is never matched"), "{e}");
    // Two ranks each waiting for the other before sending: a deadlock, named by line.
    let e = check_err("num_ranks 2\nrank 0 {\nr: recv 8b from 1 tag 0\ns: send 8b to 1 tag 0\ns requires r\n}\nrank 1 {\nr: recv 8b from 0 tag 0\ns: send 8b to 0 tag 0\ns requires r\n}");
    assert_eq!(e.line, 3, "{e}");
    assert!(e.message.contains("deadlock") && e.message.contains("1 more rank(s) stuck"), "{e}");
}

#[test]
fn statistics_and_the_critical_path_without_a_network() {
    let text = "num_ranks 2\nrank 0 {\na: calc 100\nb: send 64b to 1 tag 0\nb requires a\nc: calc 30\n}\nrank 1 {\nr: recv 64b from 0 tag 0\nc: calc 50\nc requires r\n}";
    let s = check(Arc::new(parse(text).unwrap()), CalcUnit::default()).unwrap();
    assert_eq!((s.ranks, s.sends, s.recvs, s.calcs, s.dependencies, s.bytes, s.calc_units), (2, 1, 1, 3, 2, 64, 180));
    // Rank 0's calcs share its core in file order: a (0 to 100 ns), then c (to 130); the
    // message leaves at 100 and rank 1 computes 50 ns after it, ending last at 150.
    assert_eq!(s.critical_path_ps, Time::from_ns(150).ps());
    let s = check(Arc::new(parse(text).unwrap()), CalcUnit::parse("2GHz").unwrap()).unwrap();
    assert_eq!(s.critical_path_ps, Time::from_ns(75).ps());
}

#[test]
fn requires_waits_for_completion_and_irequires_only_for_the_start() {
    for (dep, timer_at_start) in [("irequires", true), ("requires", false)] {
        let text = format!("num_ranks 2\nrank 0 {{\ns: send 8b to 1 tag 0\nc: calc 10\nc {dep} s\n}}\nrank 1 {{\nrecv 8b from 0 tag 0\n}}");
        let mut w = TraceRun::new(Arc::new(parse(&text).unwrap()), CalcUnit::default());
        let mut nic = MockNic::new(2);
        nic.start(&mut w);
        assert_eq!(nic.posted.len(), 1);
        assert_eq!(!nic.timers.is_empty(), timer_at_start, "{dep}");
        nic.now = Time::from_ns(4);
        nic.deliver(&mut w, 0);
        assert_eq!(nic.timers.len(), 1, "{dep}: the calc has started once the send completed");
        assert!(nic.fire_next(&mut w));
        assert!(w.finished());
        let end = if timer_at_start { 10 } else { 14 };
        assert_eq!(w.done_at(), &[Time::from_ns(end), Time::from_ns(4)], "{dep}");
        assert_eq!(w.calc_time().unwrap()[0], Time::from_ns(10));
    }
}

#[test]
fn messages_match_receives_by_source_tag_and_posting_order() {
    // Rank 2 posts a receive from rank 1 tag 5, then one from anyone with any tag; rank 0's
    // message arrives first and must skip the first receive.
    let text = "num_ranks 3\nrank 0 {\nsend 8b to 2 tag 9\n}\nrank 1 {\nsend 16b to 2 tag 5\n}\nrank 2 {\na: recv 16b from 1 tag 5\nb: recv 8b from -1 tag -1\nc: calc 1\nc requires a\n}";
    let mut w = TraceRun::new(Arc::new(parse(text).unwrap()), CalcUnit::default());
    let mut nic = MockNic::new(3);
    nic.start(&mut w);
    assert_eq!(nic.posted.len(), 2);
    nic.deliver(&mut w, 0);
    assert!(nic.timers.is_empty(), "rank 0's message went to the wildcard receive");
    nic.deliver(&mut w, 1);
    assert_eq!(nic.timers.len(), 1);
    assert!(nic.fire_next(&mut w));
    assert!(w.finished());
    // An unexpected message waits for the receive that matches it.
    let text = "num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1\n}\nrank 1 {\nc: calc 5\nr: recv 8b from 0 tag 1\nr requires c\n}";
    let mut w = TraceRun::new(Arc::new(parse(text).unwrap()), CalcUnit::default());
    let mut nic = MockNic::new(2);
    nic.start(&mut w);
    nic.deliver(&mut w, 0);
    assert!(!w.finished());
    assert!(nic.fire_next(&mut w));
    assert!(w.finished());
}

#[test]
fn a_deadlocked_replay_names_the_rank_and_the_operation() {
    let text = "num_ranks 2\nrank 0 {\nsend 8b to 1 tag 1\n}\nrank 1 {\nrecv 8b from 0 tag 2\n}";
    let mut w = TraceRun::new(Arc::new(parse(text).unwrap()), CalcUnit::default());
    let mut nic = MockNic::new(2);
    nic.start(&mut w);
    nic.deliver(&mut w, 0);
    assert!(!w.finished());
    let s = w.stuck().unwrap();
    assert!(
        s.contains("rank 1 (line 6, operation 0): recv 8b from 1 tag 2")
            || s.contains("rank 1 (line 6, operation 0): recv 8b from 0 tag 2 is never matched"),
        "{s}"
    );
    assert_eq!(w.unreceived(5), vec![(1, 0)]);
}

#[test]
fn programs_and_collectives_write_as_goal_and_read_back() {
    let p = FileProgram::parse("ranks 2\n0 put 1 1KiB tag=3\n0 compute 2us\n0 wait 1 tag=4\n1 wait 0 tag=3\n1 put 0 8B tag=4\n").unwrap();
    let mut out = Vec::new();
    write(&p, 0, CalcUnit::default(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("o0: send 1024b to 1 tag 3\no1: calc 2000\no1 irequires o0\no2: recv 8b from 1 tag 4\no2 requires o1"), "{text}");
    let t = Arc::new(parse(&text).unwrap());
    let s = check(t.clone(), CalcUnit::default()).unwrap();
    assert_eq!((s.sends, s.recvs, s.calcs, s.bytes), (2, 2, 1, 1032));
    assert_eq!(s.critical_path_ps, Time::from_us(2).ps());
    // A ring allreduce of 16 ranks: every message received, as many receives as sends.
    let ring = build(Collective::Allreduce, "ring", &Layout::flat(16), 64 * 1024).unwrap();
    let mut out = Vec::new();
    write(ring.as_ref(), 64 * 1024, CalcUnit::default(), &mut out).unwrap();
    let s = check(Arc::new(read(&out[..]).unwrap()), CalcUnit::default()).unwrap();
    assert_eq!((s.ranks, s.sends, s.recvs), (16, 16 * 30, 16 * 30));
    // What GOAL cannot say is refused by rank, lane and operation.
    let g = FileProgram::parse("ranks 2\n0 get 1 8B\n0 wait 1\n").unwrap();
    let e = write(&g, 0, CalcUnit::default(), &mut Vec::new()).unwrap_err();
    assert!(e.to_string().starts_with("rank 0 lane 0 operation 0 (gets from rank 1"), "{e}");
}

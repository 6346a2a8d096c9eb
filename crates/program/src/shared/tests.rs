use super::*;
use crate::{FileProgram, ProgramRun};
use fabricsim_nic::mock::MockNic;

fn program(text: &str) -> Part {
    Part::Closed(Box::new(ProgramRun::new(Box::new(FileProgram::parse(text).unwrap()), 0)))
}

/// A ping from rank 0 to rank 1 and back.
const PINGPONG: &str = "ranks 2\n0 put 1 1KiB tag=1\n1 wait 0 tag=1\n1 put 0 1KiB tag=2\n0 wait 1 tag=2\n";

/// Deliver every posted message not yet delivered, in posting order; how many.
fn deliver_all(nic: &mut MockNic, w: &mut Shared, from: &mut usize) -> usize {
    let mut n = 0;
    while *from < nic.posted.len() {
        nic.deliver(w, *from);
        *from += 1;
        n += 1;
    }
    n
}

#[test]
fn each_job_addresses_its_own_ranks_on_the_network() {
    let jobs =
        vec![SharedJob { part: program(PINGPONG), ranks: 2, start: Time::ZERO }, SharedJob { part: program(PINGPONG), ranks: 2, start: Time::ZERO }];
    let mut w = Shared::new(jobs);
    let mut nic = MockNic::new(4);
    nic.start(&mut w);
    // Both jobs' rank 0 posted to their rank 1: global ranks 1 and 3.
    let firsts: Vec<(u32, u32)> = nic.posted.iter().map(|(_, m)| (m.src.0, m.dst.0)).collect();
    assert_eq!(firsts, vec![(0, 1), (2, 3)]);
    let mut from = 0;
    while deliver_all(&mut nic, &mut w, &mut from) > 0 {}
    assert!(w.finished());
    assert_eq!(w.traffic(0).messages, 2);
    assert_eq!(w.traffic(1).bytes, 2048);
    let replies: Vec<(u32, u32)> = nic.posted[2..].iter().map(|(_, m)| (m.src.0, m.dst.0)).collect();
    assert_eq!(replies, vec![(1, 0), (3, 2)]);
}

#[test]
fn a_later_job_starts_at_its_time_and_the_run_waits_for_it() {
    let jobs = vec![
        SharedJob { part: program(PINGPONG), ranks: 2, start: Time::ZERO },
        SharedJob { part: program(PINGPONG), ranks: 2, start: Time::from_ns(500) },
    ];
    let mut w = Shared::new(jobs);
    let mut nic = MockNic::new(4);
    nic.start(&mut w);
    assert_eq!(nic.posted.len(), 1, "only the first job posts at time zero");
    assert_eq!(nic.timers, vec![(Rank(2), Time::from_ns(500))]);
    let mut from = 0;
    while deliver_all(&mut nic, &mut w, &mut from) > 0 {}
    assert!(!w.finished(), "the second job has not run yet");
    assert!(nic.fire_next(&mut w));
    assert_eq!(nic.posted.last().map(|(t, m)| (*t, m.src.0)), Some((Time::from_ns(500), 2)));
    while deliver_all(&mut nic, &mut w, &mut from) > 0 {}
    assert!(w.finished());
}

/// Open-loop traffic of its own: every wake of a rank sends one message to the next rank.
struct Chatter;

impl Workload for Chatter {
    fn start(&mut self, api: &mut Api) {
        api.wake_at(Rank(0), api.now() + Time::from_ns(10));
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        let n = api.nodes();
        api.send(rank, Rank((rank.0 + 1) % n), 64, 0);
        api.wake_at(rank, api.now() + Time::from_ns(10));
    }
    fn hears_completions(&self) -> bool {
        false
    }
}

#[test]
fn open_loop_jobs_run_until_the_closed_ones_are_done() {
    let jobs = vec![
        SharedJob { part: Part::Open(Box::new(Chatter)), ranks: 3, start: Time::ZERO },
        SharedJob { part: program(PINGPONG), ranks: 2, start: Time::ZERO },
    ];
    let mut w = Shared::new(jobs);
    let mut nic = MockNic::new(5);
    nic.start(&mut w);
    assert_eq!(nic.timers, vec![(Rank(0), Time::from_ns(10))]);
    assert_eq!(nic.posted.iter().map(|(_, m)| (m.src.0, m.dst.0)).collect::<Vec<_>>(), vec![(3, 4)]);
    nic.fire_next(&mut w);
    // The chatter's rank 0 is global rank 0, its neighbour global rank 1.
    assert_eq!(nic.posted.last().map(|(_, m)| (m.src.0, m.dst.0)), Some((0, 1)));
    assert!(!w.ended());
    let mut from = 0;
    while deliver_all(&mut nic, &mut w, &mut from) > 0 {}
    assert!(w.ended() && w.finished());
    assert_eq!(w.traffic(0).messages, 1, "the chatter's one message counted for it");
    assert_eq!(w.traffic(1).messages, 2);
}

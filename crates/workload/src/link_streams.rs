//! Streams pinned to links: each stream sends `messages` messages of `bytes` from a node out of
//! a given local network port to the neighbour behind it. Two benchmarks of the papers are sets
//! of such streams:
//! * simultaneous Puts in several directions (injection rate): one node, its first N ports;
//! * nearest-neighbour exchange on all links: one node sends on every port and every neighbour
//!   sends back over the same link, so the node sends and receives on all its links at once.
//!
//! **Iterations.** A benchmark repeats the exchange in a loop: the messages of one iteration are
//! posted only once every message of the previous one has arrived and been taken by the
//! receiving core (the loop waits on the reception counters). An iteration may first pass an
//! in-network barrier of the benchmark's node (so that every reception counter is re-armed
//! before anything is sent to it, as Blue Gene/Q's SPI benchmarks do), and costs its posting
//! cores a fixed time before the first post (loop control, re-arming the counters). With one
//! iteration, no barrier and no per-iteration cost, all messages are posted at time zero.
//!
//! Throughput is all payload delivered over the time until the last message arrived.

use crate::WorkloadReport;
use fabricsim_core::Time;
use fabricsim_nic::{Api, Delivered, HwCollective, HwGroup, HwKind, Rank, Workload};

/// One stream: from `src` out of local port `port` to `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    /// The sending rank.
    pub src: Rank,
    /// Local network port of `src`'s router that the messages leave on (their first-hop hint).
    pub port: u8,
    /// The receiving rank, normally the neighbour behind `port`.
    pub dst: Rank,
}

/// How a benchmark repeats its exchange (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Iterations {
    /// Iterations of the loop (at least 1).
    pub count: u64,
    /// Time each posting core spends per iteration before its first post.
    pub overhead: Time,
    /// The rank that passes an in-network barrier (a group of its own) at the start of each
    /// iteration, before anything is posted (`None`: no barrier).
    pub barrier: Option<Rank>,
}

impl Default for Iterations {
    fn default() -> Self {
        Iterations { count: 1, overhead: Time::ZERO, barrier: None }
    }
}

/// The id of the barrier's group (one group, made at the start).
const BARRIER_GROUP: u32 = 0;

/// A set of link-pinned streams (see the module docs).
pub struct LinkStreams {
    streams: Vec<Stream>,
    bytes: u64,
    messages: u64,
    iterations: Iterations,
    /// Iterations started so far.
    started: u64,
    /// Messages of the current iteration not yet heard of.
    pending: u64,
    /// Messages heard of, all iterations.
    done: u64,
    last: Time,
    /// Why the barrier could not run (the network refused its group or its start).
    error: Option<String>,
}

impl LinkStreams {
    /// `messages` Puts (at least 1) of `bytes` on each of `streams`, all posted at time zero.
    pub fn new(streams: Vec<Stream>, bytes: u64, messages: u64) -> Self {
        Self::repeated(streams, bytes, messages, Iterations::default())
    }

    /// The same, repeated as `iterations` says.
    pub fn repeated(streams: Vec<Stream>, bytes: u64, messages: u64, iterations: Iterations) -> Self {
        let messages = messages.max(1);
        let iterations = Iterations { count: iterations.count.max(1), ..iterations };
        LinkStreams { streams, bytes, messages, iterations, started: 0, pending: 0, done: 0, last: Time::ZERO, error: None }
    }

    fn per_iteration(&self) -> u64 {
        self.streams.len() as u64 * self.messages
    }

    /// Payload throughput up to the last delivery so far (`None` before it), the time of that
    /// delivery and the messages delivered.
    pub fn report(&self) -> WorkloadReport {
        let secs = self.last.as_secs_f64();
        WorkloadReport {
            throughput_gb_per_s: (secs > 0.0).then(|| (self.done * self.bytes) as f64 / secs / 1e9),
            completion_ns: Some(self.last.as_ns_f64()),
            messages: self.done,
            ..Default::default()
        }
    }

    /// Why the run could not go on (the network has no barrier for the iteration's start).
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Start the next iteration: its barrier, or its posts.
    fn begin(&mut self, api: &mut Api) {
        self.started += 1;
        self.pending = self.per_iteration();
        match self.iterations.barrier {
            Some(rank) => {
                let c = HwCollective::new(HwKind::Barrier, BARRIER_GROUP, 0, self.started);
                if let Err(e) = api.collective_start(rank, c) {
                    self.error.get_or_insert(e);
                }
            }
            None => self.post(api),
        }
    }

    /// Post the iteration's messages now, or wake every posting rank once its per-iteration
    /// cost is paid.
    fn post(&mut self, api: &mut Api) {
        if self.iterations.overhead == Time::ZERO {
            for _ in 0..self.messages {
                for s in &self.streams {
                    api.send_via(s.src, s.port, s.dst, self.bytes, 0);
                }
            }
            return;
        }
        let at = api.now() + self.iterations.overhead;
        let mut posters: Vec<Rank> = self.streams.iter().map(|s| s.src).collect();
        posters.sort();
        posters.dedup();
        for r in posters {
            api.wake_at(r, at);
        }
    }
}

impl Workload for LinkStreams {
    fn start(&mut self, api: &mut Api) {
        if let Some(rank) = self.iterations.barrier {
            let g = HwGroup { id: BARRIER_GROUP, members: vec![rank], sums: false, root: None };
            if let Err(e) = api.collective_group(&g) {
                self.error.get_or_insert(e);
                return;
            }
        }
        self.begin(api);
    }

    /// The iteration's barrier is over: its messages may go.
    fn collective_done(&mut self, _rank: Rank, _tag: u64, api: &mut Api) {
        self.post(api);
    }

    /// A posting rank has paid its per-iteration cost: it posts its messages of the iteration.
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        for _ in 0..self.messages {
            for s in self.streams.iter().filter(|s| s.src == rank) {
                api.send_via(s.src, s.port, s.dst, self.bytes, 0);
            }
        }
    }

    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        self.pending -= 1;
        self.done += 1;
        self.last = self.last.max(m.delivered);
        if self.pending == 0 && self.started < self.iterations.count {
            self.begin(api);
        }
    }

    fn finished(&self) -> bool {
        self.error.is_some() || (self.started == self.iterations.count && self.pending == 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fabricsim_nic::mock::MockNic;

    /// Two ranks exchanging one message each way.
    fn pair(iterations: Iterations) -> LinkStreams {
        let streams = vec![Stream { src: Rank(0), port: 0, dst: Rank(1) }, Stream { src: Rank(1), port: 1, dst: Rank(0) }];
        LinkStreams::repeated(streams, 4096, 1, iterations)
    }

    /// Deliver every message posted so far (not yet delivered) at `at`.
    fn deliver_all(nic: &mut MockNic, w: &mut LinkStreams, from: usize, at: Time) -> usize {
        nic.now = at;
        let n = nic.posted.len();
        for i in from..n {
            nic.deliver(w, i);
        }
        n
    }

    #[test]
    fn one_iteration_without_cost_posts_everything_at_time_zero() {
        let mut nic = MockNic::new(2);
        let mut w = pair(Iterations::default());
        nic.start(&mut w);
        assert_eq!(nic.posted.len(), 2);
        assert!(nic.posted.iter().all(|(t, _)| *t == Time::ZERO));
        assert!(nic.timers.is_empty());
        deliver_all(&mut nic, &mut w, 0, Time::from_ns(1000));
        assert!(w.finished());
        assert_eq!(w.report().completion_ns, Some(1000.0));
    }

    #[test]
    fn the_iteration_cost_is_paid_once_per_iteration_by_each_poster_after_the_previous_one_ends() {
        let cost = Time::from_ns(300);
        let mut nic = MockNic::new(2);
        let mut w = pair(Iterations { count: 3, overhead: cost, barrier: None });
        nic.start(&mut w);
        // Nothing is posted before the cost is paid; each posting rank is woken once.
        assert!(nic.posted.is_empty());
        assert_eq!(nic.timers, vec![(Rank(0), cost), (Rank(1), cost)]);
        let mut seen = 0;
        let mut end = Time::ZERO;
        for iteration in 0..3u64 {
            while nic.fire_next(&mut w) {}
            // Both messages of the iteration, posted when the cost after the previous end is paid.
            assert_eq!(nic.posted.len(), seen + 2, "iteration {iteration}");
            assert!(nic.posted[seen..].iter().all(|(t, _)| *t == end + cost), "iteration {iteration}");
            // The first arrival alone does not start the next iteration.
            nic.now = end + cost + Time::from_ns(500);
            nic.deliver(&mut w, seen);
            assert!(nic.timers.is_empty());
            end = end + cost + Time::from_ns(700);
            seen = deliver_all(&mut nic, &mut w, seen + 1, end);
        }
        assert!(w.finished());
        assert!(nic.timers.is_empty());
        // 3 x (300 + 700): the cost is a fixed time per iteration, whatever the message size.
        assert_eq!(w.report().completion_ns, Some(3000.0));
        assert_eq!(w.report().messages, 6);
    }

    #[test]
    fn iterations_without_cost_post_the_next_one_at_the_last_arrival() {
        let mut nic = MockNic::new(2);
        let mut w = pair(Iterations { count: 2, overhead: Time::ZERO, barrier: None });
        nic.start(&mut w);
        let n = deliver_all(&mut nic, &mut w, 0, Time::from_ns(800));
        assert_eq!(nic.posted.len(), 4);
        assert!(nic.posted[n..].iter().all(|(t, _)| *t == Time::from_ns(800)));
        assert!(!w.finished());
        deliver_all(&mut nic, &mut w, n, Time::from_ns(1600));
        assert!(w.finished());
        let r = w.report();
        assert_eq!(r.messages, 4);
        assert!((r.throughput_gb_per_s.unwrap() - 4.0 * 4096.0 / 1600e-9 / 1e9).abs() < 1e-9);
    }

    #[test]
    fn with_a_barrier_nothing_is_posted_before_the_node_has_passed_it_each_iteration() {
        let mut nic = MockNic::new(2);
        nic.collectives = Some(Vec::new());
        let cost = Time::from_ns(100);
        let mut w = pair(Iterations { count: 2, overhead: cost, barrier: Some(Rank(0)) });
        nic.start(&mut w);
        // The barrier is started, once, by the benchmark's node; nothing posted or timed yet.
        let started = |nic: &MockNic| nic.collectives.as_ref().unwrap().len();
        assert_eq!(started(&nic), 1);
        assert_eq!(nic.collectives.as_ref().unwrap()[0].1.kind, HwKind::Barrier);
        assert!(nic.posted.is_empty() && nic.timers.is_empty());
        // The barrier ends at 400 ns: the posters pay their cost, then post.
        nic.now = Time::from_ns(400);
        nic.complete_collective(&mut w, Rank(0), 1);
        while nic.fire_next(&mut w) {}
        assert_eq!(nic.posted.len(), 2);
        assert!(nic.posted.iter().all(|(t, _)| *t == Time::from_ns(500)));
        // The iteration's last arrival starts the next barrier, not the next posts.
        let n = deliver_all(&mut nic, &mut w, 0, Time::from_ns(1500));
        assert_eq!(started(&nic), 2);
        assert_eq!(nic.posted.len(), n);
        assert!(!w.finished());
        nic.now = Time::from_ns(1900);
        nic.complete_collective(&mut w, Rank(0), 2);
        while nic.fire_next(&mut w) {}
        deliver_all(&mut nic, &mut w, n, Time::from_ns(3000));
        assert!(w.finished());
        assert_eq!(w.report().messages, 4);
        assert!(w.error().is_none());
    }

    #[test]
    fn a_network_without_barrier_hardware_ends_the_run_with_its_reason() {
        let mut nic = MockNic::new(2);
        let mut w = pair(Iterations { count: 2, overhead: Time::ZERO, barrier: Some(Rank(0)) });
        nic.start(&mut w);
        assert!(w.finished());
        assert!(nic.posted.is_empty());
        assert!(w.error().unwrap().contains("no in-network collectives"), "{:?}", w.error());
    }
}

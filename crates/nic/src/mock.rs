//! A NIC without a network, for testing workloads: it records what is posted and the timers
//! set; a test advances time, fires timers and delivers messages by hand.

use crate::{Api, Delivered, Message, Nic, Rank, Workload};
use fabricsim_core::{NodeId, Time};

/// A mock NIC for `ranks` ranks on as many nodes.
#[derive(Debug, Default)]
pub struct MockNic {
    /// Current time: set by the test, advanced by [`MockNic::fire_next`].
    pub now: Time,
    /// Ranks in the job; rank `r` runs on node `r`.
    pub ranks: u32,
    /// Everything posted, in order, with the time it was posted.
    pub posted: Vec<(Time, Message)>,
    /// Timers set and not yet fired: (rank, time).
    pub timers: Vec<(Rank, Time)>,
    /// In-network collectives started, with the rank; `None`: the mock has no such hardware
    /// (with `Some`, every group is accepted).
    pub collectives: Option<Vec<(Rank, crate::HwCollective)>>,
}

impl MockNic {
    /// A mock for `ranks` ranks at time zero, with nothing posted and no in-network collective
    /// hardware (`collectives` is `None`).
    pub fn new(ranks: u32) -> Self {
        MockNic { ranks, ..Default::default() }
    }

    /// Start `w`.
    pub fn start<W: Workload>(&mut self, w: &mut W) {
        w.start(&mut Api::new(self));
    }

    /// Fire the earliest timer (advancing time to it); false if none is set.
    pub fn fire_next<W: Workload>(&mut self, w: &mut W) -> bool {
        let Some(i) = (0..self.timers.len()).min_by_key(|&i| (self.timers[i].1, i)) else { return false };
        let (rank, at) = self.timers.remove(i);
        self.now = self.now.max(at);
        w.wake(rank, &mut Api::new(self));
        true
    }

    /// Tell `rank` that its in-network collective tagged `tag` is over.
    pub fn complete_collective<W: Workload>(&mut self, w: &mut W, rank: Rank, tag: u64) {
        w.collective_done(rank, tag, &mut Api::new(self));
    }

    /// Deliver posted message `i` now (as if its last byte had just arrived).
    pub fn deliver<W: Workload>(&mut self, w: &mut W, i: usize) {
        let (created, m) = self.posted[i];
        let d = Delivered { src: m.src, dst: m.dst, bytes: m.bytes, op: m.op, tag: m.tag, created, delivered: self.now };
        w.delivered(&d, &mut Api::new(self));
    }
}

impl Nic for MockNic {
    fn now(&self) -> Time {
        self.now
    }
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn node_of(&self, r: Rank) -> NodeId {
        NodeId(r.0)
    }
    fn post(&mut self, m: Message) {
        self.posted.push((self.now, m));
    }
    fn wake_at(&mut self, rank: Rank, at: Time) {
        self.timers.push((rank, at.max(self.now)));
    }
    fn collective_group(&mut self, _g: &crate::HwGroup) -> Result<(), String> {
        match self.collectives {
            Some(_) => Ok(()),
            None => Err("the mock NIC has no in-network collectives".into()),
        }
    }
    fn collective_start(&mut self, rank: Rank, c: crate::HwCollective) -> Result<(), String> {
        match &mut self.collectives {
            Some(v) => {
                v.push((rank, c));
                Ok(())
            }
            None => Err("the mock NIC has no in-network collectives".into()),
        }
    }
}

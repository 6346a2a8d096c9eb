//! Several jobs on one network at once: each job's workload sees its own ranks `0..n` through
//! a NIC of its own, while the network sees one rank space in which job `j`'s ranks follow the
//! ranks of the jobs before it. Jobs never address each other, so every message, completion
//! and timer belongs to the job of the rank it names; nothing is tagged.
//!
//! A job starts at its own time (a timer of its first rank, set when the run starts). A closed
//! job (a program, a trace) is done when its run says so; open-loop traffic runs from its start
//! until every closed job is done. Each job's delivered messages are counted as they complete
//! (count, bytes, latency), whatever the job is.

use crate::JobRun;
use fabricsim_core::{NodeId, Time};
use fabricsim_nic::{Api, Delivered, HwCollective, HwGroup, Message, Nic, Rank, Workload};

/// What one job runs.
pub enum Part {
    /// A closed job, read afterwards through [`JobRun`].
    Closed(Box<dyn JobRun>),
    /// Open-loop traffic, which never finishes by itself.
    Open(Box<dyn Workload>),
}

/// One job of a [`Shared`] run: what it runs, how many ranks, when it starts.
pub struct SharedJob {
    pub part: Part,
    pub ranks: u32,
    pub start: Time,
}

/// What one job's completed messages came to.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct JobTraffic {
    /// Messages delivered and their payload bytes.
    pub messages: u64,
    pub bytes: u64,
    /// Sum and largest of their latencies (posting to delivery).
    pub latency_sum: Time,
    pub latency_max: Time,
    /// When the last one was delivered.
    pub last: Time,
}

impl JobTraffic {
    /// Mean latency, ns (0 with no message).
    pub fn latency_mean_ns(&self) -> f64 {
        if self.messages == 0 {
            0.0
        } else {
            self.latency_sum.as_ns_f64() / self.messages as f64
        }
    }
}

/// Group ids of job `j` start at `j << GROUP_SHIFT` (each job numbers its groups from 0).
const GROUP_SHIFT: u32 = 20;

struct Slot {
    job: SharedJob,
    offset: u32,
    started: bool,
    traffic: JobTraffic,
}

/// Jobs sharing one network (see the module docs).
pub struct Shared {
    slots: Vec<Slot>,
    /// The job of every global rank.
    owner: Vec<u32>,
}

impl Shared {
    /// The jobs, their ranks numbered in this order.
    pub fn new(jobs: Vec<SharedJob>) -> Self {
        let mut owner = Vec::new();
        let mut slots = Vec::new();
        for (j, job) in jobs.into_iter().enumerate() {
            let offset = owner.len() as u32;
            owner.extend(std::iter::repeat_n(j as u32, job.ranks as usize));
            slots.push(Slot { job, offset, started: false, traffic: JobTraffic::default() });
        }
        Shared { slots, owner }
    }

    /// The job `j`'s part, to read after the run.
    pub fn part(&self, j: usize) -> &Part {
        &self.slots[j].job.part
    }

    /// What job `j`'s completed messages came to.
    pub fn traffic(&self, j: usize) -> JobTraffic {
        self.slots[j].traffic
    }

    /// Whether job `j` has started.
    pub fn started(&self, j: usize) -> bool {
        self.slots[j].started
    }

    /// The job of global rank `r` and its rank there.
    fn local(&self, r: Rank) -> (usize, Rank) {
        let j = self.owner[r.index()] as usize;
        (j, Rank(r.0 - self.slots[j].offset))
    }

    fn start_job(&mut self, j: usize, api: &mut Api) {
        let slot = &mut self.slots[j];
        slot.started = true;
        let mut nic = JobNic { api, offset: slot.offset, ranks: slot.job.ranks, group_base: (j as u32) << GROUP_SHIFT };
        let mut api = Api::new(&mut nic);
        match &mut slot.job.part {
            Part::Closed(w) => w.start(&mut api),
            Part::Open(w) => w.start(&mut api),
        }
    }

    /// Call `f` on job `j`'s workload with its own NIC.
    fn with_job(&mut self, j: usize, api: &mut Api, f: impl FnOnce(&mut dyn Workload, &mut Api)) {
        let slot = &mut self.slots[j];
        let mut nic = JobNic { api, offset: slot.offset, ranks: slot.job.ranks, group_base: (j as u32) << GROUP_SHIFT };
        let mut api = Api::new(&mut nic);
        match &mut slot.job.part {
            Part::Closed(w) => f(w.as_mut(), &mut api),
            Part::Open(w) => f(w.as_mut(), &mut api),
        }
    }

    fn closed(&self) -> impl Iterator<Item = &dyn JobRun> {
        self.slots.iter().filter_map(|s| match &s.job.part {
            Part::Closed(w) => Some(w.as_ref()),
            Part::Open(_) => None,
        })
    }
}

/// The network's NIC as one job sees it: its ranks from 0, its group ids from 0.
struct JobNic<'a, 'b> {
    api: &'a mut Api<'b>,
    offset: u32,
    ranks: u32,
    group_base: u32,
}

impl JobNic<'_, '_> {
    fn global(&self, r: Rank) -> Rank {
        Rank(r.0 + self.offset)
    }
}

impl Nic for JobNic<'_, '_> {
    fn now(&self) -> Time {
        self.api.now()
    }
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn node_of(&self, r: Rank) -> NodeId {
        self.api.node_of(self.global(r))
    }
    fn post(&mut self, m: Message) {
        let m = Message { src: self.global(m.src), dst: self.global(m.dst), ..m };
        self.api.post(m)
    }
    fn wake_at(&mut self, rank: Rank, at: Time) {
        self.api.wake_at(self.global(rank), at)
    }
    fn queued(&self, rank: Rank) -> u32 {
        self.api.queued(self.global(rank))
    }
    fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        let members = g.members.iter().map(|&r| self.global(r)).collect();
        let g = HwGroup { id: g.id + self.group_base, members, root: g.root.map(|r| self.global(r)), ..*g };
        self.api.collective_group(&g)
    }
    fn collective_start(&mut self, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.api.collective_start(self.global(rank), HwCollective { group: c.group + self.group_base, ..c })
    }
    fn collective_value(&self, rank: Rank, group: u32) -> Option<[u64; 8]> {
        self.api.collective_value(self.global(rank), group + self.group_base)
    }
}

impl Workload for Shared {
    fn start(&mut self, api: &mut Api) {
        for j in 0..self.slots.len() {
            let s = &self.slots[j];
            if s.job.start == Time::ZERO {
                self.start_job(j, api);
            } else if s.job.ranks > 0 {
                api.wake_at(Rank(s.offset), s.job.start);
            }
        }
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        let (j, local) = self.local(rank);
        if !self.slots[j].started {
            // The job's own start: its first rank's timer at its start time.
            if api.now() >= self.slots[j].job.start {
                self.start_job(j, api);
            }
            return;
        }
        self.with_job(j, api, |w, api| w.wake(local, api));
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        let (j, src) = self.local(m.src);
        let t = &mut self.slots[j].traffic;
        let latency = m.delivered.saturating_sub(m.created);
        t.messages += 1;
        t.bytes += m.bytes;
        t.latency_sum += latency;
        t.latency_max = t.latency_max.max(latency);
        t.last = t.last.max(m.delivered);
        let dst = Rank(m.dst.0 - self.slots[j].offset);
        let local = Delivered { src, dst, ..*m };
        self.with_job(j, api, |w, api| {
            if w.hears_completions() {
                w.delivered(&local, api)
            }
        });
    }
    fn sent(&mut self, m: &Delivered, api: &mut Api) {
        let (j, src) = self.local(m.src);
        let dst = Rank(m.dst.0 - self.slots[j].offset);
        let local = Delivered { src, dst, ..*m };
        self.with_job(j, api, |w, api| {
            if w.wants_local_completion() {
                w.sent(&local, api)
            }
        });
    }
    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        let (j, local) = self.local(rank);
        self.with_job(j, api, |w, api| w.collective_done(local, tag, api));
    }
    fn wants_local_completion(&self) -> bool {
        self.closed().any(|w| w.wants_local_completion())
    }
    /// Every closed job done (a run of open-loop jobs only runs for its window).
    fn finished(&self) -> bool {
        self.closed().next().is_some()
            && self.slots.iter().all(|s| s.started || matches!(s.job.part, Part::Open(_)))
            && self.closed().all(|w| w.finished())
    }
    /// With open-loop jobs beside them, the run ends when the closed jobs are done.
    fn ended(&self) -> bool {
        self.slots.iter().any(|s| matches!(s.job.part, Part::Open(_))) && self.finished()
    }
}

#[cfg(test)]
mod tests;

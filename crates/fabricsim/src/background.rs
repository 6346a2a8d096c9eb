//! A closed workload (a collective's program) run alongside open-loop background traffic
//! (`fabricsim collective --background`): the scenario's own traffic pattern at its load keeps
//! the network busy while the program runs, and the run ends when the program is done.
//!
//! The background starts at time zero and the program `delay` later, once the network has
//! settled into its load. The two share the NIC interface. Background messages carry
//! [`BACKGROUND_TAG`] in their tag, so their completions never reach the program; timers are told
//! apart by recording the ones the background asks for (the program's own runner ignores a
//! timer that is not due). The background's messages use the posting ranks' cores like the
//! program's (their software costs, where a scenario sets them, add up).

use fabricsim_core::{NodeId, Time};
use fabricsim_network::{Api, Delivered, HwCollective, HwGroup, Message, Nic, Rank, Workload};
use std::collections::HashMap;

/// Marks a background message's tag.
pub const BACKGROUND_TAG: u64 = 1 << 63;

/// `front` (the measured, closed workload) with `back` (open-loop traffic) beside it.
pub struct WithBackground<F, B> {
    pub front: F,
    pub back: B,
    /// When the front starts.
    pub delay: Time,
    started: bool,
    /// Timers the background asked for: (rank, time) -> count.
    wakes: HashMap<(u32, u64), u32>,
}

impl<F: Workload, B: Workload> WithBackground<F, B> {
    pub fn new(front: F, back: B, delay: Time) -> Self {
        WithBackground { front, back, delay, started: false, wakes: HashMap::new() }
    }
    fn back_api<'a, 'b>(&'a mut self, api: &'a mut Api<'b>) -> (&'a mut B, BackNic<'a, 'b>) {
        (&mut self.back, BackNic { api, wakes: &mut self.wakes })
    }
}

/// The NIC as the background sees it: its posts tagged, its timers recorded.
struct BackNic<'a, 'b> {
    api: &'a mut Api<'b>,
    wakes: &'a mut HashMap<(u32, u64), u32>,
}

impl Nic for BackNic<'_, '_> {
    fn now(&self) -> Time {
        self.api.now()
    }
    fn ranks(&self) -> u32 {
        self.api.nodes()
    }
    fn node_of(&self, r: Rank) -> NodeId {
        self.api.node_of(r)
    }
    fn post(&mut self, m: Message) {
        self.api.post(Message { tag: m.tag | BACKGROUND_TAG, ..m })
    }
    fn wake_at(&mut self, rank: Rank, at: Time) {
        // The NIC moves a time in the past to now: so does the record.
        *self.wakes.entry((rank.0, at.max(self.api.now()).ps())).or_default() += 1;
        self.api.wake_at(rank, at)
    }
    fn queued(&self, rank: Rank) -> u32 {
        self.api.queued(rank)
    }
    fn collective_group(&mut self, g: &HwGroup) -> Result<(), String> {
        self.api.collective_group(g)
    }
    fn collective_start(&mut self, rank: Rank, c: HwCollective) -> Result<(), String> {
        self.api.collective_start(rank, c)
    }
}

impl<F: Workload, B: Workload> Workload for WithBackground<F, B> {
    fn start(&mut self, api: &mut Api) {
        let (back, mut nic) = self.back_api(api);
        back.start(&mut Api::new(&mut nic));
        api.wake_at(Rank(0), self.delay);
    }
    fn wake(&mut self, rank: Rank, api: &mut Api) {
        if !self.started && rank == Rank(0) && api.now() >= self.delay {
            self.started = true;
            self.front.start(api);
        }
        let key = (rank.0, api.now().ps());
        if let Some(n) = self.wakes.get_mut(&key) {
            *n -= 1;
            if *n == 0 {
                self.wakes.remove(&key);
            }
            let (back, mut nic) = self.back_api(api);
            back.wake(rank, &mut Api::new(&mut nic));
        }
        self.front.wake(rank, api);
    }
    fn delivered(&mut self, m: &Delivered, api: &mut Api) {
        if m.tag & BACKGROUND_TAG == 0 {
            self.front.delivered(m, api);
        }
    }
    fn sent(&mut self, m: &Delivered, api: &mut Api) {
        if m.tag & BACKGROUND_TAG == 0 {
            self.front.sent(m, api);
        }
    }
    fn collective_done(&mut self, rank: Rank, tag: u64, api: &mut Api) {
        self.front.collective_done(rank, tag, api);
    }
    fn wants_local_completion(&self) -> bool {
        self.front.wants_local_completion()
    }
    fn finished(&self) -> bool {
        self.started && self.front.finished()
    }
    fn ended(&self) -> bool {
        self.finished() || self.front.ended()
    }
}

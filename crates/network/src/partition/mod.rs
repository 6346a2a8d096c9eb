//! Partitioned runs: the routers (with their nodes' NICs) split into blocks, each block a
//! simulation of its own with its own event queue, packets and messages, advancing in windows
//! of the network's lookahead (the smallest latency of a packet head or a credit over a link
//! between routers) on as many threads as asked.
//!
//! What crosses between blocks is what crosses the link seam (`fabric/link.rs`): a packet sent
//! over a cut link joins its downstream buffer when the next window starts (its head arrives a
//! link latency after it left, so not before), and a freed buffer's credit goes back to the
//! sender's block likewise. A packet carries what its destination's NIC needs of its message;
//! the destination's block keeps a copy, and tells the source's block when the message is done.
//! Global quantities (packets in flight, measured messages outstanding, the workload's end)
//! are the blocks' balances added up at window ends, where the stopping rules are judged, as
//! the sequential engine judges them at the same multiples of the lookahead (`run.rs`). The
//! design and what it still lacks: `docs/research/partitioned-engine.md`.
//!
//! Results equal the sequential run's, except two counters of the engine's own work: `events`
//! (a credit return decided at the sender's block may travel as an event where the sequential
//! engine kept it in the sender's slot, or the other way round) and the slab high-water marks
//! `peak_packets` / `peak_messages` (a block's, summed). Tested with 1 to 4 blocks and threads.
//!
//! The blocks may also be spread over several processes (MPI ranks, see [`Transport`]): each
//! process builds and runs its own range of blocks, what crosses to another process's block is
//! encoded (`wire.rs`) and sent at window ends, and the window ends' sums are added up over the
//! processes. The window loop is the same either way.

pub(crate) mod cut;
mod merge;
mod transport;
mod wire;

pub use transport::{InProcess, Transport};

use crate::build::Builder;
use crate::meter::outcome::{Outcome, RunLimits};
use crate::sim::Simulation;
use crate::workload::Workload;
use crate::HardwareSpec;
use cut::{Layout, Outbox};
use fabricsim_core::{ConfigError, SimError, Time};
use fabricsim_stats::PortCounters;
use std::sync::Arc;
use std::time::Instant;
use transport::Tally;
use wire::{Reader, Writer};

/// A partitioned run (see the module docs): one simulation per block of this process.
pub struct Partitioned<W: Workload> {
    /// This process's blocks, `first..first + blocks.len()` of all.
    blocks: Vec<Simulation<W>>,
    first: u32,
    /// The process of each block.
    block_rank: Vec<u32>,
    net: Box<dyn Transport>,
    /// The last window end's tally over all blocks.
    tally: Tally,
    layout: Arc<Layout>,
    /// The window, ps.
    sync: u64,
    threads: usize,
    /// Packets that crossed from one block to another so far (into this process's blocks, until
    /// the run ends; then into all).
    crossed: u64,
    timing: WindowTiming,
}

/// Where a partitioned run's wall time went (engine measurements: they vary run to run).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WindowTiming {
    /// Windows run.
    pub windows: u64,
    /// Wall time inside windows (the blocks running), s.
    pub window_s: f64,
    /// Wall time between windows (exchanging what crossed, judging the stopping rules), s.
    pub between_s: f64,
    /// Each block's time handling its events, s: `window_s` minus it is that block's wait
    /// for the slowest block of each window (and for its thread to start). This process's
    /// blocks only.
    pub busy_s: Vec<f64>,
}

impl Builder<()> {
    /// Build a partitioned run: router `r` goes to block `router_block[r]` (blocks numbered from
    /// 0, none empty), each block's workload is a fresh `workload()` (it must be
    /// [`Workload::partitionable`]), and `threads` threads run the blocks' windows.
    pub fn build_partitioned<W: Workload + Send>(
        self,
        router_block: Vec<u32>,
        threads: usize,
        workload: impl FnMut() -> W,
    ) -> Result<Partitioned<W>, SimError> {
        self.build_partitioned_on(router_block, threads, Box::new(InProcess), workload)
    }

    /// [`Builder::build_partitioned`] with the blocks spread over the processes of `net`: this
    /// process builds its own range of them (process `r` of `R` the blocks from `r * B / R` up
    /// to `(r + 1) * B / R`), calling `workload()` once for each. Every process must make the
    /// same call (the run is collective).
    pub fn build_partitioned_on<W: Workload + Send>(
        self,
        router_block: Vec<u32>,
        threads: usize,
        net: Box<dyn Transport>,
        mut workload: impl FnMut() -> W,
    ) -> Result<Partitioned<W>, SimError> {
        if threads == 0 {
            return Err(ConfigError::new("sim.threads", "0: a run needs at least one thread").into());
        }
        if !matches!(self.params().hardware, HardwareSpec::None {}) {
            let msg = "in-network hardware cannot be partitioned yet: run it in one block (one thread, one process)";
            return Err(ConfigError::new("hardware.type", msg).into());
        }
        if self.params().flit_bytes > 0 {
            return Err(ConfigError::new(
                "router.flit_size",
                "flit multiplexing cannot be partitioned yet: run it in one block (one thread, one process)",
            )
            .into());
        }
        if self.shares_queue_buffers() {
            // (A cut link's packet picks its queue when the next window starts, where one
            // thread picks it as it is sent: the reports would differ.)
            let msg = "queues sharing a buffer cannot be partitioned yet: run it in one block (one thread, one process)";
            return Err(ConfigError::new("router.queue_buffer", msg).into());
        }
        if self.has_rank_map() {
            return Err(ConfigError::new("sim.threads", "a rank map cannot be partitioned yet: run it in one block (one thread, one process)").into());
        }
        let layout = Arc::new(layout(self.graph(), router_block)?);
        let (rank, ranks) = (net.rank() as u64, net.ranks() as u64);
        if ranks > layout.blocks as u64 {
            return Err(ConfigError::new("sim.threads", format!("{} blocks for {ranks} processes: each needs one", layout.blocks)).into());
        }
        let lo = |r: u64| (r * layout.blocks as u64 / ranks) as u32;
        let block_rank = (0..layout.blocks).map(|b| (0..ranks).rfind(|&r| lo(r) <= b).unwrap_or(0) as u32).collect();
        let mut blocks = Vec::with_capacity(layout.blocks as usize);
        for b in lo(rank)..lo(rank + 1) {
            let w = workload();
            if !w.partitionable() {
                let msg = "this workload cannot be partitioned yet (open-loop traffic can): run it in one block (one thread, one process)";
                return Err(ConfigError::new("workload.type", msg).into());
            }
            let mut sim = self.copy().build(w)?;
            if sim.core.faults.is_some() {
                return Err(
                    ConfigError::new("faults", "faulty links cannot be partitioned yet: run them in one block (one thread, one process)").into()
                );
            }
            sim.core.join_partition(b, layout.clone());
            blocks.push(sim);
        }
        let sync = if layout.blocks > 1 { blocks[0].partition_lookahead()?.ps() } else { blocks[0].lookahead().map_or(0, |t| t.ps()) };
        let timing = WindowTiming { busy_s: vec![0.0; blocks.len()], ..Default::default() };
        Ok(Partitioned { blocks, first: lo(rank), block_rank, net, tally: Tally::NONE, layout, sync, threads, crossed: 0, timing })
    }
}

/// Which block each router and node is in, and which ports lead out of their block.
fn layout(graph: &fabricsim_topology::PortGraph, router_block: Vec<u32>) -> Result<Layout, SimError> {
    if router_block.len() != graph.routers as usize {
        let msg = format!("{} routers given a block, the network has {}", router_block.len(), graph.routers);
        return Err(ConfigError::new("sim.threads", msg).into());
    }
    let blocks = router_block.iter().max().map_or(0, |m| m + 1);
    let mut used = vec![false; blocks as usize];
    router_block.iter().for_each(|&b| used[b as usize] = true);
    if let Some(b) = used.iter().position(|u| !u) {
        return Err(ConfigError::new("sim.threads", format!("block {b} of {blocks} has no router")).into());
    }
    let owner_block = |port: u32| router_block[graph.owner[port as usize].index()];
    let engines = graph.engines as usize;
    let mut node_block = Vec::with_capacity(graph.nodes as usize);
    for node in 0..graph.nodes as usize {
        let b = owner_block(graph.attach[node * engines].0);
        if let Some(a) = graph.attach[node * engines..(node + 1) * engines].iter().find(|a| owner_block(a.0) != b) {
            let msg = format!("node {node} attaches to routers of blocks {b} and {} (its NIC must be in one block)", owner_block(a.0));
            return Err(ConfigError::new("sim.threads", msg).into());
        }
        node_block.push(b);
    }
    let ports = graph.total_ports();
    let mut cut_ports = vec![0u64; (ports as usize).div_ceil(64)];
    for p in 0..ports {
        if graph.kind[p as usize] == fabricsim_topology::PortKind::Network && owner_block(p) != owner_block(graph.peer[p as usize]) {
            cut_ports[p as usize / 64] |= 1 << (p % 64);
        }
    }
    Ok(Layout { router_block, node_block, cut_ports, blocks })
}

impl<W: Workload + Send> Partitioned<W> {
    /// Run to the end under `limits` (`progress` is called at some window ends with the
    /// simulated time) and return the merged outcome.
    pub fn run(&mut self, limits: RunLimits, mut progress: impl FnMut(Time)) -> Result<Outcome, SimError> {
        for b in &mut self.blocks {
            b.start(limits)?;
        }
        self.exchange();
        let hard_end = limits.hard_end().ps();
        let watchdog = self.blocks[0].core.p.watchdog.ps();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(self.threads).build().map_err(|e| ConfigError::new("sim.threads", e.to_string()))?;
        let mut window_end = crate::run::next_sync_after(0, self.sync);
        let mut windows = 0u64;
        let end = loop {
            let until = window_end.min(hard_end.saturating_add(1));
            let (blocks, busy) = (&mut self.blocks, &mut self.timing.busy_s);
            let started = Instant::now();
            pool.install(|| {
                use rayon::prelude::*;
                blocks.par_iter_mut().zip(busy.par_iter_mut()).try_for_each(|(b, busy)| {
                    let t = Instant::now();
                    let r = b.advance_block(until);
                    *busy += t.elapsed().as_secs_f64();
                    r
                })
            })?;
            let parallel = started.elapsed();
            self.exchange();
            self.timing.windows += 1;
            self.timing.window_s += parallel.as_secs_f64();
            self.timing.between_s += (started.elapsed() - parallel).as_secs_f64();
            self.tally = self.blocks.iter().map(Self::tally_of).fold(Tally::NONE, Tally::add).over(&mut *self.net);
            if self.tally.error {
                let mine = self.blocks.iter_mut().find_map(|b| b.core.error.take());
                return Err(transport::first_error(&mut *self.net, mine));
            }
            let last = self.tally.last;
            if self.tally.next == u64::MAX {
                self.check_idle(last)?;
                break last;
            }
            let next = Time(self.tally.next);
            // Judged at multiples of the window only, as the sequential engine does (a window
            // cut short by the hard end is not one).
            if until == window_end && self.judge(last) {
                break last;
            }
            if next.ps() > hard_end {
                break hard_end;
            }
            self.check_watchdog(last, watchdog)?;
            windows += 1;
            if windows.is_multiple_of(64) {
                progress(Time(last));
            }
            // Skip windows in which nothing happens (judged, they would all say what this one did).
            window_end = crate::run::next_sync_after(next.ps(), self.sync).max(window_end + self.sync.max(1));
        };
        self.finish(end)
    }

    /// Every block's outboxes, emptied into the blocks they were sent to (each block takes in
    /// what it was sent in the order of the sending blocks); those for another process's
    /// blocks are encoded and sent there.
    fn exchange(&mut self) {
        let (n, first) = (self.layout.blocks as usize, self.first as usize);
        let mine = first..first + self.blocks.len();
        let mut sent: Vec<Vec<Outbox>> =
            self.blocks.iter_mut().map(|b| std::mem::take(&mut b.core.cut.as_deref_mut().expect("a block").out)).collect();
        // From other processes: per block of this one, (sending block, outbox) in block order
        // (processes hold increasing ranges of blocks, and send theirs in order).
        let mut remote: Vec<Vec<(usize, Outbox)>> = (0..self.blocks.len()).map(|_| Vec::new()).collect();
        if self.net.ranks() > 1 {
            let mut out: Vec<Writer> = (0..self.net.ranks()).map(|_| Writer::default()).collect();
            for (i, boxes) in sent.iter().enumerate() {
                for (to, o) in boxes.iter().enumerate().filter(|(to, o)| !mine.contains(to) && !o.is_empty()) {
                    wire::put_outbox(&mut out[self.block_rank[to] as usize], (first + i) as u32, to as u32, o);
                }
            }
            for bytes in self.net.all_to_all(out.into_iter().map(|w| w.0).collect()) {
                let mut r = Reader(&bytes);
                while !r.is_empty() {
                    let (from, to, o) = wire::get_outbox(&mut r);
                    remote[to as usize - first].push((from as usize, o));
                }
            }
        }
        for (i, (b, remote)) in self.blocks.iter_mut().zip(remote).enumerate() {
            let to = first + i;
            let (before, after): (Vec<_>, Vec<_>) = remote.into_iter().partition(|(from, _)| *from < first);
            let local = sent.iter().map(|boxes| &boxes[to]);
            for o in before.iter().map(|(_, o)| o).chain(local).chain(after.iter().map(|(_, o)| o)).filter(|o| !o.is_empty()) {
                self.crossed += o.packets.len() as u64;
                b.core.take_in(o);
            }
        }
        for (b, mut boxes) in self.blocks.iter_mut().zip(sent.drain(..)) {
            boxes.iter_mut().for_each(|o| {
                o.packets.clear();
                o.credits.clear();
                o.frees.clear();
            });
            debug_assert_eq!(boxes.len(), n);
            b.core.cut.as_deref_mut().expect("a block").out = boxes;
        }
    }

    /// What block `b` adds to a window end's tally.
    fn tally_of(b: &Simulation<W>) -> Tally {
        let c = &b.core;
        let copies = c.cut.as_deref().map_or(0, |k| k.copies.len()) as u64;
        Tally {
            error: c.error.is_some(),
            last: b.last_handled(),
            next: c.queue.peek_time().map_or(u64::MAX, |t| t.ps()),
            outstanding: c.meter.measured_outstanding,
            in_network: c.meter.in_network,
            open: (c.nics.messages.live() as u64).wrapping_sub(copies),
            notes: c.nics.notes.live() as u64,
            last_progress: c.meter.last_progress,
            saturated: b.workload.saturated(),
            ended: b.workload.ended(),
            finished: b.workload.finished(),
        }
    }

    /// The stopping rules over all blocks (see `Simulation::judge`), on the window end's tally.
    fn judge(&self, now: u64) -> bool {
        let (m, t) = (&self.blocks[0].core.meter, &self.tally);
        if now >= m.window_end && (t.outstanding == 0 || t.saturated) {
            return true;
        }
        let idle = t.in_network == 0 && t.open == 0 && t.notes == 0;
        (idle && t.finished) || t.ended
    }

    /// Nothing left to happen: a deadlock if packets or messages are still under way.
    fn check_idle(&mut self, now: u64) -> Result<(), SimError> {
        if self.tally.in_network > 0 || self.tally.open > 0 {
            return Err(self.deadlock(now));
        }
        Ok(())
    }

    /// The deadlock watchdog over all blocks.
    fn check_watchdog(&mut self, now: u64, watchdog: u64) -> Result<(), SimError> {
        if self.tally.in_network > 0 && now.saturating_sub(self.tally.last_progress) > watchdog {
            return Err(self.deadlock(now));
        }
        Ok(())
    }

    /// The deadlock at `now`, with the stuck ports of every process's blocks.
    fn deadlock(&mut self, now: u64) -> SimError {
        let Tally { in_network, open, last_progress, .. } = self.tally;
        let ports = if in_network == 0 {
            format!("{open} messages waiting in NICs")
        } else {
            let mine = self.blocks.iter().map(|b| b.core.stuck_ports()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ");
            let all = self.net.all_gather(mine.as_bytes());
            all.iter().map(|b| String::from_utf8_lossy(b).into_owned()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("; ")
        };
        SimError::Deadlock { buffered: in_network, idle_ns: now.saturating_sub(last_progress) / 1000, ports }
    }

    /// Close every block at `end` and merge their outcomes, over all processes (see
    /// `merge.rs`); the count of packets that crossed becomes all processes' too.
    fn finish(&mut self, end: u64) -> Result<Outcome, SimError> {
        let outs = self.blocks.iter_mut().map(|b| b.finish_block(end)).collect::<Result<Vec<_>, _>>();
        let in_flight: u64 = self.blocks.iter().map(|b| b.core.packets.live() as u64).sum();
        let mine = outs.map(merge::sum);
        let (total, in_flight, crossed) = merge::over(&mut *self.net, mine, in_flight, self.crossed)?;
        self.crossed = crossed;
        merge::checked(total, end, in_flight, self.tally.outstanding == 0)
    }

    /// Per-port counters of the measurement window, each port's from its own block (in every
    /// process: a collective call when there are several).
    pub fn port_counters(&mut self) -> Vec<PortCounters> {
        let per_block: Vec<Vec<PortCounters>> = self.blocks.iter().map(|b| b.port_counters()).collect();
        let graph = self.blocks[0].graph();
        let block = |p: usize| self.layout.router_block[graph.owner[p].index()] as usize;
        let first = self.first as usize;
        let mine = first..first + self.blocks.len();
        let ports = graph.total_ports() as usize;
        let local: Vec<PortCounters> =
            (0..ports).map(|p| if mine.contains(&block(p)) { per_block[block(p) - first][p] } else { PortCounters::default() }).collect();
        if self.net.ranks() == 1 {
            return local;
        }
        let mut w = Writer::default();
        wire::put_ports(&mut w, &local);
        let all: Vec<Vec<PortCounters>> = self.net.all_gather(&w.0).iter().map(|b| wire::get_ports(&mut Reader(b))).collect();
        (0..ports).map(|p| all[self.block_rank[block(p)] as usize][p]).collect()
    }

    /// This process's blocks' workloads, in block order.
    pub fn workloads(&self) -> impl Iterator<Item = &W> {
        self.blocks.iter().map(|b| b.workload())
    }

    /// Every process's `mine`, in process order (a collective call; `[mine]` in one process):
    /// for what the caller adds up over the processes itself, such as the workloads' reports.
    pub fn gather(&mut self, mine: &[u8]) -> Vec<Vec<u8>> {
        self.net.all_gather(mine)
    }

    /// This process's index and the number of processes of the run.
    pub fn rank(&self) -> (usize, usize) {
        (self.net.rank(), self.net.ranks())
    }

    /// Blocks in the run (all processes').
    pub fn blocks_total(&self) -> usize {
        self.layout.blocks as usize
    }

    /// This process's blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// The window blocks advance by, and its stopping rules' period (see the module docs).
    pub fn window(&self) -> Time {
        Time(self.sync)
    }

    /// Links cut by the partition (each direction counted).
    pub fn cut_links(&self) -> u64 {
        self.layout.cut_ports.iter().map(|w| w.count_ones() as u64).sum()
    }

    /// Where the run's wall time went: windows, the blocks' busy time, the exchanges.
    pub fn timing(&self) -> &WindowTiming {
        &self.timing
    }

    /// Packets that crossed a cut link so far (into this process's blocks while the run goes
    /// on; all processes' once it has ended).
    pub fn packets_crossed(&self) -> u64 {
        self.crossed
    }

    /// The port graph being simulated.
    pub fn graph(&self) -> &fabricsim_topology::PortGraph {
        self.blocks[0].graph()
    }
}

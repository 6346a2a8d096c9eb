//! From a checked scenario to a runnable plan: topology built, routing checked against it,
//! network parameters resolved, workload described.

use crate::collective::CollectivePoint;
use crate::report::RunReport;
use crate::scenario::{Scenario, TopologySpec};
use crate::workloads::{BuildContext, Job};
use crate::Error;
use fabricsim_core::{Bytes, ConfigError, NodeId, Time};
use fabricsim_network::{Builder, NetworkParams, PacketFormat, Rank, RunLimits, Workload};
use fabricsim_routing::Routing;
use fabricsim_stats::Observer;
use fabricsim_topology::{analysis, packaging, Analysis, FatTree, PortGraph, Topology, Torus};
use fabricsim_workload::{AnyWorkload, WorkloadReport};

/// A validated scenario, ready to run any number of times.
#[derive(Debug, Clone)]
pub struct Plan {
    pub scenario: Scenario,
    pub topology: Topology,
    pub routing: Routing,
    pub params: NetworkParams,
    pub limits: RunLimits,
    /// A closed workload (benchmark) runs until done; an open-loop one for a time window.
    pub closed: bool,
    /// A `collective` or `program` workload, checked (files read): what it runs.
    pub job: Option<Job>,
    /// Several jobs (`[[jobs]]`), checked: what each runs and where.
    pub jobs: Vec<crate::jobs::JobPlan>,
    /// Meter every output's queue in runs of this plan (see [`crate::queues`]; `run --queues`):
    /// the report then carries the queue counters. Off unless set.
    pub queues: bool,
    /// Log each rank's program operations in runs of this plan's collective or program
    /// workload (the report's `collective.ops`; `run --perfetto` draws them). Off unless set.
    pub op_log: bool,
}

/// Most operations a run logs (see [`Plan::op_log`]); later ones are left out.
pub const OP_LOG_CAP: usize = 2_000_000;

impl Plan {
    /// Check everything that can be checked before running.
    pub fn new(s: &Scenario) -> Result<Plan, Error> {
        // Refuse what would not fit in memory before building anything large.
        crate::memory::check(s)?;
        crate::ranges::check(s)?;
        let topology = match &s.topology {
            TopologySpec::Torus(t) => Topology::Torus(Torus::new(t.shape.clone(), t.wrap.clone(), t.axes.clone())?),
            TopologySpec::Mesh(t) => {
                if t.wrap.as_ref().is_some_and(|w| w.iter().any(|&w| w)) {
                    return Err(ConfigError::new(
                        "topology.wrap",
                        format!("{:?}: a mesh does not wrap around (use type = \"torus\")", t.wrap.as_ref().unwrap()),
                    )
                    .into());
                }
                Topology::Torus(Torus::new(t.shape.clone(), Some(vec![false; t.shape.len()]), t.axes.clone())?)
            }
            TopologySpec::FatTree(f) => Topology::FatTree(FatTree::new(f.radix, f.levels, f.rails, f.full_radix_top)?),
        };
        let engines = match (&topology, s.nic.injection_engines) {
            (Topology::FatTree(f), Some(e)) if e != f.rails() => {
                return Err(ConfigError::new(
                    "nic.injection_engines",
                    format!("{e} differs from topology.rails = {}; a fat-tree NIC has one engine per rail", f.rails()),
                )
                .into())
            }
            (Topology::FatTree(f), _) => f.rails(),
            (_, Some(e)) => e,
            (_, None) => 1,
        };
        let routing = Routing::build(&s.routing, &topology, engines, s.router.vcs)?
            .with_queues(s.router.queues)?
            .sharing_queue_buffers(s.router.queue_buffer == crate::scenario::QueueBuffer::Shared)
            .with_class_vcs(&topology, s.router.class_vcs)?;
        if let Some(block) = &s.packaging.block {
            match &topology {
                Topology::Torus(t) => packaging::check_block(t, block)?,
                _ => return Err(ConfigError::new("packaging.block", "applies to torus/mesh topologies only").into()),
            }
        }
        if let (Some(floor), Topology::Torus(t)) = (floor(s, &topology)?, &topology) {
            floor.check(t, s.packaging.block.as_deref().unwrap_or(&floor.rack))?;
        }
        loopback_axes(s, &topology)?;
        let direct = matches!(topology, Topology::Torus(_));
        let n = &s.nic;
        let far = n.cmg == crate::scenario::Cmg::Far;
        let gpu = n.source == crate::scenario::DataSource::Gpu;
        let half_far = Time(n.far_cmg_penalty.ps() / 2);
        let tx_overhead = n.tx_overhead
            + if n.direct_descriptor { Time::ZERO } else { n.descriptor_fetch }
            + if far { half_far } else { Time::ZERO }
            + if gpu { n.gpu_tx_overhead } else { Time::ZERO };
        let rx_overhead = n.rx_overhead
            + if n.cache_injection { Time::ZERO } else { n.memory_write }
            + if far { Time(n.far_cmg_penalty.ps() - half_far.ps()) } else { Time::ZERO };
        let format = packet_format(s)?;
        let (link_bandwidth, link_latency) = (s.topology.link_bandwidth(), s.topology.link_latency());
        let params = NetworkParams {
            link_bandwidth,
            link_latency,
            optical_latency: s.packaging.optical_latency,
            loopback_latency: s.packaging.loopback_latency,
            cable_delay: s.packaging.cable_delay,
            router_delay: s.router.delay,
            terminal_bandwidth: s.nic.bandwidth.unwrap_or(link_bandwidth),
            terminal_latency: if direct { Time::ZERO } else { link_latency },
            terminal_router_delay: if direct { Time::ZERO } else { s.router.delay },
            nic_latency: s.nic.latency,
            engines,
            vcs: routing.vcs(),
            buffer_bytes: buffer_bytes("router.buffer", s.router.buffer)?,
            class_buffer_bytes: s.router.class_buffer.map(|b| buffer_bytes("router.class_buffer", b)).transpose()?,
            format,
            tx_overhead,
            software_overhead: n.software_overhead,
            poll_overhead: n.poll_overhead,
            rx_overhead,
            host_bandwidth: n.host_bandwidth,
            host_packet_overhead: if gpu { n.gpu_packet_overhead } else { Time::ZERO },
            memory_bandwidth: n.memory_bandwidth,
            cache_bytes: n.cache_size.get(),
            watchdog: s.sim.watchdog,
            selection: s.routing.selection(),
            engine_choice: n.engine_choice,
            interleave: n.interleave,
            shared_crossbar: s.router.crossbar == crate::scenario::Crossbar::Shared,
            transit_ratio: s.router.transit_ratio,
            flit_bytes: flit_bytes(s.router.flit_size)?,
            hardware: s.hardware.clone(),
            seed: s.sim.seed,
            faults: s.faults.clone(),
            link: s.link.clone(),
        };
        fabricsim_network::check_parts(&routing, &params)?;
        let ports = match &topology {
            Topology::Torus(t) => t.net_ports() + engines,
            Topology::FatTree(f) => f.radix(),
        };
        if ports * routing.vcs() as u32 > 128 {
            return Err(ConfigError::new(
                "router.vcs",
                format!(
                    "{} VCs (router.vcs, with router.queues and router.class_vcs) x {ports} ports per router exceeds the 128 input VCs a router supports",
                    routing.vcs()
                ),
            )
            .into());
        }
        let closed = s.workload.is_closed() || !s.jobs.is_empty();
        if s.sim.duration == Time::ZERO {
            return Err(ConfigError::new("sim.duration", "must be positive").into());
        }
        let limits = if closed {
            RunLimits { warmup: Time::ZERO, measure: s.sim.max_time, drain: Time::ZERO }
        } else {
            RunLimits {
                warmup: s.sim.warmup_or_default(),
                measure: s.sim.duration,
                drain: s.sim.drain.unwrap_or(Time(s.sim.duration.ps().saturating_mul(4))),
            }
        };
        // The event queue holds times up to 2^60 ps: refuse longer runs now, naming the key
        // that sets their length.
        limits.check(if closed { "sim.max_time" } else { "sim.duration" })?;
        let mut plan =
            Plan { scenario: s.clone(), topology, routing, params, limits, closed, job: None, jobs: Vec::new(), queues: false, op_log: false };
        if !s.jobs.is_empty() {
            // Each job has its own workload; `[workload]` gives only the packet size.
            plan.jobs = crate::jobs::resolve(&plan)?;
            return Ok(plan);
        }
        // Check workload fields now.
        match s.workload.job(&plan) {
            Some(job) => plan.job = Some(job?),
            None => drop(plan.build_workload(None)?),
        }
        Ok(plan)
    }

    /// Topology analysis (the `info` command).
    pub fn analysis(&self) -> Analysis {
        analysis::analyze(&self.topology, self.params.engines, self.params.link_bandwidth)
    }

    /// The port graph, with optical links marked when the scenario gives a packaging block,
    /// and their cable lengths when it gives a floor layout (a rack).
    pub fn build_graph(&self) -> PortGraph {
        let mut g = self.topology.build_graph(self.params.engines);
        if let Topology::Torus(t) = &self.topology {
            let floor = floor(&self.scenario, &self.topology).ok().flatten();
            // Without a block, the rack is the package.
            let block = self.scenario.packaging.block.as_ref().or(floor.as_ref().map(|f| &f.rack));
            if let Some(block) = block {
                g.optical = packaging::optical_ports(t, &g, block);
                if let Ok(Some(axes)) = loopback_axes(&self.scenario, &self.topology) {
                    g.loopback = packaging::loopback_ports(t, &g, block, &axes);
                }
                if let Some(f) = &floor {
                    g.cable_m = packaging::cable_metres(t, &g, block, f);
                }
            }
        }
        g
    }

    /// Latency of every network link of `g` (this plan's graph; each direction), ns, with the
    /// number of links of each: what packaging gives them (board links, optical links, cables
    /// by length).
    pub fn link_latencies(&self, g: &PortGraph) -> Vec<(f64, u64)> {
        let mut counts: std::collections::BTreeMap<u64, u64> = Default::default();
        for port in (0..g.total_ports() as usize).filter(|&p| g.kind[p] == fabricsim_topology::PortKind::Network) {
            *counts.entry(self.params.link_latency_of(g, port)).or_default() += 1;
        }
        counts.into_iter().map(|(ps, n)| (ps as f64 / 1000.0, n)).collect()
    }

    /// Injection bandwidth of one node, bytes per second.
    pub fn node_injection_bandwidth(&self) -> f64 {
        self.params.engines as f64 * self.params.terminal_bandwidth.bytes_per_sec() as f64
    }

    /// The node at coordinates `coords` (fat-tree: `[node id]`), named `field` in errors.
    pub(crate) fn node_at(&self, field: &str, coords: &Option<Vec<u32>>) -> Result<NodeId, Error> {
        let c = coords
            .as_ref()
            .ok_or_else(|| ConfigError::new(field, format!("is required by workload type '{}'", self.scenario.workload.type_name())))?;
        let r = match &self.topology {
            Topology::Torus(t) => t.node_at(c),
            Topology::FatTree(f) => match c.as_slice() {
                [n] if *n < f.nodes() => Ok(NodeId(*n)),
                _ => Err(format!("{c:?} is not a single node id below {}", f.nodes())),
            },
        };
        r.map_err(|m| ConfigError::new(field, m).into())
    }

    /// The ranks on two distinct nodes, `workload.src` and `workload.dst` (a scenario runs one
    /// rank per node, rank `r` on node `r`).
    pub(crate) fn endpoints(&self, src: &Option<Vec<u32>>, dst: &Option<Vec<u32>>) -> Result<(Rank, Rank), Error> {
        let a = self.node_at("workload.src", src)?;
        let b = self.node_at("workload.dst", dst)?;
        if a == b {
            return Err(ConfigError::new("workload.dst", "is the same node as workload.src").into());
        }
        Ok((rank_on(a), rank_on(b)))
    }

    /// A fresh workload instance for one run. Workloads pinned to links read the port graph:
    /// pass the run's graph, or `None` to have one built.
    pub fn build_workload(&self, graph: Option<&PortGraph>) -> Result<AnyWorkload, Error> {
        self.scenario.workload.build(&BuildContext { plan: self, graph })
    }

    /// The builder of this plan's network on `graph` (one of [`Plan::build_graph`]): its routing
    /// and parameters, and the scenario's order of same-instant events.
    pub fn network(&self, graph: PortGraph) -> Builder {
        let b = Builder::new(graph, self.routing.clone(), self.params.clone());
        let s = &self.scenario.sim;
        match s.tie_order {
            crate::scenario::TieOrder::Shuffle => b.tie_shuffle(s.tie_seed.unwrap_or(s.seed)),
            crate::scenario::TieOrder::Fixed => b,
        }
    }

    /// Run once, reporting progress (simulated time) now and then.
    pub fn run_with_progress(&self, progress: impl FnMut(Time)) -> Result<RunReport, Error> {
        Ok(self.run_observed((), progress, |_, _| ())?.0)
    }

    /// Run once watched by `obs` (see [`fabricsim_stats::Observer`]); returns the report and
    /// what `read` makes of the observer and the port graph once the run is over. A
    /// `collective` or `program` workload runs its job ([`crate::collective::run_job`]).
    pub fn run_observed<O: Observer, T>(
        &self,
        obs: O,
        progress: impl FnMut(Time),
        read: impl FnOnce(&O, &PortGraph) -> T,
    ) -> Result<(RunReport, T), Error> {
        if self.queues {
            return crate::queues::run_with_queues(self, obs, progress, read);
        }
        self.run_observed_alone(obs, progress, read)
    }

    /// [`Plan::run_observed`] without the queue meter (which [`crate::queues`] adds through it).
    pub(crate) fn run_observed_alone<O: Observer, T>(
        &self,
        obs: O,
        progress: impl FnMut(Time),
        read: impl FnOnce(&O, &PortGraph) -> T,
    ) -> Result<(RunReport, T), Error> {
        let started = std::time::Instant::now();
        let threads = self.scenario.sim.threads;
        if threads != 1 {
            return crate::parallel::run(self, threads, obs, progress, read);
        }
        if !self.jobs.is_empty() {
            return crate::jobs::run_jobs(self, obs, progress, read);
        }
        if self.job.is_some() {
            let (point, (mut report, t)) = crate::collective::run_job_with(self, false, obs, progress, |f| {
                let wall = started.elapsed().as_secs_f64();
                let workload = WorkloadReport { completion_ns: Some(f.point.time_ns), messages: f.point.messages, ..Default::default() };
                (RunReport::new(self, f.graph, &(f.counters)(), f.outcome, workload).timed(wall), read(f.observer, f.graph))
            })?;
            report.collective = Some(CollectivePoint { wall_s: None, ..point });
            return Ok((report, t));
        }
        let graph = self.build_graph();
        let workload = self.build_workload(Some(&graph))?;
        let mut sim = self.network(graph).observer(obs).build(workload)?;
        let outcome = sim.run(self.limits, progress)?;
        let report = self.report_of(&sim, &outcome, started)?;
        let t = read(sim.observer(), sim.graph());
        Ok((report, t))
    }

    /// The report of a finished run `sim` of this plan's (non-job) workload that ended with
    /// `outcome`, started on the wall clock at `started`; a closed workload that did not finish
    /// is an error naming `sim.max_time`.
    pub(crate) fn report_of<O: Observer>(
        &self,
        sim: &fabricsim_network::Simulation<AnyWorkload, O>,
        outcome: &fabricsim_network::Outcome,
        started: std::time::Instant,
    ) -> Result<RunReport, Error> {
        if let Some(e) = sim.workload().error() {
            return Err(ConfigError::new("workload.iteration_barrier", e).into());
        }
        if sim.workload().is_closed() && !sim.workload().finished() {
            if let Some(e) = crate::disconnected::cut_off(sim.fault_counts()) {
                return Err(e);
            }
            return Err(crate::Error::Sim(fabricsim_core::SimError::Config(ConfigError::new(
                "sim.max_time",
                format!("{} was reached before the workload finished", self.scenario.sim.max_time),
            ))));
        }
        let wall = started.elapsed().as_secs_f64();
        let mut report = RunReport::new(self, sim.graph(), &sim.port_counters(), outcome, sim.workload().report()).timed(wall);
        report.faults = sim.fault_counts();
        report.flits = sim.flit_counts();
        Ok(report)
    }

    pub fn run(&self) -> Result<RunReport, Error> {
        self.run_with_progress(|_| {})
    }
}

/// The rank on `node` under the identity rank map scenarios use.
pub(crate) fn rank_on(node: NodeId) -> Rank {
    Rank(node.0)
}

/// The scenario's packet format (its `[packet]` table and the workload's packet size).
pub(crate) fn packet_format(s: &Scenario) -> Result<PacketFormat, Error> {
    let packet = s.workload.keys().packet_size().get();
    if packet == 0 || packet > u32::MAX as u64 / 2 {
        return Err(ConfigError::new("workload.packet_size", format!("{packet}B is not a usable packet size")).into());
    }
    let pk = &s.packet;
    let small = |b: fabricsim_core::Bytes, f: &str| -> Result<u32, Error> {
        u32::try_from(b.get()).ok().filter(|v| *v < (1 << 24)).ok_or_else(|| ConfigError::new(f, format!("{b} is too large")).into())
    };
    let header = small(pk.header, "packet.header")?;
    let max_payload = match pk.max_payload {
        Some(p) => small(p, "packet.max_payload")?,
        None => {
            let p = packet as u32;
            if p <= header {
                return Err(ConfigError::new("workload.packet_size", format!("{p}B leaves no room for payload after a {header}B header")).into());
            }
            p - header
        }
    };
    Ok(PacketFormat {
        max_payload,
        payload_align: small(pk.payload_align, "packet.payload_align")?,
        header,
        trailer: small(pk.trailer, "packet.trailer")?,
        lanes: pk.lanes,
        lane_framing: small(pk.lane_framing, "packet.lane_framing")?,
        link_overhead: small(pk.link_overhead, "packet.link_overhead")?,
    })
}

/// `router.flit_size` in bytes (0, or no key: whole packets, the default).
fn flit_bytes(flit: Option<Bytes>) -> Result<u32, ConfigError> {
    flit.map_or(Ok(0), |b| buffer_bytes("router.flit_size", b))
}

/// A buffer size from the scenario as a byte count the network takes (`field` names it).
fn buffer_bytes(field: &str, b: Bytes) -> Result<u32, ConfigError> {
    u32::try_from(b.get()).ok().filter(|b| *b <= u32::MAX / 2).ok_or_else(|| ConfigError::new(field, format!("{b} is too large")))
}

/// Which axes' wrap links close through a loopback (`packaging.loopback_latency`,
/// `packaging.loopback_axes`), one flag per torus axis; `None` without a loopback latency.
fn loopback_axes(s: &Scenario, topology: &Topology) -> Result<Option<Vec<bool>>, ConfigError> {
    let p = &s.packaging;
    if p.loopback_latency.is_none() {
        return match p.loopback_axes {
            Some(_) => Err(ConfigError::new("packaging.loopback_axes", "needs packaging.loopback_latency")),
            None => Ok(None),
        };
    }
    let Topology::Torus(t) = topology else {
        return Err(ConfigError::new("packaging.loopback_latency", "applies to torus/mesh topologies only"));
    };
    if p.block.is_none() && p.rack.is_none() {
        return Err(ConfigError::new("packaging.loopback_latency", "needs packaging.block (the package a ring closes inside)"));
    }
    let Some(names) = &p.loopback_axes else { return Ok(Some(vec![true; t.dims()])) };
    let mut axes = vec![false; t.dims()];
    for name in names {
        let a = t.axis_index(name).ok_or_else(|| {
            ConfigError::new("packaging.loopback_axes", format!("{name:?} is not an axis of the topology ({})", t.names().join(", ")))
        })?;
        axes[a] = true;
    }
    Ok(Some(axes))
}

/// The scenario's floor layout (`packaging.rack` and the keys beside it), if it gives one.
fn floor(s: &Scenario, topology: &Topology) -> Result<Option<packaging::Floor>, ConfigError> {
    let p = &s.packaging;
    let Some(rack) = &p.rack else { return Ok(None) };
    let Topology::Torus(t) = topology else {
        return Err(ConfigError::new("packaging.rack", "applies to torus/mesh topologies only"));
    };
    let racks: u64 = t.shape().iter().zip(rack).map(|(&k, &r)| k.div_ceil(r.max(1)) as u64).product();
    let per_row = p.racks_per_row.unwrap_or_else(|| (racks as f64).sqrt().ceil() as u32);
    Ok(Some(packaging::Floor {
        rack: rack.clone(),
        racks_per_row: per_row,
        rack_pitch_m: p.rack_pitch_m,
        row_pitch_m: p.row_pitch_m,
        slack_m: p.cable_slack_m,
        folded: p.folded,
    }))
}

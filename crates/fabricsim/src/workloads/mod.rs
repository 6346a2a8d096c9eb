//! `[workload]`: one variant per workload type, each with its own keys, and how each builds
//! its workload. Adding a workload type: a variant here and a file beside this one.

mod all_to_all;
mod collective;
pub mod job;
mod link_streams;
mod open_loop;
mod program;
mod round_trip;
mod stream;
pub mod trace;

pub use all_to_all::AllToAllSpec;
pub use collective::CollectiveSpec;
pub use job::Job;
pub use link_streams::LinkStreamsSpec;
pub use open_loop::{HotRegionSpec, OpenLoopSpec, SphereSpec};
pub use program::ProgramSpec;
pub use round_trip::RoundTripSpec;
pub use stream::StreamSpec;
pub use trace::TraceSpec;

use crate::{Error, Plan};
use fabricsim_core::{Bytes, ConfigError};
use fabricsim_topology::PortGraph;
use fabricsim_workload::{AnyWorkload, Pattern};
use serde::{Deserialize, Serialize};

/// The workload, chosen by `type` (default `"uniform_random"`). Open-loop patterns
/// (`uniform_random`, `nearest_neighbor`, `transpose`, `bit_complement`, `tornado`,
/// `hot_region`, `sphere`) run for the measurement window at an offered `load`; the
/// benchmarks (`pingpong`, `rdma_get`, `throughput`, `all_to_all`, `simultaneous_puts`,
/// `neighbor_exchange`) run until their work is done; so do the jobs, a `collective` by an
/// algorithm, a `program` read from a file or a GOAL `trace`, which run on ranks placed on the nodes (see
/// [`Job`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadSpec {
    UniformRandom(OpenLoopSpec),
    NearestNeighbor(OpenLoopSpec),
    Transpose(OpenLoopSpec),
    BitComplement(OpenLoopSpec),
    Tornado(OpenLoopSpec),
    HotRegion(HotRegionSpec),
    Sphere(SphereSpec),
    Pingpong(RoundTripSpec),
    RdmaGet(RoundTripSpec),
    Throughput(StreamSpec),
    AllToAll(AllToAllSpec),
    SimultaneousPuts(LinkStreamsSpec),
    NeighborExchange(LinkStreamsSpec),
    Collective(CollectiveSpec),
    Program(ProgramSpec),
    Trace(TraceSpec),
}

impl Default for WorkloadSpec {
    fn default() -> Self {
        WorkloadSpec::UniformRandom(OpenLoopSpec::default())
    }
}

/// What every workload type's keys answer.
pub trait WorkloadKeys {
    /// Packet size on the wire, header included; also the largest packet (default 512B).
    fn packet_size(&self) -> Bytes;
    fn packet_size_mut(&mut self) -> &mut Bytes;
    /// Offered load of an open-loop pattern (`None`: a benchmark, which has none).
    fn load(&self) -> Option<f64> {
        None
    }
    fn load_mut(&mut self) -> Option<&mut f64> {
        None
    }
    /// Message size of a benchmark (`None`: open-loop messages are one packet).
    fn message_size_mut(&mut self) -> Option<&mut Bytes> {
        None
    }
}

/// What a workload's build may read: the plan, and the run's port graph if one is built.
pub(crate) struct BuildContext<'a> {
    pub plan: &'a Plan,
    pub graph: Option<&'a PortGraph>,
}

/// A count that must be at least one, or an error naming `field`.
pub(crate) fn positive<T: PartialEq + Default + std::fmt::Display>(field: &str, v: T) -> Result<T, Error> {
    if v == T::default() {
        return Err(ConfigError::new(field, format!("{v} must be at least 1")).into());
    }
    Ok(v)
}

/// `$body` with `$s` bound to the keys of whichever type `$self` is.
macro_rules! each_spec {
    ($self:expr, $s:ident => $body:expr) => {{
        use WorkloadSpec::*;
        match $self {
            UniformRandom($s) | NearestNeighbor($s) | Transpose($s) | BitComplement($s) | Tornado($s) => $body,
            HotRegion($s) => $body,
            Sphere($s) => $body,
            Pingpong($s) | RdmaGet($s) => $body,
            Throughput($s) => $body,
            AllToAll($s) => $body,
            SimultaneousPuts($s) | NeighborExchange($s) => $body,
            Collective($s) => $body,
            Program($s) => $body,
            Trace($s) => $body,
        }
    }};
}

/// The keys every benchmark type has: a packet size and a message size.
macro_rules! benchmark_keys {
    ($($t:ty),*) => {$(
        impl WorkloadKeys for $t {
            fn packet_size(&self) -> Bytes {
                self.packet_size
            }
            fn packet_size_mut(&mut self) -> &mut Bytes {
                &mut self.packet_size
            }
            fn message_size_mut(&mut self) -> Option<&mut Bytes> {
                Some(&mut self.message_size)
            }
        }
    )*};
}
benchmark_keys!(RoundTripSpec, StreamSpec, AllToAllSpec, LinkStreamsSpec);

impl WorkloadKeys for CollectiveSpec {
    fn packet_size(&self) -> Bytes {
        self.packet_size
    }
    fn packet_size_mut(&mut self) -> &mut Bytes {
        &mut self.packet_size
    }
    /// Its buffer per rank (a size sweep times the collective at each).
    fn message_size_mut(&mut self) -> Option<&mut Bytes> {
        Some(&mut self.size)
    }
}

impl WorkloadKeys for ProgramSpec {
    fn packet_size(&self) -> Bytes {
        self.packet_size
    }
    fn packet_size_mut(&mut self) -> &mut Bytes {
        &mut self.packet_size
    }
}

impl WorkloadKeys for TraceSpec {
    fn packet_size(&self) -> Bytes {
        self.packet_size
    }
    fn packet_size_mut(&mut self) -> &mut Bytes {
        &mut self.packet_size
    }
}

impl WorkloadSpec {
    /// The keys of the chosen type.
    pub fn keys(&self) -> &dyn WorkloadKeys {
        each_spec!(self, s => s)
    }

    /// The keys of the chosen type, to edit.
    pub fn keys_mut(&mut self) -> &mut dyn WorkloadKeys {
        each_spec!(self, s => s)
    }

    /// The `type` as written in a scenario file.
    pub fn type_name(&self) -> String {
        // Serde's externally tagged form names the variant: the one key of the table.
        let v = toml::Value::try_from(self).expect("a workload always serialises");
        v.as_table().and_then(|t| t.keys().next().cloned()).unwrap_or_default()
    }

    /// Whether it runs until its work is done (a benchmark) rather than for a window.
    pub fn is_closed(&self) -> bool {
        self.keys().load().is_none()
    }

    /// Set the offered load of an open-loop pattern (for load sweeps).
    pub fn set_load(&mut self, load: f64) -> Result<(), Error> {
        let name = self.type_name();
        let l = self.keys_mut().load_mut().ok_or_else(|| ConfigError::new("workload.type", format!("'{name}' has no offered load")))?;
        *l = load;
        Ok(())
    }

    /// Set the message size of a benchmark (for size sweeps).
    pub fn set_message_size(&mut self, size: Bytes) -> Result<(), Error> {
        let name = self.type_name();
        let m = self.keys_mut().message_size_mut().ok_or_else(|| ConfigError::new("workload.type", format!("'{name}' has no message size")))?;
        *m = size;
        Ok(())
    }

    /// A collective's or program's job, checked against `plan` (`None`: another type).
    pub fn job(&self, plan: &Plan) -> Option<Result<Job, Error>> {
        match self {
            WorkloadSpec::Collective(s) => Some(s.job(plan)),
            WorkloadSpec::Program(s) => Some(s.job(plan)),
            WorkloadSpec::Trace(s) => Some(s.job(plan)),
            _ => None,
        }
    }

    /// A fresh workload for one run (not for a job, which [`crate::collective::run_job`] runs).
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        use WorkloadSpec::*;
        match self {
            UniformRandom(s) => s.build(cx, Pattern::UniformRandom),
            NearestNeighbor(s) => s.build(cx, Pattern::NearestNeighbor),
            Transpose(s) => s.build(cx, Pattern::Transpose),
            BitComplement(s) => s.build(cx, Pattern::BitComplement),
            Tornado(s) => s.build(cx, Pattern::Tornado),
            HotRegion(s) => s.build(cx),
            Sphere(s) => s.build(cx),
            Pingpong(s) => s.build(cx, false),
            RdmaGet(s) => s.build(cx, true),
            Throughput(s) => s.build(cx),
            AllToAll(s) => s.build(cx),
            SimultaneousPuts(s) => s.build(cx, false),
            NeighborExchange(s) => s.build(cx, true),
            Collective(_) | Program(_) | Trace(_) => {
                let ty = self.type_name();
                Err(ConfigError::new("workload.type", format!("'{ty}' runs ranks through a job (fabricsim run), not as traffic of its own")).into())
            }
        }
    }
}

/// Default packet size of every workload type.
pub(crate) fn default_packet_size() -> Bytes {
    Bytes(512)
}

/// Default message size of the benchmarks.
pub(crate) fn default_message_size() -> Bytes {
    Bytes(8)
}

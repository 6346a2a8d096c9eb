//! `collective`: one collective operation (an allreduce, a barrier, ...) by one algorithm, the
//! run `fabricsim collective` makes for each of its points.

use super::job::{self, Job, PlacementKeys, Work};
use super::{default_packet_size, WorkloadSpec};
use crate::{Error, Plan};
use fabricsim_core::{Bytes, ConfigError};
use fabricsim_program::algorithms::{build, hardware_names, names};
use fabricsim_program::Collective;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CollectiveSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// The operation: `barrier`, `broadcast`, `reduce`, `allgather`, `reduce_scatter`,
    /// `allreduce` or `all_to_all`. Required.
    #[serde(with = "op_name")]
    pub op: Option<Collective>,
    /// The algorithm, one of those `fabricsim collective --algorithm` takes for the operation
    /// (`hardware`: the network's in-network collective hardware). Default: the first of the
    /// operation's list, which needs nothing of the network: `dissemination` (barrier),
    /// `binomial` (broadcast, reduce), `ring` (allgather, reduce_scatter),
    /// `recursive_doubling` (allreduce), `pairwise` (all_to_all).
    pub algorithm: Option<String>,
    /// One rank's buffer (the vector of a broadcast, reduce or allreduce; the gathered result of
    /// an allgather; the input of a reduce-scatter; all a rank sends in an all-to-all).
    /// Default 8B.
    pub size: Bytes,
    /// Ranks per node: ranks fill the nodes in order, or `rank_map`'s nodes up to this many
    /// each. Default 1.
    pub ranks_per_node: u32,
    /// A file giving each rank's node, one line per rank: coordinates on a torus or mesh, a
    /// node id on a fat-tree (relative to the scenario file's folder). Unset: nodes in order.
    pub rank_map: Option<PathBuf>,
    /// The torus the ranks form for the topology-aware algorithms, e.g. `[8, 8, 8]`. Unset: the
    /// network's torus, with one rank per node in node order.
    pub grid: Option<Vec<u32>>,
    /// One rank per node on the network's virtual torus (axis i threaded with axis i + n/2:
    /// Tofu's XYZABC as a 3D torus of XA, YB, ZC). Default false.
    pub virtual_torus: bool,
    /// Open-loop traffic to run beside it, a workload of its own (`[workload.background]`,
    /// e.g. `type = "uniform_random"`, `load = 0.05`, with this packet size): it starts first
    /// and loads the network for `sim.warmup` before the collective starts, and times count
    /// from then. Unset: an idle network.
    pub background: Option<Box<WorkloadSpec>>,
}

impl Default for CollectiveSpec {
    fn default() -> Self {
        CollectiveSpec {
            packet_size: default_packet_size(),
            op: None,
            algorithm: None,
            size: Bytes(8),
            ranks_per_node: 1,
            rank_map: None,
            grid: None,
            virtual_torus: false,
            background: None,
        }
    }
}

impl CollectiveSpec {
    /// The job, checked against `plan`: the operation and algorithm known, the algorithm able
    /// to run on the ranks' layout, files read.
    pub(crate) fn job(&self, plan: &Plan) -> Result<Job, Error> {
        let work = self.work()?;
        let Work::Collective { op, ref algorithm, size } = work else { unreachable!("a collective's work") };
        let keys =
            PlacementKeys { ranks_per_node: self.ranks_per_node, rank_map: &self.rank_map, grid: &self.grid, virtual_torus: self.virtual_torus };
        let ranks = job::ranks(plan, &keys)?;
        // The algorithm must suit the ranks' layout (a topology-aware one needs their torus).
        build(op, algorithm, &ranks.layout(plan).map_err(|e| job::rename_field(e, false))?, size)
            .map_err(|m| ConfigError::new("workload.algorithm", format!("'{algorithm}': {m}")))?;
        let background = job::background(plan, &self.background, &ranks)?;
        Ok(Job { ranks, work, background })
    }

    /// What it runs: the operation and algorithm known, the size not zero (errors name the
    /// `workload` keys).
    pub(crate) fn work(&self) -> Result<Work, Error> {
        let all: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
        let op = self
            .op
            .ok_or_else(|| ConfigError::new("workload.op", format!("is required by workload type 'collective' (one of {})", all.join(", "))))?;
        let algorithm = self.algorithm.clone().unwrap_or_else(|| names(op)[0].to_string());
        let known: Vec<&str> = names(op).iter().chain(hardware_names(op)).copied().collect();
        if !known.contains(&algorithm.as_str()) {
            return Err(ConfigError::new(
                "workload.algorithm",
                format!("'{algorithm}' is not an algorithm of {} (known: {})", op.name(), known.join(", ")),
            )
            .into());
        }
        let size = self.size.get();
        if size == 0 {
            return Err(ConfigError::new("workload.size", "0B: a collective moves at least one byte per rank").into());
        }
        Ok(Work::Collective { op, algorithm, size })
    }
}

/// `workload.op` as its name (`allreduce`), read with [`Collective::parse`].
mod op_name {
    use fabricsim_program::Collective;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(op: &Option<Collective>, s: S) -> Result<S::Ok, S::Error> {
        match op {
            Some(c) => s.serialize_str(c.name()),
            None => s.serialize_none(),
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Collective>, D::Error> {
        let name = String::deserialize(d)?;
        let all: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
        Collective::parse(&name)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom(format!("'{name}' is not a collective (known: {})", all.join(", "))))
    }
}

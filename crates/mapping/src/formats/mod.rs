//! Rank-map files real machines read, written from a map (rank `r` on node `map[r]`) and read
//! back. Host names (Open MPI rankfile, Slurm) come from a pattern with one `{}` for the node id,
//! optionally zero-padded as `{:05}` (default `nid{:05}`, as on Cray/HPE systems).
//!
//! | format | file | how to use it |
//! |---|---|---|
//! | `vcoord` | one `(x,y,z,...)` per line, in rank order | Fujitsu MPI (Fugaku, FX): `mpiexec --vcoordfile FILE` with the job's shape |
//! | `mpich` | `MPICH_RANK_ORDER`: ranks in the order nodes are filled | Cray/HPE MPICH: `MPICH_RANK_REORDER_METHOD=3` with the file in the working folder |
//! | `rankfile` | `rank R=HOST slot=0` lines | Open MPI: `mpirun --rankfile FILE` |
//! | `slurm` | one host per line, line `r` for rank `r` | Slurm: `SLURM_HOSTFILE=FILE srun --distribution=arbitrary` |
//! | `rankmap` | one node per line, coordinates separated by spaces | fabricsim: `--rank-map FILE` |
//!
//! The MPICH order lists, for the job's nodes in node-id order, the rank each holds; the nodes
//! are the lowest node ids holding a rank, so a map onto fewer ranks than nodes is written for
//! the nodes it uses.

mod hosts;
mod mpich;
mod rankfile;
mod vcoord;

pub use hosts::HostPattern;

use fabricsim_core::{ConfigError, NodeId};
use fabricsim_topology::Topology;

/// A rank-map file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Fujitsu MPI's vcoord file.
    Vcoord,
    /// Cray/HPE MPICH's `MPICH_RANK_ORDER`.
    Mpich,
    /// Open MPI's rankfile.
    Rankfile,
    /// Slurm's arbitrary-distribution host file.
    Slurm,
    /// fabricsim's own `--rank-map` file.
    Rankmap,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 5] = [Format::Vcoord, Format::Mpich, Format::Rankfile, Format::Slurm, Format::Rankmap];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Vcoord => "vcoord",
            Format::Mpich => "mpich",
            Format::Rankfile => "rankfile",
            Format::Slurm => "slurm",
            Format::Rankmap => "rankmap",
        }
    }

    /// The format named `s`; errors name `field` and the value.
    pub fn parse(s: &str, field: &str) -> Result<Format, ConfigError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s.trim())
            .ok_or_else(|| ConfigError::new(field, format!("'{s}' is not a format (vcoord, mpich, rankfile, slurm, rankmap)")))
    }

    /// `map` written in this format.
    pub fn write(self, topo: &Topology, map: &[NodeId], hosts: &HostPattern) -> String {
        match self {
            Format::Vcoord => vcoord::write(topo, map),
            Format::Mpich => mpich::write(map),
            Format::Rankfile => rankfile::write(map, hosts),
            Format::Slurm => map.iter().map(|&n| format!("{}\n", hosts.name(n))).collect(),
            Format::Rankmap => {
                map.iter().map(|&n| crate::placement::coords_of(topo, n).iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n").collect()
            }
        }
    }

    /// Read a file of this format back: the node of every rank, one rank per node. Errors name
    /// `field`, the line and the value.
    pub fn read(self, topo: &Topology, text: &str, hosts: &HostPattern, field: &str) -> Result<Vec<NodeId>, ConfigError> {
        let map = match self {
            Format::Vcoord => vcoord::read(topo, text, field)?,
            Format::Mpich => mpich::read(topo, text, field)?,
            Format::Rankfile => rankfile::read(topo, text, hosts, field)?,
            Format::Slurm => {
                let mut map = Vec::new();
                for (no, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                    map.push(hosts.node(line.trim(), topo.nodes()).map_err(|m| ConfigError::new(format!("{field} line {}", no + 1), m))?);
                }
                map
            }
            Format::Rankmap => {
                return crate::placement::parse_rank_map(topo, text, 1).map_err(|mut e| {
                    e.field = e.field.replacen("rank map", field, 1);
                    e
                })
            }
        };
        check_bijective(&map, field)?;
        Ok(map)
    }
}

/// Refuse a map with no rank or with two ranks on a node.
fn check_bijective(map: &[NodeId], field: &str) -> Result<(), ConfigError> {
    if map.is_empty() {
        return Err(ConfigError::new(field, "lists no rank"));
    }
    let mut sorted: Vec<(NodeId, usize)> = map.iter().copied().zip(0..).collect();
    sorted.sort();
    if let Some(w) = sorted.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(ConfigError::new(field, format!("ranks {} and {} are both on node {}", w[0].1, w[1].1, w[0].0)));
    }
    Ok(())
}

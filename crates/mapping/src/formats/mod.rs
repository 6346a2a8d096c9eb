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
//! The MPICH order lists, for the job's nodes in node-id order, the ranks each holds; the nodes
//! are the lowest node ids holding a rank, so a map onto fewer ranks than nodes is written for
//! the nodes it uses.
//!
//! Several ranks a node (`per_node` K when read): vcoord, Slurm and rankmap files repeat a
//! node's line for each of its ranks; rankfile lines number a node's ranks by `slot=` (0, 1, ...
//! in rank order); MPICH fills each node with K ranks before the next, so it holds a map only
//! when every node used but the last holds K ranks ([`Format::same_map`] says whether a file
//! read back is the map written).

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
            Format::Rankfile => rankfile::write(topo, map, hosts),
            Format::Slurm => map.iter().map(|&n| format!("{}\n", hosts.name(n))).collect(),
            Format::Rankmap => {
                map.iter().map(|&n| crate::placement::coords_of(topo, n).iter().map(u32::to_string).collect::<Vec<_>>().join(" ") + "\n").collect()
            }
        }
    }

    /// Read a file of this format back: the node of every rank, at most `per_node` ranks a
    /// node. Errors name `field`, the line and the value.
    pub fn read(self, topo: &Topology, text: &str, hosts: &HostPattern, per_node: u32, field: &str) -> Result<Vec<NodeId>, ConfigError> {
        if per_node == 0 {
            return Err(ConfigError::new("--ranks-per-node", "0 is not a rank count"));
        }
        let map = match self {
            Format::Vcoord => vcoord::read(topo, text, field)?,
            Format::Mpich => mpich::read(topo, text, per_node, field)?,
            Format::Rankfile => rankfile::read(topo, text, hosts, field)?,
            Format::Slurm => {
                let mut map = Vec::new();
                for (no, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                    map.push(hosts.node(line.trim(), topo.nodes()).map_err(|m| ConfigError::new(format!("{field} line {}", no + 1), m))?);
                }
                map
            }
            Format::Rankmap => {
                return crate::placement::parse_rank_map(topo, text, per_node).map_err(|mut e| {
                    e.field = e.field.replacen("rank map", field, 1);
                    e
                })
            }
        };
        check_per_node(&map, per_node, field)?;
        Ok(map)
    }

    /// Whether `back` (a file of this format read back) is the map `written`: the same nodes,
    /// or for MPICH (relative to the job's nodes) the same order of ranks over the nodes used.
    pub fn same_map(self, written: &[NodeId], back: &[NodeId]) -> bool {
        if self != Format::Mpich {
            return back == written;
        }
        let mut used = written.to_vec();
        used.sort();
        used.dedup();
        back.len() == written.len() && back.iter().zip(written).all(|(b, m)| used.get(b.index()) == Some(m))
    }
}

/// Refuse a map with no rank or with more than `per_node` ranks on a node.
fn check_per_node(map: &[NodeId], per_node: u32, field: &str) -> Result<(), ConfigError> {
    if map.is_empty() {
        return Err(ConfigError::new(field, "lists no rank"));
    }
    let mut sorted: Vec<(NodeId, usize)> = map.iter().copied().zip(0..).collect();
    sorted.sort();
    let k = per_node.max(1) as usize;
    if let Some(w) = sorted.windows(k + 1).find(|w| w[0].0 == w[k].0) {
        let ranks: Vec<String> = w.iter().map(|x| x.1.to_string()).collect();
        return Err(ConfigError::new(field, format!("ranks {} are all on node {}, more than {per_node} rank(s) per node", ranks.join(", "), w[0].0)));
    }
    Ok(())
}

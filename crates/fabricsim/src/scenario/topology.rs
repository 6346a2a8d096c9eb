//! `[topology]`: the topology types and their keys.

use fabricsim_core::{Bandwidth, ConfigError, Time};
use serde::{Deserialize, Serialize};

/// `[topology]`, chosen by `type`: `"torus"` (the default; n-D torus, per-axis `wrap`),
/// `"mesh"` (a torus without wrap-around) or `"fat_tree"`. Each type has its own keys; a key of
/// another type is an error naming it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum TopologySpec {
    Torus(TorusSpec),
    Mesh(TorusSpec),
    FatTree(FatTreeSpec),
}

impl Default for TopologySpec {
    fn default() -> Self {
        TopologySpec::Torus(TorusSpec::default())
    }
}

impl TopologySpec {
    /// The keys a topology type takes (none for an unknown type); a test checks them against
    /// the specs' fields.
    pub fn keys_of(ty: &str) -> &'static [&'static str] {
        match ty {
            "torus" => &["shape", "wrap", "axes", "link_bandwidth", "link_latency"],
            "mesh" => &["shape", "axes", "link_bandwidth", "link_latency"],
            "fat_tree" => &["radix", "levels", "rails", "full_radix_top", "link_bandwidth", "link_latency"],
            _ => &[],
        }
    }

    /// One direction of one link.
    pub fn link_bandwidth(&self) -> Bandwidth {
        match self {
            TopologySpec::Torus(t) | TopologySpec::Mesh(t) => t.link_bandwidth,
            TopologySpec::FatTree(f) => f.link_bandwidth,
        }
    }
    /// Whether each axis of a torus or mesh wraps around (empty for a fat-tree); a `wrap` list
    /// of the wrong length is an error naming it.
    pub fn axis_wraps(&self) -> Result<Vec<bool>, ConfigError> {
        match self {
            TopologySpec::Torus(t) => match &t.wrap {
                Some(w) if w.len() != t.shape.len() => {
                    Err(ConfigError::new("topology.wrap", format!("has {} entries but topology.shape has {} axes", w.len(), t.shape.len())))
                }
                Some(w) => Ok(w.clone()),
                None => Ok(vec![true; t.shape.len()]),
            },
            TopologySpec::Mesh(t) => Ok(vec![false; t.shape.len()]),
            TopologySpec::FatTree(_) => Ok(Vec::new()),
        }
    }
    /// One link's latency.
    pub fn link_latency(&self) -> Time {
        match self {
            TopologySpec::Torus(t) | TopologySpec::Mesh(t) => t.link_latency,
            TopologySpec::FatTree(f) => f.link_latency,
        }
    }
}

/// `type = "torus"` or `"mesh"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TorusSpec {
    /// Length of each axis. Default [8, 8, 8].
    pub shape: Vec<u32>,
    /// Wrap-around per axis (true = ring, false = line). Default: all true for a torus, all
    /// false for a mesh (which may not wrap).
    pub wrap: Option<Vec<bool>>,
    /// Axis names, e.g. ["X","Y","Z","A","B","C"]. Default d0, d1, ...
    pub axes: Option<Vec<String>>,
    /// One direction of one link. Default 5GB/s.
    pub link_bandwidth: Bandwidth,
    /// One link's latency. Default 20ns.
    pub link_latency: Time,
}

impl Default for TorusSpec {
    fn default() -> Self {
        TorusSpec { shape: vec![8, 8, 8], wrap: None, axes: None, link_bandwidth: Bandwidth(5_000_000_000), link_latency: Time::from_ns(20) }
    }
}

/// `type = "fat_tree"`: a k-ary n-tree of `radix`-port switches, possibly in several rails.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FatTreeSpec {
    /// Switch radix (even). Default 16.
    pub radix: u32,
    /// Switch levels. Default 3.
    pub levels: u32,
    /// Independent planes, each node attached to all. Default 1.
    pub rails: u32,
    /// Top switches use all ports downwards (2x nodes). Default false.
    pub full_radix_top: bool,
    /// One direction of one link. Default 5GB/s.
    pub link_bandwidth: Bandwidth,
    /// One link's latency. Default 20ns.
    pub link_latency: Time,
}

impl Default for FatTreeSpec {
    fn default() -> Self {
        FatTreeSpec {
            radix: 16,
            levels: 3,
            rails: 1,
            full_radix_top: false,
            link_bandwidth: Bandwidth(5_000_000_000),
            link_latency: Time::from_ns(20),
        }
    }
}

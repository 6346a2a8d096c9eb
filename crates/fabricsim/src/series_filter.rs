//! Which ports a run's series keeps (`--series-ports`, `--series-region`, `--series-busiest`):
//! checked against the network before the run, applied before anything is written.
//!
//! A port is kept when it matches any item of `--series-ports` (none: every port), its router
//! lies inside the `--series-region` box (none: everywhere), and, with `--series-busiest N`,
//! it is among the N ports of those with the most busy time over the whole run (ties go to the
//! lower port id). Kept ports stay in port order.

use crate::report::port_label;
use crate::Error;
use fabricsim_core::{ConfigError, PortId};
use fabricsim_topology::{PortGraph, PortKind, Topology, Torus};

/// Which ports a series keeps (see the module docs). The default keeps every port.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortFilter {
    /// Labels (`X+`, `rail0-L1-up`), axes (`X`: both directions), `network` or `terminal`.
    pub items: Vec<String>,
    /// A box of torus coordinates, one item per axis: `X=0..3` (both ends included) or `Y=2`.
    pub region: Vec<String>,
    /// Keep only the N busiest ports over the run (N at least 1).
    pub busiest: Option<usize>,
}

/// A connected port of the network, as a series row names it.
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPortInfo {
    /// Global port id.
    pub global: usize,
    /// "network" or "terminal".
    pub kind: &'static str,
    pub router: u32,
    /// Local port of the router.
    pub local: u32,
    pub label: String,
}

/// Every connected port of a graph, in port order.
pub(crate) fn connected_ports(topo: &Topology, g: &PortGraph) -> Vec<SeriesPortInfo> {
    (0..g.total_ports() as usize)
        .filter(|&p| g.kind[p] != PortKind::Unconnected)
        .map(|p| {
            let router = g.owner[p];
            let local = g.local(PortId(p as u32));
            let kind = if g.kind[p] == PortKind::Network { "network" } else { "terminal" };
            SeriesPortInfo { global: p, kind, router: router.0, local, label: port_label(topo, router, local) }
        })
        .collect()
}

/// One axis of a region: the axis and its coordinates from `lo` to `hi`, both included.
type Bound = (usize, u32, u32);

impl PortFilter {
    /// Every port.
    pub fn all() -> Self {
        PortFilter::default()
    }

    /// Whether a port of `kind` ("network" or "terminal") and `label` matches `--series-ports`.
    pub fn keeps(&self, kind: &str, label: &str) -> bool {
        self.items.is_empty() || self.items.iter().any(|i| i == kind || i == label || label.strip_suffix(['+', '-']) == Some(i.as_str()))
    }

    /// Refuse a `--series-ports` item that matches no port of the network, naming it and the
    /// labels there are.
    pub fn check(&self, labels: &[(String, String)]) -> Result<(), Error> {
        for item in &self.items {
            let one = PortFilter { items: vec![item.clone()], ..PortFilter::default() };
            if !labels.iter().any(|(kind, label)| one.keeps(kind, label)) {
                let mut names: Vec<&str> = labels.iter().map(|(_, l)| l.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                return Err(ConfigError::new(
                    "--series-ports",
                    format!("'{item}' matches no port: use network, terminal, an axis or one of {}", names.join(", ")),
                )
                .into());
            }
        }
        if self.busiest == Some(0) {
            return Err(ConfigError::new("--series-busiest", "0: keep at least one port").into());
        }
        Ok(())
    }

    /// The ports kept before the busiest are chosen (labels and region), after checking every
    /// item against the network; an error names the flag and the item.
    pub fn select(&self, topo: &Topology, g: &PortGraph) -> Result<Vec<SeriesPortInfo>, Error> {
        let all = connected_ports(topo, g);
        let labels: Vec<(String, String)> = all.iter().map(|p| (p.kind.to_string(), p.label.clone())).collect();
        self.check(&labels)?;
        let region = self.region(topo)?;
        let inside = |router: u32| match topo {
            Topology::Torus(t) => {
                let node = Torus::node_on(fabricsim_core::RouterId(router));
                region.iter().all(|&(a, lo, hi)| (lo..=hi).contains(&t.coord(node, a)))
            }
            Topology::FatTree(_) => true,
        };
        let kept: Vec<SeriesPortInfo> = all.into_iter().filter(|p| self.keeps(p.kind, &p.label) && inside(p.router)).collect();
        if kept.is_empty() {
            return Err(ConfigError::new(
                if self.region.is_empty() { "--series-ports" } else { "--series-region" },
                format!("no port is both in {} and in {}", self.items.join(","), self.region.join(",")),
            )
            .into());
        }
        Ok(kept)
    }

    /// The region's bounds, checked against the torus (axis names, coordinates in range).
    fn region(&self, topo: &Topology) -> Result<Vec<Bound>, Error> {
        if self.region.is_empty() {
            return Ok(Vec::new());
        }
        let bad = |item: &str, why: String| -> Error { ConfigError::new("--series-region", format!("'{item}': {why}")).into() };
        let Topology::Torus(t) = topo else {
            return Err(bad(&self.region.join(","), "a region is a box of torus coordinates; this network is not a torus".into()));
        };
        let mut out: Vec<Bound> = Vec::new();
        for item in &self.region {
            let Some((name, range)) = item.split_once('=') else {
                return Err(bad(item, "write AXIS=LO..HI or AXIS=N, e.g. X=0..3".into()));
            };
            let Some(axis) = t.names().iter().position(|n| n == name.trim()) else {
                return Err(bad(item, format!("no axis '{}': the axes are {}", name.trim(), t.names().join(", "))));
            };
            if out.iter().any(|b| b.0 == axis) {
                return Err(bad(item, format!("axis {name} is given twice")));
            }
            let num = |s: &str| s.trim().parse::<u32>().map_err(|_| bad(item, format!("'{}' is not a coordinate", s.trim())));
            let (lo, hi) = match range.split_once("..") {
                Some((a, b)) => (num(a)?, num(b)?),
                None => (num(range)?, num(range)?),
            };
            let size = t.shape()[axis];
            if lo > hi || hi >= size {
                return Err(bad(item, format!("{name} runs from 0 to {} (ranges include both ends, low first)", size - 1)));
            }
            out.push((axis, lo, hi));
        }
        Ok(out)
    }
}

/// The `n` busiest of `ports` by `busy` (a total per global port id), in port order; ties go to
/// the lower port id.
pub(crate) fn busiest(ports: &[SeriesPortInfo], busy: impl Fn(usize) -> u64, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ports.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(busy(ports[i].global)), ports[i].global));
    order.truncate(n);
    order.sort_unstable();
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(global: usize) -> SeriesPortInfo {
        SeriesPortInfo { global, kind: "network", router: 0, local: global as u32, label: "X+".into() }
    }

    #[test]
    fn the_busiest_are_chosen_by_busy_time_and_kept_in_port_order() {
        let ports: Vec<_> = (0..5).map(info).collect();
        let busy = [5u64, 9, 1, 9, 7];
        assert_eq!(busiest(&ports, |p| busy[p], 3), vec![1, 3, 4]);
        assert_eq!(busiest(&ports, |p| busy[p], 1), vec![1], "a tie goes to the lower port");
        assert_eq!(busiest(&ports, |p| busy[p], 9).len(), 5);
    }
}

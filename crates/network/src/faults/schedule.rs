//! Scheduled events resolved to links: `[[faults.events]]` checked against the network (a link
//! that exists, a node in range, events in time order per link) and turned into one short list
//! per link direction. A link's state at a time is a pure function of its list, and both
//! directions of a link share the link events, so the two ends always agree on it.

use super::spec::{Direction, EventKind, FaultSpec, LinkRef};
use fabricsim_core::{ConfigError, NodeId, PortId, RouterId};
use fabricsim_topology::{PortGraph, PortKind, Torus};

/// An event on one link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LinkEvent {
    pub at: u64,
    pub what: Change,
    /// Index of the scenario event it comes from (for recovery times).
    pub source: u32,
}

/// What changes on a link direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    LaneDown(u8),
    LaneUp(u8),
    Down,
    Up,
}

/// The events of every link direction that has some (by sending port), time-ordered.
pub(crate) struct Schedule {
    pub per_port: std::collections::HashMap<u32, Vec<LinkEvent>>,
}

/// The state of a link direction at `t` from its events: its dark lanes (a bit each), whether
/// it is down, and when it next comes up (if it is down and some event brings it back).
pub(crate) fn state_at(events: &[LinkEvent], t: u64) -> (u16, bool, Option<u64>) {
    let (mut dark, mut down) = (0u16, false);
    for e in events.iter().take_while(|e| e.at <= t) {
        match e.what {
            Change::LaneDown(l) => dark |= 1 << l,
            Change::LaneUp(l) => dark &= !(1 << l),
            Change::Down => down = true,
            Change::Up => down = false,
        }
    }
    let up = if down { events.iter().find(|e| e.at > t && e.what == Change::Up).map(|e| e.at) } else { None };
    (dark, down, up)
}

/// When the lane set or link state next changes after `t` (`u64::MAX`: never).
pub(crate) fn next_change(events: &[LinkEvent], t: u64) -> u64 {
    events.iter().find(|e| e.at > t).map_or(u64::MAX, |e| e.at)
}

/// Resolve the scenario's events on `graph` (`torus`: for links named by coordinates).
pub(crate) fn resolve(spec: &FaultSpec, graph: &PortGraph, torus: Option<&Torus>, lanes: u32) -> Result<Schedule, ConfigError> {
    let mut per_port: std::collections::HashMap<u32, Vec<LinkEvent>> = Default::default();
    for (i, e) in spec.events.iter().enumerate() {
        let key = format!("faults.events[{i}]");
        let mut push = |port: u32, what: Change| {
            per_port.entry(port).or_default().push(LinkEvent { at: e.at.ps(), what, source: i as u32 });
        };
        match e.kind {
            EventKind::NodeDown => {
                if e.link.is_some() || e.lane.is_some() {
                    return Err(ConfigError::new(format!("{key}.kind"), "'node_down' takes `node` (coordinates), not `link` or `lane`"));
                }
                let coords = e.node.as_ref().ok_or_else(|| ConfigError::new(format!("{key}.node"), "'node_down' needs the node's coordinates"))?;
                let t = torus.ok_or_else(|| ConfigError::new(format!("{key}.node"), "node coordinates need a torus or mesh"))?;
                let node = t.node_at(coords).map_err(|m| ConfigError::new(format!("{key}.node"), m))?;
                let r = RouterId(node.0);
                for l in 0..graph.ports_of(r) {
                    let p = graph.port(r, l);
                    if graph.kind[p.index()] == PortKind::Network {
                        push(p.0, Change::Down);
                        push(graph.peer_port(p).0, Change::Down);
                    }
                }
            }
            kind => {
                if e.node.is_some() {
                    return Err(ConfigError::new(format!("{key}.node"), format!("'{}' names its link with `link`, not `node`", kind_name(kind))));
                }
                let link = e.link.as_ref().ok_or_else(|| ConfigError::new(format!("{key}.link"), format!("'{}' needs a link", kind_name(kind))))?;
                let port = link_port(link, graph, torus, &format!("{key}.link"))?;
                let lane = || -> Result<u8, ConfigError> {
                    let l = e.lane.unwrap_or(lanes - 1);
                    if l >= lanes {
                        return Err(ConfigError::new(format!("{key}.lane"), format!("{l} is not a lane of a link of {lanes} lanes (link.lanes)")));
                    }
                    Ok(l as u8)
                };
                match kind {
                    EventKind::LaneDown => push(port, Change::LaneDown(lane()?)),
                    EventKind::LaneUp => push(port, Change::LaneUp(lane()?)),
                    EventKind::LinkDown | EventKind::LinkUp => {
                        if e.lane.is_some() {
                            return Err(ConfigError::new(format!("{key}.lane"), "a link event takes no lane"));
                        }
                        let what = if kind == EventKind::LinkDown { Change::Down } else { Change::Up };
                        push(port, what);
                        push(graph.peer_port(PortId(port)).0, what);
                    }
                    EventKind::NodeDown => unreachable!("handled above"),
                }
            }
        }
    }
    for list in per_port.values() {
        if let Some(w) = list.windows(2).find(|w| w[1].at < w[0].at) {
            let e = &spec.events[w[1].source as usize];
            return Err(ConfigError::new(
                format!("faults.events[{}].at", w[1].source),
                format!(
                    "{} ns comes before event {} ({} ns) on the same link: list a link's events in time order",
                    e.at.as_ns_f64(),
                    w[0].source,
                    w[0].at as f64 / 1000.0
                ),
            ));
        }
    }
    Ok(Schedule { per_port })
}

fn kind_name(k: EventKind) -> &'static str {
    match k {
        EventKind::LaneDown => "lane_down",
        EventKind::LaneUp => "lane_up",
        EventKind::LinkDown => "link_down",
        EventKind::LinkUp => "link_up",
        EventKind::NodeDown => "node_down",
    }
}

/// The sending port of the link `r` names.
fn link_port(r: &LinkRef, graph: &PortGraph, torus: Option<&Torus>, key: &str) -> Result<u32, ConfigError> {
    if let Some(p) = r.port {
        if r.node.is_some() || r.axis.is_some() || r.direction.is_some() {
            return Err(ConfigError::new(format!("{key}.port"), "name a link by `port` or by `node`, `axis` and `direction`, not both"));
        }
        if p >= graph.total_ports() || graph.kind[p as usize] != PortKind::Network {
            return Err(ConfigError::new(format!("{key}.port"), format!("{p} is not a port of a link between two routers")));
        }
        return Ok(p);
    }
    let coords = r.node.as_ref().ok_or_else(|| ConfigError::new(format!("{key}.node"), "a link needs `port`, or `node`, `axis` and `direction`"))?;
    let t = torus.ok_or_else(|| ConfigError::new(format!("{key}.node"), "links by coordinates need a torus or mesh; name the port instead"))?;
    let node = t.node_at(coords).map_err(|m| ConfigError::new(format!("{key}.node"), m))?;
    let axis_name = r.axis.as_deref().ok_or_else(|| ConfigError::new(format!("{key}.axis"), "missing (one of the topology's axis names)"))?;
    let axis = t
        .axis_index(axis_name)
        .ok_or_else(|| ConfigError::new(format!("{key}.axis"), format!("'{axis_name}' is not one of the axes {:?}", t.names())))?;
    let delta = match r.direction.ok_or_else(|| ConfigError::new(format!("{key}.direction"), "missing (\"+\" or \"-\")"))? {
        Direction::Plus => 1,
        Direction::Minus => -1,
    };
    if t.step(node, axis, delta).is_none() {
        let sign = if delta > 0 { "+" } else { "-" };
        return Err(ConfigError::new(
            key.to_string(),
            format!("node {coords:?} has no link in direction {sign} of axis {axis_name} (the edge of a mesh axis)"),
        ));
    }
    Ok(graph.port(RouterId(NodeId(node.0).0), t.port_for(axis, delta)).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_follows_the_events_in_order() {
        let ev = |at, what| LinkEvent { at, what, source: 0 };
        let list = [ev(10, Change::LaneDown(1)), ev(20, Change::Down), ev(30, Change::Up), ev(40, Change::LaneUp(1))];
        assert_eq!(state_at(&list, 5), (0, false, None));
        assert_eq!(state_at(&list, 10), (2, false, None));
        assert_eq!(state_at(&list, 25), (2, true, Some(30)));
        assert_eq!(state_at(&list, 35), (2, false, None));
        assert_eq!(state_at(&list, 45), (0, false, None));
        assert_eq!(next_change(&list, 10), 20);
        assert_eq!(next_change(&list, 40), u64::MAX);
    }
}

//! `all_to_all`: every node sends one message to every other, a window at a time.

use super::{default_message_size, default_packet_size, positive, BuildContext};
use crate::Error;
use fabricsim_core::{Bytes, ConfigError, NodeId};
use fabricsim_topology::{Topology, Torus};
use fabricsim_workload::permutation::Permutation;
use fabricsim_workload::{AllToAll, AnyWorkload, Schedule};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AllToAllSpec {
    /// Packet size on the wire. Default 512B.
    pub packet_size: Bytes,
    /// Message size. Default 8B.
    pub message_size: Bytes,
    /// Messages outstanding per node. Default 4 (unused by `all_at_once`).
    pub window: u32,
    /// Order of each node's destinations: `"shifted"` (default: node i sends to i+1, i+2, ...),
    /// `"random"` (a random order per node, from `sim.seed`) or `"all_at_once"` (shifted, every
    /// message posted at the start).
    pub schedule: ScheduleSpec,
    /// A sampled all-to-all on a torus (`schedule = "random"` only; an even number): the
    /// nodes send to `destinations` translations of themselves drawn from `sim.seed`, in
    /// pairs `s` and `-s`, each node in a random order of its own, instead of to every other
    /// node. Every link of one axis and direction carries the same load, as in the whole
    /// exchange, and `fraction_of_peak` is measured against the sample's own peak: the
    /// behaviour of the whole exchange at a fraction of its cost on large machines.
    /// Unset: every other node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destinations: Option<u32>,
    /// Send each message as Puts of at most this size, in rounds of one chunk per destination
    /// (Blue Gene/Q's SPI all-to-all example uses 2 KB windows); `window` then counts Puts.
    /// Unset: one Put per message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<Bytes>,
}

/// `workload.schedule` of an all-to-all.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ScheduleSpec {
    #[default]
    Shifted,
    Random,
    AllAtOnce,
}

impl Default for AllToAllSpec {
    fn default() -> Self {
        AllToAllSpec {
            packet_size: default_packet_size(),
            message_size: default_message_size(),
            window: 4,
            schedule: ScheduleSpec::Shifted,
            destinations: None,
            chunk: None,
        }
    }
}

impl AllToAllSpec {
    pub(crate) fn build(&self, cx: &BuildContext) -> Result<AnyWorkload, Error> {
        let size = positive("workload.message_size", self.message_size)?.get();
        let window = positive("workload.window", self.window)?;
        let schedule = match self.schedule {
            ScheduleSpec::Shifted => Schedule::Shifted,
            ScheduleSpec::Random => Schedule::Random { seed: cx.plan.scenario.sim.seed },
            ScheduleSpec::AllAtOnce => Schedule::AllAtOnce,
        };
        let nodes = cx.plan.topology.nodes();
        let chunk = match self.chunk {
            Some(c) => positive("workload.chunk", c)?.get(),
            None => size,
        };
        let Some(k) = self.destinations else { return Ok(AnyWorkload::AllToAll(AllToAll::new(nodes, size, window, schedule).in_chunks(chunk))) };
        if self.schedule != ScheduleSpec::Random {
            return Err(ConfigError::new("workload.destinations", format!("{k}: a sample of destinations needs schedule = \"random\"")).into());
        }
        let Topology::Torus(t) = &cx.plan.topology else {
            return Err(ConfigError::new("workload.destinations", format!("{k}: samples translations of a torus; this is a fat-tree")).into());
        };
        let shifts = self.translations(t, cx.plan.scenario.sim.seed)?.expect("destinations set");
        // Node x sends to x + s for each sampled s, in its own random order.
        let mut table = Vec::with_capacity(nodes as usize * shifts.len());
        for x in 0..nodes {
            let here = t.coords(NodeId(x));
            let order = Permutation::new(k, cx.plan.scenario.sim.seed ^ (x as u64) << 32);
            for j in 0..k {
                let s = &shifts[order.apply(j) as usize];
                let there: Vec<u32> = here.iter().zip(s).zip(t.shape()).map(|((&c, &d), &len)| (c + d) % len).collect();
                table.push(t.node_at(&there).expect("coordinates within the shape").0);
            }
        }
        Ok(AnyWorkload::AllToAll(AllToAll::sampled(nodes, size, window, table).in_chunks(chunk)))
    }

    /// The sampled translations (`None`: the whole exchange), checked against torus `t`.
    pub(crate) fn translations(&self, t: &Torus, seed: u64) -> Result<Option<Vec<Vec<u32>>>, ConfigError> {
        let Some(k) = self.destinations else { return Ok(None) };
        let field = "workload.destinations";
        if let Some(a) = (0..t.dims()).find(|&a| t.shape()[a] >= 2 && !t.wrap()[a]) {
            return Err(ConfigError::new(field, format!("{k}: translations need rings; axis {} does not wrap", t.names()[a])));
        }
        let n = t.nodes();
        if k == 0 || k % 2 != 0 || k >= n {
            return Err(ConfigError::new(field, format!("{k}: an even number below {n} (translations come in pairs s, -s)")));
        }
        // Draw translations in a seeded order, each with its opposite; a translation that is
        // its own opposite (half-way round every axis it moves on) cannot pair and is skipped.
        let draw = Permutation::new(n - 1, seed ^ 0x7472_616e_736c);
        let mut taken = vec![false; n as usize];
        let mut shifts = Vec::with_capacity(k as usize);
        for j in 0..n - 1 {
            if shifts.len() == k as usize {
                break;
            }
            let s = t.coords(NodeId(1 + draw.apply(j)));
            let minus: Vec<u32> = s.iter().zip(t.shape()).map(|(&d, &len)| (len - d) % len).collect();
            let (a, b) = (t.node_at(&s).expect("in shape").0, t.node_at(&minus).expect("in shape").0);
            if a == b || taken[a as usize] {
                continue;
            }
            (taken[a as usize], taken[b as usize]) = (true, true);
            shifts.extend([s, minus]);
        }
        if shifts.len() < k as usize {
            return Err(ConfigError::new(field, format!("{k}: this torus has only {} translations that pair with their opposite", shifts.len())));
        }
        Ok(Some(shifts))
    }
}

//! `[packaging]`: blocks, racks and cables of a torus.

use fabricsim_core::Time;
use serde::{Deserialize, Serialize};

/// Physical packaging of a torus: links inside one `block` of the shape are electrical, links
/// between blocks optical (TofuD: half rack (2,2,4,2,3,2); Tofu2: chassis (1,1,3,2,1,2)).
/// With `rack`, the blocks sit in racks on a machine-room floor and each link between blocks
/// is a cable whose length follows the layout (`fabricsim_topology::packaging::Floor`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PackagingSpec {
    /// Nodes per package along each axis (each divides its axis).
    pub block: Option<Vec<u32>>,
    /// Fixed latency of optical links, transceivers and SerDes (default: `topology.link_latency`).
    pub optical_latency: Option<Time>,
    /// Latency of a loopback: the wrap link of a ring that `block` spans whole, closed through
    /// the package's edge hardware (Blue Gene/Q: a link chip looping a midplane's face back).
    /// Unset: such links are board links like the others.
    pub loopback_latency: Option<Time>,
    /// Axes whose wrap links close through that hardware (by name, as `topology.axes`).
    /// Unset: every axis.
    pub loopback_axes: Option<Vec<String>>,
    /// Nodes per rack along each axis (a multiple of `block`). Unset: no floor layout, every
    /// optical link alike.
    pub rack: Option<Vec<u32>>,
    /// Racks per row on the floor. Unset: a square room (the square root of the rack count,
    /// rounded up).
    pub racks_per_row: Option<u32>,
    /// Distance between neighbouring racks in a row, metres. Default 0.8.
    pub rack_pitch_m: f64,
    /// Distance between rows, metres. Default 2.4.
    pub row_pitch_m: f64,
    /// Cable run inside the two racks (to and from the floor or the overhead tray), metres.
    /// Default 2.
    pub cable_slack_m: f64,
    /// Propagation delay per metre of cable. Default 5ns (light in fibre or copper twinax).
    pub cable_delay: Time,
    /// Lay each axis of racks out folded (0, n-1, 1, n-2, ...), so ring neighbours stand
    /// close. Default false.
    pub folded: bool,
}

impl Default for PackagingSpec {
    fn default() -> Self {
        PackagingSpec {
            block: None,
            optical_latency: None,
            loopback_latency: None,
            loopback_axes: None,
            rack: None,
            racks_per_row: None,
            rack_pitch_m: 0.8,
            row_pitch_m: 2.4,
            cable_slack_m: 2.0,
            cable_delay: Time::from_ns(5),
            folded: false,
        }
    }
}

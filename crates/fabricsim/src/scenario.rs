//! The scenario file: plain structs deserialised from TOML, every unknown key rejected with its
//! path. Defaults are listed on each field.
//!
//! Sections whose `type` key chooses a component (`topology`, `routing`, `hardware`, `workload`) are enums
//! with one variant per type, each with its own fields: a key that the chosen type does not
//! take is rejected by the parser. In the file such a section is written flat
//! (`[workload] type = "pingpong"  src = [0, 0]`); [`Scenario::from_toml_str`] turns it into
//! serde's `{ pingpong = { src = ... } }` form before deserialising, and
//! [`Scenario::to_toml_string`] turns it back (see `tagged.rs`).

pub use crate::workloads::WorkloadSpec;
use crate::Error;
use fabricsim_core::{Bandwidth, Bytes, ConfigError, Time};
pub use fabricsim_network::faults::{FaultSpec, LinkSpec, Protection};
pub use fabricsim_network::EngineChoice;
pub use fabricsim_network::{DawningSwitchParams, DawningUnit, HardwareSpec};
pub use fabricsim_routing::adaptive::Escape;
pub use fabricsim_routing::{AdaptiveSpec, Blocked, DimensionOrderSpec, RoutingSpec, Selection, UpDownSpec};
use serde::{Deserialize, Serialize};

/// A whole scenario. Every section may be omitted.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Scenario {
    /// The keys the user wrote (file plus `set` calls), before presets and defaults fill the
    /// rest. [`Scenario::set`] re-resolves from these, so a preset named later still sits under
    /// everything the user wrote, and defaults never override a preset.
    #[serde(skip)]
    explicit: toml::Table,
    /// The folder of the file the scenario was read from: relative file paths in it (a
    /// program, a rank map) are read from there. `None` (a scenario not read from a file):
    /// the current directory.
    #[serde(skip)]
    base_dir: Option<std::path::PathBuf>,
    /// Deprecation notes from reading it (old section names), for the user to see.
    #[serde(skip)]
    notes: Vec<String>,
    /// A name for reports.
    pub name: Option<String>,
    pub machine: MachineSpec,
    pub topology: TopologySpec,
    pub router: RouterSpec,
    pub nic: NicSpec,
    pub packet: PacketSpec,
    pub packaging: PackagingSpec,
    /// In-network collective hardware, chosen by `type` (see [`HardwareSpec`]); the old
    /// `[barrier]`, `[class_routes]`, `[switch_barrier]` and `[multicast]` sections are read
    /// as aliases of it (see `legacy_hardware.rs`).
    pub hardware: HardwareSpec,
    /// Lanes per link and their protection (see `fabricsim_network::faults`); matters only
    /// with `[faults]`.
    pub link: LinkSpec,
    /// Lane errors and scheduled failures (see `fabricsim_network::faults`); none by default.
    pub faults: FaultSpec,
    pub routing: RoutingSpec,
    pub workload: WorkloadSpec,
    /// Several jobs sharing the network (`[[jobs]]`, see [`crate::jobs::JobSpec`]), each with
    /// its own workload, nodes and start time; `[workload]` then gives only the packet size.
    /// Empty (the default): the scenario's one `[workload]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<crate::jobs::JobSpec>,
    pub sim: SimSpec,
}

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

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RouterSpec {
    /// Pipeline delay per router traversal. Default 40ns.
    pub delay: Time,
    /// Virtual channels per port. Default 2.
    pub vcs: u8,
    /// Input buffer per VC. Default 4KiB.
    pub buffer: Bytes,
    /// Dedicated VCs for priority classes, after the `vcs` routing VCs: messages of class k >= 1
    /// travel on class VC min(k, class_vcs) - 1, deterministically routed. Default 0 (classes
    /// share the routing's VCs and only win arbitration).
    pub class_vcs: u8,
    /// Input buffer per class VC (class messages are cut into packets that fit it). Default:
    /// `buffer`.
    pub class_buffer: Option<Bytes>,
    /// `"per_vc"` (default): parallel switching, one crossbar input per VC, so the VCs of one
    /// input port may send to different outputs at once (Dawning 5000's k crossbars of N x N;
    /// BG/Q's several paths per receiver); `"shared"`: one crossbar input per port, shared by
    /// its VCs (one packet at a time).
    pub crossbar: Crossbar,
    /// Queues per dynamic VC of adaptive routing (virtual output queuing, as Blue Gene/Q): each
    /// a `queues`-th of the VC's buffer, and an arriving packet takes the one with most room.
    /// Default 1.
    pub queues: u8,
}

/// `router.crossbar`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Crossbar {
    #[default]
    PerVc,
    Shared,
}

impl Default for RouterSpec {
    fn default() -> Self {
        RouterSpec { delay: Time::from_ns(40), vcs: 2, buffer: Bytes(4096), class_vcs: 0, class_buffer: None, crossbar: Crossbar::PerVc, queues: 1 }
    }
}

impl RouterSpec {
    /// VCs per port in all, at most: the routing's (each dynamic one counted as its queues;
    /// escape VCs are counted as dynamic here) and the class VCs.
    pub fn total_vcs(&self) -> u8 {
        self.vcs.saturating_mul(self.queues.max(1)).saturating_add(self.class_vcs)
    }
}

/// `[machine] preset = "tofud"`: start from a built-in machine (see `fabricsim presets`);
/// every other key of the file overrides the preset's.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MachineSpec {
    pub preset: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NicSpec {
    /// Injection/reception engines per node. Default 1 (fat-tree: one per rail).
    pub injection_engines: Option<u32>,
    /// Per-packet time from engine start to the packet's head leaving the NIC. Default 100ns.
    pub latency: Time,
    /// Bandwidth of each engine's path to the router. Default: the link bandwidth.
    pub bandwidth: Option<Bandwidth>,
    /// Per-message sender cost in the NIC before the first packet (descriptor processing);
    /// it overlaps across messages. Default 0.
    pub tx_overhead: Time,
    /// Per-message receiver cost after the last byte (completion). Default 0.
    pub rx_overhead: Time,
    /// Fetching a descriptor from main memory; skipped with `direct_descriptor`. Default 0.
    pub descriptor_fetch: Time,
    /// Descriptors handed to the NIC directly (Tofu's direct descriptor). Default false.
    pub direct_descriptor: bool,
    /// Writing received data to main memory; skipped with `cache_injection`. Default 0.
    pub memory_write: Time,
    /// Received data goes straight into the cache (Tofu2 cache injection). Default false.
    pub cache_injection: bool,
    /// Extra cost when both processes run on far NUMA domains (TofuD far CMG). Default 0.
    pub far_cmg_penalty: Time,
    /// `"near"` (default) or `"far"`: where initiator and target processes run.
    pub cmg: Cmg,
    /// Software cost of a message (posting and completion polling), charged once per message
    /// on the posting rank's core: a rank that posts several messages pays it for each, one
    /// after another. Default 0 (hardware-only figures).
    pub software_overhead: Time,
    /// Software cost of taking one completion on the receiving rank's core (which also posts):
    /// completions are polled one at a time. Default 0.
    pub poll_overhead: Time,
    /// Host-to-NIC bandwidth per node (PCIe, HyperTransport, CPU-NIC bus). Default: no limit.
    pub host_bandwidth: Option<Bandwidth>,
    /// Memory bandwidth for data larger than `cache_size` (sends and receives share it).
    pub memory_bandwidth: Option<Bandwidth>,
    /// Cache size below which messages do not touch main memory. Default 32MiB.
    pub cache_size: Bytes,
    /// `"host"` (default) or `"gpu"`: where sent data lives.
    pub source: DataSource,
    /// Extra per-message sender cost when the source is GPU memory. Default 0.
    pub gpu_tx_overhead: Time,
    /// Per-packet GPU read cost, not overlapped with the next packet. Default 0.
    pub gpu_packet_overhead: Time,
    /// Open-loop sources: messages a node's NIC may hold waiting to be sent. A source that
    /// finds the queue full does not send (counted as refused: back-pressure, as a real NIC's
    /// descriptor queue gives), which keeps a saturated run's memory bounded. 0: no limit.
    /// Default 64.
    pub queue_limit: u32,
    /// Which engine (on a multi-rail fat-tree, which rail) a message goes to: `"round_robin"`
    /// (default), `"pair"` ((source + destination rank) mod engines: static striping, one
    /// pair on one rail) or `"shortest_queue"` (the engine with the fewest messages waiting).
    pub engine_choice: EngineChoice,
    /// Messages each engine interleaves packet by packet: 1 (default) sends a message's packets
    /// one after another before the next message; k > 1 takes the next packet in turn from
    /// the first k messages of the engine's queue (of its highest class), as Blue Gene/Q's
    /// message unit picks a descriptor for every packet. Messages routed deterministically are
    /// never overtaken: one at the head of the queue finishes first.
    pub interleave: u32,
}

impl Default for NicSpec {
    fn default() -> Self {
        NicSpec {
            injection_engines: None,
            latency: Time::from_ns(100),
            bandwidth: None,
            tx_overhead: Time::ZERO,
            rx_overhead: Time::ZERO,
            descriptor_fetch: Time::ZERO,
            direct_descriptor: false,
            memory_write: Time::ZERO,
            cache_injection: false,
            far_cmg_penalty: Time::ZERO,
            cmg: Cmg::Near,
            software_overhead: Time::ZERO,
            poll_overhead: Time::ZERO,
            host_bandwidth: None,
            memory_bandwidth: None,
            cache_size: Bytes(32 * 1024 * 1024),
            source: DataSource::Host,
            gpu_tx_overhead: Time::ZERO,
            gpu_packet_overhead: Time::ZERO,
            queue_limit: 64,
            engine_choice: EngineChoice::RoundRobin,
            interleave: 1,
        }
    }
}

/// `nic.cmg`: where the initiator and target processes of a message run, relative to the NIC.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Cmg {
    /// Near the NIC: no extra cost.
    #[default]
    Near,
    /// On far NUMA domains (TofuD's far CMG): `nic.far_cmg_penalty`, half at each end.
    Far,
}

/// `nic.source`: where a message's data lives.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DataSource {
    /// Host memory.
    #[default]
    Host,
    /// GPU memory: `nic.gpu_tx_overhead` per message and `nic.gpu_packet_overhead` per packet.
    Gpu,
}

/// Packet format (see `fabricsim_network::PacketFormat`). Without `max_payload`, packets are
/// `workload.packet_size` bytes on the wire.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PacketSpec {
    pub max_payload: Option<Bytes>,
    pub payload_align: Bytes,
    pub header: Bytes,
    pub trailer: Bytes,
    pub lanes: u32,
    pub lane_framing: Bytes,
    pub link_overhead: Bytes,
}

impl Default for PacketSpec {
    fn default() -> Self {
        PacketSpec {
            max_payload: None,
            payload_align: Bytes(1),
            header: Bytes(0),
            trailer: Bytes(0),
            lanes: 1,
            lane_framing: Bytes(0),
            link_overhead: Bytes(0),
        }
    }
}

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

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SimSpec {
    /// Seed of every random stream. Default 1. (A seed above TOML's largest integer, 2^63 - 1,
    /// is written as a string of digits, and read back from one.)
    #[serde(with = "seed_text")]
    pub seed: u64,
    /// Open-loop: length of the measurement window. Default 20us.
    pub duration: Time,
    /// Open-loop: warm-up before the window; messages created in it are not measured.
    /// Default: a quarter of `duration`.
    pub warmup: Option<Time>,
    /// Open-loop: longest extra time to let measured messages arrive after the window.
    /// Default: 4 x `duration`.
    pub drain: Option<Time>,
    /// Closed workloads (pingpong, throughput, all_to_all): give up after this. Default 100ms.
    pub max_time: Time,
    /// Deadlock watchdog. Default 100us.
    pub watchdog: Time,
    /// Order in which the event queue hands out events of the same instant: `"fixed"` (the
    /// default: scheduling order, fast) or `"shuffle"` (a random order drawn from `seed`; a test
    /// mode, slower). Results must be identical either way: the model decides nothing by the
    /// order of simultaneous events.
    pub tie_order: TieOrder,
    /// Seed of the shuffled order (`tie_order = "shuffle"`). Default: `seed`. Changing it
    /// changes only the order of simultaneous events, never the traffic.
    pub tie_seed: Option<u64>,
    /// Most memory a run may need (estimated before building it; larger scenarios are refused).
    /// Default: the memory available on the machine.
    pub max_memory: Option<Bytes>,
    /// Threads of a partitioned run: the network is cut into this many blocks (bricks of a
    /// torus, subtrees of a fat-tree; `fabricsim info --partitions N` shows them), one per
    /// thread, with results identical to one thread's. Default 1. Open-loop workloads only, for
    /// now (see `docs/parallel.md`).
    #[serde(skip_serializing_if = "is_one")]
    pub threads: u32,
}

impl SimSpec {
    /// The open-loop warm-up: `warmup`, or a quarter of `duration`.
    pub fn warmup_or_default(&self) -> Time {
        self.warmup.unwrap_or(Time(self.duration.ps() / 4))
    }
}

/// Whether a count is 1 (left out of written scenarios: the default).
fn is_one(n: &u32) -> bool {
    *n == 1
}

/// `sim.tie_order`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TieOrder {
    #[default]
    Fixed,
    Shuffle,
}

impl Default for SimSpec {
    fn default() -> Self {
        SimSpec {
            seed: 1,
            duration: Time::from_us(20),
            warmup: None,
            drain: None,
            max_time: Time::from_us(100_000),
            watchdog: Time::from_us(100),
            tie_order: TieOrder::Fixed,
            tie_seed: None,
            max_memory: None,
            threads: 1,
        }
    }
}

impl Scenario {
    /// Parse TOML; errors name the offending key path.
    pub fn from_toml_str(text: &str) -> Result<Scenario, Error> {
        Self::from_named_toml_str(text, "scenario")
    }

    /// [`Scenario::from_toml_str`] of text read from `name` (a file), which a syntax error
    /// names with its line, column and the offending line.
    pub fn from_named_toml_str(text: &str, name: &str) -> Result<Scenario, Error> {
        let value: toml::Value = toml::from_str(text).map_err(|e| Error::Config(toml_error(name, e)))?;
        Self::from_value(value)
    }

    /// Read a scenario file; relative file paths in it are read from its folder.
    pub fn from_file(path: &std::path::Path) -> Result<Scenario, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        let mut s = Self::from_named_toml_str(&text, &path.display().to_string())?;
        s.base_dir = Some(path.parent().map(|p| p.to_path_buf()).unwrap_or_default());
        Ok(s)
    }

    /// A file path the scenario names, as the process can open it: relative to the scenario
    /// file's folder (see [`Scenario::from_file`]), or as it is when the scenario was not read
    /// from a file or the path is absolute.
    pub fn resolve_path(&self, path: &std::path::Path) -> std::path::PathBuf {
        match &self.base_dir {
            Some(dir) if path.is_relative() => dir.join(path),
            _ => path.to_path_buf(),
        }
    }

    /// Deprecation notes from reading the scenario (old section names, with what to write
    /// instead); empty for a scenario in today's form.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Read relative file paths from `dir` from now on (an empty path: the current directory).
    pub fn set_base_dir(&mut self, dir: std::path::PathBuf) {
        self.base_dir = Some(dir);
    }

    fn from_value(value: toml::Value) -> Result<Scenario, Error> {
        let explicit = value.as_table().cloned().unwrap_or_default();
        let mut value = crate::presets::apply(value)?;
        let notes = match value.as_table_mut() {
            Some(t) => crate::legacy_hardware::translate(t)?,
            None => Vec::new(),
        };
        crate::tagged::to_serde_form(&mut value)?;
        let mut s = serde_path_to_error::deserialize::<_, Scenario>(value).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().to_string();
            // One line: toml appends "in `section`" on a line of its own.
            let inner = inner.lines().next().unwrap_or_default().to_string();
            let (field, message) = crate::tagged::user_error(&path, &inner);
            Error::Config(ConfigError::new(field, message))
        })?;
        s.explicit = explicit;
        s.notes = notes;
        Ok(s)
    }

    /// Override one key: `set("topology.shape", "[4,4]")`, `set("sim.duration", "5us")`.
    /// The value is read as a TOML value, or as a string if it is not one. The scenario is
    /// re-resolved from the keys written so far (file and earlier `set` calls) plus this one;
    /// fields edited directly on the struct are not part of that and are reset.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), Error> {
        let mut root = toml::Value::Table(self.explicit.clone());
        let toml_value = |v: &str| toml::from_str::<toml::Table>(&format!("v = {v}")).ok().and_then(|mut t| t.remove("v"));
        // Bare words inside an array are strings too (`[X,Y,Z]` as `["X","Y","Z"]`), as a bare
        // word on its own is.
        let parsed = toml_value(value)
            .or_else(|| value.trim().starts_with('[').then(|| toml_value(&crate::bare_words::quote_bare_words(value))).flatten())
            .unwrap_or_else(|| toml::Value::String(value.to_string()));
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(Error::Config(ConfigError::new(key, "is not a key path like section.key")));
        }
        let mut cur = &mut root;
        for (i, part) in parts.iter().enumerate() {
            let table = cur.as_table_mut().ok_or_else(|| Error::Config(ConfigError::new(parts[..i].join("."), "is not a section")))?;
            if i + 1 == parts.len() {
                table.insert(part.to_string(), parsed.clone());
                break;
            }
            cur = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
        }
        let base_dir = self.base_dir.clone();
        *self = Self::from_value(root)?;
        self.base_dir = base_dir;
        Ok(())
    }

    /// Apply `key=value` overrides in order.
    pub fn apply_overrides(&mut self, sets: &[String]) -> Result<(), Error> {
        for s in sets {
            let (k, v) = s.split_once('=').ok_or_else(|| Error::Config(ConfigError::new("--set", format!("'{s}' is not key.path=value"))))?;
            self.set(k.trim(), v.trim())?;
        }
        Ok(())
    }

    /// The scenario as TOML text.
    /// The default scenario as TOML, followed by the keys that have no fixed default (their
    /// default depends on other keys, or they are off unless set), commented out with an
    /// example value each: every key a scenario may set outside `[workload]`.
    pub fn default_toml_string() -> String {
        let mut s = Scenario::default().to_toml_string();
        s.push_str("\n# Keys with no fixed default (unset above); each with an example value:\n");
        for (key, example, meaning) in OPTIONAL_KEYS {
            s.push_str(&format!("# {key} = {example}    # {meaning}\n"));
        }
        s.push_str("\n# Keys of the other routing, hardware and workload types; each with its default or an example:\n");
        for (with, key, example, meaning) in crate::type_keys::TYPE_KEYS {
            s.push_str(&format!("# {key} = {example}    # (with {}) {meaning}\n", with.replace(';', ", ")));
        }
        s
    }

    pub fn to_toml_string(&self) -> String {
        self.to_toml_string_without(&[])
    }

    /// The scenario as TOML text without the sections named in `skip`.
    pub fn to_toml_string_without(&self, skip: &[&str]) -> String {
        let mut v = toml::Value::try_from(self).expect("a scenario always serialises");
        if let Some(t) = v.as_table_mut() {
            t.retain(|k: &str, _| !skip.contains(&k));
        }
        crate::tagged::to_user_form(&mut v);
        toml::to_string(&v).expect("a scenario always serialises")
    }
}

/// `sim.seed` as a TOML integer, or as a string of digits where it does not fit one.
mod seed_text {
    use serde::{Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(seed: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*seed) {
            Ok(v) => s.serialize_i64(v),
            Err(_) => s.serialize_str(&seed.to_string()),
        }
    }

    struct Seed;

    impl serde::de::Visitor<'_> for Seed {
        type Value = u64;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number from 0 to 2^64 - 1 (as a string of digits above 2^63 - 1)")
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<u64, E> {
            Ok(v)
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<u64, E> {
            u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative: a seed is a whole number from 0 to 2^64 - 1")))
        }
        fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<u64, E> {
            t.parse().map_err(|_| E::custom(format!("'{t}' is not a seed (a whole number from 0 to 2^64 - 1)")))
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(Seed)
    }
}

/// A TOML syntax error as the `toml` crate reports it: line, column, the offending line with a
/// mark under the place, and what was expected there.
fn toml_error(name: &str, e: toml::de::Error) -> ConfigError {
    ConfigError::new(name, e.to_string().trim_end().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_named() {
        let e = Scenario::from_toml_str("[topology]\nshap = [4]\n").unwrap_err().to_string();
        assert!(e.starts_with("topology"), "{e}");
        assert!(e.contains("shap"), "{e}");
    }

    #[test]
    fn bad_units_are_named() {
        let e = Scenario::from_toml_str("[topology]\nlink_latency = \"20 parsecs\"\n").unwrap_err().to_string();
        assert!(e.starts_with("topology.link_latency"), "{e}");
        assert!(e.contains("parsecs"), "{e}");
    }

    #[test]
    fn overrides_apply_and_are_checked() {
        let mut s = Scenario::default();
        s.set("topology.shape", "[4, 4]").unwrap();
        s.set("sim.duration", "5us").unwrap();
        s.set("workload.type", "tornado").unwrap();
        assert!(matches!(&s.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4]));
        assert_eq!(s.sim.duration, Time::from_us(5));
        assert_eq!(s.workload.type_name(), "tornado");
        let e = s.set("router.vcz", "2").unwrap_err().to_string();
        assert!(e.contains("vcz"), "{e}");
        let e = s.set("router.delay", "fast").unwrap_err().to_string();
        assert!(e.starts_with("router.delay"), "{e}");
    }

    #[test]
    fn a_key_of_another_type_is_named() {
        let e = Scenario::from_toml_str("[workload]\ntype = \"pingpong\"\nload = 0.3\n").unwrap_err().to_string();
        assert!(e.starts_with("workload.load: is not a key of workload type 'pingpong'") && e.contains("iterations"), "{e}");
        let e = Scenario::from_toml_str("[workload]\nradius = 3\n").unwrap_err().to_string();
        assert!(e.starts_with("workload.radius: is not a key of workload type 'uniform_random'"), "{e}");
        let e = Scenario::from_toml_str("[topology]\ntype = \"fat_tree\"\nshape = [4]\n").unwrap_err().to_string();
        assert!(e.starts_with("topology.shape: is not a key of topology type 'fat_tree'"), "{e}");
        let e = Scenario::from_toml_str("[workload]\ntype = \"pingpong\"\nsrc = \"here\"\n").unwrap_err().to_string();
        assert!(e.starts_with("workload.src"), "{e}");
        let e = Scenario::from_toml_str("[routing]\ntype = \"zigzag\"\n").unwrap_err().to_string();
        assert!(e.starts_with("routing.type") && e.contains("zigzag"), "{e}");
        let e = Scenario::from_toml_str("[workload]\ntype = 3\n").unwrap_err().to_string();
        assert!(e.starts_with("workload.type"), "{e}");
    }

    #[test]
    fn topology_keys_match_the_specs_and_presets_keep_what_the_new_type_takes() {
        let full = TorusSpec { wrap: Some(vec![true]), axes: Some(vec!["X".into()]), ..Default::default() };
        let keys = |v: toml::Value| -> Vec<String> { v.as_table().unwrap().values().next().unwrap().as_table().unwrap().keys().cloned().collect() };
        let mut torus = keys(toml::Value::try_from(TopologySpec::Torus(full)).unwrap());
        let mut fat = keys(toml::Value::try_from(TopologySpec::FatTree(FatTreeSpec::default())).unwrap());
        torus.sort();
        fat.sort();
        let sorted = |ty| {
            let mut v: Vec<String> = TopologySpec::keys_of(ty).iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(torus, sorted("torus"));
        assert_eq!(fat, sorted("fat_tree"));
        assert_eq!(sorted("mesh"), torus.iter().filter(|k| *k != "wrap").cloned().collect::<Vec<_>>());
        // A Tofu preset as a mesh keeps its shape and links, not its wrap-around.
        let s = Scenario::from_toml_str("[machine]\npreset = \"tofu-k\"\n[topology]\ntype = \"mesh\"\n").unwrap();
        match &s.topology {
            TopologySpec::Mesh(t) => assert!(t.shape.len() == 6 && t.wrap.is_none() && t.link_latency == Time::from_ns(10)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn any_seed_round_trips_through_toml() {
        for seed in [0, 1, i64::MAX as u64, u64::MAX] {
            let mut s = Scenario::default();
            s.sim.seed = seed;
            let back = Scenario::from_toml_str(&s.to_toml_string()).unwrap();
            assert_eq!(back.sim.seed, seed);
        }
        let e = Scenario::from_toml_str("[sim]\nseed = \"lucky\"\n").unwrap_err().to_string();
        assert!(e.starts_with("sim.seed"), "{e}");
    }

    #[test]
    fn routing_defaults_by_topology() {
        let s = Scenario::from_toml_str("[topology]\ntype = \"fat_tree\"\n").unwrap();
        assert_eq!(s.routing, RoutingSpec::UpDown(UpDownSpec::default()));
        let s = Scenario::from_toml_str("[routing]\norder = [\"d1\", \"d0\", \"d2\"]\n").unwrap();
        assert!(matches!(&s.routing, RoutingSpec::DimensionOrder(d) if d.order.as_ref().unwrap()[0] == "d1"));
    }

    #[test]
    fn round_trips_through_toml() {
        let s = Scenario::from_toml_str("[topology]\nshape = [4, 4]\n").unwrap();
        let back = Scenario::from_toml_str(&s.to_toml_string()).unwrap();
        assert_eq!(s.to_toml_string(), back.to_toml_string());
        assert!(matches!(&back.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4]));
        assert!(s.to_toml_string().contains("type = \"torus\""), "{}", s.to_toml_string());
    }

    #[test]
    fn presets_sit_under_explicit_keys_in_any_order() {
        let mut a = Scenario::default();
        a.set("router.vcs", "4").unwrap();
        a.set("machine.preset", "\"bgq\"").unwrap();
        assert_eq!(a.router.vcs, 4, "explicit key wins over the preset");
        assert!(matches!(&a.topology, TopologySpec::Torus(t) if t.shape == vec![4, 4, 4, 4, 2]), "preset wins over defaults");
        let b = Scenario::from_toml_str("[machine]\npreset = \"bgq\"\n[router]\nvcs = 4\n").unwrap();
        assert_eq!(a.to_toml_string(), b.to_toml_string());
        let e = Scenario::from_toml_str("[machine]\npreset = \"cray\"\n").unwrap_err().to_string();
        assert!(e.starts_with("machine.preset") && e.contains("'cray'"), "{e}");
    }
}

/// Keys outside `[workload]` with no fixed default: (key, an example value, what unset means).
pub const OPTIONAL_KEYS: &[(&str, &str, &str)] = &[
    ("name", "\"my study\"", "a name for reports; unset: none"),
    ("machine.preset", "\"tofud\"", "start from a built-in machine; unset: none"),
    ("topology.wrap", "[true, true, true]", "rings per axis; unset: every axis of a torus wraps, none of a mesh"),
    ("topology.axes", "[\"X\", \"Y\", \"Z\"]", "axis names; unset: d0, d1, ..."),
    ("routing.order", "[\"X\", \"Y\", \"Z\"]", "dimension order (adaptive: of its escape sub-network); unset: axis order"),
    ("routing.zones", "[[\"d0\", \"d1\"], [\"d2\"]]", "(type = \"adaptive\") zone routing: axis sets routed in turn; unset: all axes at once"),
    ("router.class_buffer", "\"128B\"", "input buffer per class VC (class messages are cut to fit); unset: router.buffer"),
    ("nic.injection_engines", "4", "engines per node; unset: 1 (fat-tree: one per rail)"),
    ("nic.bandwidth", "\"5GB/s\"", "each engine's path to its router; unset: the link bandwidth"),
    ("nic.host_bandwidth", "\"15GB/s\"", "host-to-NIC bandwidth per node; unset: no limit"),
    ("nic.memory_bandwidth", "\"20GB/s\"", "memory bandwidth for data beyond the cache; unset: no limit"),
    ("packet.max_payload", "\"1920B\"", "largest payload per packet; unset: packet size minus header"),
    ("packaging.block", "[2, 2, 2]", "nodes per package along each axis (links leaving one are optical); unset: all links alike"),
    ("packaging.optical_latency", "\"50ns\"", "latency of optical links; unset: the link latency"),
    ("packaging.loopback_latency", "\"69ns\"", "latency of a ring's wrap link closed inside its block; unset: a board link"),
    ("packaging.loopback_axes", "[\"A\", \"B\"]", "axes whose wrap links close through a loopback; unset: every axis"),
    ("packaging.rack", "[2, 2, 8]", "nodes per rack along each axis: links between blocks become cables laid out on the floor; unset: no layout"),
    ("packaging.racks_per_row", "24", "racks per row on the floor; unset: a square room"),
    ("sim.warmup", "\"5us\"", "warm-up before the window; unset: a quarter of sim.duration"),
    ("sim.drain", "\"80us\"", "longest drain after the window; unset: 4 x sim.duration"),
    ("sim.tie_seed", "7", "seed of the shuffled event order; unset: sim.seed"),
    ("sim.max_memory", "\"8GB\"", "most memory a run may need; unset: the memory available"),
];

#[cfg(test)]
mod optional_keys_tests {
    use super::*;

    #[test]
    fn every_optional_key_is_listed_and_its_example_applies() {
        // Every `Option` field of the scenario's sections (this file holds them all; workload
        // keys live with their workload types) appears in the list.
        // (By name: the routing types share `order`. The routing's keys live in its crate.)
        let fields: std::collections::BTreeSet<&str> = [include_str!("scenario.rs"), include_str!("../../routing/src/spec.rs")]
            .iter()
            .flat_map(|text| text.lines())
            .filter_map(|l| l.trim_start().strip_prefix("pub ").filter(|l| l.contains(": Option<")))
            .map(|l| l.split(':').next().unwrap())
            .collect();
        let listed: std::collections::BTreeSet<&str> = OPTIONAL_KEYS.iter().map(|(k, _, _)| k.rsplit('.').next().unwrap()).collect();
        assert_eq!(fields, listed, "a new optional key needs a line in OPTIONAL_KEYS");
        for (key, example, _) in OPTIONAL_KEYS {
            let mut s = Scenario::default();
            // (Zones are a key of adaptive routing.)
            let pre = if *key == "routing.zones" { vec!["routing.type=adaptive".to_string()] } else { vec![] };
            s.apply_overrides(&pre.into_iter().chain([format!("{key}={example}")]).collect::<Vec<_>>()).unwrap_or_else(|e| panic!("{key}: {e}"));
            let leaf = key.rsplit('.').next().unwrap();
            assert!(s.to_toml_string().contains(&format!("{leaf} =")), "{key} does not show once set");
        }
        assert!(Scenario::default_toml_string().contains("# sim.warmup = "));
    }
}

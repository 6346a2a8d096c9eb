//! Collectives on a scenario's network: run an algorithm at a size, compare algorithms over
//! sizes (`fabricsim collective`), run a scenario's `collective` or `program` workload
//! ([`run_job`]).

pub use crate::applicable::{Selection, Skip};
use crate::Error;
use fabricsim_core::ConfigError;
use fabricsim_program::Collective;
use fabricsim_stats::PortReport;
use serde::Serialize;

mod compare;
mod output;
mod point;
mod run;
pub use compare::{compare, point_scenario, run_point, select, Comparison};
pub use output::{table, to_csv};
pub(crate) use run::{rank_mismatch, run_job_with};
pub use run::{run, run_in, run_job, run_program, run_program_in};

/// One collective run: an algorithm at one size.
#[derive(Debug, Clone, Serialize)]
pub struct CollectivePoint {
    pub op: &'static str,
    pub algorithm: String,
    /// One rank's buffer (see [`Collective`]).
    pub bytes: u64,
    pub ranks: u32,
    /// From the start until the last rank finished.
    pub time_ns: f64,
    /// When ranks finished: earliest, median, latest.
    pub rank_done_min_ns: f64,
    pub rank_done_median_ns: f64,
    pub rank_done_max_ns: f64,
    /// When each rank finished, in rank order (left out of the JSON, which gives the summary
    /// above; the Python package's `per_rank` frame shows it).
    #[serde(skip)]
    pub rank_done_ns: Vec<f64>,
    /// Each rank's program operations, times from the program's start: kept when the plan asks
    /// ([`Plan::op_log`](crate::plan::Plan::op_log), for `run --perfetto`), left out of the JSON.
    #[serde(skip)]
    pub ops: Vec<fabricsim_program::OpSlice>,
    /// `bytes / time`.
    pub algbw_gb_per_s: f64,
    /// Algorithm bandwidth times the operation's bus factor (`None` for a barrier).
    pub busbw_gb_per_s: Option<f64>,
    pub messages: u64,
    pub message_bytes: u64,
    pub events: u64,
    /// Seconds the run took on this machine (left out of a run report, which has its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wall_s: Option<f64>,
    /// Per-port counters over the whole run, when asked for (`fabricsim collective --ports`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<PortReport>,
    /// Queue counters (`fabricsim collective --queues`): Little's-law waits, queued packets and
    /// the longest queue over the run (with `--ports`, each port's queue fields too).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queues: Option<crate::queues::QueueSummary>,
    /// The barrier gates the run's group 0 used (Tofu barrier hardware).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gates: Option<GateUse>,
    /// The class route the run's group 0 used (Blue Gene/Q collective hardware).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_route: Option<ClassRouteUse>,
    /// The switch-barrier tree of the run's group 0 and what its packets did (Dawning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub switch_barrier: Option<SwitchBarrierUse>,
    /// Flit multiplexing of the links' VCs, when on (`router.flit_size`): transmissions
    /// suspended for a higher priority during the point's run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flits: Option<fabricsim_network::FlitCounts>,
    /// The point's resolved scenario and this build (points of `fabricsim collective`; a run
    /// report has its own).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<crate::report::Provenance>,
    /// A GOAL trace's replay: time computing and communicating, the critical path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::TraceReport>,
}

/// A group's Dawning switch-barrier tree, and the barrier packets of the run (see
/// `fabricsim_network::switch_barrier`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SwitchBarrierUse {
    /// Switches in the tree, and the root's level (1: the members' leaf switch).
    pub switches: u32,
    pub root_level: u32,
    /// Barrier packets sent, lost, arrives resent, urges.
    pub packets: u64,
    pub lost: u64,
    pub resent: u64,
    pub urges: u64,
}

/// A group's Blue Gene/Q class route (see `fabricsim_network::class_routes`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ClassRouteUse {
    pub nodes: u32,
    /// The root's node.
    pub root: u32,
    /// Links from the deepest node to the root.
    pub depth: u32,
}

/// What a group's Tofu barrier wiring takes (see `fabricsim_network::gates`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GateUse {
    pub algorithm: fabricsim_network::gates::GateAlgorithm,
    /// TNIs with the group's gates, over all nodes.
    pub tnis: u32,
    pub max_channels_per_tni: u32,
    pub max_gates_per_tni: u32,
    /// Gate-to-gate signals on the longest path from a start to an end.
    pub stages: u32,
    /// Whether every contribution reaches every member exactly once.
    pub exact: bool,
}

impl GateUse {
    pub fn of(w: &fabricsim_network::gates::Wiring) -> Self {
        GateUse {
            algorithm: w.algorithm,
            tnis: w.tnis.len() as u32,
            max_channels_per_tni: w.channels_per_tni().into_iter().max().unwrap_or(0),
            max_gates_per_tni: w.max_gates_per_tni(),
            stages: w.stages(),
            exact: w.exact,
        }
    }
}

/// The collective named by `--op`.
pub fn parse_op(s: &str) -> Result<Collective, Error> {
    Collective::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
        ConfigError::new("--op", format!("'{s}' is not a collective (known: {})", all.join(", "))).into()
    })
}

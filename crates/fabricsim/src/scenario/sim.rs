//! `[sim]`: seed, run lengths, the event order and threads.

use fabricsim_core::{Bytes, Time};
use serde::{Deserialize, Serialize};

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

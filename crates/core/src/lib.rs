//! Shared vocabulary of fabricsim: typed units, compact ids, errors and seeded random streams.
//!
//! This crate depends on nothing else in the workspace. Every other layer speaks in these types:
//! [`Time`] (integer picoseconds), [`Bytes`], [`Bandwidth`] (bytes per second), parsed once from
//! strings such as `"40ns"`, `"512B"` and `"6.8GB/s"`.

pub mod error;
pub mod fastdiv;
pub mod huge_pages;
pub mod ids;
pub mod prefetch;
pub mod rng;
pub mod units;

pub use error::{ConfigError, SimError};
pub use fastdiv::FastDiv;
pub use ids::{NodeId, PortId, RouterId};
pub use prefetch::prefetch;
pub use rng::RngStreams;
pub use units::{Bandwidth, Bytes, Time};

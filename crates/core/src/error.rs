//! Error types. Configuration errors name the field and the offending value so the CLI can print
//! one line and exit with code 2; simulation errors describe a run that went wrong.

use thiserror::Error;

/// A problem with user input: a scenario key, a unit string, a shape or a routing choice.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{field}: {message}")]
pub struct ConfigError {
    /// Dotted path of the offending field, e.g. `topology.shape`.
    pub field: String,
    /// What is wrong, including the offending value.
    pub message: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { field: field.into(), message: message.into() }
    }
}

/// A simulation that could not complete correctly.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    #[error("deadlock: {buffered} packets buffered but nothing moved for {idle_ns} ns; stuck ports: {ports}")]
    Deadlock { buffered: u64, idle_ns: u64, ports: String },
    #[error("conservation violated: injected {injected}, delivered {delivered}, in flight {in_flight}")]
    Conservation { injected: u64, delivered: u64, in_flight: u64 },
    #[error("packet {packet} of node {src} delivered twice")]
    DuplicateDelivery { src: u32, packet: u32 },
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A run was stepped out of order (stepped before it started, started twice, or stepped
    /// after it ended).
    #[error("{0}")]
    Usage(&'static str),
}

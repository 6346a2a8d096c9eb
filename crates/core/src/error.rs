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
    /// An error about the field at dotted path `field`, saying `message`.
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { field: field.into(), message: message.into() }
    }
}

/// A simulation that could not complete correctly.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SimError {
    /// Nothing moved for longer than the watchdog allows while packets were still buffered in
    /// the network (or messages still waiting in NICs).
    #[error("deadlock: {buffered} packets buffered but nothing moved for {idle_ns} ns; stuck ports: {ports}")]
    Deadlock {
        /// Packets in the network (injected, not yet delivered) when the watchdog fired.
        buffered: u64,
        /// Time since the last packet moved, in whole nanoseconds.
        idle_ns: u64,
        /// Human-readable list of the stuck queues (router, port, VC and the output each waits
        /// for; at most eight, then `...`), or the count of messages waiting in NICs.
        ports: String,
    },
    /// At the end of a run, injected packets did not equal delivered plus in-flight ones (the
    /// simulator lost or invented a packet).
    #[error("conservation violated: injected {injected}, delivered {delivered}, in flight {in_flight}")]
    Conservation {
        /// Packets injected into the network over the whole run.
        injected: u64,
        /// Packets delivered to their destination over the whole run.
        delivered: u64,
        /// Packets still alive in the simulator at the end.
        in_flight: u64,
    },
    /// The same packet reached its destination twice.
    #[error("packet {packet} of node {src} delivered twice")]
    DuplicateDelivery {
        /// Node id of the packet's source.
        src: u32,
        /// The packet's sequence number at its source (packets the source created before it).
        packet: u32,
    },
    /// A faulty link can never carry a packet that waits for it (down for good, or failing
    /// every attempt), and nothing routes around it.
    #[error("link failed: {0}")]
    LinkFailed(String),
    /// Failed links or nodes cut source-destination pairs off from each other (under the
    /// routing in use), and a workload that waits for their messages cannot finish.
    #[error("disconnected: {0}")]
    Disconnected(String),
    /// Whatever watched the run could not go on (a file it wrote as the run went failed),
    /// and stopped it.
    #[error("{0}")]
    Observer(String),
    /// The scenario was invalid; found while building or running the simulation.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A run was stepped out of order (stepped before it started, started twice, or stepped
    /// after it ended).
    #[error("{0}")]
    Usage(&'static str),
}

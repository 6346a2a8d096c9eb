//! Statistics: latency histograms and per-port counters, and the serialisable summaries the
//! CLI prints as JSON. The network layer records into these; nothing here knows how a network
//! works.

pub mod credit_waits;
pub mod histogram;
pub mod observer;
pub mod ports;
pub mod queues;
pub mod series;
pub mod stream;

pub use credit_waits::CreditWaits;
pub use histogram::{LatencyBucket, LatencyHistogram, LatencySummary};
pub use observer::Observer;
pub use ports::{PortCounters, PortReport};
pub use queues::{QueueCounters, QueueMeter, QueueReport};
pub use series::PortSeries;
pub use stream::{PortCount, SeriesSink, StreamSeries};

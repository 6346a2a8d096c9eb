//! The facade's integration tests, one module per behaviour (one test binary).

mod behaviour;
mod collectives;
mod credit_stalls;
mod golden;
mod jobs;
mod queue_latency;
mod queues;
mod ranks;
mod run_path;
mod series_files;
mod series_streams;
mod tie_order;
mod traces;

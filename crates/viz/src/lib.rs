//! Pictures of fabricsim's own JSON outputs, read back from files as a user has them:
//!
//! - plots (PNG or SVG, by the output file's extension): latency-load curves of `sweep`
//!   outputs ([`sweep_plot`]), algorithm comparison bars of `collective` outputs
//!   ([`collective_plot`]), a link-utilisation heat map of a torus plane from a run's port
//!   counters ([`heatmap`]) and the utilisation over time of the busiest links from a series
//!   ([`timeline`]);
//! - a self-contained HTML page that plays a run's link utilisation over time, one run or two
//!   side by side ([`view`]).
//!
//! (Perfetto traces are written by the library as the run goes: `fabricsim::perfetto`.)
//!
//! Text is drawn with a small font built into the crate (`fonts/`), so plots need no system
//! font library; PNG files are encoded with the `png` crate.
//!
//! Every reader names the file and the value it could not use: a [`Error::Config`] (exit code 2
//! in the command line).

// Field names say what the fields are (they mirror the JSON keys read); the types carry docs.
#![allow(missing_docs)]

pub mod collective_plot;
pub mod colour;
pub mod heatmap;
pub mod input;
pub mod render;
pub mod sweep_plot;
pub mod timeline;
pub mod view;

use fabricsim_core::ConfigError;

/// What went wrong while reading data or writing a picture.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Bad input: a file that is not what the command reads, an unknown axis, a bad option.
    Config(ConfigError),
    /// A file could not be read or written.
    Io(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Config(e) => write!(f, "{e}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Self {
        Error::Config(e)
    }
}

/// A bad-input error about `field` (an option or a file), saying `message`.
pub(crate) fn bad(field: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Config(ConfigError::new(field, message))
}

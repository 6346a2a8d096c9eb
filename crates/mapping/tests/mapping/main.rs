//! Integration tests of the mapping crate, one module per behaviour.

mod embed;
mod formats;
mod objective;
mod tuners;

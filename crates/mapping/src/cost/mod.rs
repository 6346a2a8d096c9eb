//! What a map costs: [`hop_bytes`] (every flow's bytes times the hops between its ranks' nodes)
//! and [`link_load`] (the bytes each link carries under the machine's own routing).

pub mod hop_bytes;
pub mod link_load;

pub use hop_bytes::hop_bytes;
pub use link_load::{link_loads, LinkLoads};

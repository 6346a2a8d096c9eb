//! Compact integer ids. Everything in the hot path is indexed by `u32` so per-node data fits in
//! flat arrays even at 160k nodes.

/// A compute node (an endpoint with a network interface).
pub type NodeId = u32;
/// A router or switch.
pub type RouterId = u32;
/// A global port id: `port_offset[router] + local_port`.
pub type PortId = u32;

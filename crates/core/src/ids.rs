//! Compact ids. Everything in the hot path is indexed by a `u32` so per-node data fits in flat
//! arrays even at 160k nodes; where an id crosses a module boundary it travels as a newtype, so a
//! port cannot be passed where a node is expected. Each is `#[repr(transparent)]` over `u32`:
//! free at run time, and `.index()` gives the `usize` to index a flat array with.

/// Declares a `u32` id newtype with the conversions every id needs (used here and by the crates
/// that own an id of their own, such as the NIC layer's rank).
#[macro_export]
macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a `usize`, to index a flat array.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            /// The id as its raw `u32`.
            #[inline(always)]
            pub const fn get(self) -> u32 {
                self.0
            }
        }

        impl From<u32> for $name {
            #[inline(always)]
            fn from(v: u32) -> Self {
                Self(v)
            }
        }

        impl From<$name> for u32 {
            #[inline(always)]
            fn from(v: $name) -> u32 {
                v.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

id_type!(
    /// A compute node (an endpoint with a network interface).
    NodeId
);
id_type!(
    /// A router or switch.
    RouterId
);
id_type!(
    /// A global port id: `port_offset[router] + local_port`.
    PortId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_convert_and_order_as_their_numbers() {
        let a = NodeId::from(7);
        assert_eq!(a.index(), 7);
        assert_eq!(u32::from(a), 7);
        assert_eq!(a.to_string(), "7");
        assert!(NodeId(3) < a);
        assert_eq!(std::mem::size_of::<PortId>(), 4);
    }
}

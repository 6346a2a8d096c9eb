//! Packet formats: how many bytes a packet occupies on the wire for a given payload.
//!
//! `wire(p) = align_up(p, payload_align) + header + trailer + lanes * lane_framing + link_overhead`
//!
//! * `header`, `trailer`: bytes carried once per packet (a transport header, a check trailer);
//! * `lane_framing`: bytes repeated on every lane of a link when a frame is split across lanes
//!   (preamble, a copy of the routing header, control words, frame check, inter-frame gap);
//! * `link_overhead`: other link-protocol bytes per packet (acknowledgements, tokens);
//! * `payload_align`: payload granularity (BG/Q sends payload in 32-byte chunks).

use fabricsim_core::ConfigError;

/// Largest packet on the wire (16 MiB): keeps per-packet arithmetic in range.
pub const MAX_WIRE: u32 = 16 << 20;

/// How a packet's payload maps to bytes on the wire (see the module docs). All sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketFormat {
    /// Largest payload of one packet; messages are cut into packets of at most this. A
    /// multiple of `payload_align`.
    pub max_payload: u32,
    /// Payload granularity: a payload is padded up to a multiple of it (1: no padding).
    pub payload_align: u32,
    /// Bytes carried once per packet ahead of the payload.
    pub header: u32,
    /// Bytes carried once per packet after the payload.
    pub trailer: u32,
    /// Lanes a link splits a frame across (1 to 16); `lane_framing` is paid on each.
    pub lanes: u32,
    /// Framing bytes repeated on every lane.
    pub lane_framing: u32,
    /// Other link-protocol bytes per packet.
    pub link_overhead: u32,
}

impl PacketFormat {
    /// A plain format: `header` bytes then up to `max_payload` bytes.
    pub fn simple(max_payload: u32, header: u32) -> Self {
        PacketFormat { max_payload, payload_align: 1, header, trailer: 0, lanes: 1, lane_framing: 0, link_overhead: 0 }
    }

    /// Bytes on the wire for a packet carrying `payload` bytes.
    #[inline]
    pub fn wire(&self, payload: u32) -> u32 {
        let a = self.payload_align.max(1);
        let padded = if a == 1 { payload } else { payload.div_ceil(a) * a };
        padded + self.header + self.trailer + self.lanes * self.lane_framing + self.link_overhead
    }

    /// Wire bytes of a message of `bytes` payload, cut into packets of at most `max_payload`.
    pub fn message_wire(&self, bytes: u64) -> u64 {
        let full = bytes / self.max_payload as u64;
        let rest = (bytes % self.max_payload as u64) as u32;
        full * self.max_wire() as u64 + if rest > 0 { self.wire(rest) as u64 } else { 0 }
    }

    /// The largest packet on the wire.
    pub fn max_wire(&self) -> u32 {
        self.wire(self.max_payload)
    }

    /// The largest payload (at most `max_payload`, a whole number of alignment units) whose
    /// packet fits in `bytes` on the wire; `None` when not even a one-byte payload does.
    pub fn largest_payload_within(&self, bytes: u32) -> Option<u32> {
        if self.wire(self.max_payload) <= bytes {
            return Some(self.max_payload);
        }
        let a = self.payload_align.max(1);
        let units = bytes.checked_sub(self.wire(0))? / a;
        if units == 0 {
            return (self.wire(1) <= bytes).then_some(1);
        }
        Some(units * a)
    }

    /// Payload fraction of a full packet.
    pub fn efficiency(&self) -> f64 {
        self.max_payload as f64 / self.max_wire() as f64
    }

    /// Check the format's limits: a positive `max_payload` that `payload_align` divides, 1 to 16
    /// lanes, and a full packet of at most [`MAX_WIRE`] bytes; the error names the scenario key
    /// at fault.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_payload == 0 {
            return Err(ConfigError::new("packet.max_payload", "must be positive"));
        }
        if self.lanes == 0 || self.lanes > 16 {
            return Err(ConfigError::new("packet.lanes", format!("{} must be between 1 and 16", self.lanes)));
        }
        let wire = self.max_payload as u64
            + self.header as u64
            + self.trailer as u64
            + self.lanes as u64 * self.lane_framing as u64
            + self.link_overhead as u64;
        if wire > MAX_WIRE as u64 {
            return Err(ConfigError::new("packet.max_payload", format!("a full packet of {wire}B exceeds the {MAX_WIRE}B limit")));
        }
        if self.payload_align == 0 || !self.max_payload.is_multiple_of(self.payload_align) {
            return Err(ConfigError::new(
                "packet.payload_align",
                format!("{} must be positive and divide packet.max_payload = {}", self.payload_align, self.max_payload),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bgq_format_gives_its_published_ceiling() {
        // 32 B header, 512 B payload in 32 B chunks, 8 B trailer, plus ~17 B of link protocol.
        let f = PacketFormat { max_payload: 512, payload_align: 32, header: 32, trailer: 8, lanes: 1, lane_framing: 0, link_overhead: 17 };
        assert_eq!(f.wire(8), 32 + 32 + 8 + 17);
        assert_eq!(f.wire(512), 569);
        assert!((f.efficiency() - 0.90).abs() < 0.001);
    }

    #[test]
    fn largest_payload_within_a_buffer() {
        let f = PacketFormat { max_payload: 512, payload_align: 32, header: 32, trailer: 8, lanes: 1, lane_framing: 0, link_overhead: 17 };
        // 57 B of overhead; payload in 32 B units.
        assert_eq!(f.largest_payload_within(4096), Some(512));
        assert_eq!(f.largest_payload_within(128), Some(64));
        assert_eq!(f.wire(64), 121);
        assert_eq!(f.largest_payload_within(89), Some(32));
        // Below one unit: a one-byte payload is padded to a whole unit.
        assert_eq!(f.largest_payload_within(88), None);
        assert_eq!(PacketFormat::simple(256, 16).largest_payload_within(17), Some(1));
        assert_eq!(PacketFormat::simple(256, 16).largest_payload_within(16), None);
    }

    #[test]
    fn split_lanes_repeat_framing() {
        let f = PacketFormat { max_payload: 1920, payload_align: 16, header: 32, trailer: 0, lanes: 2, lane_framing: 52, link_overhead: 0 };
        assert_eq!(f.max_wire(), 1920 + 32 + 104);
        assert!(f.validate().is_ok());
        let bad = PacketFormat { payload_align: 7, ..f };
        assert_eq!(bad.validate().unwrap_err().field, "packet.payload_align");
    }
}

//! The range each physical parameter of a scenario may take: wide enough for any machine the
//! simulator models (from 1990s links to beyond today's), narrow enough that a typo (`1B/s`,
//! `1000000TB/s`, a latency of seconds) is refused by name instead of simulated. Checked by
//! [`crate::Plan::new`] on the resolved scenario (preset and overrides applied); a value outside
//! gives exit code 2 naming the key, the value and the range.

use crate::scenario::Scenario;
use crate::Error;
use fabricsim_core::{Bandwidth, Bytes, ConfigError, Time};

/// What a key holds, and its range (inclusive).
#[derive(Debug, Clone, Copy)]
pub enum Range {
    Bandwidth(Bandwidth, Bandwidth),
    Time(Time, Time),
    Bytes(Bytes, Bytes),
    /// A plain number (metres).
    Number(f64, f64),
}

const MB_S: u64 = 1_000_000;
const TB_S: u64 = 1_000_000_000_000;
const NS: u64 = 1_000;
const MS: u64 = 1_000_000_000;
const KIB: u64 = 1024;

/// Links and NIC paths: 1 MB/s to 10 TB/s.
const BANDWIDTH: Range = Range::Bandwidth(Bandwidth(MB_S), Bandwidth(10 * TB_S));
/// A delay on a path (a link, a router, a NIC, a gate): 0 to 1 ms.
const DELAY: Range = Range::Time(Time(0), Time(MS));
/// Headers and framing: 0 to 64 KiB.
const FRAMING: Range = Range::Bytes(Bytes(0), Bytes(64 * KIB));
/// Buffers: 1 B to 1 GiB.
const BUFFER: Range = Range::Bytes(Bytes(1), Bytes(1 << 30));
/// Packets: 1 B to 1 MiB.
const PACKET: Range = Range::Bytes(Bytes(1), Bytes(1 << 20));
/// Distances on a machine-room floor: 0 to 1000 m.
const METRES: Range = Range::Number(0.0, 1000.0);

/// Every physical parameter with its range.
pub const RANGES: &[(&str, Range)] = &[
    ("topology.link_bandwidth", BANDWIDTH),
    ("nic.bandwidth", BANDWIDTH),
    ("nic.host_bandwidth", BANDWIDTH),
    ("nic.memory_bandwidth", BANDWIDTH),
    ("topology.link_latency", DELAY),
    ("router.delay", DELAY),
    ("nic.latency", DELAY),
    ("nic.tx_overhead", DELAY),
    ("nic.rx_overhead", DELAY),
    ("nic.descriptor_fetch", DELAY),
    ("nic.memory_write", DELAY),
    ("nic.far_cmg_penalty", DELAY),
    ("nic.software_overhead", DELAY),
    ("nic.poll_overhead", DELAY),
    ("nic.gpu_tx_overhead", DELAY),
    ("nic.gpu_packet_overhead", DELAY),
    ("packaging.optical_latency", DELAY),
    ("packaging.loopback_latency", DELAY),
    ("packaging.cable_delay", Range::Time(Time(0), Time(1000 * NS))),
    ("hardware.channel_serial", DELAY),
    ("hardware.channel_overlap", DELAY),
    ("hardware.relay", DELAY),
    ("hardware.up_delay", DELAY),
    ("hardware.down_delay", DELAY),
    ("hardware.float_up_delay", DELAY),
    ("hardware.float_down_delay", DELAY),
    ("hardware.barrier_up_delay", DELAY),
    ("hardware.barrier_down_delay", DELAY),
    ("hardware.barrier.delay", DELAY),
    ("hardware.multicast.copy_delay", DELAY),
    ("hardware.multicast.grant_delay", DELAY),
    ("router.buffer", BUFFER),
    ("router.class_buffer", BUFFER),
    ("nic.cache_size", Range::Bytes(Bytes(0), Bytes(1 << 40))),
    ("packet.max_payload", PACKET),
    ("packet.payload_align", Range::Bytes(Bytes(1), Bytes(64 * KIB))),
    ("packet.header", FRAMING),
    ("packet.trailer", FRAMING),
    ("packet.lane_framing", FRAMING),
    ("packet.link_overhead", FRAMING),
    ("workload.packet_size", PACKET),
    ("workload.iteration_overhead", DELAY),
    ("packaging.rack_pitch_m", METRES),
    ("packaging.row_pitch_m", METRES),
    ("packaging.cable_slack_m", METRES),
];

impl Range {
    /// Whether `text` (as the scenario writes it) is in range; `Err` names the range.
    fn check(&self, v: &toml::Value) -> Result<(), String> {
        let (ok, range) = match (self, v) {
            (Range::Bandwidth(lo, hi), toml::Value::String(t)) => {
                let b = Bandwidth::parse(t)?;
                (b >= *lo && b <= *hi, format!("{} to {}", gb(*lo), gb(*hi)))
            }
            (Range::Time(lo, hi), toml::Value::String(t)) => {
                let x = Time::parse(t)?;
                (x >= *lo && x <= *hi, format!("{lo} to {hi}"))
            }
            (Range::Bytes(lo, hi), toml::Value::String(t)) => {
                let x = Bytes::parse(t)?;
                (x >= *lo && x <= *hi, format!("{} to {}", size(*lo), size(*hi)))
            }
            (Range::Number(lo, hi), toml::Value::Float(_) | toml::Value::Integer(_)) => {
                let x = v.as_float().or_else(|| v.as_integer().map(|i| i as f64)).unwrap_or(f64::NAN);
                (x >= *lo && x <= *hi, format!("{lo} to {hi}"))
            }
            // Of another type: the scenario's own parsing names it.
            _ => return Ok(()),
        };
        if ok {
            Ok(())
        } else {
            Err(range)
        }
    }
}

/// A bandwidth as the range prints it: `1MB/s`, `10TB/s`.
fn gb(b: Bandwidth) -> String {
    let x = b.bytes_per_sec();
    if x >= TB_S {
        format!("{}TB/s", x / TB_S)
    } else {
        format!("{}MB/s", x / MB_S)
    }
}

/// A size as the range prints it: `64KiB`, `1GiB`, `1B`.
fn size(b: Bytes) -> String {
    let x = b.get();
    match [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")].into_iter().find(|(s, _)| x > 0 && x.is_multiple_of(1 << s)) {
        Some((s, unit)) => format!("{}{unit}", x >> s),
        None => format!("{x}B"),
    }
}

/// The value at dotted `path` of `root`.
fn lookup<'a>(root: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    path.split('.').try_fold(root, |v, k| v.get(k))
}

/// Refuse a physical parameter outside its range, naming the key, the value and the range.
pub fn check(s: &Scenario) -> Result<(), Error> {
    let mut root = toml::Value::try_from(s).map_err(|e| ConfigError::new("scenario", e.to_string()))?;
    crate::tagged::to_user_form(&mut root);
    for (key, range) in RANGES {
        let Some(v) = lookup(&root, key) else { continue };
        if let Err(why) = range.check(v) {
            let shown = match (range, v.as_str().map(Bandwidth::parse)) {
                // A rate too small to show in GB/s, in bytes per second.
                (Range::Bandwidth(..), Some(Ok(b))) if b.bytes_per_sec() < MB_S => format!("{}B/s", b.bytes_per_sec()),
                _ => v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()),
            };
            return Err(ConfigError::new(*key, format!("{shown} is outside the range {why} (see fabricsim::ranges)")).into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_outside_their_range_are_named_with_the_range() {
        let mut s = Scenario::default();
        check(&s).unwrap();
        for (key, value, range) in [
            ("topology.link_bandwidth", "1B/s", "1MB/s to 10TB/s"),
            ("topology.link_bandwidth", "1000000TB/s", "1MB/s to 10TB/s"),
            ("router.delay", "2ms", "0ns to 1ms"),
            ("router.buffer", "2GiB", "1B to 1GiB"),
            ("packaging.rack_pitch_m", "5000.0", "0 to 1000"),
        ] {
            s.set(key, value).unwrap();
            let e = check(&s).unwrap_err().to_string();
            assert!(e.starts_with(key) && e.contains(range), "{key}={value}: {e}");
            s = Scenario::default();
        }
        // Every built-in machine is inside every range.
        for (name, _, _) in crate::presets::PRESETS {
            let mut p = Scenario::default();
            p.set("machine.preset", name).unwrap();
            check(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

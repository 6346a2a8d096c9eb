//! Typed units, parsed once from human strings.
//!
//! * [`Time`]: integer picoseconds. Accepts `ps`, `ns`, `us` (or `µs`), `ms`, `s`: `"40ns"`,
//!   `"1.5us"`. A unit is required.
//! * [`Bytes`]: integer bytes. Accepts a bare integer or `B`, `KB`/`MB`/`GB` (powers of 1000) and
//!   `KiB`/`MiB`/`GiB` (powers of 1024): `"512B"`, `"4KiB"`.
//! * [`Bandwidth`]: integer bytes per second. Accepts `B/s`, `KB/s`, `MB/s`, `GB/s`, `TB/s`
//!   (powers of 1000) and bit rates `b/s`, `Kb/s`, `Mb/s`, `Gb/s` (divided by 8): `"6.8GB/s"`,
//!   `"13Gb/s"`.
//!
//! Serialisation time is computed with integer arithmetic ([`Bandwidth::serialization`]) and
//! rounded up to the next picosecond, so closed-form checks in tests are exact.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// Picoseconds per nanosecond.
pub const PS_PER_NS: u64 = 1_000;

/// Simulated time or a duration, in integer picoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

impl Time {
    /// Time zero: the start of a simulation, or an empty duration.
    pub const ZERO: Time = Time(0);
    /// The largest representable time (`u64::MAX` ps), e.g. for "never".
    pub const MAX: Time = Time(u64::MAX);

    /// `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        Time(ps)
    }
    /// `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Self {
        Time(ns * PS_PER_NS)
    }
    /// `us` microseconds.
    pub const fn from_us(us: u64) -> Self {
        Time(us * 1_000_000)
    }
    /// The time in integer picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// The time in nanoseconds, with a fractional part.
    pub fn as_ns_f64(self) -> f64 {
        self.0 as f64 / PS_PER_NS as f64
    }
    /// The time in seconds, with a fractional part.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    /// `self - other`, or zero if `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }

    /// Parse `"40ns"`, `"1.5us"`, `"20us"`, `"100ps"`, `"1ms"`, `"0.5s"`.
    pub fn parse(s: &str) -> Result<Time, String> {
        let (num, unit) = split_number(s)?;
        let scale = match unit {
            "ps" => 1.0,
            "ns" => 1e3,
            "us" | "µs" => 1e6,
            "ms" => 1e9,
            "s" => 1e12,
            "" => return Err(format!("'{s}' has no time unit (use ps, ns, us, ms or s)")),
            other => return Err(format!("'{s}' has unknown time unit '{other}' (use ps, ns, us, ms or s)")),
        };
        let t = to_integer(num * scale, s)?;
        // Bounded so that sums of a few user times can never overflow u64 picoseconds.
        if t > MAX_TIME_PS {
            return Err(format!("'{s}' is out of range (at most 1000000s)"));
        }
        Ok(Time(t))
    }
}

/// Largest time a scenario may give: 10^6 s in picoseconds.
pub const MAX_TIME_PS: u64 = 1_000_000_000_000_000_000;

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps == 0 {
            write!(f, "0ns")
        } else if ps.is_multiple_of(1_000_000_000) {
            write!(f, "{}ms", ps / 1_000_000_000)
        } else if ps.is_multiple_of(1_000_000) {
            write!(f, "{}us", ps / 1_000_000)
        } else if ps.is_multiple_of(1_000) {
            write!(f, "{}ns", ps / 1_000)
        } else {
            write!(f, "{ps}ps")
        }
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl Mul<u64> for Time {
    type Output = Time;
    fn mul(self, k: u64) -> Time {
        Time(self.0 * k)
    }
}

/// A size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bytes(pub u64);

impl Bytes {
    /// The size in bytes.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Parse `"512"`, `"512B"`, `"4KB"` (4000), `"4KiB"` (4096), `"1MiB"`.
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (num, unit) = split_number(s)?;
        let scale = match unit {
            "" | "B" => 1.0,
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            other => return Err(format!("'{s}' has unknown size unit '{other}' (use B, KB, MB, GB, KiB, MiB, GiB)")),
        };
        to_integer(num * scale, s).map(Bytes)
    }
}

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A data rate in bytes per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bandwidth(pub u64);

impl Bandwidth {
    /// The rate in bytes per second.
    pub const fn bytes_per_sec(self) -> u64 {
        self.0
    }
    /// The rate in GB/s (10^9 bytes per second), with a fractional part.
    pub fn as_gb_per_s(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// Bytes per nanosecond (= GB/s).
    pub fn bytes_per_ns(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Time to push `bytes` through this rate, rounded up to the next picosecond.
    #[inline]
    pub fn serialization(self, bytes: u64) -> Time {
        // 2^24 bytes x 10^12 still fits u64: packets take the cheaper 64-bit division.
        if bytes < (1 << 24) {
            return Time((bytes * 1_000_000_000_000).div_ceil(self.0));
        }
        let num = bytes as u128 * 1_000_000_000_000u128;
        Time(num.div_ceil(self.0 as u128) as u64)
    }

    /// Parse `"6.8GB/s"`, `"500MB/s"`, `"13Gb/s"`.
    pub fn parse(s: &str) -> Result<Bandwidth, String> {
        let (num, unit) = split_number(s)?;
        let scale = match unit {
            "B/s" => 1.0,
            "KB/s" | "kB/s" => 1e3,
            "MB/s" => 1e6,
            "GB/s" => 1e9,
            "TB/s" => 1e12,
            "b/s" => 1.0 / 8.0,
            "Kb/s" | "kb/s" => 1e3 / 8.0,
            "Mb/s" => 1e6 / 8.0,
            "Gb/s" => 1e9 / 8.0,
            "Tb/s" => 1e12 / 8.0,
            other => return Err(format!("'{s}' has unknown bandwidth unit '{other}' (use B/s, KB/s, MB/s, GB/s, TB/s or b/s, Mb/s, Gb/s)")),
        };
        let v = to_integer(num * scale, s)?;
        if v == 0 {
            return Err(format!("'{s}' is not a positive bandwidth"));
        }
        Ok(Bandwidth(v))
    }
}

impl fmt::Display for Bandwidth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}GB/s", self.0 as f64 / 1e9)
    }
}

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let t = s.trim();
    let end = t.char_indices().find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_')).map(|(i, _)| i).unwrap_or(t.len());
    let (n, u) = t.split_at(end);
    if n.is_empty() {
        return Err(format!("'{s}' does not start with a number"));
    }
    let num: f64 = n.replace('_', "").parse().map_err(|_| format!("'{s}' has a malformed number '{n}'"))?;
    Ok((num, u.trim()))
}

fn to_integer(v: f64, s: &str) -> Result<u64, String> {
    if !v.is_finite() || v < 0.0 || v > u64::MAX as f64 {
        return Err(format!("'{s}' is out of range"));
    }
    let r = v.round();
    if (v - r).abs() > 1e-6 * v.max(1.0) {
        return Err(format!("'{s}' is not a whole number of the base unit"));
    }
    Ok(r as u64)
}

macro_rules! serde_as_string {
    ($t:ty, $what:expr) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> de::Visitor<'de> for V {
                    type Value = $t;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "{}", $what)
                    }
                    fn visit_str<E: de::Error>(self, v: &str) -> Result<$t, E> {
                        <$t>::parse(v).map_err(E::custom)
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$t, E> {
                        <$t>::parse(&v.to_string()).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$t, E> {
                        if v < 0 {
                            return Err(E::custom(format!("{v} is negative")));
                        }
                        self.visit_u64(v as u64)
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}
serde_as_string!(Time, "a time such as \"40ns\"");
serde_as_string!(Bytes, "a size such as \"512B\"");
serde_as_string!(Bandwidth, "a bandwidth such as \"6.8GB/s\"");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_times() {
        assert_eq!(Time::parse("40ns").unwrap(), Time(40_000));
        assert_eq!(Time::parse("1.5us").unwrap(), Time(1_500_000));
        assert_eq!(Time::parse(" 20 us").unwrap(), Time(20_000_000));
        assert_eq!(Time::parse("7ps").unwrap(), Time(7));
        assert!(Time::parse("40").unwrap_err().contains("no time unit"));
        assert!(Time::parse("40parsecs").unwrap_err().contains("parsecs"));
        assert!(Time::parse("0.5ps").is_err());
    }

    #[test]
    fn parses_sizes_and_rates() {
        assert_eq!(Bytes::parse("512B").unwrap(), Bytes(512));
        assert_eq!(Bytes::parse("4KiB").unwrap(), Bytes(4096));
        assert_eq!(Bytes::parse("1MB").unwrap(), Bytes(1_000_000));
        assert_eq!(Bandwidth::parse("6.8GB/s").unwrap(), Bandwidth(6_800_000_000));
        assert_eq!(Bandwidth::parse("13Gb/s").unwrap(), Bandwidth(1_625_000_000));
        assert!(Bandwidth::parse("0GB/s").is_err());
        assert!(Bandwidth::parse("5GHz").unwrap_err().contains("GHz"));
    }

    #[test]
    fn serialization_rounds_up() {
        let bw = Bandwidth::parse("5GB/s").unwrap();
        assert_eq!(bw.serialization(512), Time(102_400));
        let bw3 = Bandwidth(3);
        assert_eq!(bw3.serialization(1), Time(333_333_333_334));
    }

    #[test]
    fn display_round_trips() {
        for s in ["40ns", "1500ps", "20us", "3ms"] {
            let t = Time::parse(s).unwrap();
            assert_eq!(Time::parse(&t.to_string()).unwrap(), t);
        }
    }

    #[test]
    fn serde_accepts_strings_and_integers() {
        let t: Time = serde_json::from_str("\"25ns\"").unwrap();
        assert_eq!(t, Time(25_000));
        let b: Bytes = serde_json::from_str("64").unwrap();
        assert_eq!(b, Bytes(64));
        let e = serde_json::from_str::<Time>("64").unwrap_err().to_string();
        assert!(e.contains("no time unit"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn serialization_is_monotone(a in 0u64..1_000_000, b in 0u64..1_000_000, bw in 1u64..100_000_000_000) {
            let bw = Bandwidth(bw);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            proptest::prop_assert!(bw.serialization(lo) <= bw.serialization(hi));
        }
    }
}

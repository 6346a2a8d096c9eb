//! A series written as CSV (`run --series FILE.csv`, [`crate::series::SeriesReport::to_csv`]):
//! one line per kept port and interval, `t_ns,router,port,kind,label,utilization,packets`.
//!
//! A run writes a line for every port in every interval, so the text is made by hand: integers
//! through `itoa`, the utilisation with six decimals from its value scaled to an integer, and an
//! interval's lines gathered in one buffer. The text is what `format!("{u:.6}")` and `{}` give.

use crate::row_text::{PortTexts, Rows};
use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use std::io::Write;

/// The header line.
pub(crate) const HEADER: &[u8] = b"t_ns,router,port,kind,label,utilization,packets\n";

pub(crate) struct CsvRows<W: Write> {
    out: W,
    /// Whether the header line was written.
    started: bool,
    /// Each kept port's `router,port,kind,label,`.
    names: PortTexts,
    lines: Rows,
}

impl<W: Write> CsvRows<W> {
    pub(crate) fn new(out: W) -> Self {
        CsvRows { out, started: false, names: PortTexts::default(), lines: Rows::default() }
    }

    fn start(&mut self) -> std::io::Result<()> {
        if !self.started {
            self.started = true;
            self.out.write_all(HEADER)?;
        }
        Ok(())
    }

    pub(crate) fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> RowWriter for CsvRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        self.start()?;
        // The interval's start is the same on every line: its text once.
        let mut t = Vec::with_capacity(24);
        write!(t, "{t_ns},")?;
        self.names.make(ports, |text, p| write!(text, "{},{},{},{},", p.router, p.local, p.kind, p.label))?;
        let mut num = itoa::Buffer::new();
        for ((name, u), &n) in self.names.iter().zip(utilization).zip(packets) {
            let line = &mut self.lines.buf;
            line.extend_from_slice(&t);
            line.extend_from_slice(name);
            push_fixed6(line, u);
            line.push(b',');
            line.extend_from_slice(num.format(n).as_bytes());
            line.push(b'\n');
            self.lines.row_done(&mut self.out)?;
        }
        self.lines.flush(&mut self.out)
    }

    fn finish(&mut self, _truncated_at_ns: Option<f64>) -> std::io::Result<()> {
        // A run that sent nothing: the header alone, as the in-memory series writes it.
        self.start()?;
        self.out.flush()
    }
}

/// The numbers 00 to 99 as two digits each.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `u` with six decimals, as `format!("{u:.6}")` writes it: the value scaled by a million and
/// rounded to the nearest integer, in digits. Values whose scaled fraction lies too near one
/// half for the product's rounding to be trusted (the exact formatting rounds a true tie to
/// even), and values outside `0..=1000` (where the product's error could pass that margin) or
/// negative (`-0.0` included), go through `format!`.
pub(crate) fn push_fixed6(out: &mut Vec<u8>, u: f64) {
    let x = u * 1e6;
    if !(0.0..=1e9).contains(&x) || u.is_sign_negative() {
        let _ = write!(out, "{u:.6}");
        return;
    }
    let whole = x as u64;
    // Exact: a double minus its integer part.
    let frac = x - whole as f64;
    if (frac - 0.5).abs() < 1e-6 {
        let _ = write!(out, "{u:.6}");
        return;
    }
    let n = whole + (frac > 0.5) as u64;
    if n < 1_000_000 {
        // "0." and six digits, two at a time.
        let mut text = *b"0.000000";
        for (k, pair) in [n / 10_000, n / 100 % 100, n % 100].into_iter().enumerate() {
            let at = 2 + 2 * k;
            text[at..at + 2].copy_from_slice(&PAIRS[2 * pair as usize..2 * pair as usize + 2]);
        }
        out.extend_from_slice(&text);
        return;
    }
    let mut num = itoa::Buffer::new();
    out.extend_from_slice(num.format(n / 1_000_000).as_bytes());
    out.push(b'.');
    let frac = num.format(n % 1_000_000).as_bytes();
    out.extend(std::iter::repeat_n(b'0', 6 - frac.len()));
    out.extend_from_slice(frac);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed6(u: f64) -> String {
        let mut v = Vec::new();
        push_fixed6(&mut v, u);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn six_decimals_are_what_format_writes() {
        // Utilisations as runs make them (busy over interval), exact ties (k/128, k/2^20),
        // values next to ties, ones and zeros, and values outside the integer path.
        let mut cases = vec![
            0.0,
            -0.0,
            1.0,
            0.5,
            999.9999995,
            1000.5,
            0.0000005,
            0.0078125,
            0.9999995,
            0.99999949999,
            1e-12,
            2.5,
            1234.5678905,
            -0.25,
            1e300,
            f64::NAN,
        ];
        for w in [7u64, 100, 1000, 10_000, 100_000, 999_983, 1 << 20] {
            for busy in (0..=w).step_by((w / 997).max(1) as usize) {
                cases.push(busy as f64 / w as f64);
            }
        }
        for k in 0..=(1 << 12) {
            let u = k as f64 / 4096.0;
            cases.extend([u, f64::from_bits(u.to_bits() + 1), f64::from_bits(u.to_bits().saturating_sub(1))]);
        }
        for u in cases {
            assert_eq!(fixed6(u), format!("{u:.6}"), "{u:e}");
        }
    }
}

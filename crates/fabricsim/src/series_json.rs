//! A series written as JSON while the run goes (`run --series FILE.json`): the object
//! [`crate::series::SeriesReport`] serialises to (`interval_ns`, then `rows`, one per port and
//! interval, then `truncated_at_ns` when memory cut the series short), written row by row.
//! Each port's names are made into text once; a row adds the interval's start, the port's
//! utilisation (as serde_json writes a number) and its packets.

use crate::row_text::{PortTexts, Rows};
use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use std::io::Write;

pub(crate) struct JsonRows<W: Write> {
    out: W,
    interval_ns: f64,
    /// Rows written so far (the first opens the object and has no comma before it).
    written: u64,
    /// Each kept port's fields from `router` to the key of `utilization`.
    names: PortTexts,
    rows: Rows,
}

impl<W: Write> JsonRows<W> {
    pub(crate) fn new(out: W, interval_ns: f64) -> Self {
        JsonRows { out, interval_ns, written: 0, names: PortTexts::default(), rows: Rows::default() }
    }

    fn start(&mut self) -> std::io::Result<()> {
        self.out.write_all(b"{\"interval_ns\":")?;
        serde_json::to_writer(&mut self.out, &self.interval_ns)?;
        self.out.write_all(b",\"rows\":[\n")
    }
}

/// A port's fields from `router` to the key of `utilization`, in the order and spelling of
/// [`crate::series::SeriesRow`]'s serialisation.
fn fields(text: &mut Vec<u8>, p: &SeriesPortInfo) -> std::io::Result<()> {
    write!(text, ",\"router\":{},\"port\":{},\"kind\":", p.router, p.local)?;
    serde_json::to_writer(&mut *text, p.kind)?;
    text.extend_from_slice(b",\"label\":");
    serde_json::to_writer(&mut *text, &p.label)?;
    text.extend_from_slice(b",\"utilization\":");
    Ok(())
}

impl<W: Write> RowWriter for JsonRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        self.names.make(ports, fields)?;
        // The interval's start opens every row: its text once.
        let mut t = b"{\"t_ns\":".to_vec();
        serde_json::to_writer(&mut t, &t_ns)?;
        if self.written == 0 && !ports.is_empty() {
            self.start()?;
        }
        let mut num = itoa::Buffer::new();
        for ((name, u), &n) in self.names.iter().zip(utilization).zip(packets) {
            let row = &mut self.rows.buf;
            if self.written > 0 {
                row.extend_from_slice(b",\n");
            }
            self.written += 1;
            row.extend_from_slice(&t);
            row.extend_from_slice(name);
            serde_json::to_writer(&mut *row, &u)?;
            row.extend_from_slice(b",\"packets\":");
            row.extend_from_slice(num.format(n).as_bytes());
            row.push(b'}');
            self.rows.row_done(&mut self.out)?;
        }
        self.rows.flush(&mut self.out)
    }

    fn finish(&mut self, truncated_at_ns: Option<f64>) -> std::io::Result<()> {
        if self.written == 0 {
            self.start()?;
        }
        self.out.write_all(b"\n]")?;
        if let Some(t) = truncated_at_ns {
            self.out.write_all(b",\"truncated_at_ns\":")?;
            serde_json::to_writer(&mut self.out, &t)?;
        }
        self.out.write_all(b"}\n")?;
        self.out.flush()
    }
}

//! A series written as JSON while the run goes (`run --series FILE.json`): the object
//! [`crate::series::SeriesReport`] serialises to (`interval_ns`, then `rows`, one per port and
//! interval, then `truncated_at_ns` when memory cut the series short), written row by row.
//! Each port's names are made into text once; a row adds the interval's start, the port's
//! utilisation (as serde_json writes a number) and its packets.

use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use std::io::Write;

pub(crate) struct JsonRows<W: Write> {
    out: W,
    interval_ns: f64,
    /// Rows written so far (the first opens the object and has no comma before it).
    written: u64,
    /// An interval's rows, gathered before they go to the writer.
    line: Vec<u8>,
    /// Each kept port's fields from `router` to the key of `utilization` (the same in every
    /// interval), one after the other, and where each ends.
    names: Vec<u8>,
    name_ends: Vec<u32>,
}

impl<W: Write> JsonRows<W> {
    pub(crate) fn new(out: W, interval_ns: f64) -> Self {
        JsonRows { out, interval_ns, written: 0, line: Vec::new(), names: Vec::new(), name_ends: Vec::new() }
    }

    fn start(&mut self) -> std::io::Result<()> {
        self.out.write_all(b"{\"interval_ns\":")?;
        serde_json::to_writer(&mut self.out, &self.interval_ns)?;
        self.out.write_all(b",\"rows\":[\n")
    }

    /// The kept ports' fields, made once (a writer is given the same ports in every interval),
    /// in the order and spelling of [`crate::series::SeriesRow`]'s serialisation.
    fn name(&mut self, ports: &[SeriesPortInfo]) -> std::io::Result<()> {
        self.names.clear();
        self.name_ends.clear();
        for p in ports {
            write!(self.names, ",\"router\":{},\"port\":{},\"kind\":", p.router, p.local)?;
            serde_json::to_writer(&mut self.names, p.kind)?;
            self.names.extend_from_slice(b",\"label\":");
            serde_json::to_writer(&mut self.names, &p.label)?;
            self.names.extend_from_slice(b",\"utilization\":");
            self.name_ends.push(self.names.len() as u32);
        }
        Ok(())
    }
}

impl<W: Write> RowWriter for JsonRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        if self.name_ends.len() != ports.len() {
            self.name(ports)?;
        }
        // The interval's start opens every row: its text once.
        let mut t = b"{\"t_ns\":".to_vec();
        serde_json::to_writer(&mut t, &t_ns)?;
        if self.written == 0 && !ports.is_empty() {
            self.start()?;
        }
        let mut num = itoa::Buffer::new();
        let mut from = 0;
        for ((&to, u), &n) in self.name_ends.iter().zip(utilization).zip(packets) {
            let line = &mut self.line;
            if self.written > 0 {
                line.extend_from_slice(b",\n");
            }
            self.written += 1;
            line.extend_from_slice(&t);
            line.extend_from_slice(&self.names[from..to as usize]);
            from = to as usize;
            serde_json::to_writer(&mut *line, &u)?;
            line.extend_from_slice(b",\"packets\":");
            line.extend_from_slice(num.format(n).as_bytes());
            line.push(b'}');
            if line.len() >= 64 * 1024 {
                self.out.write_all(line)?;
                line.clear();
            }
        }
        self.out.write_all(&self.line)?;
        self.line.clear();
        Ok(())
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

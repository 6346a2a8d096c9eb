//! A series written as JSON while the run goes (`run --series FILE.json`): the object
//! [`crate::series::SeriesReport`] serialises to (`interval_ns`, then `rows`, one per port and
//! interval, then `truncated_at_ns` when memory cut the series short), written row by row.

use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use serde::Serialize;
use std::io::Write;

/// One row, with the fields and names of [`crate::series::SeriesRow`].
#[derive(Serialize)]
struct Row<'a> {
    t_ns: f64,
    router: u32,
    port: u32,
    kind: &'a str,
    label: &'a str,
    utilization: f64,
    packets: u32,
}

pub(crate) struct JsonRows<W: Write> {
    out: W,
    interval_ns: f64,
    /// Rows written so far (the first opens the object and has no comma before it).
    written: u64,
}

impl<W: Write> JsonRows<W> {
    pub(crate) fn new(out: W, interval_ns: f64) -> Self {
        JsonRows { out, interval_ns, written: 0 }
    }

    fn start(&mut self) -> std::io::Result<()> {
        self.out.write_all(b"{\"interval_ns\":")?;
        serde_json::to_writer(&mut self.out, &self.interval_ns)?;
        self.out.write_all(b",\"rows\":[\n")
    }
}

impl<W: Write> RowWriter for JsonRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        for ((p, utilization), &packets) in ports.iter().zip(utilization).zip(packets) {
            if self.written == 0 {
                self.start()?;
            } else {
                self.out.write_all(b",\n")?;
            }
            self.written += 1;
            let row = Row { t_ns, router: p.router, port: p.local, kind: p.kind, label: &p.label, utilization, packets };
            serde_json::to_writer(&mut self.out, &row)?;
        }
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

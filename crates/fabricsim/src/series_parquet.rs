//! A series as a Parquet file (`--series FILE.parquet`): the CSV's columns (`t_ns`, `router`,
//! `port`, `kind`, `label`, `utilization`, `packets`), written with the `parquet` crate's column
//! writer (no Arrow). Rows are buffered and written as a row group every [`ROW_GROUP`] rows, so
//! a streamed series holds at most one row group besides the intervals in progress. Columns
//! are dictionary-encoded (the writer's default) and not compressed (no codec is built in).

use crate::series_filter::SeriesPortInfo;
use crate::series_stream::RowWriter;
use crate::Error;
use parquet::basic::Compression;
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int32Type};
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;
use std::io::Write;
use std::sync::Arc;

/// Rows per row group (with the column writers' pages, about 16 MB held while it fills).
pub(crate) const ROW_GROUP: usize = 64 * 1024;

/// The schema: the CSV's columns, none optional; router, port and packets unsigned.
const SCHEMA: &str = "message series {
    REQUIRED DOUBLE t_ns;
    REQUIRED INT32 router (INTEGER(32, false));
    REQUIRED INT32 port (INTEGER(32, false));
    REQUIRED BYTE_ARRAY kind (UTF8);
    REQUIRED BYTE_ARRAY label (UTF8);
    REQUIRED DOUBLE utilization;
    REQUIRED INT32 packets (INTEGER(32, false));
}";

/// Buffered columns of the row group being filled.
#[derive(Default)]
struct Columns {
    t_ns: Vec<f64>,
    router: Vec<i32>,
    port: Vec<i32>,
    kind: Vec<ByteArray>,
    label: Vec<ByteArray>,
    utilization: Vec<f64>,
    packets: Vec<i32>,
}

/// A Parquet file being written row by row.
pub(crate) struct ParquetRows<W: Write + Send> {
    /// `None` once closed.
    out: Option<SerializedFileWriter<W>>,
    cols: Columns,
    /// Each kept port's kind and label as the column's values, made once (a writer is given
    /// the same ports in every interval; a copy shares the bytes).
    names: Vec<(ByteArray, ByteArray)>,
}

fn io(e: parquet::errors::ParquetError) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

impl<W: Write + Send> ParquetRows<W> {
    /// A file with the series' schema, uncompressed (keeps the dependency lean).
    pub(crate) fn new(out: W) -> Result<Self, Error> {
        let schema = Arc::new(parse_message_type(SCHEMA).expect("the series schema parses"));
        // The text columns keep no min/max statistics: comparing every row's bytes cost more
        // than the rest of the row (their values are all in each page's dictionary).
        let mut props = WriterProperties::builder().set_compression(Compression::UNCOMPRESSED).set_created_by("fabricsim".into());
        for text in ["kind", "label"] {
            props = props.set_column_statistics_enabled(ColumnPath::from(text), EnabledStatistics::None);
        }
        let props = Arc::new(props.build());
        let out = SerializedFileWriter::new(out, schema, props).map_err(|e| Error::Io(format!("--series: {e}")))?;
        Ok(ParquetRows { out: Some(out), cols: Columns::default(), names: Vec::new() })
    }

    /// Add one row (written with its row group).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn push(
        &mut self,
        t_ns: f64,
        router: u32,
        port: u32,
        kind: ByteArray,
        label: ByteArray,
        utilization: f64,
        packets: u32,
    ) -> std::io::Result<()> {
        let c = &mut self.cols;
        c.t_ns.push(t_ns);
        c.router.push(router as i32);
        c.port.push(port as i32);
        c.kind.push(kind);
        c.label.push(label);
        c.utilization.push(utilization);
        c.packets.push(packets as i32);
        if c.t_ns.len() >= ROW_GROUP {
            self.flush()?;
        }
        Ok(())
    }

    /// Write the buffered rows as one row group.
    fn flush(&mut self) -> std::io::Result<()> {
        let c = std::mem::take(&mut self.cols);
        let Some(out) = self.out.as_mut() else { return Ok(()) };
        if c.t_ns.is_empty() {
            return Ok(());
        }
        let mut group = out.next_row_group().map_err(io)?;
        macro_rules! column {
            ($t:ty, $v:expr) => {{
                let mut col = group.next_column().map_err(io)?.expect("a column of the schema");
                col.typed::<$t>().write_batch(&$v, None, None).map_err(io)?;
                col.close().map_err(io)?;
            }};
        }
        column!(DoubleType, c.t_ns);
        column!(Int32Type, c.router);
        column!(Int32Type, c.port);
        column!(ByteArrayType, c.kind);
        column!(ByteArrayType, c.label);
        column!(DoubleType, c.utilization);
        column!(Int32Type, c.packets);
        group.close().map_err(io)?;
        Ok(())
    }
}

impl<W: Write + Send> RowWriter for ParquetRows<W> {
    fn rows(&mut self, t_ns: f64, ports: &[SeriesPortInfo], utilization: &mut dyn Iterator<Item = f64>, packets: &[u32]) -> std::io::Result<()> {
        if self.names.len() != ports.len() {
            self.names = ports.iter().map(|p| (ByteArray::from(p.kind), ByteArray::from(p.label.as_str()))).collect();
        }
        for (i, ((p, u), &n)) in ports.iter().zip(utilization).zip(packets).enumerate() {
            let (kind, label) = self.names[i].clone();
            self.push(t_ns, p.router, p.local, kind, label, u, n)?;
        }
        Ok(())
    }

    fn finish(&mut self, _truncated_at_ns: Option<f64>) -> std::io::Result<()> {
        self.flush()?;
        match self.out.take() {
            Some(out) => out.into_inner().map_err(io)?.flush(),
            None => Ok(()),
        }
    }
}

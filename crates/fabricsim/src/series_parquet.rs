//! A series as a Parquet file (`--series FILE.parquet`): the CSV's columns (`t_ns`, `router`,
//! `port`, `kind`, `label`, `utilization`, `packets`), written with the `parquet` crate's column
//! writer (no Arrow). Rows are buffered and written as a row group every [`ROW_GROUP`] rows, so
//! a streamed series holds at most one row group besides the intervals in progress. Values
//! are written plain and pages compressed with Snappy (no other codec is built in).

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

/// Rows per row group (with the column writers' pages, about 9 MB held while it fills).
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
    /// A file with the series' schema, its pages compressed with Snappy.
    pub(crate) fn new(out: W) -> Result<Self, Error> {
        let schema = Arc::new(parse_message_type(SCHEMA).expect("the series schema parses"));
        // Only the time keeps min/max statistics (what a reader selects intervals by): the
        // others compared every row's value for figures no reader of a series needs. No column
        // has a dictionary: one hashed every value, which cost more than the rest of the row
        // (the default benchmark at 22 intervals: +8.0% instructions with dictionaries, +4.2%
        // with Snappy instead), and the pages' Snappy compression finds what repeats (the
        // times, ports and names of every interval) about as well: the files are within a few
        // percent of their size with dictionaries.
        let mut props = WriterProperties::builder().set_compression(Compression::SNAPPY).set_created_by("fabricsim".into());
        props = props.set_dictionary_enabled(false);
        for column in ["router", "port", "kind", "label", "utilization", "packets"] {
            props = props.set_column_statistics_enabled(ColumnPath::from(column), EnabledStatistics::None);
        }
        let props = Arc::new(props.build());
        let out = SerializedFileWriter::new(out, schema, props).map_err(|e| Error::Io(format!("--series: {e}")))?;
        Ok(ParquetRows { out: Some(out), cols: Columns::default(), names: Vec::new() })
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
        // Column by column: a run of rows is appended to each column in one pass, up to the
        // row group's end.
        let mut from = 0;
        while from < ports.len() {
            let c = &mut self.cols;
            let to = ports.len().min(from + ROW_GROUP - c.t_ns.len());
            let (ports, names) = (&ports[from..to], &self.names[from..to]);
            c.t_ns.extend(std::iter::repeat_n(t_ns, ports.len()));
            c.router.extend(ports.iter().map(|p| p.router as i32));
            c.port.extend(ports.iter().map(|p| p.local as i32));
            c.kind.extend(names.iter().map(|n| n.0.clone()));
            c.label.extend(names.iter().map(|n| n.1.clone()));
            c.utilization.extend((&mut *utilization).take(ports.len()));
            c.packets.extend(packets[from..to].iter().map(|&n| n as i32));
            if c.t_ns.len() >= ROW_GROUP {
                self.flush()?;
            }
            from = to;
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

//! What the text writers of a series (CSV, JSON, Perfetto counters) share: each kept port's
//! constant text made once, and rows gathered into pieces before they go to the file.

use crate::series_filter::SeriesPortInfo;
use std::io::Write;

/// Bytes of rows gathered before they go to the writer.
const PIECE: usize = 64 * 1024;

/// Each kept port's text that is the same in every interval, one after the other.
#[derive(Default)]
pub(crate) struct PortTexts {
    text: Vec<u8>,
    /// Where each port's text ends.
    ends: Vec<u32>,
}

impl PortTexts {
    /// Make the ports' texts with `write`, unless made already: a writer is given the same
    /// ports in every interval.
    pub(crate) fn make(
        &mut self,
        ports: &[SeriesPortInfo],
        mut write: impl FnMut(&mut Vec<u8>, &SeriesPortInfo) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        if self.ends.len() == ports.len() && !ports.is_empty() {
            return Ok(());
        }
        self.text.clear();
        self.ends.clear();
        for p in ports {
            write(&mut self.text, p)?;
            self.ends.push(self.text.len() as u32);
        }
        Ok(())
    }

    /// Each port's text, in port order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.ends.iter().scan(0, |from, &to| {
            let text = &self.text[*from..to as usize];
            *from = to as usize;
            Some(text)
        })
    }
}

/// Rows made into one buffer and written in pieces.
#[derive(Default)]
pub(crate) struct Rows {
    pub(crate) buf: Vec<u8>,
}

impl Rows {
    /// After a row: write the buffer once it holds a piece.
    pub(crate) fn row_done(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        if self.buf.len() >= PIECE {
            self.flush(out)?;
        }
        Ok(())
    }

    /// Write what the buffer holds.
    pub(crate) fn flush(&mut self, out: &mut impl Write) -> std::io::Result<()> {
        out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

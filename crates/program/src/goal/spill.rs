//! A trace spilled to temporary files, for traces too long to hold in memory: the reader
//! checks each rank block as it closes (labels, dependencies, cycles, with that block's
//! working state only) and writes its operations as fixed-size records, in file order, and
//! their successors to a second file. Memory keeps only each rank's range. A replay reads the
//! records back through a small cache of aligned chunks (a few per rank), so what it holds
//! grows with the ranks and the operations in flight, not with the trace.

use super::parse::{read_into, Block, Sink};
use super::source::{Counts, OpReader, Rec, Source};
use super::trace::{GoalError, GoalOp, Kind};
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// Bytes of one operation's record.
const REC: usize = 36;
/// Records per cached chunk, and successors per cached chunk.
const REC_CHUNK: usize = 16;
const SUCC_CHUNK: usize = 16;

/// A trace checked and spilled to three temporary files (records, successors, and each
/// rank's operations without dependencies) (deleted when it is dropped).
#[derive(Debug)]
pub struct Spilled {
    ranks: u32,
    range: Vec<(u32, u32)>,
    counts: Counts,
    len: u32,
    edges: u32,
    recs: Arc<File>,
    succ: Arc<File>,
    /// Per rank, where its operations without dependencies are in `roots` and how many.
    root_range: Vec<(u32, u32)>,
    roots: Arc<File>,
}

/// Read and check a trace from `input`, line by line, into temporary files.
pub fn spill(input: impl BufRead) -> Result<Spilled, GoalError> {
    let tmp = || tempfile::tempfile().map_err(|e| GoalError::new(0, format!("cannot make a temporary file for the trace: {e}")));
    let w = Writer {
        ranks: 0,
        range: Vec::new(),
        len: 0,
        edges: 0,
        recs: BufWriter::new(tmp()?),
        succ: BufWriter::new(tmp()?),
        root_range: Vec::new(),
        root_count: 0,
        roots: BufWriter::new(tmp()?),
    };
    let (w, counts) = read_into(input, w)?;
    let done =
        |b: BufWriter<File>| b.into_inner().map(Arc::new).map_err(|e| GoalError::new(0, format!("cannot write the trace's temporary file: {e}")));
    Ok(Spilled {
        ranks: w.ranks,
        range: w.range,
        counts,
        len: w.len,
        edges: w.edges,
        recs: done(w.recs)?,
        succ: done(w.succ)?,
        root_range: w.root_range,
        roots: done(w.roots)?,
    })
}

impl Spilled {
    /// Operations over all ranks.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether no rank has an operation.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes the trace takes in its temporary files.
    pub fn spill_bytes(&self) -> u64 {
        self.len as u64 * REC as u64 + self.edges as u64 * 4 + self.root_range.iter().map(|r| r.1 as u64 * 4).sum::<u64>()
    }
}

/// Writes blocks as they close.
struct Writer {
    ranks: u32,
    range: Vec<(u32, u32)>,
    len: u32,
    edges: u32,
    recs: BufWriter<File>,
    succ: BufWriter<File>,
    root_range: Vec<(u32, u32)>,
    root_count: u32,
    roots: BufWriter<File>,
}

impl Sink for Writer {
    fn ranks(&mut self, n: u32) {
        self.ranks = n;
        self.range = vec![(0, 0); n as usize];
        self.root_range = vec![(0, 0); n as usize];
    }
    fn block(&mut self, b: &Block) -> Result<(), String> {
        let io = |e: std::io::Error| format!("cannot write the trace's temporary file: {e}");
        for (k, op) in b.ops.iter().enumerate() {
            let (a, z) = (b.succ_start[k], b.succ_start[k + 1]);
            let rec = Rec { op: *op, line: b.lines[k], deps: b.deps[k], succ_start: self.edges + a, succ_count: z - a };
            self.recs.write_all(&encode(&rec)).map_err(io)?;
            if rec.deps == 0 {
                self.roots.write_all(&(b.first + k as u32).to_le_bytes()).map_err(io)?;
            }
        }
        let roots = b.deps.iter().filter(|&&d| d == 0).count() as u32;
        self.root_range[b.rank as usize] = (self.root_count, roots);
        self.root_count += roots;
        for &s in b.succ {
            self.succ.write_all(&s.to_le_bytes()).map_err(io)?;
        }
        self.edges = self.edges.checked_add(b.succ.len() as u32).ok_or_else(|| "more than 4294967295 dependencies".to_string())?;
        self.len += b.ops.len() as u32;
        self.range[b.rank as usize] = (b.first, b.first + b.ops.len() as u32);
        Ok(())
    }
}

fn encode(r: &Rec) -> [u8; REC] {
    let mut b = [0u8; REC];
    b[0..8].copy_from_slice(&r.op.size.to_le_bytes());
    for (k, v) in [r.op.peer, r.op.tag, r.line, r.deps, r.succ_start, r.succ_count].into_iter().enumerate() {
        b[8 + 4 * k..12 + 4 * k].copy_from_slice(&v.to_le_bytes());
    }
    b[32] = match r.op.kind {
        Kind::Send => 0,
        Kind::Recv => 1,
        Kind::Calc => 2,
    };
    (b[33], b[34]) = (r.op.cpu, r.op.nic);
    b
}

fn decode(b: &[u8]) -> Rec {
    let u = |k: usize| u32::from_le_bytes(b[8 + 4 * k..12 + 4 * k].try_into().expect("4 bytes"));
    let kind = match b[32] {
        0 => Kind::Send,
        1 => Kind::Recv,
        _ => Kind::Calc,
    };
    let size = u64::from_le_bytes(b[0..8].try_into().expect("8 bytes"));
    Rec { op: GoalOp { size, peer: u(0), tag: u(1), kind, cpu: b[33], nic: b[34] }, line: u(2), deps: u(3), succ_start: u(4), succ_count: u(5) }
}

impl Source for Spilled {
    fn ranks(&self) -> u32 {
        self.ranks
    }
    fn range(&self, r: u32) -> std::ops::Range<u32> {
        let (a, b) = self.range[r as usize];
        a..b
    }
    fn counts(&self) -> Counts {
        self.counts
    }
    fn heap_bytes(&self) -> usize {
        (self.range.capacity() + self.root_range.capacity()) * 8
    }
    fn reader(self: Arc<Self>) -> Box<dyn OpReader> {
        // A few chunk slots per rank (direct-mapped: a slot holds whichever chunk last used it).
        let slots = (2 * self.ranks as usize).next_power_of_two().max(1024);
        Box::new(SpillReader {
            rtag: vec![u32::MAX; slots],
            rbuf: vec![0; slots * REC_CHUNK * REC],
            stag: vec![u32::MAX; slots],
            sbuf: vec![0; slots * SUCC_CHUNK],
            mask: slots - 1,
            trace: self,
            bytes: Vec::new(),
        })
    }
}

/// Reads a spilled trace through its chunk cache.
struct SpillReader {
    trace: Arc<Spilled>,
    rtag: Vec<u32>,
    rbuf: Vec<u8>,
    stag: Vec<u32>,
    sbuf: Vec<u32>,
    mask: usize,
    bytes: Vec<u8>,
}

/// Read what a temporary file of ours holds (it was written by this process: a failure is
/// the machine's, not the trace's).
fn read_at(f: &File, buf: &mut [u8], at: u64) {
    f.read_exact_at(buf, at).expect("the trace's temporary file reads back");
}

impl OpReader for SpillReader {
    fn rec(&mut self, i: u32) -> Rec {
        let chunk = i as usize / REC_CHUNK;
        let slot = chunk & self.mask;
        let buf = &mut self.rbuf[slot * REC_CHUNK * REC..(slot + 1) * REC_CHUNK * REC];
        if self.rtag[slot] != chunk as u32 {
            let n = (self.trace.len as usize - chunk * REC_CHUNK).min(REC_CHUNK);
            read_at(&self.trace.recs, &mut buf[..n * REC], (chunk * REC_CHUNK * REC) as u64);
            self.rtag[slot] = chunk as u32;
        }
        let k = i as usize % REC_CHUNK;
        decode(&buf[k * REC..(k + 1) * REC])
    }

    fn successors(&mut self, rec: &Rec, out: &mut Vec<u32>) {
        out.clear();
        let (mut i, end) = (rec.succ_start as usize, (rec.succ_start + rec.succ_count) as usize);
        while i < end {
            let chunk = i / SUCC_CHUNK;
            let slot = chunk & self.mask;
            if self.stag[slot] != chunk as u32 {
                let n = (self.trace.edges as usize - chunk * SUCC_CHUNK).min(SUCC_CHUNK);
                self.bytes.resize(n * 4, 0);
                read_at(&self.trace.succ, &mut self.bytes, (chunk * SUCC_CHUNK * 4) as u64);
                for (k, b) in self.bytes.chunks_exact(4).enumerate() {
                    self.sbuf[slot * SUCC_CHUNK + k] = u32::from_le_bytes(b.try_into().expect("4 bytes"));
                }
                self.stag[slot] = chunk as u32;
            }
            let stop = end.min((chunk + 1) * SUCC_CHUNK);
            out.extend_from_slice(&self.sbuf[slot * SUCC_CHUNK + i % SUCC_CHUNK..slot * SUCC_CHUNK + (stop - chunk * SUCC_CHUNK)]);
            i = stop;
        }
    }

    fn roots(&mut self, r: u32, _range: std::ops::Range<u32>, out: &mut Vec<u32>) {
        let (at, n) = self.trace.root_range[r as usize];
        self.bytes.resize(n as usize * 4, 0);
        read_at(&self.trace.roots, &mut self.bytes, at as u64 * 4);
        out.clear();
        out.extend(self.bytes.chunks_exact(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes"))));
    }
}

//! The GOAL reader: lines in, rank blocks out to a [`Sink`] (a [`Trace`] in memory, or a
//! spill file). It reads line by line (a trace is never held as text), keeps one rank's block
//! at a time, and checks each block as it closes: labels resolved, dependencies in compressed
//! rows, no cycle.

use super::cycles::find_cycle;
use super::source::Counts;
use super::trace::{GoalError, GoalOp, Kind, Trace, ANY, IREQ, MAX_OPS};
use std::collections::HashMap;
use std::io::BufRead;

/// Most ranks a trace may declare.
pub const MAX_RANKS: u32 = 1 << 24;

/// No operation (a label named but not defined yet).
const NONE: u32 = u32::MAX;

/// One rank's block, checked: operations `first..first + ops.len()` of the trace.
pub(crate) struct Block<'a> {
    pub rank: u32,
    pub first: u32,
    pub ops: &'a [GoalOp],
    pub lines: &'a [u32],
    /// Per operation, its dependency count.
    pub deps: &'a [u32],
    /// Per operation `k`, its successors `succ[succ_start[k]..succ_start[k + 1]]` (indices
    /// over the whole trace, with [`IREQ`] for `irequires`).
    pub succ_start: &'a [u32],
    pub succ: &'a [u32],
}

/// Where the reader puts what it reads.
pub(crate) trait Sink {
    /// `num_ranks n` was read.
    fn ranks(&mut self, n: u32);
    /// A block closed, checked (an error: a message about writing it).
    fn block(&mut self, b: &Block) -> Result<(), String>;
}

impl Sink for Trace {
    fn ranks(&mut self, n: u32) {
        self.ranks = n;
        self.range = vec![(0, 0); n as usize];
        self.succ_start = vec![0];
    }
    fn block(&mut self, b: &Block) -> Result<(), String> {
        let base = self.succ.len() as u32;
        self.ops.extend_from_slice(b.ops);
        self.lines.extend_from_slice(b.lines);
        self.succ_start.extend(b.succ_start[1..].iter().map(|&s| base + s));
        self.succ.extend_from_slice(b.succ);
        self.range[b.rank as usize] = (b.first, b.first + b.ops.len() as u32);
        Ok(())
    }
}

/// Read a trace from `input`, line by line.
pub fn read(input: impl BufRead) -> Result<Trace, GoalError> {
    let (mut t, counts) = read_into(input, Trace::default())?;
    t.counts = counts;
    t.ops.shrink_to_fit();
    t.lines.shrink_to_fit();
    t.succ_start.shrink_to_fit();
    t.succ.shrink_to_fit();
    Ok(t)
}

/// Read a trace from `input` into `sink`, line by line: the sink and the trace's totals.
pub(crate) fn read_into<S: Sink>(mut input: impl BufRead, sink: S) -> Result<(S, Counts), GoalError> {
    let mut r = Reader {
        sink,
        counts: Default::default(),
        total: 0,
        ops: Default::default(),
        lines: Default::default(),
        num_ranks: None,
        block: None,
        seen: Default::default(),
        labels: Default::default(),
        slot_op: Default::default(),
        slot_line: Default::default(),
        pending: Default::default(),
        dep_start: Default::default(),
        deps: Default::default(),
        succ_start: Default::default(),
        succ: Default::default(),
        dep_count: Default::default(),
        in_comment: false,
    };
    let mut buf = String::new();
    let mut clean = String::new();
    let mut no = 0u32;
    loop {
        buf.clear();
        let n = input.read_line(&mut buf).map_err(|e| GoalError::new(no + 1, format!("cannot read: {e}")))?;
        if n == 0 {
            break;
        }
        no += 1;
        r.strip_comments(&buf, &mut clean);
        r.line(no, &clean)?;
    }
    r.finish(no)
}

/// Read a trace from text.
pub fn parse(text: &str) -> Result<Trace, GoalError> {
    read(text.as_bytes())
}

struct Reader<S> {
    sink: S,
    counts: Counts,
    /// Operations read so far over all blocks.
    total: u32,
    /// The open block's operations and their lines.
    ops: Vec<GoalOp>,
    lines: Vec<u32>,
    num_ranks: Option<u32>,
    /// The open block: its rank, the line it opened at, its first operation.
    block: Option<(u32, u32, u32)>,
    /// Per rank: the line its block opened at (0: none yet).
    seen: Vec<u32>,
    labels: HashMap<String, u32>,
    /// Per label slot: its operation ([`NONE`] until defined) and the line it was first named.
    slot_op: Vec<u32>,
    slot_line: Vec<u32>,
    /// Dependencies of the open block: (slot, slot | IREQ, line).
    pending: Vec<(u32, u32, u32)>,
    /// The closing block's rows: its dependencies (only the cycle check needs them) and
    /// successors, by operation of the block.
    dep_start: Vec<u32>,
    deps: Vec<u32>,
    succ_start: Vec<u32>,
    succ: Vec<u32>,
    dep_count: Vec<u32>,
    in_comment: bool,
}

/// Is `w` a label: a letter, then letters, digits or `_` (not a keyword)?
fn is_label(w: &str) -> bool {
    let mut c = w.chars();
    c.next().is_some_and(|f| f.is_ascii_alphabetic())
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
        && !matches!(w, "send" | "recv" | "calc" | "rank" | "num_ranks" | "requires" | "irequires")
}

/// A whole number, or an error naming `what` and the value.
fn number(w: &str, what: &str, line: u32) -> Result<u64, GoalError> {
    w.parse::<u64>().map_err(|_| GoalError::new(line, format!("'{w}' is not {what}")))
}

impl<S: Sink> Reader<S> {
    /// `raw` without its comments (`// ...`, `/* ... */`, which may span lines) into `out`.
    fn strip_comments(&mut self, raw: &str, out: &mut String) {
        out.clear();
        let mut rest = raw.trim_end_matches(['\n', '\r']);
        loop {
            if self.in_comment {
                match rest.find("*/") {
                    Some(i) => {
                        rest = &rest[i + 2..];
                        self.in_comment = false;
                    }
                    None => return,
                }
            }
            let line_c = rest.find("//");
            let block_c = rest.find("/*");
            match (line_c, block_c) {
                (Some(l), b) if b.is_none_or(|b| l < b) => {
                    out.push_str(&rest[..l]);
                    return;
                }
                (_, Some(b)) => {
                    out.push_str(&rest[..b]);
                    out.push(' ');
                    rest = &rest[b + 2..];
                    self.in_comment = true;
                }
                _ => {
                    out.push_str(rest);
                    return;
                }
            }
        }
    }

    fn line(&mut self, no: u32, text: &str) -> Result<(), GoalError> {
        let mut toks = [""; 16];
        let mut n = 0;
        for t in tokens(text) {
            if n == toks.len() {
                return Err(GoalError::new(no, format!("malformed line: too many words in `{}`", text.trim())));
            }
            toks[n] = t;
            n += 1;
        }
        let t = &toks[..n];
        let bad = || {
            GoalError::new(no, format!(
            "malformed line `{}`: expected `num_ranks N`, `rank N {{`, `}}`, an operation (`l1: send 8b to 1 tag 0`, `recv 8b from 0 tag 0`, `calc 100`) or a dependency (`l2 requires l1`, `l2 irequires l1`)",
            text.trim()
        ))
        };
        match t {
            [] => Ok(()),
            ["num_ranks", v] | ["num_ranks", v, ";"] => {
                if self.num_ranks.is_some() || self.block.is_some() || self.total > 0 {
                    return Err(GoalError::new(no, "`num_ranks` must come once, before the first rank"));
                }
                let v = number(v, "a rank count", no)?;
                if v == 0 || v > MAX_RANKS as u64 {
                    return Err(GoalError::new(no, format!("num_ranks {v}: a trace has 1 to {MAX_RANKS} ranks")));
                }
                self.num_ranks = Some(v as u32);
                self.sink.ranks(v as u32);
                self.seen = vec![0; v as usize];
                Ok(())
            }
            ["rank", v, "{"] => self.open(no, v),
            ["rank", ..] => Err(GoalError::new(no, format!("expected `rank N {{`, found `{}`", text.trim()))),
            ["}"] => self.close(no),
            [a, dep @ ("requires" | "irequires"), b] if is_label(a) && is_label(b) => {
                self.in_block(no)?;
                let (sa, sb) = (self.slot(a, no), self.slot(b, no));
                self.pending.push((sa, sb | if *dep == "irequires" { IREQ } else { 0 }, no));
                Ok(())
            }
            [label, ":", op @ ..] if is_label(label) => {
                let slot = self.slot(label, no);
                if self.slot_op[slot as usize] != NONE {
                    let first = self.line_of(self.slot_op[slot as usize]);
                    return Err(GoalError::new(no, format!("label '{label}' is defined twice (first at line {first})")));
                }
                self.slot_op[slot as usize] = self.total;
                self.op(no, op).map_err(|e| if e.message.is_empty() { bad() } else { e })
            }
            [w, ..] if matches!(*w, "send" | "recv" | "calc") => self.op(no, t).map_err(|e| if e.message.is_empty() { bad() } else { e }),
            _ => Err(bad()),
        }
    }

    /// The label's slot in the open block's table (made on first mention).
    fn slot(&mut self, label: &str, no: u32) -> u32 {
        if let Some(&s) = self.labels.get(label) {
            return s;
        }
        let s = self.slot_op.len() as u32;
        self.labels.insert(label.to_string(), s);
        self.slot_op.push(NONE);
        self.slot_line.push(no);
        s
    }

    fn in_block(&self, no: u32) -> Result<u32, GoalError> {
        match self.block {
            Some((r, _, _)) => Ok(r),
            None => Err(GoalError::new(no, "an operation or dependency outside a `rank N { ... }` block")),
        }
    }

    fn open(&mut self, no: u32, v: &str) -> Result<(), GoalError> {
        let Some(n) = self.num_ranks else { return Err(GoalError::new(no, "`num_ranks N` must come before the first rank")) };
        if let Some((r, at, _)) = self.block {
            return Err(GoalError::new(no, format!("rank {r}'s block (line {at}) is not closed: `}}` is missing")));
        }
        let r = number(v, "a rank", no)?;
        if r >= n as u64 {
            return Err(GoalError::new(no, format!("rank {r} is beyond num_ranks {n} (ranks are 0 to {})", n - 1)));
        }
        let r = r as u32;
        if self.seen[r as usize] != 0 {
            return Err(GoalError::new(no, format!("rank {r} has a second block (the first at line {})", self.seen[r as usize])));
        }
        self.seen[r as usize] = no;
        self.block = Some((r, no, self.total));
        Ok(())
    }

    /// The line of operation `i` of the open block.
    fn line_of(&self, i: u32) -> u32 {
        let first = self.block.map_or(0, |b| b.2);
        self.lines[(i - first) as usize]
    }

    /// One operation (`t`: its words after any label); an empty message means malformed.
    fn op(&mut self, no: u32, t: &[&str]) -> Result<(), GoalError> {
        self.in_block(no)?;
        let n = self.num_ranks.unwrap_or(0);
        let malformed = || GoalError::new(no, "");
        let (kind, rest) = match t.first() {
            Some(&"send") => (Kind::Send, &t[1..]),
            Some(&"recv") => (Kind::Recv, &t[1..]),
            Some(&"calc") => (Kind::Calc, &t[1..]),
            _ => return Err(malformed()),
        };
        let (size, mut rest) = match (kind, rest) {
            (Kind::Calc, [v, r @ ..]) => (number(v, "a calc amount", no)?, r),
            (_, [v, "b", r @ ..]) => (number(v, "a byte count", no)?, r),
            (_, [v, r @ ..]) if v.ends_with('b') => (number(&v[..v.len() - 1], "a byte count", no)?, r),
            (_, [v, ..]) => return Err(GoalError::new(no, format!("'{v}' is not a size in bytes (write it `8b`)"))),
            _ => return Err(malformed()),
        };
        let mut op = GoalOp { size, peer: 0, tag: 0, kind, cpu: 0, nic: 0 };
        if kind != Kind::Calc {
            let want = if kind == Kind::Send { "to" } else { "from" };
            let [w, p, r @ ..] = rest else { return Err(malformed()) };
            if *w != want {
                return Err(GoalError::new(no, format!("expected `{want}`, found '{w}'")));
            }
            op.peer = match (*p, kind) {
                ("-1", Kind::Recv) => ANY,
                _ => {
                    let p = number(p, "a rank", no)?;
                    if p >= n as u64 {
                        return Err(GoalError::new(no, format!("rank {p} is beyond num_ranks {n} (ranks are 0 to {})", n - 1)));
                    }
                    p as u32
                }
            };
            rest = r;
        }
        while let [key, v, r @ ..] = rest {
            match *key {
                "tag" if kind != Kind::Calc => {
                    op.tag = match (*v, kind) {
                        ("-1", Kind::Recv) => ANY,
                        _ => u32::try_from(number(v, "a tag", no)?)
                            .ok()
                            .filter(|&t| t != ANY)
                            .ok_or_else(|| GoalError::new(no, format!("tag {v} is too large")))?,
                    }
                }
                "cpu" => op.cpu = u8::try_from(number(v, "a cpu", no)?).map_err(|_| GoalError::new(no, format!("cpu {v}: at most 255")))?,
                "nic" => op.nic = u8::try_from(number(v, "a nic", no)?).map_err(|_| GoalError::new(no, format!("nic {v}: at most 255")))?,
                _ => return Err(GoalError::new(no, format!("unexpected '{key}' (tag, cpu or nic)"))),
            }
            rest = r;
        }
        if !rest.is_empty() {
            return Err(GoalError::new(no, format!("'{}' has no value", rest[0])));
        }
        if self.total as u64 >= MAX_OPS {
            return Err(GoalError::new(no, format!("more than {MAX_OPS} operations")));
        }
        self.counts.add(&op);
        self.ops.push(op);
        self.lines.push(no);
        self.total += 1;
        Ok(())
    }

    /// Close the open block: resolve its labels, lay out its edges, look for a cycle, and
    /// hand it to the sink.
    fn close(&mut self, no: u32) -> Result<(), GoalError> {
        let Some((rank, _, first)) = self.block else { return Err(GoalError::new(no, "`}` without an open `rank N {`")) };
        let count = self.ops.len();
        // Resolve: (op, dependency | IREQ) with indices over the whole trace.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(self.pending.len());
        for &(a, b, line) in &self.pending {
            for s in [a, b & !IREQ] {
                if self.slot_op[s as usize] == NONE {
                    let name = self.labels.iter().find(|(_, &v)| v == s).map(|(k, _)| k.as_str()).unwrap_or("?");
                    return Err(GoalError::new(line, format!("unknown label '{name}' in rank {rank}")));
                }
            }
            let (oa, ob) = (self.slot_op[a as usize], self.slot_op[(b & !IREQ) as usize]);
            if oa == ob {
                return Err(GoalError::new(
                    line,
                    format!("dependency cycle in rank {rank}: an operation depends on itself (line {})", self.line_of(oa)),
                ));
            }
            edges.push((oa, ob | (b & IREQ)));
        }
        self.counts.edges += edges.len() as u64;
        // Compressed rows of the block, by counting: dependencies by operation (for the cycle
        // check), successors by operation.
        for (starts, rows, key, val) in [(&mut self.dep_start, &mut self.deps, 0usize, 1usize), (&mut self.succ_start, &mut self.succ, 1, 0)] {
            starts.clear();
            rows.clear();
            let mut counts = vec![0u32; count + 1];
            for e in &edges {
                let k = [e.0, e.1 & !IREQ][key];
                counts[(k - first) as usize + 1] += 1;
            }
            starts.push(0);
            for i in 0..count {
                counts[i + 1] += counts[i];
                starts.push(counts[i + 1]);
            }
            rows.resize(edges.len(), 0);
            let mut fill = counts;
            for e in &edges {
                let (k, v) = ([e.0, e.1 & !IREQ][key], [e.0, e.1 & !IREQ][val]);
                let slot = &mut fill[(k - first) as usize];
                rows[*slot as usize] = v | (e.1 & IREQ);
                *slot += 1;
            }
        }
        if let Some(i) = find_cycle(first, count as u32, &self.dep_start, &self.deps, &self.succ_start, &self.succ) {
            return Err(GoalError::new(self.line_of(i), format!("dependency cycle in rank {rank} through this operation")));
        }
        self.dep_count.clear();
        self.dep_count.extend(self.dep_start.windows(2).map(|w| w[1] - w[0]));
        let b = Block { rank, first, ops: &self.ops, lines: &self.lines, deps: &self.dep_count, succ_start: &self.succ_start, succ: &self.succ };
        self.sink.block(&b).map_err(|m| GoalError::new(no, m))?;
        self.block = None;
        self.ops.clear();
        self.lines.clear();
        self.labels.clear();
        self.slot_op.clear();
        self.slot_line.clear();
        self.pending.clear();
        Ok(())
    }

    fn finish(self, last: u32) -> Result<(S, Counts), GoalError> {
        if let Some((r, at, _)) = self.block {
            return Err(GoalError::new(at, format!("rank {r}'s block is not closed: `}}` is missing before the end (line {last})")));
        }
        if self.num_ranks.is_none() {
            return Err(GoalError::new(0, "no `num_ranks N`: not a GOAL trace"));
        }
        Ok((self.sink, self.counts))
    }
}

/// The words of a line: runs of other characters between spaces, and `{`, `}`, `:`, `;` alone.
fn tokens(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        let c = rest.chars().next()?;
        let len = if matches!(c, '{' | '}' | ':' | ';') {
            1
        } else {
            rest.find(|x: char| x.is_whitespace() || matches!(x, '{' | '}' | ':' | ';')).unwrap_or(rest.len())
        };
        let (t, r) = rest.split_at(len);
        rest = r;
        Some(t)
    })
}

//! A job's communication as a list of (source rank, destination rank, bytes), read from CSV or
//! made by a [`crate::generate`] generator, and its symmetric neighbour lists (what a rank's
//! move changes, for incremental cost updates).

use fabricsim_core::{Bytes, ConfigError};

/// One message stream: `bytes` from rank `src` to rank `dst`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Sending rank.
    pub src: u32,
    /// Receiving rank.
    pub dst: u32,
    /// Bytes sent.
    pub bytes: u64,
}

/// The communication of a job of `ranks` ranks (every flow's ranks below it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    ranks: u32,
    flows: Vec<Flow>,
    grid: Option<Vec<u32>>,
}

/// Each rank's partners with the bytes exchanged both ways (compressed rows: the partners of
/// rank `r` are `partners[start[r]..start[r + 1]]`). Self messages are left out.
#[derive(Debug, Clone)]
pub struct Neighbours {
    /// Row starts, `ranks + 1` of them.
    pub start: Vec<u32>,
    /// Partner rank and bytes both ways.
    pub partners: Vec<(u32, u64)>,
}

impl Neighbours {
    /// The partners of rank `r` with the bytes exchanged both ways.
    #[inline]
    pub fn of(&self, r: u32) -> &[(u32, u64)] {
        &self.partners[self.start[r as usize] as usize..self.start[r as usize + 1] as usize]
    }
}

impl Pattern {
    /// A pattern of `ranks` ranks; refused (naming `field`) when a flow names a rank beyond it.
    pub fn new(ranks: u32, flows: Vec<Flow>, field: &str) -> Result<Pattern, ConfigError> {
        if ranks == 0 {
            return Err(ConfigError::new(field, "has no rank"));
        }
        if let Some(f) = flows.iter().find(|f| f.src >= ranks || f.dst >= ranks) {
            return Err(ConfigError::new(field, format!("flow {} -> {} names a rank beyond the job's {ranks}", f.src, f.dst)));
        }
        Ok(Pattern { ranks, flows, grid: None })
    }

    /// The same pattern, known to be the communication of the torus of ranks `dims` (rank
    /// numbers along axis 0 fastest; the product of `dims` is the rank count): what the
    /// `vtorus` method lays on the network.
    pub fn with_grid(mut self, dims: Vec<u32>) -> Pattern {
        debug_assert_eq!(dims.iter().map(|&d| d as u64).product::<u64>(), self.ranks as u64);
        self.grid = Some(dims);
        self
    }

    /// The torus of ranks the pattern was generated on, if known.
    pub fn grid(&self) -> Option<&[u32]> {
        self.grid.as_deref()
    }

    /// Read CSV lines `src,dst,bytes` (bytes a count or a size such as `64KiB`; an optional
    /// header line `src,dst,bytes`; `#` starts a comment). The job has `ranks` ranks, or one more
    /// than the highest rank named. Errors name `field`, the line and the value.
    pub fn from_csv(text: &str, ranks: Option<u32>, field: &str) -> Result<Pattern, ConfigError> {
        let mut flows = Vec::new();
        for (no, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() || (flows.is_empty() && line.replace(' ', "").eq_ignore_ascii_case("src,dst,bytes")) {
                continue;
            }
            let at = |m: String| ConfigError::new(format!("{field} line {}", no + 1), m);
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            let [s, d, b] = cells.as_slice() else {
                return Err(at(format!("'{line}' is not src,dst,bytes")));
            };
            let rank = |w: &str, what: &str| w.parse::<u32>().map_err(|_| at(format!("{what} '{w}' is not a rank")));
            let (src, dst) = (rank(s, "src")?, rank(d, "dst")?);
            let bytes = Bytes::parse(b).map_err(|m| at(format!("bytes '{b}': {m}")))?.get();
            if let Some(n) = ranks.filter(|&n| src >= n || dst >= n) {
                return Err(at(format!("rank {} is beyond the job's {n} ranks", src.max(dst))));
            }
            flows.push(Flow { src, dst, bytes });
        }
        if flows.is_empty() {
            return Err(ConfigError::new(field, "lists no flow"));
        }
        let n = ranks.unwrap_or_else(|| flows.iter().map(|f| f.src.max(f.dst)).max().unwrap_or(0) + 1);
        Pattern::new(n, flows, field)
    }

    /// The pattern as CSV (`src,dst,bytes` with a header), as [`Pattern::from_csv`] reads it.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("src,dst,bytes\n");
        for f in &self.flows {
            s.push_str(&format!("{},{},{}\n", f.src, f.dst, f.bytes));
        }
        s
    }

    /// Ranks in the job.
    pub fn ranks(&self) -> u32 {
        self.ranks
    }

    /// The flows, in the order given.
    pub fn flows(&self) -> &[Flow] {
        &self.flows
    }

    /// Bytes of every flow together.
    pub fn total_bytes(&self) -> u64 {
        self.flows.iter().map(|f| f.bytes).sum()
    }

    /// Groups of `k` consecutive ranks as the ranks of a smaller pattern (rank `r` in group
    /// `r / k`; the last group may be short): flows between groups keep their bytes, flows
    /// within a group (on one node) are left out. A torus of ranks whose first axis `k` divides
    /// stays a torus, that axis `k` times shorter.
    pub fn grouped(&self, k: u32) -> Pattern {
        let k = k.max(1);
        let flows = self.flows.iter().map(|f| Flow { src: f.src / k, dst: f.dst / k, bytes: f.bytes }).filter(|f| f.src != f.dst).collect();
        let grid = self.grid.as_ref().filter(|d| d[0] % k == 0).map(|d| {
            let mut d = d.clone();
            d[0] /= k;
            d
        });
        Pattern { ranks: self.ranks.div_ceil(k), flows, grid }
    }

    /// Each rank's partners with the bytes exchanged both ways, partners in rank order.
    pub fn neighbours(&self) -> Neighbours {
        let mut pairs: Vec<(u32, u32, u64)> = Vec::with_capacity(self.flows.len() * 2);
        for f in self.flows.iter().filter(|f| f.src != f.dst) {
            pairs.push((f.src, f.dst, f.bytes));
            pairs.push((f.dst, f.src, f.bytes));
        }
        pairs.sort_unstable_by_key(|&(a, b, _)| (a, b));
        let mut start = vec![0u32; self.ranks as usize + 1];
        let mut partners: Vec<(u32, u64)> = Vec::with_capacity(pairs.len());
        let mut last = None;
        for (a, b, w) in pairs {
            if last == Some((a, b)) {
                partners.last_mut().expect("a partner was pushed").1 += w;
                continue;
            }
            last = Some((a, b));
            partners.push((b, w));
            start[a as usize + 1] += 1;
        }
        for r in 0..self.ranks as usize {
            start[r + 1] += start[r];
        }
        Neighbours { start, partners }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_reads_back_and_names_bad_lines() {
        let p = Pattern::from_csv("src,dst,bytes\n0,1,8\n1,0,1KiB # reply\n2,2,5\n", None, "--pattern").unwrap();
        assert_eq!((p.ranks(), p.total_bytes()), (3, 8 + 1024 + 5));
        assert_eq!(Pattern::from_csv(&p.to_csv(), None, "--pattern").unwrap(), p);
        let nb = p.neighbours();
        assert_eq!(nb.of(0), &[(1, 1032)]);
        assert!(nb.of(2).is_empty(), "self messages are no partners");
        let e = Pattern::from_csv("0,1,8\n0,x,8\n", None, "--pattern").unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("--pattern line 2", "dst 'x' is not a rank"));
        let e = Pattern::from_csv("0,9,8\n", Some(4), "--pattern").unwrap_err();
        assert!(e.message.contains("rank 9 is beyond the job's 4 ranks"), "{e}");
        assert!(Pattern::from_csv("0,1\n", None, "--pattern").is_err());
    }
}

//! Whether a streamed series can fit on its disk. Memory no longer bounds a streamed series, so
//! a mistyped interval (`--interval 1ps`) would otherwise fill the disk before failing. An
//! open-loop run lasts at least its warm-up and window, which gives the fewest rows its file
//! gets; a file whose least size exceeds the space free where it goes is refused before the
//! run, naming the estimate. Each file is checked alone (not with a trace beside it, nor with
//! the other points of a sweep writing into the same folder). A run whose end is not known (a
//! benchmark, a collective) is not checked, nor is a trace (written only where a value
//! changes, it grows with the packets, not the intervals): a full disk stops the run within a
//! few thousand events, with an error naming the file.

use crate::series_filter::SeriesPortInfo;
use crate::series_stream::SeriesFormat;
use crate::{Error, Plan};
use fabricsim_core::{ConfigError, Time};
use std::path::Path;

/// Refuse a series of `ports` at `interval` in `format` that cannot fit in the space free where
/// `path` goes (see the module docs).
pub(crate) fn check_disk(plan: &Plan, interval: Time, ports: &[SeriesPortInfo], format: SeriesFormat, path: &Path) -> Result<(), Error> {
    if plan.closed || interval.ps() == 0 {
        return Ok(());
    }
    let run = plan.limits.warmup.ps() + plan.limits.measure.ps();
    let intervals = run / interval.ps();
    let per_interval = ports.iter().map(|p| least_row_bytes(format, p)).sum::<u64>() / best_compression(format);
    let need = intervals.saturating_mul(per_interval);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // A disk whose space cannot be read is not checked.
    let Some(free) = free_bytes(dir) else { return Ok(()) };
    if need <= free {
        return Ok(());
    }
    let why = format!(
        "{interval} over a run of at least {} is {intervals} intervals of {} ports: at least {:.1} GB of {}, more than the {:.1} GB free in {}; use a longer interval or keep fewer ports (--series-ports, --series-region)",
        Time(run),
        ports.len(),
        need as f64 / 1e9,
        format.name(),
        free as f64 / 1e9,
        dir.display()
    );
    Err(ConfigError::new("--interval", why).into())
}

/// Bytes free for an unprivileged writer on the disk of `dir`.
#[cfg(unix)]
fn free_bytes(dir: &Path) -> Option<u64> {
    rustix::fs::statvfs(dir).ok().map(|fs| fs.f_bavail.saturating_mul(fs.f_frsize))
}

#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> Option<u64> {
    None
}

/// The fewest bytes a row of port `p` takes in `format`: its names and the shortest values.
fn least_row_bytes(format: SeriesFormat, p: &SeriesPortInfo) -> u64 {
    let digits = |n: u32| n.checked_ilog10().unwrap_or(0) as u64 + 1;
    let names = digits(p.router) + digits(p.local) + (p.kind.len() + p.label.len()) as u64;
    match format {
        // `0,` + names and their commas + `0.000000,0` + newline.
        SeriesFormat::Csv => names + 2 + 4 + 10 + 1,
        // The keys, quotes, braces and separator (76 bytes) and the shortest values (`0.0`,
        // `0.0`, `0`).
        SeriesFormat::Json => names + 76 + 7,
        // Before compression (`series_parquet.rs`): two doubles, three 32-bit integers, the
        // two texts with their 4-byte lengths.
        SeriesFormat::Parquet => 8 + 4 + 4 + 8 + 4 + (4 + p.kind.len() as u64) + (4 + p.label.len() as u64),
    }
}

/// At least what a format's compression can shrink its rows by, for a least size that never
/// refuses a file that would fit: Snappy (Parquet's pages) writes a copy of at most 64 bytes
/// in 3 bytes, a ratio of about 21; 32 leaves a margin.
fn best_compression(format: SeriesFormat) -> u64 {
    match format {
        SeriesFormat::Parquet => 32,
        SeriesFormat::Csv | SeriesFormat::Json => 1,
    }
}

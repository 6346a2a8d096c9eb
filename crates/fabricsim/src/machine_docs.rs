//! The validation tables of the machine pages (`docs/machines/*.md`): each page says "As
//! printed by `fabricsim validate --only SYSTEM`" above a text block, and that block is the
//! table `fabricsim validate` prints for the system's rows. [`check`] finds the pages whose block
//! differs from the rows of a validation run (a stale page), [`update`] rewrites those blocks;
//! `fabricsim validate --docs DIR` and `--update-docs DIR` run them (CI checks the pages after
//! its validation run).

use crate::validate::{table, Row};
use crate::Error;
use std::path::{Path, PathBuf};

const MARK: &str = "As printed by `fabricsim validate --only ";

/// A page's validation block: the system it names and where the block's text lies.
struct Block {
    system: String,
    /// Byte range of the block's text (between the fence lines).
    range: std::ops::Range<usize>,
}

/// The validation block of `page`, if it has one.
fn block(page: &str) -> Option<Block> {
    let at = page.find(MARK)?;
    let rest = &page[at + MARK.len()..];
    let system = rest[..rest.find('`')?].to_string();
    let open = at + page[at..].find("```text\n")? + "```text\n".len();
    let close = open + page[open..].find("```")?;
    Some(Block { system, range: open..close })
}

/// The table `fabricsim validate --only system` prints for `rows`.
fn expected(rows: &[Row], system: &str) -> String {
    let mine: Vec<Row> = rows.iter().filter(|r| r.system.eq_ignore_ascii_case(system)).cloned().collect();
    table(&mine)
}

/// The pages of `dir` with a validation block for a system among `rows`: (path, text, block).
fn pages(dir: &Path, rows: &[Row]) -> Result<Vec<(PathBuf, String, Block)>, Error> {
    let mut out = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "md")).collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        if let Some(b) = block(&text) {
            if rows.iter().any(|r| r.system.eq_ignore_ascii_case(&b.system)) {
                out.push((path, text, b));
            }
        }
    }
    Ok(out)
}

/// The pages of `dir` whose validation block differs from what `rows` print, each with its
/// system; a page whose system has no rows in `rows` (another `--only`) is not judged.
pub fn stale(dir: &Path, rows: &[Row]) -> Result<Vec<(PathBuf, String)>, Error> {
    Ok(pages(dir, rows)?
        .into_iter()
        .filter(|(_, text, b)| text[b.range.clone()] != expected(rows, &b.system))
        .map(|(p, _, b)| (p, b.system))
        .collect())
}

/// Fail naming every stale page of `dir` (see [`stale`]).
pub fn check(dir: &Path, rows: &[Row]) -> Result<(), Error> {
    let stale = stale(dir, rows)?;
    if stale.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = stale.iter().map(|(p, s)| format!("{} (--only {s})", p.display())).collect();
    Err(Error::Failed(format!("stale validation tables in {}: rerun `fabricsim validate --update-docs {}`", list.join(", "), dir.display())))
}

/// Rewrite the validation block of every stale page of `dir` from `rows`; returns the pages
/// written.
pub fn update(dir: &Path, rows: &[Row]) -> Result<Vec<PathBuf>, Error> {
    let mut written = Vec::new();
    for (path, mut text, b) in pages(dir, rows)? {
        let want = expected(rows, &b.system);
        if text[b.range.clone()] != want {
            text.replace_range(b.range, &want);
            std::fs::write(&path, text).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
            written.push(path);
        }
    }
    Ok(written)
}

//! NAS CG's communication: one iteration of the conjugate-gradient loop of the NPB 3.x MPI code
//! (`conj_grad` in `cg.f`), derived from how that code splits its matrix.
//!
//! The `ranks` processes (a power of two, 2^k) form a grid of `nprows` = 2^floor(k/2) rows and
//! `npcols` = 2^ceil(k/2) columns (so `npcols` is `nprows` or twice it); rank `me` sits in row
//! `me / npcols`, column `me % npcols`. The matrix has `NA` rows (`NA` = 75,000 for class B,
//! 1,500,000 for class D; S 1,400, W 7,000, A 14,000, C 150,000, E 9,000,000), split into row
//! blocks of `NA / nprows` rows (the first `NA mod nprows` blocks one row longer when `NA` does
//! not divide by `npcols`, as `setup_submatrix_info` does). Vectors are 8-byte doubles.
//!
//! Per iteration each rank:
//! 1. sums its partial `A.p` across its row by recursive halving: `log2(npcols)` exchanges,
//!    step `i` (1-based) with the rank whose column is `col XOR (npcols >> i)`, each of
//!    `send_len` doubles, where `send_len` is the row block's length on a square grid, and on a
//!    2:1 grid half of it (`(rows + 1) / 2` on even ranks, `rows / 2` on odd ones; the step with
//!    the nearest partner, `col XOR 1`, sends the other half, `rows - send_len`);
//! 2. sends `send_len` doubles to its transpose partner (`exch_proc`: on a square grid the rank at
//!    (column, row); on a 2:1 grid `2 * ((me/2 mod nprows) * nprows + me/2/nprows) + me mod 2`),
//!    none when that is itself;
//! 3. does two dot products (`p.q` and `r.r`), each a one-double exchange with the same
//!    `log2(npcols)` row partners.
//!
//! The pattern holds the bytes of one iteration; NPB runs 25 per outer iteration (75 outer for
//! class B, 100 for class D), which scales every cost alike and so ranks maps the same.

use crate::pattern::{Flow, Pattern};

/// A NAS problem class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// NA = 1,400.
    S,
    /// NA = 7,000.
    W,
    /// NA = 14,000.
    A,
    /// NA = 75,000.
    B,
    /// NA = 150,000.
    C,
    /// NA = 1,500,000.
    D,
    /// NA = 9,000,000.
    E,
}

impl Class {
    /// The class named by one letter (either case).
    pub fn parse(s: &str) -> Option<Class> {
        Some(match s.to_ascii_uppercase().as_str() {
            "S" => Class::S,
            "W" => Class::W,
            "A" => Class::A,
            "B" => Class::B,
            "C" => Class::C,
            "D" => Class::D,
            "E" => Class::E,
            _ => return None,
        })
    }

    /// The matrix order NA.
    pub fn na(self) -> u64 {
        match self {
            Class::S => 1_400,
            Class::W => 7_000,
            Class::A => 14_000,
            Class::B => 75_000,
            Class::C => 150_000,
            Class::D => 1_500_000,
            Class::E => 9_000_000,
        }
    }
}

/// The process grid (rows, columns) of `ranks` ranks, or why there is none.
pub fn grid(ranks: u32) -> Result<(u32, u32), String> {
    if !ranks.is_power_of_two() || ranks < 2 {
        return Err(format!("NAS CG runs on a power of two ranks, 2 or more, not {ranks}"));
    }
    let k = ranks.trailing_zeros();
    Ok((1 << (k / 2), 1 << k.div_ceil(2)))
}

/// One CG iteration's messages on `ranks` ranks (see the module docs).
pub fn pattern(class: Class, ranks: u32) -> Result<Pattern, String> {
    let (nprows, npcols) = grid(ranks)?;
    let na = class.na();
    if na < npcols as u64 {
        return Err(format!("class {class:?} has {na} rows, fewer than the {npcols} process columns"));
    }
    let steps = npcols.trailing_zeros();
    let mut flows = Vec::with_capacity(ranks as usize * (steps as usize + 1));
    for me in 0..ranks {
        let (row, col) = (me / npcols, me % npcols);
        let (np, base) = (nprows as u64, na / nprows as u64);
        let rows = if na.is_multiple_of(npcols as u64) || (row as u64) >= na - base * np { base } else { base + 1 };
        let square = nprows == npcols;
        let send_len = match (square, me % 2) {
            (true, _) => rows,
            (false, 0) => rows.div_ceil(2),
            (false, _) => rows / 2,
        };
        for i in 1..=steps {
            let partner = row * npcols + (col ^ (npcols >> i));
            let len = if !square && i == steps { rows - send_len } else { send_len };
            // The matrix-vector sum and the two dot products' doubles.
            flows.push(Flow { src: me, dst: partner, bytes: 8 * len + 16 });
        }
        let exch = if square { (me % nprows) * nprows + me / nprows } else { 2 * ((me / 2 % nprows) * nprows + me / 2 / nprows) + me % 2 };
        if steps > 0 && exch != me {
            flows.push(Flow { src: me, dst: exch, bytes: 8 * send_len });
        }
    }
    Ok(Pattern::new(ranks, flows, "cg").map_err(|e| e.message)?.with_grid(vec![npcols, nprows]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_b_on_1024_ranks_follows_the_npb_split() {
        assert_eq!(grid(1024).unwrap(), (32, 32));
        assert_eq!(grid(8192).unwrap(), (64, 128));
        let p = pattern(Class::B, 1024).unwrap();
        // 75,000 rows over 32 process rows: rows 0..24 hold 2,344, the rest 2,343.
        let of = |src: u32, dst: u32| p.flows().iter().find(|f| f.src == src && f.dst == dst).map(|f| f.bytes);
        assert_eq!(of(0, 16), Some(8 * 2344 + 16), "first reduce step: column 0 with column 16");
        assert_eq!(of(0, 1), Some(8 * 2344 + 16));
        assert_eq!(of(1, 32), Some(8 * 2344), "transpose: (row 0, col 1) to (row 1, col 0)");
        assert_eq!(of(31 * 32, 31 * 32 + 1), Some(8 * 2343 + 16));
        assert_eq!(of(0, 0), None, "the diagonal keeps its block");
        // Every rank: 5 reduce partners, and a transpose partner off the diagonal.
        assert_eq!(p.flows().len(), 1024 * 5 + 1024 - 32);
    }

    #[test]
    fn class_d_on_8192_ranks_halves_the_rows_on_a_two_to_one_grid() {
        let p = pattern(Class::D, 8192).unwrap();
        // 1,500,000 over 64 rows: rows 0..32 hold 23,438; even ranks send 11,719, odd 11,719.
        let of = |src: u32, dst: u32| p.flows().iter().find(|f| f.src == src && f.dst == dst).map(|f| f.bytes);
        assert_eq!(of(0, 64), Some(8 * 11_719 + 16));
        assert_eq!(of(0, 1), Some(8 * (23_438 - 11_719) + 16), "the last step sends the other half");
        assert_eq!(of(8191, 8190), Some(8 * (23_437 - 11_718) + 16));
        assert_eq!(p.ranks(), 8192);
    }
}

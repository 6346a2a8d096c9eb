//! Communication patterns made from a short description, as `--generate` takes them:
//!
//! | spec | pattern |
//! |---|---|
//! | `cg:B:1024` | one iteration of NAS CG's conjugate-gradient loop, class B, 1024 ranks ([`cg`]) |
//! | `halo:32x32:64KiB` | 2D (or 3D with `AxBxC`) periodic halo exchange, each face that many bytes ([`halo`]) |
//! | `alltoall:64:1KiB` | every rank to every other rank ([`simple::all_to_all`]) |
//! | `ring:64:1MiB` | every rank to the next, the last to the first ([`simple::ring`]) |

pub mod cg;
pub mod halo;
pub mod simple;

use crate::Pattern;
use fabricsim_core::{Bytes, ConfigError};

/// Most flows a generator makes (memory stays linear in the pattern; this bounds it).
pub const MAX_FLOWS: u64 = 100_000_000;

/// The pattern a spec describes (see the module docs); errors name `field` and the value.
pub fn parse(spec: &str, field: &str) -> Result<Pattern, ConfigError> {
    let bad = |m: String| ConfigError::new(field, format!("'{spec}': {m}"));
    let parts: Vec<&str> = spec.split(':').map(str::trim).collect();
    let count = |w: &str| {
        let n = w.parse::<u32>().ok().filter(|&n| n >= 2).ok_or_else(|| bad(format!("'{w}' is not a rank count of 2 or more")))?;
        // Ring and CG make at most 33 flows per rank.
        if n as u64 * 33 > MAX_FLOWS {
            return Err(bad(format!("{n} ranks: at most {} here", MAX_FLOWS / 33)));
        }
        Ok(n)
    };
    let bytes = |w: &str| Bytes::parse(w).map(Bytes::get).map_err(|m| bad(format!("'{w}': {m}")));
    match parts.as_slice() {
        ["cg", class, ranks] => {
            let class = cg::Class::parse(class).ok_or_else(|| bad(format!("'{class}' is not a NAS class (S, W, A, B, C, D, E)")))?;
            cg::pattern(class, count(ranks)?).map_err(bad)
        }
        ["halo", dims, b] => {
            let dims = dims.split('x').map(|d| d.parse::<u32>().ok().filter(|&n| n >= 1)).collect::<Option<Vec<u32>>>();
            let dims = dims.filter(|d| (2..=3).contains(&d.len())).ok_or_else(|| bad("the grid is AxB or AxBxC, each at least 1".into()))?;
            if dims.iter().map(|&d| d as u64).product::<u64>() * 2 * dims.len() as u64 > MAX_FLOWS {
                return Err(bad(format!("{dims:?} makes more than {MAX_FLOWS} flows")));
            }
            halo::pattern(&dims, bytes(b)?).map_err(bad)
        }
        ["alltoall", n, b] => {
            let n = count(n)?;
            if n as u64 * (n as u64 - 1) > MAX_FLOWS {
                return Err(bad(format!("{n} ranks make more than {MAX_FLOWS} flows")));
            }
            Ok(simple::all_to_all(n, bytes(b)?))
        }
        ["ring", n, b] => Ok(simple::ring(count(n)?, bytes(b)?)),
        _ => Err(bad("give cg:CLASS:RANKS, halo:AxB[xC]:BYTES, alltoall:RANKS:BYTES or ring:RANKS:BYTES".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_name_the_value() {
        assert_eq!(parse("ring:4:8", "--generate").unwrap().flows().len(), 4);
        assert_eq!(parse("alltoall:4:8", "--generate").unwrap().flows().len(), 12);
        assert_eq!(parse("halo:4x4:8", "--generate").unwrap().ranks(), 16);
        assert_eq!(parse("cg:B:1024", "--generate").unwrap().ranks(), 1024);
        let e = parse("cg:Q:1024", "--generate").unwrap_err();
        assert_eq!((e.field.as_str(), e.message.as_str()), ("--generate", "'cg:Q:1024': 'Q' is not a NAS class (S, W, A, B, C, D, E)"));
        assert!(parse("cg:B:1000", "--generate").unwrap_err().message.contains("power of two"));
        assert!(parse("mesh:4", "--generate").is_err());
        assert!(parse("halo:4:8", "--generate").is_err());
        assert!(parse("cg:B:1073741824", "--generate").unwrap_err().message.contains("ranks: at most"));
        assert!(parse("alltoall:20000:8", "--generate").unwrap_err().message.contains("more than 100000000 flows"));
        assert!(parse("halo:50000x50000:8", "--generate").unwrap_err().message.contains("more than 100000000 flows"));
    }
}

//! The cache layer: a fixed budget of 4 KiB slots shared by all threads
//! ([`pool`]), bound to a graph file ([`BlockCache`]) so callers ask for
//! blocks by key and get them read (merged, checked) on a miss.

pub mod ace;
pub mod blocks;
pub mod policy;
pub mod pool;
pub mod slot;
pub mod stats;

pub use blocks::{BlockCache, BlockKey, CacheReader, Pumped};
pub use policy::{Clock, Replacement};
pub use pool::{BufferPool, Joined, Load, Lookup, Pinned, SLOT_BYTES};
pub use stats::PoolSnapshot;

use crate::error::{Error, Result};

/// A cache budget as the user gives it: bytes, or a share of the graph file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacheSize {
    /// A number of bytes.
    Bytes(u64),
    /// A percentage of the graph file's size.
    Percent(f64),
}

impl CacheSize {
    /// Bytes for a graph file of `file_bytes`, in whole 4 KiB slots (what
    /// the pool holds, so every report of the size agrees): at least one
    /// slot, and at most the whole file (a larger pool could hold nothing
    /// more).
    pub fn resolve(&self, file_bytes: u64) -> u64 {
        let slot = SLOT_BYTES as u64;
        let b = match *self {
            CacheSize::Bytes(b) => b,
            CacheSize::Percent(p) => (file_bytes as f64 * p / 100.0) as u64,
        };
        (b.min(file_bytes.next_multiple_of(slot)) / slot * slot).max(slot)
    }

    /// True when the size asked for is more than the whole file, so
    /// [`CacheSize::resolve`] caps it (the CLI says so).
    pub fn is_capped(&self, file_bytes: u64) -> bool {
        match *self {
            CacheSize::Bytes(b) => b > file_bytes.next_multiple_of(SLOT_BYTES as u64),
            CacheSize::Percent(p) => p > 100.0,
        }
    }
}

impl std::fmt::Display for CacheSize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheSize::Bytes(b) => write!(f, "{}", crate::metrics::human(*b)),
            CacheSize::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl std::str::FromStr for CacheSize {
    type Err = Error;
    fn from_str(s: &str) -> Result<CacheSize> {
        let t = s.trim();
        if let Some(p) = t.strip_suffix('%') {
            return match p.trim().parse::<f64>() {
                Ok(v) if v > 0.0 && v.is_finite() => Ok(CacheSize::Percent(v)),
                _ => Err(Error::Invalid(format!(
                    "cache size {s:?}: a percentage must be a positive number, like 3%"
                ))),
            };
        }
        if parse_bytes(t) == Ok(0) {
            return Err(Error::Invalid(format!(
                "cache size {s:?}: the pool needs at least one 4 KiB block"
            )));
        }
        parse_bytes(t).map(CacheSize::Bytes).map_err(|why| {
            Error::Invalid(format!(
                "cache size {s:?}: {why}; use bytes with an optional unit (256MiB, 4GiB) or a share of the graph file (3%)"
            ))
        })
    }
}

/// Parses sizes like `4096`, `64KiB`, `512MiB`, `1.5G`, `4GiB` into bytes;
/// the error says what was wrong, for command-line messages.
pub fn parse_bytes(s: &str) -> std::result::Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("\"{s}\" is not a size like 4GiB or 512MiB"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        u => {
            return Err(format!(
                "unknown size unit \"{u}\" (use KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let b = x * mult as f64;
    if !(b.is_finite() && b >= 0.0 && b < u64::MAX as f64) {
        return Err(format!("\"{s}\" is not a positive size"));
    }
    Ok(b as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(
            "256MiB".parse::<CacheSize>().unwrap(),
            CacheSize::Bytes(256 << 20)
        );
        assert_eq!("3%".parse::<CacheSize>().unwrap(), CacheSize::Percent(3.0));
        assert_eq!("4096".parse::<CacheSize>().unwrap(), CacheSize::Bytes(4096));
        assert!("x%".parse::<CacheSize>().is_err());
        assert!("12 parsecs".parse::<CacheSize>().is_err());
        assert_eq!(CacheSize::Percent(50.0).resolve(1 << 20), 1 << 19);
        assert_eq!(CacheSize::Bytes(1).resolve(1 << 20), 4096);
        // Whole slots, as the pool holds them: 3% of 2.8 MiB is 86.0 KiB,
        // 21 slots of 4 KiB.
        assert_eq!(CacheSize::Percent(3.0).resolve(2_936_000), 21 * 4096);
        assert_eq!(CacheSize::Bytes(3 * 4096 + 1).resolve(1 << 20), 3 * 4096);
    }
}

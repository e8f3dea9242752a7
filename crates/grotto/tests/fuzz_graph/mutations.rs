//! The mutation classes of the graph-file fuzzer (see `fuzz_graph.rs`
//! for the rule each class is held to): each takes an original file's
//! bytes and returns a mutant with the CRCs a forger would recompute.

use super::Base;
use grotto::rng::Rng;
use grotto::store::format::{padded, Header, SectionKind, BLOCK_BYTES, SLOTS_PER_BLOCK};
use std::fmt::Write as _;

/// Header layout (docs/format.md).
const HEADER_FIXED: usize = 96;
const ROW: usize = 40;
const HEADER_CRC_AT: usize = BLOCK_BYTES - 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Class {
    BitFlip,
    Truncate,
    HeaderField,
    Metadata,
    Index,
    IdMap,
    Order,
    EdgeBlock,
    WeightBlock,
    IdBase,
    IdBaseOverflow,
}

impl Class {
    /// Whether an accepted mutant may differ from the original.
    pub(crate) fn semantic(self) -> bool {
        matches!(
            self,
            Class::Index
                | Class::IdMap
                | Class::Order
                | Class::EdgeBlock
                | Class::WeightBlock
                | Class::IdBase
        )
    }
}

pub(crate) struct Mutant {
    /// Its class.
    pub(crate) class: Class,
    /// What was changed, in words.
    pub(crate) what: String,
    /// The mutated file.
    pub(crate) bytes: Vec<u8>,
}

pub(crate) fn put(b: &mut [u8], at: usize, width: usize, v: u64) {
    b[at..at + width].copy_from_slice(&v.to_le_bytes()[..width]);
}
pub(crate) fn get(b: &[u8], at: usize, width: usize) -> u64 {
    let mut a = [0u8; 8];
    a[..width].copy_from_slice(&b[at..at + width]);
    u64::from_le_bytes(a)
}

pub(crate) fn fix_header_crc(b: &mut [u8]) {
    let c = crc32c::crc32c(&b[..HEADER_CRC_AT]);
    put(b, HEADER_CRC_AT, 4, c as u64);
}

/// Recomputes the CRC of section table row `row` from its padded bytes.
pub(crate) fn fix_section_crc(b: &mut [u8], h: &Header, row: usize) {
    let s = &h.sections[row];
    let (a, e) = (s.offset as usize, (s.offset + padded(s.length)) as usize);
    let c = crc32c::crc32c(&b[a..e]);
    put(b, HEADER_FIXED + row * ROW + 32, 4, c as u64);
}

pub(crate) fn row_of(h: &Header, kind: SectionKind) -> Option<usize> {
    h.sections.iter().position(|s| s.kind == kind)
}

/// A boundary or related value for a field of `width` bytes now `old`.
pub(crate) fn boundary(rng: &mut Rng, old: u64, width: usize, others: &[u64]) -> u64 {
    let v = match rng.below(13) {
        0 => 0,
        1 => 1,
        2 => u64::MAX,
        3 => u64::MAX - 10,
        4 => 1 << 32,
        5 => u32::MAX as u64,
        6 => old.wrapping_add(1),
        7 => old.wrapping_sub(1),
        8 => old ^ (1 << rng.below(width as u64 * 8)),
        9 => others[rng.below(others.len() as u64) as usize],
        10 => old.wrapping_mul(2),
        11 => old / 2,
        _ => rng.next_u64(),
    };
    if width == 8 {
        v
    } else {
        v & ((1u64 << (width * 8)) - 1)
    }
}

pub(crate) fn bit_flips(base: &Base, rng: &mut Rng) -> Mutant {
    let mut b = base.bytes.clone();
    let k = 1 + rng.below(8);
    let mut what = String::from("flip bits");
    for _ in 0..k {
        // Half in the header and metadata-sized front, half anywhere.
        let at = if rng.below(2) == 0 {
            rng.below(b.len().min(3 * BLOCK_BYTES) as u64)
        } else {
            rng.below(b.len() as u64)
        } as usize;
        let bit = rng.below(8);
        b[at] ^= 1 << bit;
        write!(what, " {at}.{bit}").unwrap();
    }
    Mutant {
        class: Class::BitFlip,
        what,
        bytes: b,
    }
}

pub(crate) fn truncation(base: &Base, rng: &mut Rng) -> Mutant {
    let len = base.bytes.len() as u64;
    let mut edges: Vec<u64> = vec![0, 8, 4095, 4096, len - 1, len - 4096];
    for s in &base.header.sections {
        edges.extend([
            s.offset,
            s.offset + s.length / 2,
            s.offset + padded(s.length),
        ]);
    }
    let at = if rng.below(2) == 0 {
        edges[rng.below(edges.len() as u64) as usize]
    } else {
        rng.below(len)
    }
    .min(len - 1);
    Mutant {
        class: Class::Truncate,
        what: format!("truncate to {at} of {len} bytes"),
        bytes: base.bytes[..at as usize].to_vec(),
    }
}

/// Header fields: (name, offset, width).
pub(crate) fn header_fields(h: &Header) -> Vec<(String, usize, usize)> {
    let mut f: Vec<(String, usize, usize)> = [
        ("version", 8, 4),
        ("block size", 12, 4),
        ("flags", 16, 8),
        ("vertex count", 24, 8),
        ("edge count", 32, 8),
        ("out entries", 40, 8),
        ("id base", 48, 8),
        ("self loops dropped", 56, 8),
        ("duplicates dropped", 64, 8),
        ("lines skipped", 72, 8),
        ("section count", 80, 4),
        ("reserved 84", 84, 4),
        ("reserved 88", 88, 8),
    ]
    .into_iter()
    .map(|(n, a, w)| (n.to_string(), a, w))
    .collect();
    for (i, s) in h.sections.iter().enumerate() {
        let at = HEADER_FIXED + i * ROW;
        for (n, o, w) in [
            ("kind", 0, 4),
            ("reserved", 4, 4),
            ("offset", 8, 8),
            ("length", 16, 8),
            ("count", 24, 8),
            ("crc", 32, 4),
            ("reserved2", 36, 4),
        ] {
            f.push((format!("{} {n}", s.kind.name()), at + o, w));
        }
    }
    // The first unused row.
    let at = HEADER_FIXED + h.sections.len() * ROW;
    f.push(("unused row kind".into(), at, 4));
    f.push(("unused row offset".into(), at + 8, 8));
    f
}

pub(crate) fn header_field(base: &Base, rng: &mut Rng) -> Mutant {
    let h = &base.header;
    let fields = header_fields(h);
    let others: Vec<u64> = fields
        .iter()
        .map(|&(_, a, w)| get(&base.bytes, a, w))
        .collect();
    let mut b = base.bytes.clone();
    // Half the time one of the fixed fields (before the section table).
    let fixed = fields.iter().filter(|f| f.1 < HEADER_FIXED).count() as u64;
    let pick = match rng.below(10) {
        0..=4 => rng.below(fixed),
        _ => rng.below(fields.len() as u64),
    };
    let (name, at, width) = fields[pick as usize].clone();
    if rng.below(10) == 0 {
        // Any header byte but the checksum's.
        let at = rng.below(HEADER_CRC_AT as u64) as usize;
        let bit = rng.below(8);
        b[at] ^= 1 << bit;
        fix_header_crc(&mut b);
        let class = if (48..56).contains(&at) {
            id_base_class(h, get(&b, 48, 8))
        } else {
            Class::HeaderField
        };
        return Mutant {
            class,
            what: format!("header byte {at} bit {bit}"),
            bytes: b,
        };
    }
    let old = get(&b, at, width);
    let new = if name == "flags" && rng.below(2) == 0 {
        old ^ (1 << rng.below(8))
    } else {
        boundary(rng, old, width, &others)
    };
    // A value equal to the old one would test nothing.
    let new = if new == old { old ^ 1 } else { new };
    put(&mut b, at, width, new);
    fix_header_crc(&mut b);
    let class = if name == "id base" {
        id_base_class(h, new)
    } else {
        Class::HeaderField
    };
    Mutant {
        class,
        what: format!("header {name}: {old} -> {new}"),
        bytes: b,
    }
}

/// An id base is ignored with an id map; without one, a base that keeps
/// every user id within u64 gives other user ids (a different valid
/// graph), and one that does not must be refused.
pub(crate) fn id_base_class(h: &Header, base: u64) -> Class {
    if h.has_id_map() {
        Class::HeaderField
    } else if base.checked_add(h.vertex_count).is_none() {
        Class::IdBaseOverflow
    } else {
        Class::IdBase
    }
}

pub(crate) fn id_base(base: &Base, rng: &mut Rng) -> Option<Mutant> {
    if base.header.has_id_map() {
        return None;
    }
    let mut b = base.bytes.clone();
    let old = get(&b, 48, 8);
    let new = match rng.below(4) {
        0 => old + 1,
        1 => old.wrapping_sub(1),
        2 => (u64::MAX - base.header.vertex_count).wrapping_add(rng.below(3)),
        _ => rng.next_u64() >> rng.below(64),
    };
    put(&mut b, 48, 8, new);
    fix_header_crc(&mut b);
    Some(Mutant {
        class: id_base_class(&base.header, new),
        what: format!("id base {old} -> {new}"),
        bytes: b,
    })
}

pub(crate) fn is_meta(k: SectionKind) -> bool {
    use SectionKind::*;
    matches!(
        k,
        OutBlockCrcs
            | OutBlockTags
            | OutHuge
            | OutBlockMap
            | InBlockCrcs
            | InBlockTags
            | InHuge
            | InBlockMap
    )
}

/// Rewrites bytes of one non-empty section chosen by `pick`, then fixes
/// its CRC and the header's.
pub(crate) fn metadata(
    base: &Base,
    rng: &mut Rng,
    class: Class,
    pick: impl Fn(SectionKind) -> bool,
) -> Option<Mutant> {
    let h = &base.header;
    let rows: Vec<usize> = (0..h.sections.len())
        .filter(|&i| pick(h.sections[i].kind) && h.sections[i].length > 0)
        .collect();
    if rows.is_empty() {
        return None;
    }
    let row = rows[rng.below(rows.len() as u64) as usize];
    let s = h.sections[row];
    let mut b = base.bytes.clone();
    let (lo, len) = (s.offset as usize, s.length as usize);
    let n = h.vertex_count;
    let mut what = format!("{}:", s.kind.name());
    let edits = 1 + rng.below(3);
    for _ in 0..edits {
        let word = if matches!(
            s.kind,
            SectionKind::OutBlockCrcs
                | SectionKind::InBlockCrcs
                | SectionKind::OutBlockTags
                | SectionKind::Order
        ) {
            4.min(len)
        } else {
            8.min(len)
        };
        let slots = (len / word) as u64;
        let at = lo + rng.below(slots) as usize * word;
        let old = get(&b, at, word);
        let new = match (s.kind, rng.below(4)) {
            (SectionKind::OutIndex | SectionKind::InIndex, 0..=2) => {
                let other = get(&b, lo + rng.below(slots) as usize * 8, 8);
                let id = |rng: &mut Rng| match rng.below(4) {
                    0 => rng.below(n.max(1)),
                    1 => n.saturating_sub(1),
                    2 => n,
                    _ => rng.next_u64() & 0xFFFF_FFFF,
                };
                let slot = |rng: &mut Rng| match rng.below(3) {
                    0 => rng.below(8 * SLOTS_PER_BLOCK as u64),
                    1 => old & ((1 << 40) - 1),
                    _ => rng.next_u64() & ((1 << 40) - 1),
                };
                match rng.below(7) {
                    0 => (1 << 62) | id(rng),
                    1 => {
                        let (x, y) = (id(rng) & ((1 << 31) - 1), id(rng) & ((1 << 31) - 1));
                        (2 << 62) | (x << 31) | y
                    }
                    2 => {
                        let d = match rng.below(3) {
                            0 => rng.below(20),
                            1 => ((old >> 40) & ((1 << 22) - 1)) ^ 1,
                            _ => rng.below(1 << 22),
                        };
                        (d << 40) | slot(rng)
                    }
                    3 => (3 << 62) | slot(rng),
                    4 => other,
                    5 => {
                        // swap with another entry
                        let j = lo + rng.below(slots) as usize * 8;
                        let o = get(&b, j, 8);
                        put(&mut b, j, 8, old);
                        write!(what, " (swapped with @{})", j - lo).unwrap();
                        o
                    }
                    _ => old ^ (1 << rng.below(64)),
                }
            }
            (SectionKind::IdMap, 0..=1) => {
                let i = at - lo;
                let prev = if i >= 8 { get(&b, at - 8, 8) } else { 0 };
                let next = if i + 16 <= len {
                    get(&b, at + 8, 8)
                } else {
                    u64::MAX
                };
                match rng.below(4) {
                    0 => prev,
                    1 => next,
                    2 => prev.wrapping_add(1),
                    _ => next.wrapping_sub(1),
                }
            }
            _ => {
                let v = boundary(rng, old, word, &[n, n.wrapping_sub(1), 0]);
                if rng.below(3) == 0 {
                    old ^ (1 << rng.below(word as u64 * 8))
                } else {
                    v
                }
            }
        };
        put(&mut b, at, word, new);
        write!(what, " @{}: {old:#x} -> {new:#x}", at - lo).unwrap();
    }
    fix_section_crc(&mut b, h, row);
    fix_header_crc(&mut b);
    Some(Mutant {
        class,
        what,
        bytes: b,
    })
}

/// Rewrites slots of one block of a block section, then fixes its CRC in
/// the crc table, the table's CRC in the header and the header's.
pub(crate) fn block(base: &Base, rng: &mut Rng, weights: bool) -> Option<Mutant> {
    use SectionKind::*;
    let h = &base.header;
    let kinds: Vec<(SectionKind, SectionKind)> = if weights {
        vec![(OutWeights, OutBlockCrcs), (InWeights, InBlockCrcs)]
    } else {
        vec![(OutBlocks, OutBlockCrcs), (InBlocks, InBlockCrcs)]
    };
    let kinds: Vec<_> = kinds
        .into_iter()
        .filter(|(k, _)| h.section(*k).is_some_and(|s| s.count > 0))
        .collect();
    if kinds.is_empty() {
        return None;
    }
    let (kb, kc) = kinds[rng.below(kinds.len() as u64) as usize];
    let s = *h.section(kb)?;
    let crow = row_of(h, kc)?;
    let cs = h.sections[crow];
    let nb = s.count;
    let blk = rng.below(nb);
    let lo = (s.offset + blk * BLOCK_BYTES as u64) as usize;
    let mut b = base.bytes.clone();
    let n = h.vertex_count;
    let mut what = format!("{} block {blk}:", kb.name());
    for _ in 0..1 + rng.below(3) {
        let i = rng.below(SLOTS_PER_BLOCK as u64) as usize;
        let at = lo + i * 4;
        let old = get(&b, at, 4);
        let new = if weights {
            match rng.below(6) {
                0 => f32::NAN.to_bits() as u64,
                1 => f32::INFINITY.to_bits() as u64,
                2 => f32::NEG_INFINITY.to_bits() as u64,
                3 => (-1.5f32).to_bits() as u64,
                4 => old ^ (1 << rng.below(32)),
                _ => rng.next_u64() & 0xFFFF_FFFF,
            }
        } else {
            match rng.below(8) {
                0 => rng.below(n.max(1)),
                1 => n.saturating_sub(1),
                2 => n,
                3 => u32::MAX as u64,
                4 => 0,
                5 => get(&b, lo + (i ^ 1) * 4, 4),
                6 => old.wrapping_add(1) & 0xFFFF_FFFF,
                _ => old ^ (1 << rng.below(32)),
            }
        };
        put(&mut b, at, 4, new);
        write!(what, " slot {i}: {old} -> {new}").unwrap();
    }
    let crc = crc32c::crc32c(&b[lo..lo + BLOCK_BYTES]);
    // Weight blocks' CRCs follow the edge blocks' (as many as blocks).
    let idx = if weights { nb + blk } else { blk };
    put(&mut b, cs.offset as usize + idx as usize * 4, 4, crc as u64);
    fix_section_crc(&mut b, h, crow);
    fix_header_crc(&mut b);
    Some(Mutant {
        class: if weights {
            Class::WeightBlock
        } else {
            Class::EdgeBlock
        },
        what,
        bytes: b,
    })
}

pub(crate) fn mutate(base: &Base, class: Class, rng: &mut Rng) -> Option<Mutant> {
    use SectionKind::*;
    match class {
        Class::BitFlip => Some(bit_flips(base, rng)),
        Class::Truncate => Some(truncation(base, rng)),
        Class::HeaderField => Some(header_field(base, rng)),
        Class::IdBase | Class::IdBaseOverflow => id_base(base, rng),
        Class::Metadata => metadata(base, rng, class, is_meta),
        Class::Index => metadata(base, rng, class, |k| matches!(k, OutIndex | InIndex)),
        Class::IdMap => metadata(base, rng, class, |k| k == IdMap),
        Class::Order => metadata(base, rng, class, |k| k == Order),
        Class::EdgeBlock => block(base, rng, false),
        Class::WeightBlock => block(base, rng, true),
    }
}

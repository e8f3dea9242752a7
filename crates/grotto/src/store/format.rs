//! Byte-level layout of a grotto graph file (format version 4).
//!
//! `docs/format.md` describes the same layout in prose; this module is the
//! single place in the code that knows offsets and encodings. Everything is
//! little-endian and every section starts on a 4 KiB boundary so that the
//! engines can read with `O_DIRECT`. The header block itself (its
//! encoding and every check made when it is decoded) is in [`super::header`]
//! and re-exported here.

pub use super::header::{Header, MAX_SECTIONS};

/// First eight bytes of every grotto file.
pub const MAGIC: [u8; 8] = *b"GROTTO\0\x01";
/// The newest format version this build writes and reads. Version 2 added
/// the block map sections, version 3 vertex names ([`FLAG_NAMES`]),
/// version 4 packed blocks ([`FLAG_PACKED`]), version 5 a vertex order
/// ([`FLAG_ORDER`]), version 6 committed updates ([`FLAG_DELTA`]),
/// version 7 block maps stored delta-coded ([`CODED_MAP_VERSION`]); older
/// files still open. Every file is written as version 7.
pub const FORMAT_VERSION: u32 = 7;
/// From this version on, the block map sections hold each block's run
/// delta-coded as varints, as the map is held in memory (about 1.1 bytes
/// a pair), instead of 4-byte ids.
pub const CODED_MAP_VERSION: u32 = 7;
/// The version a file is raised to by its first update.
pub const DELTA_VERSION: u32 = 6;
/// The version a file with packed blocks and no vertex order is written as.
pub const PACKED_VERSION: u32 = 4;
/// The version a file without vertex names or packed blocks is written as.
pub const NAMELESS_VERSION: u32 = 2;
/// The version a file with vertex names and raw blocks is written as.
pub const NAMES_VERSION: u32 = 3;
/// Size of the header and of every edge block, in bytes.
pub const BLOCK_BYTES: usize = 4096;
/// Neighbour ids (u32) held by one edge block.
pub const SLOTS_PER_BLOCK: usize = BLOCK_BYTES / 4;
/// Largest vertex count a file can hold: internal ids are u32 and
/// `u32::MAX` is reserved as "no vertex".
pub const MAX_VERTICES: u64 = u32::MAX as u64;

/// Header flag: edges have a direction (otherwise each edge is stored in both lists).
pub const FLAG_DIRECTED: u64 = 1 << 0;
/// Header flag: a weights section parallels the edge blocks.
pub const FLAG_WEIGHTED: u64 = 1 << 1;
/// Header flag: the in-edge adjacency (reverse edges) is stored too.
pub const FLAG_REVERSE: u64 = 1 << 2;
/// Header flag: vertex ids were compacted and an id map section exists.
pub const FLAG_ID_MAP: u64 = 1 << 3;
/// Header flag: lists of degree 1 and 2 may be stored inside the index.
pub const FLAG_INLINE_SMALL: u64 = 1 << 4;
/// Header flag: duplicate edges were kept.
pub const FLAG_MULTI: u64 = 1 << 5;
/// Header flag: self loops were kept.
pub const FLAG_SELF_LOOPS: u64 = 1 << 6;
/// Header flag: vertices have string names (a names section exists;
/// version 3 and later).
pub const FLAG_NAMES: u64 = 1 << 7;
/// Header flag: edge blocks are packed (compressed) lists, index offsets
/// are byte addresses and huge-table rows have a third word, the list's
/// block count (version 4 and later; see [`super::codec`]).
pub const FLAG_PACKED: u64 = 1 << 8;
/// Header flag: internal vertex ids are renumbered (an order section maps
/// each to its rank in the user's order; version 5 and later).
pub const FLAG_ORDER: u64 = 1 << 9;
/// Header flag: updates were committed (a manifest section names delta
/// runs appended after the base sections; version 6 and later).
pub const FLAG_DELTA: u64 = 1 << 10;
pub(crate) const KNOWN_FLAGS: u64 = (1 << 11) - 1;

/// Block encoding tag: 1024 raw little-endian u32 neighbour ids.
pub const ENCODING_RAW_U32: u8 = 0;
pub use super::codec::{TAG_PACKED, TAG_SPAN};

/// What a section holds. The numeric codes are part of the format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectionKind {
    /// Edge blocks of the out-adjacency (or the only adjacency of an undirected graph).
    OutBlocks,
    /// Weight blocks parallel to `OutBlocks` (f32 per slot).
    OutWeights,
    /// One u64 index entry per vertex for the out-adjacency.
    OutIndex,
    /// One CRC-32C per edge block, then one per weight block.
    OutBlockCrcs,
    /// One encoding tag byte per edge block.
    OutBlockTags,
    /// (vertex u64, degree u64) pairs for lists too long for an index entry.
    OutHuge,
    /// Which vertices have list entries in each edge block (optional: a
    /// file without it has the map built when opened; see
    /// [`BlockMap`](super::blockmap::BlockMap)).
    OutBlockMap,
    /// In-adjacency sections (present with `FLAG_REVERSE`).
    InBlocks,
    /// Weights of the in-adjacency.
    InWeights,
    /// Index of the in-adjacency.
    InIndex,
    /// Block checksums of the in-adjacency.
    InBlockCrcs,
    /// Block tags of the in-adjacency.
    InBlockTags,
    /// Long lists of the in-adjacency.
    InHuge,
    /// Block map of the in-adjacency (optional).
    InBlockMap,
    /// Sorted original ids (u64), one per vertex (present with `FLAG_ID_MAP`).
    IdMap,
    /// Vertex names in strictly increasing byte order, one per vertex:
    /// `count + 1` u64 offsets, then the UTF-8 bytes (present with
    /// `FLAG_NAMES`).
    Names,
    /// The rank in the user's order (u32) of each internal vertex, a
    /// permutation of `0..n` (present with `FLAG_ORDER`).
    Order,
    /// Two 4 KiB slots naming the delta runs in force (present with
    /// `FLAG_DELTA`; see [`super::manifest`]). Its section CRC is 0: each
    /// slot carries its own.
    Manifest,
}

impl SectionKind {
    /// Every kind, in the order sections appear in a file.
    pub const ALL: [SectionKind; 18] = [
        SectionKind::OutBlocks,
        SectionKind::OutWeights,
        SectionKind::OutIndex,
        SectionKind::OutBlockCrcs,
        SectionKind::OutBlockTags,
        SectionKind::OutHuge,
        SectionKind::OutBlockMap,
        SectionKind::InBlocks,
        SectionKind::InWeights,
        SectionKind::InIndex,
        SectionKind::InBlockCrcs,
        SectionKind::InBlockTags,
        SectionKind::InHuge,
        SectionKind::InBlockMap,
        SectionKind::IdMap,
        SectionKind::Names,
        SectionKind::Order,
        SectionKind::Manifest,
    ];

    /// The sections of one adjacency, the in-adjacency when `inn`, in the
    /// order blocks, weights, index, block CRCs, block tags, huge table,
    /// block map.
    pub fn adjacency(inn: bool) -> [SectionKind; 7] {
        use SectionKind::*;
        if inn {
            [
                InBlocks,
                InWeights,
                InIndex,
                InBlockCrcs,
                InBlockTags,
                InHuge,
                InBlockMap,
            ]
        } else {
            [
                OutBlocks,
                OutWeights,
                OutIndex,
                OutBlockCrcs,
                OutBlockTags,
                OutHuge,
                OutBlockMap,
            ]
        }
    }

    /// The on-disk code of this kind.
    pub fn code(self) -> u32 {
        match self {
            SectionKind::OutBlocks => 1,
            SectionKind::OutWeights => 2,
            SectionKind::OutIndex => 3,
            SectionKind::OutBlockCrcs => 4,
            SectionKind::OutBlockTags => 5,
            SectionKind::OutHuge => 6,
            SectionKind::OutBlockMap => 7,
            SectionKind::InBlocks => 11,
            SectionKind::InWeights => 12,
            SectionKind::InIndex => 13,
            SectionKind::InBlockCrcs => 14,
            SectionKind::InBlockTags => 15,
            SectionKind::InHuge => 16,
            SectionKind::InBlockMap => 17,
            SectionKind::IdMap => 20,
            SectionKind::Names => 21,
            SectionKind::Order => 22,
            SectionKind::Manifest => 30,
        }
    }

    /// The kind with on-disk code `code`, if this build knows it.
    pub fn from_code(code: u32) -> Option<SectionKind> {
        SectionKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// A short name used in error messages and `grotto info`.
    pub fn name(self) -> &'static str {
        match self {
            SectionKind::OutBlocks => "out-blocks",
            SectionKind::OutWeights => "out-weights",
            SectionKind::OutIndex => "out-index",
            SectionKind::OutBlockCrcs => "out-block-crcs",
            SectionKind::OutBlockTags => "out-block-tags",
            SectionKind::OutHuge => "out-huge",
            SectionKind::OutBlockMap => "out-block-map",
            SectionKind::InBlocks => "in-blocks",
            SectionKind::InWeights => "in-weights",
            SectionKind::InIndex => "in-index",
            SectionKind::InBlockCrcs => "in-block-crcs",
            SectionKind::InBlockTags => "in-block-tags",
            SectionKind::InHuge => "in-huge",
            SectionKind::InBlockMap => "in-block-map",
            SectionKind::IdMap => "id-map",
            SectionKind::Names => "names",
            SectionKind::Order => "order",
            SectionKind::Manifest => "manifest",
        }
    }

    /// Block sections are checked block by block when read (their CRCs
    /// live in a separate section); every other section has one CRC in the
    /// header that is checked when the file is opened.
    pub fn is_block_data(self) -> bool {
        matches!(
            self,
            SectionKind::OutBlocks
                | SectionKind::OutWeights
                | SectionKind::InBlocks
                | SectionKind::InWeights
        )
    }

    /// Sections whose section CRC is 0: block data, and the manifest
    /// (rewritten slot by slot, each slot with its own CRC).
    pub fn has_no_section_crc(self) -> bool {
        self.is_block_data() || self == SectionKind::Manifest
    }
}

/// One row of the section table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// What the section holds.
    pub kind: SectionKind,
    /// Byte offset in the file, a multiple of `BLOCK_BYTES`.
    pub offset: u64,
    /// Length in bytes, excluding padding up to the next 4 KiB boundary.
    pub length: u64,
    /// Number of elements (blocks, entries, pairs) the section holds.
    pub count: u64,
    /// CRC-32C of the section bytes including zero padding (0 for block data).
    pub crc: u32,
}

/// `len` rounded up to a whole number of 4 KiB blocks.
pub fn padded(len: u64) -> u64 {
    len.div_ceil(BLOCK_BYTES as u64) * BLOCK_BYTES as u64
}

/// Index entry encoding: 2 tag bits, then a payload.
///
/// | tag | meaning | payload |
/// |-----|---------|---------|
/// | 0 | list in edge blocks (or empty) | degree (22 bits) and slot offset (40 bits) |
/// | 1 | one neighbour, kept in memory | the neighbour id (low 32 bits) |
/// | 2 | two neighbours < 2^31, kept in memory | two 31-bit ids |
/// | 3 | list in edge blocks, degree ≥ 2^22 | slot offset (40 bits); degree in the huge table |
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexEntry {
    /// A list of `degree` neighbours starting at slot `offset` of the edge blocks.
    Disk {
        /// Slot (u32 position) where the list starts: block = offset / 1024.
        offset: u64,
        /// Length of the list; `0` for a vertex without edges.
        degree: u64,
    },
    /// A single neighbour stored in the index itself.
    One(u32),
    /// Two neighbours stored in the index itself.
    Two(u32, u32),
    /// A list too long for the degree field; its degree is in the huge table.
    Huge {
        /// Slot where the list starts (always a block boundary).
        offset: u64,
    },
}

/// Largest degree the index entry's degree field holds.
pub const ENTRY_MAX_DEGREE: u64 = (1 << 22) - 1;
/// Largest slot offset an index entry holds (2^40 slots = 4 TiB of edges).
pub const ENTRY_MAX_OFFSET: u64 = (1 << 40) - 1;
const MASK31: u64 = (1 << 31) - 1;

impl IndexEntry {
    /// The slot where the on-disk list of vertex `v`, whose packed entry
    /// is `e`, starts and its length (long lists take theirs from `huge`,
    /// the sorted (vertex, degree) table); `None` for a list kept in the
    /// index or an empty one.
    #[inline]
    pub fn disk_span(e: u64, v: u64, huge: &[(u64, u64)]) -> Option<(u64, u64)> {
        match IndexEntry::decode(e) {
            IndexEntry::Disk { offset, degree } if degree > 0 => Some((offset, degree)),
            IndexEntry::Huge { offset } => huge
                .binary_search_by_key(&v, |&(x, _)| x)
                .ok()
                .map(|i| (offset, huge[i].1)),
            _ => None,
        }
    }

    /// Packs the entry into its u64 form.
    pub fn encode(self) -> u64 {
        match self {
            IndexEntry::Disk { offset, degree } => {
                debug_assert!(offset <= ENTRY_MAX_OFFSET && degree <= ENTRY_MAX_DEGREE);
                (degree << 40) | offset
            }
            IndexEntry::One(v) => (1 << 62) | v as u64,
            IndexEntry::Two(a, b) => {
                debug_assert!((a as u64) <= MASK31 && (b as u64) <= MASK31);
                (2 << 62) | ((a as u64) << 31) | b as u64
            }
            IndexEntry::Huge { offset } => (3 << 62) | offset,
        }
    }

    /// Unpacks a u64 index entry.
    #[inline]
    pub fn decode(e: u64) -> IndexEntry {
        match e >> 62 {
            0 => IndexEntry::Disk {
                offset: e & ENTRY_MAX_OFFSET,
                degree: (e >> 40) & ENTRY_MAX_DEGREE,
            },
            1 => IndexEntry::One(e as u32),
            2 => IndexEntry::Two(((e >> 31) & MASK31) as u32, (e & MASK31) as u32),
            _ => IndexEntry::Huge {
                offset: e & ENTRY_MAX_OFFSET,
            },
        }
    }

    /// Whether two neighbours fit an inline entry.
    pub fn fits_two(a: u32, b: u32) -> bool {
        (a as u64) <= MASK31 && (b as u64) <= MASK31
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_entries_round_trip() {
        let cases = [
            IndexEntry::Disk {
                offset: 0,
                degree: 0,
            },
            IndexEntry::Disk {
                offset: ENTRY_MAX_OFFSET,
                degree: ENTRY_MAX_DEGREE,
            },
            IndexEntry::Disk {
                offset: 1024 * 77 + 5,
                degree: 3,
            },
            IndexEntry::One(u32::MAX - 1),
            IndexEntry::Two(0, (1 << 31) - 1),
            IndexEntry::Huge { offset: 1 << 39 },
        ];
        for c in cases {
            assert_eq!(IndexEntry::decode(c.encode()), c);
        }
    }
}

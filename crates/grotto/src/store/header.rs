//! The header block of a graph file: its byte layout, its encoding, and
//! every check made when it is decoded (layout of the section table, then
//! each field for range and consistency with the others), so that a file
//! whose checksums were recomputed after forging a field is still refused.

use super::format::*;
use crate::error::{Error, Result};
use std::path::Path;

/// The decoded header block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Format version the file was written with.
    pub version: u32,
    /// `FLAG_*` bits.
    pub flags: u64,
    /// Number of vertices (internal ids are `0..vertex_count`).
    pub vertex_count: u64,
    /// Number of edges: arcs for a directed graph, unordered pairs for an undirected one.
    pub edge_count: u64,
    /// Sum of out-degrees (adjacency entries stored in the out-adjacency).
    pub out_entries: u64,
    /// Added to an internal id to give the user's id when there is no id map
    /// (1 for Matrix Market input, 0 otherwise).
    pub id_base: u64,
    /// Self loops dropped while building.
    pub self_loops_dropped: u64,
    /// Duplicate edges dropped while building.
    pub duplicates_dropped: u64,
    /// Malformed input lines skipped (with `--skip-invalid`).
    pub lines_skipped: u64,
    /// The section table.
    pub sections: Vec<Section>,
}

const HEADER_FIXED: usize = 96;
const SECTION_ROW: usize = 40;
const HEADER_CRC_AT: usize = BLOCK_BYTES - 4;
/// Most sections a header can describe.
pub const MAX_SECTIONS: usize = (HEADER_CRC_AT - HEADER_FIXED) / SECTION_ROW;

impl Header {
    /// True when the graph's edges have a direction.
    pub fn directed(&self) -> bool {
        self.flags & FLAG_DIRECTED != 0
    }
    /// True when edges carry f32 weights.
    pub fn weighted(&self) -> bool {
        self.flags & FLAG_WEIGHTED != 0
    }
    /// True when the in-adjacency is stored.
    pub fn has_reverse(&self) -> bool {
        self.flags & FLAG_REVERSE != 0
    }
    /// True when an id map section translates internal ids to the user's.
    pub fn has_id_map(&self) -> bool {
        self.flags & FLAG_ID_MAP != 0
    }
    /// True when vertices have string names.
    pub fn has_names(&self) -> bool {
        self.flags & FLAG_NAMES != 0
    }
    /// True when edge blocks hold packed (compressed) lists.
    pub fn packed(&self) -> bool {
        self.flags & FLAG_PACKED != 0
    }
    /// True when internal ids are renumbered and an order section maps
    /// them to the user's order.
    pub fn has_order(&self) -> bool {
        self.flags & FLAG_ORDER != 0
    }
    /// True when updates were committed (a manifest section exists).
    pub fn has_delta(&self) -> bool {
        self.flags & FLAG_DELTA != 0
    }

    /// The section of `kind`, if present.
    pub fn section(&self, kind: SectionKind) -> Option<&Section> {
        self.sections.iter().find(|s| s.kind == kind)
    }

    /// Serialises the header into one 4 KiB block, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        assert!(
            self.sections.len() <= MAX_SECTIONS,
            "section table overflow"
        );
        let mut b = vec![0u8; BLOCK_BYTES];
        b[0..8].copy_from_slice(&MAGIC);
        put_u32(&mut b, 8, self.version);
        put_u32(&mut b, 12, BLOCK_BYTES as u32);
        put_u64(&mut b, 16, self.flags);
        put_u64(&mut b, 24, self.vertex_count);
        put_u64(&mut b, 32, self.edge_count);
        put_u64(&mut b, 40, self.out_entries);
        put_u64(&mut b, 48, self.id_base);
        put_u64(&mut b, 56, self.self_loops_dropped);
        put_u64(&mut b, 64, self.duplicates_dropped);
        put_u64(&mut b, 72, self.lines_skipped);
        put_u32(&mut b, 80, self.sections.len() as u32);
        for (i, s) in self.sections.iter().enumerate() {
            let at = HEADER_FIXED + i * SECTION_ROW;
            put_u32(&mut b, at, s.kind.code());
            put_u64(&mut b, at + 8, s.offset);
            put_u64(&mut b, at + 16, s.length);
            put_u64(&mut b, at + 24, s.count);
            put_u32(&mut b, at + 32, s.crc);
        }
        let crc = crc32c::crc32c(&b[..HEADER_CRC_AT]);
        put_u32(&mut b, HEADER_CRC_AT, crc);
        b
    }

    /// Parses and validates a header block read from `path` whose total
    /// size is `file_len`: magic, checksum, version, block size, flags,
    /// reserved bytes, and that every section lies inside the file,
    /// aligned and without overlap (the layout), then that the fields
    /// agree with each other ([`Header::check_fields`]). Errors name the
    /// field.
    pub fn decode(b: &[u8], path: &Path, file_len: u64) -> Result<Header> {
        let h = Header::decode_layout(b, path, file_len)?;
        h.check_fields().map_err(|what| Error::Corrupt {
            path: path.to_path_buf(),
            what: format!("header: {what}"),
        })?;
        Ok(h)
    }

    /// The layout half of [`Header::decode`]: everything but the
    /// agreement of fields with each other (for tests of the writer,
    /// which write arbitrary sections).
    pub(crate) fn decode_layout(b: &[u8], path: &Path, file_len: u64) -> Result<Header> {
        let corrupt = |what: String| Error::Corrupt {
            path: path.to_path_buf(),
            what,
        };
        if b.len() < BLOCK_BYTES || b[0..8] != MAGIC {
            return Err(Error::NotAGraph {
                path: path.to_path_buf(),
            });
        }
        // The checksum sits at the same place in every version, so it is
        // checked before the version is believed.
        let stored = get_u32(b, HEADER_CRC_AT);
        let actual = crc32c::crc32c(&b[..HEADER_CRC_AT]);
        if stored != actual {
            return Err(corrupt(format!(
                "header checksum mismatch (stored {stored:#010x}, computed {actual:#010x})"
            )));
        }
        let version = get_u32(b, 8);
        if version > FORMAT_VERSION {
            return Err(Error::NewerVersion {
                path: path.to_path_buf(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        if version == 0 {
            return Err(corrupt("header: format version 0".into()));
        }
        if get_u32(b, 12) as usize != BLOCK_BYTES {
            return Err(corrupt(format!(
                "header: block size {} is not 4096",
                get_u32(b, 12)
            )));
        }
        let flags = get_u64(b, 16);
        if flags & !KNOWN_FLAGS != 0 {
            return Err(corrupt(format!("header: unknown flags {flags:#x}")));
        }
        let n = get_u32(b, 80) as usize;
        if n > MAX_SECTIONS {
            return Err(corrupt(format!(
                "header: {n} sections listed, at most {MAX_SECTIONS} fit"
            )));
        }
        // Reserved bytes: after the section count, in each row, and after
        // the table. Writers leave them zero; a later format that uses
        // them raises the version.
        if let Some(i) = (84..HEADER_FIXED).find(|&i| b[i] != 0) {
            return Err(corrupt(format!("header: reserved byte {i} is not zero")));
        }
        let table_end = HEADER_FIXED + n * SECTION_ROW;
        if let Some(i) = (table_end..HEADER_CRC_AT).find(|&i| b[i] != 0) {
            return Err(corrupt(format!(
                "header: byte {i}, after the {n} rows of the section table, is not zero"
            )));
        }
        let mut sections = Vec::with_capacity(n);
        for i in 0..n {
            let at = HEADER_FIXED + i * SECTION_ROW;
            let code = get_u32(b, at);
            if get_u32(b, at + 4) != 0 || get_u32(b, at + 36) != 0 {
                return Err(corrupt(format!(
                    "section table row {i}: reserved words are not zero"
                )));
            }
            let kind = SectionKind::from_code(code).ok_or_else(|| {
                corrupt(format!(
                    "section table row {i}: unknown section kind {code}"
                ))
            })?;
            let s = Section {
                kind,
                offset: get_u64(b, at + 8),
                length: get_u64(b, at + 16),
                count: get_u64(b, at + 24),
                crc: get_u32(b, at + 32),
            };
            // Checked: a forged length near 2^64 must not wrap to a
            // small padded size.
            let end = s
                .length
                .checked_next_multiple_of(BLOCK_BYTES as u64)
                .and_then(|p| s.offset.checked_add(p));
            if !s.offset.is_multiple_of(BLOCK_BYTES as u64) || s.offset < BLOCK_BYTES as u64 {
                return Err(corrupt(format!(
                    "section {}: offset {} is not a 4 KiB boundary after the header",
                    kind.name(),
                    s.offset
                )));
            }
            match end {
                Some(e) if e <= file_len => {}
                Some(e) => {
                    return Err(Error::Truncated {
                        path: path.to_path_buf(),
                        what: format!(
                            "section {} ends at byte {e} but the file has {file_len} bytes",
                            kind.name(),
                        ),
                    })
                }
                None => {
                    return Err(corrupt(format!(
                        "section {}: offset {} plus length {} overflows",
                        kind.name(),
                        s.offset,
                        s.length
                    )))
                }
            }
            if sections.iter().any(|o: &Section| o.kind == kind) {
                return Err(corrupt(format!("section {} listed twice", kind.name())));
            }
            sections.push(s);
        }
        let mut sorted: Vec<&Section> = sections.iter().collect();
        sorted.sort_by_key(|s| s.offset);
        for w in sorted.windows(2) {
            if w[0].offset + padded(w[0].length) > w[1].offset {
                return Err(corrupt(format!(
                    "sections {} and {} overlap",
                    w[0].kind.name(),
                    w[1].kind.name()
                )));
            }
        }
        Ok(Header {
            version,
            flags,
            vertex_count: get_u64(b, 24),
            edge_count: get_u64(b, 32),
            out_entries: get_u64(b, 40),
            id_base: get_u64(b, 48),
            self_loops_dropped: get_u64(b, 56),
            duplicates_dropped: get_u64(b, 64),
            lines_skipped: get_u64(b, 72),
            sections,
        })
    }

    /// Whether the fields agree with each other and with the format's
    /// ranges; `Err` says which field is wrong and how. Checked: the
    /// vertex count (below 2^32), id base + vertex count within u64,
    /// flag combinations the builder never writes (reverse edges on an
    /// undirected graph, inline lists on a weighted one, loops or
    /// duplicates both kept and counted as dropped), the edge count
    /// against the out-entries (equal if directed; entries / 2 if
    /// undirected without self loops, between that and the entries with
    /// them), which sections are present against the flags and the
    /// version, and each section's count and length against its kind.
    pub fn check_fields(&self) -> std::result::Result<(), String> {
        use SectionKind::*;
        let n = self.vertex_count;
        if n > MAX_VERTICES {
            return Err(format!(
                "vertex count {n} exceeds the format's limit of {MAX_VERTICES}"
            ));
        }
        if self.id_base.checked_add(n).is_none() {
            return Err(format!(
                "id base {} plus vertex count {n} overflows 64-bit user ids",
                self.id_base
            ));
        }
        let f = self.flags;
        if self.has_reverse() && !self.directed() {
            return Err("flags: reverse edges on an undirected graph".into());
        }
        if f & FLAG_INLINE_SMALL != 0 && self.weighted() {
            return Err("flags: inline lists on a weighted graph".into());
        }
        if self.packed() && self.weighted() {
            return Err("flags: packed blocks on a weighted graph".into());
        }
        if self.packed() && self.version < 4 {
            return Err(format!(
                "a version {} file has packed blocks (they came in version 4)",
                self.version
            ));
        }
        if f & FLAG_SELF_LOOPS != 0 && self.self_loops_dropped != 0 {
            return Err(format!(
                "{} self loops dropped, but the flags say self loops were kept",
                self.self_loops_dropped
            ));
        }
        if f & FLAG_MULTI != 0 && self.duplicates_dropped != 0 {
            return Err(format!(
                "{} duplicate edges dropped, but the flags say duplicates were kept",
                self.duplicates_dropped
            ));
        }
        let (e, m) = (self.edge_count as u128, self.out_entries as u128);
        let edges_ok = if self.directed() {
            e == m
        } else if f & FLAG_SELF_LOOPS != 0 {
            // A loop is one entry and one edge, any other edge two entries.
            e <= m && m <= 2 * e
        } else {
            m == 2 * e
        };
        if !edges_ok {
            return Err(format!(
                "edge count {} does not fit {} out-adjacency entries of {} graph{}",
                self.edge_count,
                self.out_entries,
                if self.directed() {
                    "a directed"
                } else {
                    "an undirected"
                },
                if self.directed() || f & FLAG_SELF_LOOPS != 0 {
                    ""
                } else {
                    " without self loops"
                }
            ));
        }
        // Which kinds the flags and the version call for.
        let reverse = self.has_reverse();
        let weighted = self.weighted();
        for s in &self.sections {
            let (allowed, why) = match s.kind {
                OutWeights => (weighted, "the graph is not weighted"),
                InWeights => (
                    weighted && reverse,
                    "the graph has no weighted reverse edges",
                ),
                InBlocks | InIndex | InBlockCrcs | InBlockTags | InHuge | InBlockMap => {
                    (reverse, "the graph has no reverse edges")
                }
                IdMap => (self.has_id_map(), "the flags say there is no id map"),
                Names => (self.has_names(), "the flags say vertices have no names"),
                Order => (
                    self.has_order(),
                    "the flags say vertices keep the user's order",
                ),
                Manifest => (self.has_delta(), "the flags say no update was committed"),
                _ => (true, ""),
            };
            if !allowed {
                return Err(format!("section {} is present but {why}", s.kind.name()));
            }
            if matches!(s.kind, OutBlockMap | InBlockMap) && self.version < 2 {
                return Err(format!(
                    "section {} is present in a version {} file (block maps came in version 2)",
                    s.kind.name(),
                    self.version
                ));
            }
            if s.kind.has_no_section_crc() && s.crc != 0 {
                return Err(format!(
                    "section {} has a section checksum {:#010x}; block sections and the manifest are checked per block and carry 0",
                    s.kind.name(),
                    s.crc
                ));
            }
        }
        let need = |k: SectionKind| {
            self.section(k)
                .copied()
                .ok_or_else(|| format!("section {} is missing", k.name()))
        };
        let size = |s: &Section, count: u64, per: u64| -> std::result::Result<(), String> {
            if s.count != count {
                return Err(format!(
                    "section {} holds {} elements, expected {count}",
                    s.kind.name(),
                    s.count
                ));
            }
            match count.checked_mul(per) {
                Some(len) if len == s.length => Ok(()),
                _ => Err(format!(
                    "section {} is {} bytes for {count} elements of {per} bytes",
                    s.kind.name(),
                    s.length
                )),
            }
        };
        let mut adjacencies = vec![SectionKind::adjacency(false)];
        if reverse {
            adjacencies.push(SectionKind::adjacency(true));
        }
        for [kb, kw, ki, kc, kt, kh, km] in adjacencies {
            let blocks = need(kb)?;
            let nb = blocks.count;
            size(&blocks, nb, BLOCK_BYTES as u64)?;
            // Slots are addressed with 40 bits (the builder refuses more).
            if nb > ENTRY_MAX_OFFSET / SLOTS_PER_BLOCK as u64 {
                return Err(format!(
                    "section {} has {nb} blocks, more than 40-bit slot offsets address",
                    kb.name()
                ));
            }
            if weighted {
                size(&need(kw)?, nb, BLOCK_BYTES as u64)?;
            }
            size(&need(ki)?, n, 8)?;
            size(&need(kc)?, nb * if weighted { 2 } else { 1 }, 4)?;
            size(&need(kt)?, nb, 1)?;
            let huge = need(kh)?;
            size(&huge, huge.count, if self.packed() { 24 } else { 16 })?;
            if huge.count > n {
                return Err(format!(
                    "section {} lists {} long lists for {n} vertices",
                    kh.name(),
                    huge.count
                ));
            }
            if self.packed() && self.section(km).is_none() {
                return Err(format!("section {} is missing", km.name()));
            }
            if let Some(map) = self.section(km) {
                // Run starts (blocks + 1 u64), then u32 vertex ids, or
                // from version 7 on the coded runs (any number of bytes).
                let head = (nb + 1) * 8;
                let unit = if self.version >= CODED_MAP_VERSION {
                    1
                } else {
                    4
                };
                if map.count != nb || map.length < head || !(map.length - head).is_multiple_of(unit)
                {
                    return Err(format!(
                        "section {} holds {} blocks in {} bytes; the adjacency has {nb} blocks, \
                         which take {head} bytes of run starts and then {}",
                        km.name(),
                        map.count,
                        map.length,
                        if unit == 4 {
                            "4 bytes per id"
                        } else {
                            "their coded runs"
                        }
                    ));
                }
            }
        }
        if self.has_id_map() {
            size(&need(IdMap)?, n, 8)?;
        }
        if self.has_order() {
            if self.version < 5 {
                return Err(format!(
                    "a version {} file has a vertex order (orders came in version 5)",
                    self.version
                ));
            }
            size(&need(Order)?, n, 4)?;
        }
        if self.has_delta() {
            if self.version < DELTA_VERSION {
                return Err(format!(
                    "a version {} file has committed updates (they came in version {DELTA_VERSION})",
                    self.version
                ));
            }
            let m = need(Manifest)?;
            if m.count != 2 || m.length != super::manifest::MANIFEST_BYTES {
                return Err(format!(
                    "section manifest holds {} slots in {} bytes, expected 2 in {}",
                    m.count,
                    m.length,
                    super::manifest::MANIFEST_BYTES
                ));
            }
        }
        if self.has_names() {
            if self.version < 3 {
                return Err(format!(
                    "a version {} file has vertex names (names came in version 3)",
                    self.version
                ));
            }
            if self.has_id_map() || self.id_base != 0 {
                return Err("vertex names exclude an id map and an id base".into());
            }
            let s = need(Names)?;
            let head = n.checked_add(1).and_then(|c| c.checked_mul(8));
            if s.count != n || head.is_none_or(|h| s.length < h) {
                return Err(format!(
                    "section names holds {} names in {} bytes; {n} vertices need {n} names \
                     and {} bytes of offsets",
                    s.count,
                    s.length,
                    (n as u128 + 1) * 8
                ));
            }
        }
        Ok(())
    }
}

pub(super) fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}
pub(super) fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
pub(super) fn get_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}
pub(super) fn get_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A consistent header of a weighted directed graph with 10 vertices,
    /// 20 edges in one block, laid out from byte 4096.
    fn sample() -> Header {
        use SectionKind::*;
        let mut at = BLOCK_BYTES as u64;
        let mut sections = Vec::new();
        for (kind, length, count) in [
            (OutBlocks, 4096, 1),
            (OutWeights, 4096, 1),
            (OutIndex, 80, 10),
            (OutBlockCrcs, 8, 2),
            (OutBlockTags, 1, 1),
            (OutHuge, 0, 0),
            (OutBlockMap, 16 + 4 * 10, 1),
        ] {
            sections.push(Section {
                kind,
                offset: at,
                length,
                count,
                crc: if kind.is_block_data() { 0 } else { 7 },
            });
            at += padded(length);
        }
        Header {
            version: FORMAT_VERSION,
            flags: FLAG_DIRECTED | FLAG_WEIGHTED,
            vertex_count: 10,
            edge_count: 20,
            out_entries: 20,
            id_base: 1,
            self_loops_dropped: 1,
            duplicates_dropped: 2,
            lines_skipped: 0,
            sections,
        }
    }

    /// The file size `sample()`'s sections take.
    const SAMPLE_LEN: u64 = 7 * 4096;

    #[test]
    fn header_round_trip_and_corruption() {
        let h = sample();
        let b = h.encode();
        let p = Path::new("x.grotto");
        assert_eq!(Header::decode(&b, p, SAMPLE_LEN).unwrap(), h);
        let mut bad = b.clone();
        bad[30] ^= 1;
        assert!(matches!(
            Header::decode(&bad, p, SAMPLE_LEN),
            Err(Error::Corrupt { .. })
        ));
        assert!(matches!(
            Header::decode(&b, p, SAMPLE_LEN - 4096),
            Err(Error::Truncated { .. })
        ));
        let mut newer = h.clone();
        newer.version = FORMAT_VERSION + 1;
        assert!(matches!(
            Header::decode(&newer.encode(), p, SAMPLE_LEN),
            Err(Error::NewerVersion { .. })
        ));
    }

    /// Each forged field, with the header checksum recomputed, is refused
    /// with a message naming it.
    #[test]
    fn forged_fields_are_named() {
        use SectionKind::*;
        let p = Path::new("x.grotto");
        let row = |h: &mut Header, k: SectionKind| -> usize {
            h.sections.iter().position(|s| s.kind == k).unwrap()
        };
        type Forge = fn(&mut Header, usize);
        let cases: Vec<(&str, SectionKind, Forge, &str)> = vec![
            (
                "id base overflow",
                OutIndex,
                |h, _| h.id_base = u64::MAX - 9,
                "id base",
            ),
            (
                "vertex count",
                OutIndex,
                |h, _| h.vertex_count = 1 << 32,
                "vertex count",
            ),
            (
                "edge count",
                OutIndex,
                |h, _| h.edge_count = 21,
                "edge count",
            ),
            (
                "undirected edges",
                OutIndex,
                |h, _| h.flags &= !FLAG_DIRECTED,
                "edge count",
            ),
            (
                "not weighted",
                OutIndex,
                |h, _| h.flags &= !FLAG_WEIGHTED,
                "out-weights",
            ),
            (
                "inline + weights",
                OutIndex,
                |h, _| h.flags |= FLAG_INLINE_SMALL,
                "inline",
            ),
            (
                "reverse flag",
                OutIndex,
                |h, _| h.flags |= FLAG_REVERSE,
                "in-blocks",
            ),
            (
                "id map flag",
                OutIndex,
                |h, _| h.flags |= FLAG_ID_MAP,
                "id-map",
            ),
            (
                "loops kept",
                OutIndex,
                |h, _| h.flags |= FLAG_SELF_LOOPS,
                "self loops",
            ),
            (
                "dups kept",
                OutIndex,
                |h, _| h.flags |= FLAG_MULTI,
                "duplicate",
            ),
            (
                "index count",
                OutIndex,
                |h, i| h.sections[i].count = 11,
                "out-index",
            ),
            (
                "index length",
                OutIndex,
                |h, i| h.sections[i].length = 88,
                "out-index",
            ),
            (
                "block count",
                OutBlocks,
                |h, i| h.sections[i].count = 1 << 52,
                "out-blocks",
            ),
            (
                "crc count",
                OutBlockCrcs,
                |h, i| h.sections[i].count = 1,
                "out-block-crcs",
            ),
            (
                "tags",
                OutBlockTags,
                |h, i| h.sections[i].length = 2,
                "out-block-tags",
            ),
            ("huge", OutHuge, |h, i| h.sections[i].count = 1, "out-huge"),
            (
                "map",
                OutBlockMap,
                |h, i| h.sections[i].length = 15,
                "out-block-map",
            ),
            (
                // Before version 7 a map holds 4-byte ids after its starts.
                "map of ids",
                OutBlockMap,
                |h, i| {
                    h.version = 6;
                    h.sections[i].length = 18;
                },
                "out-block-map",
            ),
            ("version 1", OutBlockMap, |h, _| h.version = 1, "version 1"),
            (
                "block crc",
                OutBlocks,
                |h, i| h.sections[i].crc = 5,
                "out-blocks",
            ),
            (
                "missing",
                OutHuge,
                |h, i| h.sections[i].kind = InHuge,
                "in-huge",
            ),
        ];
        for (name, kind, forge, want) in cases {
            let mut h = sample();
            let i = row(&mut h, kind);
            forge(&mut h, i);
            let e = Header::decode(&h.encode(), p, SAMPLE_LEN).unwrap_err();
            let msg = e.to_string();
            assert!(
                matches!(e, Error::Corrupt { .. }) && msg.contains(want),
                "{name}: {msg}"
            );
        }
        // Reserved bytes.
        let mut b = sample().encode();
        b[90] = 1;
        let crc = crc32c::crc32c(&b[..HEADER_CRC_AT]);
        put_u32(&mut b, HEADER_CRC_AT, crc);
        let e = Header::decode(&b, p, SAMPLE_LEN).unwrap_err().to_string();
        assert!(e.contains("reserved"), "{e}");
    }
}

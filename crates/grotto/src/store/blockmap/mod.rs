//! Which vertices have neighbours in which edge block: the inverse of the
//! vertex index, stored in the file (`out-block-map`, `in-block-map`) so
//! that block-mode runs do not rebuild it, and built when a file written
//! before it existed is opened.
//!
//! Block mode reads each block a level needs once and processes every
//! active vertex whose list lies in it; this map answers "whose lists are
//! in block b" in time proportional to the answer. A vertex whose list
//! spans several blocks is listed in each of them, and each block's
//! vertices are in increasing order.
//!
//! On disk: `blocks + 1` u64 run starts, then the u32 vertex ids.
//!
//! In memory each block's run is delta-coded: its first vertex, then the
//! gap to each next one less one, as LEB128 varints (blocks hold lists of
//! nearby vertices, so most gaps take one byte), plus 8 bytes per block.
//! About 1.1 bytes per listed pair instead of 4: on rmat scale 22, 0.5
//! bytes a vertex instead of 1.6. Runs are decoded as they are walked.

use super::format::SLOTS_PER_BLOCK;
use crate::VertexId;
use rayon::prelude::*;

mod build;

/// Vertices per edge block, in increasing order, delta-coded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockMap {
    /// Where each block's run begins in `code` (`blocks + 1` entries).
    starts: Vec<u64>,
    /// The runs, one after another.
    code: Vec<u8>,
    /// Pairs listed.
    pairs: u64,
}

/// The vertices of one block's run, decoded as they are read.
#[derive(Clone, Debug)]
pub struct BlockVertices<'m> {
    code: &'m [u8],
    /// The last vertex given (none yet: `None`).
    last: Option<VertexId>,
}

impl Iterator for BlockVertices<'_> {
    type Item = VertexId;

    #[inline]
    fn next(&mut self) -> Option<VertexId> {
        let mut x = 0u64;
        let mut shift = 0;
        loop {
            let (&b, rest) = self.code.split_first()?;
            self.code = rest;
            x |= ((b & 0x7f) as u64) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        let v = match self.last {
            None => x as VertexId,
            Some(l) => l.wrapping_add(x as VertexId).wrapping_add(1),
        };
        self.last = Some(v);
        Some(v)
    }
}

/// Appends `x` to `out` as a LEB128 varint.
#[inline]
fn put(out: &mut Vec<u8>, mut x: u64) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Delta-codes runs given a vertex at a time, block after block.
struct Encoder {
    map: BlockMap,
    last: Option<VertexId>,
}

impl Encoder {
    fn new(blocks: usize) -> Encoder {
        let mut starts = Vec::with_capacity(blocks + 1);
        starts.push(0);
        Encoder {
            map: BlockMap {
                starts,
                code: Vec::new(),
                pairs: 0,
            },
            last: None,
        }
    }

    /// Adds `v`, above the block's last vertex, to the current block.
    fn push(&mut self, v: VertexId) {
        let x = match self.last {
            None => v,
            Some(l) => v - l - 1,
        };
        put(&mut self.map.code, x as u64);
        self.last = Some(v);
        self.map.pairs += 1;
    }

    fn end_block(&mut self) {
        self.map.starts.push(self.map.code.len() as u64);
        self.last = None;
    }

    fn finish(mut self) -> BlockMap {
        self.map.code.shrink_to_fit();
        self.map
    }
}

/// The run starts of a stored map of `blocks` blocks, `len` bytes in
/// all, read from its `head` (`blocks + 1` u64s), checked: they start at
/// 0, never decrease, and end at the number of `unit`-byte items that
/// follow (4-byte ids; bytes of code from version 7 on).
pub(super) fn run_starts(
    head: &[u8],
    blocks: u64,
    len: u64,
    unit: u64,
) -> Result<Vec<u64>, String> {
    let want = (blocks + 1) * 8;
    if len < want || !(len - want).is_multiple_of(unit) || head.len() as u64 != want {
        return Err(format!(
            "is {len} bytes, not {want} bytes of run starts and a whole number of {unit}-byte items"
        ));
    }
    let starts: Vec<u64> = head
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]))
        .collect();
    if starts[0] != 0 || starts.windows(2).any(|w| w[0] > w[1]) {
        return Err("has run starts out of order".into());
    }
    let ids = (len - want) / unit;
    if starts[blocks as usize] != ids {
        return Err(format!(
            "holds {ids} items after run starts that end at {}",
            starts[blocks as usize]
        ));
    }
    Ok(starts)
}

/// Whole blocks of a stored map, checked and coded by [`code_piece`].
#[derive(Debug)]
pub(super) struct CodedPiece {
    /// The blocks' runs, coded, one after another.
    code: Vec<u8>,
    /// Where each block's run ends in `code`.
    ends: Vec<u64>,
    /// The first block of the piece that lists a vertex whose list the
    /// index puts elsewhere.
    pub(super) disagrees: Option<u64>,
}

/// Checks and codes the stored ids of blocks `first..`, where block
/// `first + k` holds ids `bounds[k]..bounds[k + 1]` of the map and `ids`
/// holds ids `bounds[0]..` as 4-byte words. Each id must be below `n`
/// and above the one before it in its block (an error names the block);
/// each must lie in a block that `range` (the index's first and last
/// block of the vertex's list, `None` for a list not in blocks) covers,
/// or the piece records the first block where one does not. Pieces are
/// independent, so a map is read on all cores.
pub(super) fn code_piece(
    ids: &[u8],
    first: u64,
    bounds: &[u64],
    n: u64,
    range: &(impl Fn(VertexId) -> Option<(u64, u64)> + ?Sized),
) -> Result<CodedPiece, String> {
    let blocks = bounds.len().saturating_sub(1);
    let total = bounds.last().map_or(0, |&e| e - bounds[0]);
    if (ids.len() as u64) < total * 4 {
        return Err(format!(
            "is cut short under block {first}: {} of {total} ids",
            ids.len() / 4
        ));
    }
    // Most gaps take a byte, a block's first vertex a few.
    let mut code = Vec::with_capacity((total + total / 4) as usize + 4 * blocks);
    let mut ends = Vec::with_capacity(blocks);
    let mut disagrees = None;
    let mut words = ids.chunks_exact(4);
    for k in 0..blocks {
        let b = first + k as u64;
        let mut last: Option<VertexId> = None;
        for w in words.by_ref().take((bounds[k + 1] - bounds[k]) as usize) {
            let v = VertexId::from_le_bytes([w[0], w[1], w[2], w[3]]);
            if v as u64 >= n || last.is_some_and(|l| l >= v) {
                return Err(format!(
                    "lists an impossible or repeated vertex under block {b}"
                ));
            }
            if disagrees.is_none() && range(v).is_none_or(|(lo, hi)| b < lo || b > hi) {
                disagrees = Some(b);
            }
            put(
                &mut code,
                match last {
                    None => v,
                    Some(l) => v - l - 1,
                } as u64,
            );
            last = Some(v);
        }
        ends.push(code.len() as u64);
    }
    Ok(CodedPiece {
        code,
        ends,
        disagrees,
    })
}

/// Checks the coded runs of blocks `first..` held in `code`, where block
/// `first + k`'s run is `code[ends[k] - ends[0]..ends[k + 1] - ends[0]]`
/// (`ends` are offsets into the whole map's code): every varint whole and
/// at most 5 bytes within its block, each id below `n` and above the one
/// before it (an error names the block), each in a block that `range`
/// covers (the first block where one is not is returned with the number
/// of ids read). A map read from a version 7 file is used only once every
/// piece has passed, so [`BlockVertices`] never meets a bad run.
pub(super) fn check_coded_piece(
    code: &[u8],
    first: u64,
    ends: &[u64],
    n: u64,
    range: &(impl Fn(VertexId) -> Option<(u64, u64)> + ?Sized),
) -> Result<(u64, Option<u64>), String> {
    let mut pairs = 0u64;
    let mut disagrees = None;
    let base = ends.first().copied().unwrap_or(0);
    for k in 0..ends.len().saturating_sub(1) {
        let b = first + k as u64;
        let bad = || format!("holds a damaged run under block {b}");
        let run = code
            .get((ends[k] - base) as usize..(ends[k + 1] - base) as usize)
            .ok_or_else(bad)?;
        let mut last: Option<u64> = None;
        let mut i = 0;
        while i < run.len() {
            let mut x = 0u64;
            let mut shift = 0;
            loop {
                let &byte = run.get(i).ok_or_else(bad)?;
                i += 1;
                x |= ((byte & 0x7f) as u64) << shift;
                if byte < 0x80 {
                    break;
                }
                shift += 7;
                if shift > 28 {
                    return Err(bad());
                }
            }
            let v = match last {
                None => x,
                Some(l) => l + x + 1,
            };
            if v >= n || v > VertexId::MAX as u64 {
                return Err(format!(
                    "lists an impossible or repeated vertex under block {b}"
                ));
            }
            if disagrees.is_none() && range(v as VertexId).is_none_or(|(lo, hi)| b < lo || b > hi) {
                disagrees = Some(b);
            }
            last = Some(v);
            pairs += 1;
        }
    }
    Ok((pairs, disagrees))
}

/// Delta-codes runs: `runs(k)` is block `k`'s run, increasing.
#[cfg(test)]
fn encode<'a>(blocks: usize, runs: impl Fn(usize) -> &'a [VertexId]) -> BlockMap {
    let mut e = Encoder::new(blocks);
    for k in 0..blocks {
        runs(k).iter().for_each(|&v| e.push(v));
        e.end_block();
    }
    e.finish()
}

/// The first and last block (inclusive) of a list at `slot` of `degree`.
#[inline]
pub fn block_span(slot: u64, degree: u64) -> (u64, u64) {
    let per = SLOTS_PER_BLOCK as u64;
    (slot / per, (slot + degree - 1) / per)
}

impl BlockMap {
    /// The vertices with neighbours in block `b`, in increasing order.
    #[inline]
    pub fn vertices(&self, b: u64) -> BlockVertices<'_> {
        let b = b as usize;
        let code = if b + 1 >= self.starts.len() {
            &[]
        } else {
            &self.code[self.starts[b] as usize..self.starts[b + 1] as usize]
        };
        BlockVertices { code, last: None }
    }

    /// Whether no vertex has neighbours in block `b`.
    pub fn block_is_empty(&self, b: u64) -> bool {
        let b = b as usize;
        b + 1 >= self.starts.len() || self.starts[b] == self.starts[b + 1]
    }

    /// Number of blocks mapped.
    pub fn block_count(&self) -> u64 {
        self.starts.len().saturating_sub(1) as u64
    }

    /// Number of (block, vertex) pairs listed.
    pub fn len(&self) -> u64 {
        self.pairs
    }

    /// Whether no vertex is listed.
    pub fn is_empty(&self) -> bool {
        self.pairs == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.starts.len() * 8 + self.code.len()) as u64
    }

    /// The on-disk form: the run starts (counted in ids), then the ids.
    pub fn to_bytes(&self) -> Vec<u8> {
        let blocks = self.block_count();
        let mut out = Vec::with_capacity(((blocks + 1) * 8 + self.pairs * 4) as usize);
        let mut at = 0u64;
        out.extend_from_slice(&at.to_le_bytes());
        for b in 0..blocks {
            at += self.vertices(b).count() as u64;
            out.extend_from_slice(&at.to_le_bytes());
        }
        for b in 0..blocks {
            for v in self.vertices(b) {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        out
    }

    /// The on-disk form from format version 7 on: the `blocks + 1` code
    /// offsets of the runs as u64s, then the coded runs, as held in
    /// memory.
    pub fn to_coded_bytes(&self) -> Vec<u8> {
        self.coded_parts().concat()
    }

    /// The on-disk form of [`BlockMap::to_coded_bytes`] in its two parts,
    /// as held (the offsets, then the runs), so that a writer need not
    /// copy the map to write it.
    pub fn coded_parts(&self) -> [&[u8]; 2] {
        [bytemuck::cast_slice(&self.starts), &self.code]
    }

    /// A map of checked coded runs: `starts` (the `blocks + 1` offsets
    /// into `code`) and `code` as [`check_coded_piece`] passed them.
    pub(super) fn from_coded(starts: Vec<u64>, code: Vec<u8>, pairs: u64) -> BlockMap {
        BlockMap {
            starts,
            code,
            pairs,
        }
    }

    /// Reads the on-disk form of a map of `blocks` blocks over `n`
    /// vertices, checking its shape: starts from 0, never decreasing,
    /// ending at the number of ids that follow; ids below `n` and
    /// increasing within each block. Whether the pairs are the right ones
    /// is [`BlockMap::agrees`]'s business. Errors say what is wrong.
    pub fn from_bytes(bytes: &[u8], blocks: u64, n: u64) -> Result<BlockMap, String> {
        let head = ((blocks as usize + 1) * 8).min(bytes.len());
        let starts = run_starts(&bytes[..head], blocks, bytes.len() as u64, 4)?;
        let piece = code_piece(&bytes[head..], 0, &starts, n, &|_| Some((0, u64::MAX)))?;
        Ok(BlockMap::from_pieces(vec![piece], starts[blocks as usize]))
    }

    /// The map whose blocks' runs are `pieces`' in order, `pairs` ids in
    /// all (each piece is dropped once copied).
    pub(super) fn from_pieces(pieces: Vec<CodedPiece>, pairs: u64) -> BlockMap {
        let blocks: usize = pieces.iter().map(|p| p.ends.len()).sum();
        let bytes: usize = pieces.iter().map(|p| p.code.len()).sum();
        let mut starts = Vec::with_capacity(blocks + 1);
        starts.push(0u64);
        let mut code = Vec::with_capacity(bytes);
        for p in pieces {
            let at = code.len() as u64;
            starts.extend(p.ends.iter().map(|e| at + e));
            code.extend_from_slice(&p.code);
        }
        BlockMap {
            starts,
            code,
            pairs,
        }
    }

    /// Whether every pair is right for `range` (see [`BlockMap::build`])
    /// given that the map should hold `pairs` pairs in all: with ids
    /// increasing in each block (checked on reading), right pairs of the
    /// right number are exactly the map `build` makes. Returns the first
    /// wrong block.
    pub fn agrees(
        &self,
        pairs: u64,
        range: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
    ) -> Result<(), u64> {
        if self.len() != pairs {
            return Err(self.block_count());
        }
        let bad = (0..self.block_count()).into_par_iter().find_any(|&b| {
            self.vertices(b)
                .any(|v| range(v).is_none_or(|(first, last)| b < first || b > last))
        });
        match bad {
            Some(b) => Err(b),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::{padded, SectionKind};
    use crate::store::{Direction, Graph};
    use crate::testkit;
    use std::path::{Path, PathBuf};

    /// Each adjacency's map (stored, or built when the file has none) is
    /// the one built from its index.
    fn maps_match(g: &Graph) {
        let mut dirs = vec![Direction::Out];
        if g.header().has_reverse() {
            dirs.push(Direction::In);
        }
        for d in dirs {
            let adj = g.adjacency(d).unwrap();
            let want = BlockMap::build(g.vertex_count(), adj.block_count(), |v| adj.block_range(v));
            assert_eq!(adj.block_map().unwrap(), &want, "{d:?}");
        }
    }

    #[test]
    fn files_carry_their_map_and_older_files_get_it_built() {
        // Raw blocks: packed ones came in version 4, after the maps.
        for t in [
            testkit::rmat_raw(10, 8, 3, false),
            testkit::rmat_raw(11, 6, 2, true),
        ] {
            let h = t.graph.header();
            assert!(h.section(SectionKind::OutBlockMap).is_some());
            assert_eq!(
                h.has_reverse(),
                h.section(SectionKind::InBlockMap).is_some()
            );
            maps_match(&t.graph);
            // The same file without its maps (as written before they were
            // stored) opens and builds them.
            let mut bytes = std::fs::read(t.graph.path()).unwrap();
            let mut old = h.clone();
            old.version = 1;
            old.flags &= !crate::store::format::FLAG_DELTA;
            old.sections.retain(|s| {
                !matches!(
                    s.kind,
                    SectionKind::OutBlockMap | SectionKind::InBlockMap | SectionKind::Manifest
                )
            });
            bytes[..4096].copy_from_slice(&old.encode());
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("old.grotto");
            std::fs::write(&path, &bytes).unwrap();
            let g = Graph::open(&path).unwrap();
            assert!(g.header().section(SectionKind::OutBlockMap).is_none());
            assert_eq!(g.header().version, 1);
            maps_match(&g);
        }
    }

    #[test]
    fn a_map_read_in_many_pieces_is_the_map_and_damage_in_any_piece_is_named() {
        let t = testkit::rmat(10, 8, 3, true);
        let adj = t.graph.adjacency(Direction::Out).unwrap();
        let want = BlockMap::build(t.graph.vertex_count(), adj.block_count(), |v| {
            adj.block_range(v)
        });
        let stored = adj.stored_map.as_ref().unwrap();
        for piece in [1, 7, 100, 1 << 40] {
            let got = stored
                .read_in_pieces(t.graph.path(), |v| adj.block_range(v), piece)
                .unwrap();
            assert_eq!(got, want, "pieces of {piece} ids");
        }
        // A flipped id in the last block: its checksum names it, however
        // it is cut.
        let s = *t.graph.header().section(SectionKind::OutBlockMap).unwrap();
        let mut bytes = std::fs::read(t.graph.path()).unwrap();
        let last = (s.offset + s.length - 4) as usize;
        bytes[last] ^= 1;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("flip.grotto");
        std::fs::write(&path, &bytes).unwrap();
        let g = Graph::open(&path).unwrap();
        let adj = g.adjacency(Direction::Out).unwrap();
        for piece in [7, 1 << 40] {
            let e = adj
                .stored_map
                .as_ref()
                .unwrap()
                .read_in_pieces(&path, |v| adj.block_range(v), piece)
                .unwrap_err()
                .to_string();
            assert!(e.contains("out-block-map") && e.contains("checksum"), "{e}");
        }
    }

    /// The file of `t` with its out-block map section replaced by
    /// `section` (appended at the end, the header pointing at it) and its
    /// version set to `version`; its path.
    fn with_map(t: &testkit::TestGraph, section: &[u8], version: u32, dir: &Path) -> PathBuf {
        let mut bytes = std::fs::read(t.graph.path()).unwrap();
        bytes.resize(padded(bytes.len() as u64) as usize, 0);
        let at = bytes.len() as u64;
        bytes.extend_from_slice(section);
        bytes.resize(padded(bytes.len() as u64) as usize, 0);
        let mut h = t.graph.header().clone();
        h.version = version;
        for sec in &mut h.sections {
            if sec.kind == SectionKind::OutBlockMap {
                sec.offset = at;
                sec.length = section.len() as u64;
                sec.crc = crc32c::crc32c(&bytes[at as usize..]);
            }
        }
        bytes[..4096].copy_from_slice(&h.encode());
        let path = dir.join(format!("v{version}.grotto"));
        std::fs::write(&path, &bytes).unwrap();
        path
    }

    #[test]
    fn version_6_maps_of_ids_still_open() {
        let t = testkit::rmat(10, 8, 3, true);
        let adj = t.graph.adjacency(Direction::Out).unwrap();
        let map = adj.block_map().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = with_map(&t, &map.to_bytes(), 6, dir.path());
        let g = Graph::open(&path).unwrap();
        assert_eq!(g.header().version, 6);
        assert_eq!(g.out().block_map().unwrap(), map);
        g.verify_all_blocks().unwrap();
        // The same ids read as a version 7 (coded) map are named.
        let path = with_map(&t, &map.to_bytes(), 7, dir.path());
        let e = Graph::open(&path)
            .and_then(|g| g.out().block_map().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("out-block-map"), "{e}");
    }

    #[test]
    fn a_map_that_disagrees_with_the_index_is_named() {
        let t = testkit::rmat(10, 8, 3, true);
        let adj = t.graph.adjacency(Direction::Out).unwrap();
        let map = adj.block_map().unwrap();
        let mut runs: Vec<Vec<VertexId>> = (0..map.block_count())
            .map(|b| map.vertices(b).collect())
            .collect();
        // Move the first id of block 0's run to a vertex whose list is not
        // there (keeping the run increasing); the appended section carries
        // a right CRC, so only the cross-check can see it.
        let stranger = (0..runs[0][1])
            .find(|&v| adj.block_range(v).is_none_or(|(first, _)| first > 0))
            .unwrap();
        runs[0][0] = stranger;
        let bad = encode(runs.len(), |k| &runs[k]);
        let dir = tempfile::tempdir().unwrap();
        let path = with_map(&t, &bad.to_coded_bytes(), 7, dir.path());
        // Opening leaves the map for its first use, which names it; so
        // does `grotto check`.
        let g = Graph::open(&path).unwrap();
        let e = g.out().block_map().unwrap_err().to_string();
        assert!(
            e.contains("out-block-map") && e.contains("disagrees"),
            "{e}"
        );
        assert!(e.contains("v7.grotto"), "{e}");
        let e = Graph::open(&path)
            .unwrap()
            .verify_all_blocks()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("out-block-map") && e.contains("disagrees"),
            "{e}"
        );
        // Hostile code with a right CRC: a varint that never ends, one
        // too long, an id past the last vertex, ids out of order, run
        // starts past the code. Each is named, none panics.
        let good = map.to_coded_bytes();
        let head = ((map.block_count() + 1) * 8) as usize;
        let mut cases: Vec<Vec<u8>> = Vec::new();
        let mut endless = good.clone();
        let last = endless.len() - 1;
        endless[last] |= 0x80;
        cases.push(endless);
        let mut long = good[..head].to_vec();
        long.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        long.extend_from_slice(&good[head..]);
        cases.push(long);
        let mut past = good.clone();
        past[head..head + 5].copy_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        cases.push(past);
        let mut starts = good.clone();
        starts[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        cases.push(starts);
        for (i, bytes) in cases.iter().enumerate() {
            let path = with_map(&t, bytes, 7, dir.path());
            let e = Graph::open(&path)
                .and_then(|g| g.out().block_map().map(|_| ()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("out-block-map"), "case {i}: {e}");
        }
    }

    /// Block ranges of lists given by (first slot, degree).
    fn spans() -> Vec<Option<(u64, u64)>> {
        let per = SLOTS_PER_BLOCK as u64;
        [
            Some((0, 10)),
            None,
            Some((10, 5)),
            Some((2 * per, 3 * per)),
            Some((per, 7)),
            Some((5 * per, 1)),
            None,
        ]
        .into_iter()
        .map(|s| s.map(|(slot, d)| block_span(slot, d)))
        .collect()
    }

    #[test]
    fn build_lists_each_vertex_under_every_block_of_its_list() {
        let s = spans();
        let m = BlockMap::build(s.len() as u64, 6, |v| s[v as usize]);
        let run = |b| m.vertices(b).collect::<Vec<_>>();
        assert_eq!(run(0), [0, 2]);
        assert_eq!(run(1), [4]);
        assert_eq!(run(2), [3]);
        assert_eq!(run(3), [3]);
        assert_eq!(run(4), [3]);
        assert_eq!(run(5), [5]);
        assert_eq!(run(6), [] as [VertexId; 0]);
        assert!(m.block_is_empty(6) && !m.block_is_empty(5));
        assert_eq!(m.len(), 7);
        assert_eq!(m.agrees(7, |v| s[v as usize]), Ok(()));
    }

    #[test]
    fn bytes_round_trip_and_bad_maps_are_named() {
        let s = spans();
        let n = s.len() as u64;
        let m = BlockMap::build(n, 6, |v| s[v as usize]);
        let b = m.to_bytes();
        assert_eq!(BlockMap::from_bytes(&b, 6, n), Ok(m.clone()));
        // Wrong size, starts out of order, a vertex out of range, a repeat.
        assert!(BlockMap::from_bytes(&b[..b.len() - 2], 6, n).is_err());
        assert!(BlockMap::from_bytes(&b, 7, n).is_err());
        let mut c = b.clone();
        c[8] = 9;
        assert!(BlockMap::from_bytes(&c, 6, n).is_err());
        assert!(BlockMap::from_bytes(&b, 6, 4).is_err());
        let mut d = b.clone();
        let at = b.len() - 7 * 4;
        d[at..at + 4].copy_from_slice(&2u32.to_le_bytes());
        assert!(BlockMap::from_bytes(&d, 6, n).is_err());
        // Well formed but wrong: vertex 1 listed under block 0 instead of 2.
        let mut f = b.clone();
        let at = b.len() - 6 * 4;
        f[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
        let e = BlockMap::from_bytes(&f, 6, n).unwrap();
        assert!(e.agrees(7, |v| s[v as usize]).is_err());
        assert!(m.agrees(8, |v| s[v as usize]).is_err());
    }
}

#[cfg(test)]
mod coding {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any increasing runs, gaps of every size up to the whole u32
        /// range included, decode to themselves and round-trip through the
        /// on-disk form.
        #[test]
        fn runs_decode_to_themselves(
            raw in proptest::collection::vec(
                proptest::collection::btree_set(
                    prop_oneof![0u32..300, any::<u32>()], 0..40),
                0..20),
        ) {
            let runs: Vec<Vec<VertexId>> = raw.into_iter().map(|s| s.into_iter().collect()).collect();
            let m = encode(runs.len(), |k| &runs[k]);
            for (b, run) in runs.iter().enumerate() {
                prop_assert_eq!(&m.vertices(b as u64).collect::<Vec<_>>(), run);
            }
            prop_assert_eq!(m.len(), runs.iter().map(|r| r.len() as u64).sum::<u64>());
            let back = BlockMap::from_bytes(&m.to_bytes(), runs.len() as u64, 1 << 32).unwrap();
            prop_assert_eq!(back, m);
        }
    }
}

//! Opening a graph file: validation, the in-memory vertex index, and a
//! simple synchronous block reader. The concurrent reader used by the
//! engines belongs to the io layer; this one serves `info`, `export`,
//! `check` and library users who want a vertex's neighbours.

use super::blockmap::{block_span, BlockMap};
use super::format::*;
use super::load::{corrupt, load_adjacency, read_checked, required};
use super::names::Names;
use crate::error::{Error, Result};
use crate::{BlockId, VertexId};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Which adjacency of a directed graph to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Out-edges (for an undirected graph: all edges).
    Out,
    /// In-edges (needs the reverse section).
    In,
}

/// One adjacency structure: index in memory, blocks on disk.
#[derive(Debug)]
pub struct Adjacency {
    pub(super) index: Vec<u64>,
    pub(super) huge: Vec<(u64, u64)>,
    pub(super) crcs: Vec<u32>,
    pub(super) tags: Vec<u8>,
    pub(super) blocks: Section,
    pub(super) weights: Option<Section>,
    pub(super) entries: u64,
    /// The block map: read from the file, or built on first use.
    pub(super) map: OnceLock<BlockMap>,
}

impl Adjacency {
    /// Which vertices have list entries in each block (block-mode
    /// engines need it): the file's, or built from the index the first
    /// time it is asked for (files written before the map was stored),
    /// on rayon's global pool: the CLI sizes that pool by `--threads`, a
    /// library user by `rayon::ThreadPoolBuilder::build_global`.
    pub fn block_map(&self) -> &BlockMap {
        self.map.get_or_init(|| {
            BlockMap::build(self.index.len() as u64, self.block_count(), |v| {
                self.disk_span(v)
            })
        })
    }

    /// Number of 4 KiB edge blocks.
    pub fn block_count(&self) -> u64 {
        self.blocks.count
    }
    /// Adjacency entries stored (sum of degrees).
    pub fn entries(&self) -> u64 {
        self.entries
    }
    /// Adjacency entries kept inline in the index (degree 1 and 2 lists).
    pub fn inline_entries(&self) -> u64 {
        self.index
            .iter()
            .map(|&e| match IndexEntry::decode(e) {
                IndexEntry::One(_) => 1,
                IndexEntry::Two(..) => 2,
                _ => 0,
            })
            .sum()
    }
    /// The decoded index entry of `v`.
    pub fn entry(&self, v: VertexId) -> IndexEntry {
        IndexEntry::decode(self.index[v as usize])
    }
    /// Degree of `v` in this adjacency.
    pub fn degree(&self, v: VertexId) -> u64 {
        match self.entry(v) {
            IndexEntry::Disk { degree, .. } => degree,
            IndexEntry::One(_) => 1,
            IndexEntry::Two(..) => 2,
            IndexEntry::Huge { .. } => self.huge_degree(v as u64).unwrap_or(0),
        }
    }
    fn huge_degree(&self, v: u64) -> Option<u64> {
        self.huge
            .binary_search_by_key(&v, |&(x, _)| x)
            .ok()
            .map(|i| self.huge[i].1)
    }
    /// `v`'s list when the index holds it (degree 1 or 2), else `None`
    /// (an empty list, or one in edge blocks).
    #[inline]
    pub fn inline_list(&self, v: VertexId) -> Option<InlineList> {
        match self.entry(v) {
            IndexEntry::One(a) => Some(InlineList {
                ids: [a, 0],
                len: 1,
            }),
            IndexEntry::Two(a, b) => Some(InlineList {
                ids: [a, b],
                len: 2,
            }),
            _ => None,
        }
    }

    /// The first and last edge block holding `v`'s list, if it is on disk.
    #[inline]
    pub fn block_range(&self, v: VertexId) -> Option<(u64, u64)> {
        self.disk_span(v)
            .map(|(slot, degree)| block_span(slot, degree))
    }

    /// The part of `v`'s list held by edge block `b`, whose bytes are
    /// `block`; `None` when `b` holds none of it. The one place that
    /// slices a list out of a block, for both engines.
    #[inline]
    pub fn list_in_block<'b>(&self, v: VertexId, b: u64, block: &'b [u8]) -> Option<ListPiece<'b>> {
        let (slot, degree) = self.disk_span(v)?;
        let per = SLOTS_PER_BLOCK as u64;
        let start = b * per;
        let lo = slot.max(start);
        let hi = (slot + degree).min(start + per);
        if lo >= hi {
            return None;
        }
        let range = (lo - start) as usize..(hi - start) as usize;
        let ids: &[VertexId] = bytemuck::cast_slice(block);
        Some(ListPiece {
            ids: &ids[range.clone()],
            first: lo - slot,
            degree,
            range,
        })
    }

    /// The slot where `v`'s on-disk list starts and its length, or `None`
    /// for a list kept in memory or an empty one.
    pub fn disk_span(&self, v: VertexId) -> Option<(u64, u64)> {
        IndexEntry::disk_span(self.index[v as usize], v as u64, &self.huge)
    }

    /// Two vertices whose on-disk lists share a slot, if any (the builder
    /// gives every list slots of its own). Sorts the lists' spans: 16
    /// bytes per vertex with an on-disk list.
    pub fn overlapping_lists(&self) -> Option<(VertexId, VertexId)> {
        use rayon::prelude::*;
        let mut spans: Vec<(u64, u64, VertexId)> = (0..self.index.len() as VertexId)
            .into_par_iter()
            .filter_map(|v| self.disk_span(v).map(|(s, d)| (s, s + d, v)))
            .collect();
        spans.par_sort_unstable();
        spans
            .windows(2)
            .find(|w| w[0].1 > w[1].0)
            .map(|w| (w[0].2, w[1].2))
    }
}

/// A list of one or two ids kept in the vertex index.
#[derive(Clone, Copy, Debug)]
pub struct InlineList {
    ids: [VertexId; 2],
    len: u8,
}

impl InlineList {
    /// The ids.
    #[inline]
    pub fn ids(&self) -> &[VertexId] {
        &self.ids[..self.len as usize]
    }
}

/// The part of a vertex's list that one edge block holds.
#[derive(Clone, Debug)]
pub struct ListPiece<'b> {
    /// The neighbour ids in this block.
    pub ids: &'b [VertexId],
    /// Position of `ids[0]` in the whole list.
    pub first: u64,
    /// Length of the whole list.
    pub degree: u64,
    /// Where the piece lies in the block, in slots (for the weight block).
    pub range: std::ops::Range<usize>,
}

/// An open, validated graph file.
#[derive(Debug)]
pub struct Graph {
    path: PathBuf,
    file: File,
    header: Header,
    out: Adjacency,
    inn: Option<Adjacency>,
    pub(super) id_map: Option<Vec<u64>>,
    pub(super) names: Option<std::sync::Arc<Names>>,
}

/// Sizes of the in-memory part of an open graph.
#[derive(Clone, Copy, Debug)]
pub struct MemoryFootprint {
    /// Bytes of vertex index (all adjacencies, huge tables included).
    pub index_bytes: u64,
    /// Bytes of per-block metadata (checksums, tags, and the block map
    /// once read or built).
    pub block_meta_bytes: u64,
    /// Bytes of id map.
    pub id_map_bytes: u64,
}

impl Graph {
    /// Opens and validates `path`: magic, version, header checksum,
    /// section bounds, the header's fields against each other
    /// ([`Header::check_fields`]), metadata checksums, the huge table,
    /// id map and block map, and every index entry (the list in
    /// `docs/format.md`, "What opening checks"). Edge blocks are checked
    /// by their own checksums when read, and their contents by
    /// [`Graph::verify_all_blocks`].
    pub fn open(path: &Path) -> Result<Graph> {
        // Looked at before opening: opening a FIFO would wait for a writer.
        let kind = std::fs::metadata(path)
            .map_err(|e| Error::io(path, "open", e))?
            .file_type();
        if !kind.is_file() {
            return Err(Error::BadInput {
                path: path.to_path_buf(),
                what: format!(
                    "is a {}, not a graph file",
                    if kind.is_dir() {
                        "directory"
                    } else {
                        "FIFO, socket or device"
                    }
                ),
            });
        }
        let file = File::open(path).map_err(|e| Error::io(path, "open", e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io(path, "stat", e))?
            .len();
        if len < BLOCK_BYTES as u64 {
            if len >= 8 {
                let mut m = [0u8; 8];
                file.read_exact_at(&mut m, 0)
                    .map_err(|e| Error::io(path, "read header", e))?;
                if m == MAGIC {
                    return Err(Error::Truncated {
                        path: path.into(),
                        what: format!("{len} bytes, shorter than the 4096-byte header"),
                    });
                }
            }
            return Err(Error::NotAGraph { path: path.into() });
        }
        let mut hb = vec![0u8; BLOCK_BYTES];
        file.read_exact_at(&mut hb, 0)
            .map_err(|e| Error::io(path, "read header", e))?;
        // Field ranges, flags against sections, counts against lengths.
        let header = Header::decode(&hb, path, len)?;
        let mut g = Graph {
            path: path.to_path_buf(),
            out: load_adjacency(&file, path, &header, Direction::Out)?,
            inn: None,
            id_map: None,
            names: None,
            file,
            header,
        };
        if g.header.has_reverse() {
            g.inn = Some(load_adjacency(&g.file, path, &g.header, Direction::In)?);
        }
        if g.out.entries != g.header.out_entries {
            return Err(corrupt(
                path,
                format!(
                    "out-index lists {} entries, header says {}",
                    g.out.entries, g.header.out_entries
                ),
            ));
        }
        if let Some(inn) = &g.inn {
            if inn.entries != g.header.out_entries {
                return Err(corrupt(
                    path,
                    format!(
                        "in-index lists {} entries, the out-index {}: every edge is in both",
                        inn.entries, g.header.out_entries
                    ),
                ));
            }
        }
        if g.header.has_id_map() {
            // Its size was checked with the header's fields.
            let s = required(&g.header, SectionKind::IdMap, path)?;
            let bytes = read_checked(&g.file, path, &s)?;
            let ids: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes[..s.length as usize]);
            if ids.windows(2).any(|w| w[0] >= w[1]) {
                return Err(corrupt(path, "id map is not strictly increasing".into()));
            }
            g.id_map = Some(ids);
        }
        if g.header.has_names() {
            let s = required(&g.header, SectionKind::Names, path)?;
            let bytes = read_checked(&g.file, path, &s)?;
            g.names = Some(std::sync::Arc::new(Names::decode(
                &bytes[..s.length as usize],
                s.count,
                path,
            )?));
        }
        Ok(g)
    }

    /// The file this graph was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.header.vertex_count
    }
    /// Number of edges (arcs if directed, unordered pairs if undirected).
    pub fn edge_count(&self) -> u64 {
        self.header.edge_count
    }
    /// True for a directed graph.
    pub fn directed(&self) -> bool {
        self.header.directed()
    }
    /// True when edges carry weights.
    pub fn weighted(&self) -> bool {
        self.header.weighted()
    }
    /// The out-adjacency (all edges of an undirected graph).
    pub fn out(&self) -> &Adjacency {
        &self.out
    }
    /// The in-adjacency, when the file has reverse edges.
    pub fn inn(&self) -> Option<&Adjacency> {
        self.inn.as_ref()
    }
    /// The adjacency for `dir`, or an error saying how to get it.
    pub fn adjacency(&self, dir: Direction) -> Result<&Adjacency> {
        match dir {
            Direction::Out => Ok(&self.out),
            Direction::In => self.inn.as_ref().ok_or_else(|| {
                Error::Invalid(format!(
                    "{} has no reverse edges; convert it again with --reverse",
                    self.path.display()
                ))
            }),
        }
    }

    /// Bytes of memory the open graph's metadata takes.
    pub fn memory_footprint(&self) -> MemoryFootprint {
        let adj = |a: &Adjacency| {
            (
                a.index.len() as u64 * 8 + a.huge.len() as u64 * 16,
                a.crcs.len() as u64 * 4
                    + a.tags.len() as u64
                    + a.map.get().map_or(0, BlockMap::bytes),
            )
        };
        let (mut index_bytes, mut block_meta_bytes) = adj(&self.out);
        if let Some(i) = &self.inn {
            let (a, b) = adj(i);
            index_bytes += a;
            block_meta_bytes += b;
        }
        MemoryFootprint {
            index_bytes,
            block_meta_bytes,
            id_map_bytes: self.id_map.as_ref().map_or(0, |m| m.len() as u64 * 8)
                + self.names.as_ref().map_or(0, |n| n.bytes()),
        }
    }

    /// Reads and checks edge block `b` of `dir` into `buf` (4096 bytes).
    pub fn read_block(&self, dir: Direction, b: BlockId, buf: &mut [u8]) -> Result<()> {
        let a = self.adjacency(dir)?;
        self.read_block_of(a, false, b, buf)
    }

    fn read_block_of(
        &self,
        a: &Adjacency,
        weights: bool,
        b: BlockId,
        buf: &mut [u8],
    ) -> Result<()> {
        let at = self.block_offset_of(a, weights, b)?;
        let what = if weights { "weight block" } else { "block" };
        let kind = if weights {
            a.weights.as_ref().map_or("?", |w| w.kind.name())
        } else {
            a.blocks.kind.name()
        };
        self.file
            .read_exact_at(&mut buf[..BLOCK_BYTES], at)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    Error::Truncated {
                        path: self.path.clone(),
                        what: format!("{kind} {what} {} is past the end of the file", b.0),
                    }
                } else {
                    Error::io(
                        &self.path,
                        format!("read {kind} {what} {} at byte {at}", b.0),
                        e,
                    )
                }
            })?;
        self.check_block_of(a, weights, b, &buf[..BLOCK_BYTES])
    }

    fn block_offset_of(&self, a: &Adjacency, weights: bool, b: BlockId) -> Result<u64> {
        let section = if weights {
            a.weights
                .as_ref()
                .ok_or_else(|| Error::Invalid("graph has no weights".into()))?
        } else {
            &a.blocks
        };
        if b.0 >= a.blocks.count {
            return Err(Error::Invalid(format!(
                "block {} out of range ({} blocks)",
                b.0, a.blocks.count
            )));
        }
        Ok(section.offset + b.0 * BLOCK_BYTES as u64)
    }

    /// Byte offset in the file of block `b` of `dir` (its weight block when
    /// `weights`), for readers that do their own I/O.
    pub fn block_offset(&self, dir: Direction, weights: bool, b: BlockId) -> Result<u64> {
        self.block_offset_of(self.adjacency(dir)?, weights, b)
    }

    /// Checks the bytes of block `b` of `dir` (its weight block when
    /// `weights`) against the stored checksum and encoding tag.
    pub fn check_block(
        &self,
        dir: Direction,
        weights: bool,
        b: BlockId,
        bytes: &[u8],
    ) -> Result<()> {
        self.check_block_of(self.adjacency(dir)?, weights, b, bytes)
    }

    fn check_block_of(&self, a: &Adjacency, weights: bool, b: BlockId, bytes: &[u8]) -> Result<()> {
        let what = if weights { "weight block" } else { "block" };
        let kind = a.blocks.kind.name();
        if b.0 >= a.blocks.count || bytes.len() != BLOCK_BYTES || (weights && a.weights.is_none()) {
            return Err(Error::Invalid(format!(
                "{kind} {what} {} cannot be checked",
                b.0
            )));
        }
        let crc_at = if weights { a.blocks.count + b.0 } else { b.0 } as usize;
        if crc32c::crc32c(bytes) != a.crcs[crc_at] {
            return Err(corrupt(
                &self.path,
                format!("{kind} {what} {} fails its checksum", b.0),
            ));
        }
        if !weights && a.tags[b.0 as usize] != ENCODING_RAW_U32 {
            return Err(corrupt(
                &self.path,
                format!(
                    "{kind} block {} has encoding tag {} which this grotto does not know",
                    b.0, a.tags[b.0 as usize]
                ),
            ));
        }
        Ok(())
    }

    /// Checks that every id of a list `v` holds names a vertex: a file
    /// whose block checksums were recomputed after a forged id is refused
    /// here, with the vertex named.
    #[inline]
    pub fn check_list(&self, v: VertexId, ids: &[VertexId]) -> Result<()> {
        let max = ids.iter().copied().max().unwrap_or(0);
        if max as u64 >= self.header.vertex_count {
            return Err(corrupt(
                &self.path,
                format!(
                    "vertex {v}'s list names vertex {max}, but the graph has {} vertices",
                    self.header.vertex_count
                ),
            ));
        }
        Ok(())
    }

    /// Out-neighbours of `v` (internal ids), read from disk when needed.
    pub fn neighbors(&self, v: VertexId) -> Result<Vec<VertexId>> {
        let mut r = BlockReader::new(self, Direction::Out)?;
        let mut out = Vec::new();
        r.neighbors(v, &mut out, None)?;
        Ok(out)
    }

    /// Reads every block of every adjacency and checks its checksum and
    /// contents; returns the number of blocks checked. Contents: every
    /// listed neighbour is a vertex; lists are sorted (strictly, unless
    /// duplicates were kept), hold self loops only when loops were kept,
    /// and no two share a slot; an undirected graph's lists are symmetric
    /// and its edge count is what its entries and loops make; a stored
    /// in-adjacency holds exactly the out-adjacency's edges reversed,
    /// weights included. Symmetry and reversal compare order-free 64-bit
    /// fingerprints of the edge multisets, so they need no memory.
    pub fn verify_all_blocks(&self) -> Result<u64> {
        let mut checked = 0;
        let mut buf = vec![0u8; BLOCK_BYTES];
        let h = &self.header;
        let multi = h.flags & FLAG_MULTI != 0;
        let loops_kept = h.flags & FLAG_SELF_LOOPS != 0;
        // Per adjacency: the sum of edge fingerprints as stored (u, x)
        // and reversed (x, u).
        let mut prints = [[0u64; 2]; 2];
        let mut loops = 0u64;
        for (di, (dir, a)) in [
            (Direction::Out, Some(&self.out)),
            (Direction::In, self.inn.as_ref()),
        ]
        .into_iter()
        .enumerate()
        {
            let Some(a) = a else { continue };
            let name = if dir == Direction::Out { "out" } else { "in" };
            for b in 0..a.blocks.count {
                self.read_block_of(a, false, BlockId(b), &mut buf)?;
                if a.weights.is_some() {
                    self.read_block_of(a, true, BlockId(b), &mut buf)?;
                }
                checked += 1;
            }
            if let Some((u, v)) = a.overlapping_lists() {
                return Err(corrupt(
                    &self.path,
                    format!("the {name}-lists of vertices {u} and {v} share slots"),
                ));
            }
            // Every listed neighbour must be a vertex (the reader checks).
            let mut r = BlockReader::new(self, dir)?;
            let (mut ids, mut ws) = (Vec::new(), Vec::new());
            for v in 0..self.header.vertex_count as VertexId {
                r.neighbors(v, &mut ids, Some(&mut ws))?;
                let bad =
                    |why: &str| corrupt(&self.path, format!("the {name}-list of vertex {v} {why}"));
                if ids.windows(2).any(|w| w[0] > w[1]) {
                    return Err(bad("is not sorted"));
                }
                if !multi && ids.windows(2).any(|w| w[0] == w[1]) {
                    return Err(bad("repeats a neighbour, but duplicates were not kept"));
                }
                for (i, &x) in ids.iter().enumerate() {
                    let w = ws.get(i).map_or(0, |w| w.to_bits());
                    if x == v {
                        if !loops_kept {
                            return Err(bad("holds a self loop, but self loops were not kept"));
                        }
                        loops += 1;
                    }
                    prints[di][0] = prints[di][0].wrapping_add(edge_print(v, x, w));
                    prints[di][1] = prints[di][1].wrapping_add(edge_print(x, v, w));
                }
            }
        }
        if !h.directed() {
            if prints[0][0] != prints[0][1] {
                return Err(corrupt(
                    &self.path,
                    "the lists of an undirected graph are not symmetric".into(),
                ));
            }
            // A loop is one entry and one edge, any other edge two entries.
            let two = h.out_entries - loops;
            if !two.is_multiple_of(2) || two / 2 + loops != h.edge_count {
                return Err(corrupt(
                    &self.path,
                    format!(
                        "edge count {} does not match {} entries with {loops} self loops",
                        h.edge_count, h.out_entries
                    ),
                ));
            }
        }
        if self.inn.is_some() && prints[0][0] != prints[1][1] {
            return Err(corrupt(
                &self.path,
                "the in-adjacency is not the out-adjacency reversed".into(),
            ));
        }
        Ok(checked)
    }
}

/// An order-free fingerprint term of the edge `u -> v` with weight bits `w`.
fn edge_print(u: VertexId, v: VertexId, w: u32) -> u64 {
    let mut x = ((u as u64) << 32) | v as u64;
    let mut y = crate::rng::splitmix64(&mut x) ^ w as u64;
    crate::rng::splitmix64(&mut y)
}

/// Sequential reader of adjacency lists with a small block cache, good for
/// scans in vertex order (lists of nearby vertices share blocks).
pub struct BlockReader<'g> {
    g: &'g Graph,
    a: &'g Adjacency,
    slots: Vec<(u64, Vec<u32>, Vec<f32>)>,
    bytes: Vec<u8>,
    /// Blocks read from disk so far.
    pub blocks_read: u64,
}

const READER_CACHE_BLOCKS: usize = 64;

impl<'g> BlockReader<'g> {
    /// A reader over the `dir` adjacency of `g`.
    pub fn new(g: &'g Graph, dir: Direction) -> Result<BlockReader<'g>> {
        Ok(BlockReader {
            g,
            a: g.adjacency(dir)?,
            slots: (0..READER_CACHE_BLOCKS)
                .map(|_| (u64::MAX, Vec::new(), Vec::new()))
                .collect(),
            bytes: vec![0u8; BLOCK_BYTES],
            blocks_read: 0,
        })
    }

    fn block(&mut self, b: u64, weights: bool) -> Result<&(u64, Vec<u32>, Vec<f32>)> {
        let i = (b % READER_CACHE_BLOCKS as u64) as usize;
        if self.slots[i].0 != b {
            self.g
                .read_block_of(self.a, false, BlockId(b), &mut self.bytes)?;
            self.slots[i].1 = bytemuck::pod_collect_to_vec(&self.bytes);
            self.slots[i].2.clear();
            if weights {
                self.g
                    .read_block_of(self.a, true, BlockId(b), &mut self.bytes)?;
                self.slots[i].2 = bytemuck::pod_collect_to_vec(&self.bytes);
            }
            self.slots[i].0 = b;
            self.blocks_read += 1;
        } else if weights && self.slots[i].2.is_empty() {
            self.g
                .read_block_of(self.a, true, BlockId(b), &mut self.bytes)?;
            self.slots[i].2 = bytemuck::pod_collect_to_vec(&self.bytes);
        }
        Ok(&self.slots[i])
    }

    /// Replaces `out` (and `weights`, when given and the graph is weighted)
    /// with `v`'s neighbours in this adjacency.
    pub fn neighbors(
        &mut self,
        v: VertexId,
        out: &mut Vec<VertexId>,
        mut weights: Option<&mut Vec<f32>>,
    ) -> Result<()> {
        out.clear();
        if let Some(w) = weights.as_deref_mut() {
            w.clear();
        }
        let n = self.g.header.vertex_count;
        let want_w = weights.is_some() && self.a.weights.is_some();
        match self.a.entry(v) {
            IndexEntry::One(x) => out.push(x),
            IndexEntry::Two(x, y) => out.extend([x, y]),
            _ => {
                let Some((start, degree)) = self.a.disk_span(v) else {
                    return Ok(());
                };
                let mut slot = start;
                let end = start + degree;
                while slot < end {
                    let b = slot / SLOTS_PER_BLOCK as u64;
                    let lo = (slot % SLOTS_PER_BLOCK as u64) as usize;
                    let hi =
                        ((end - b * SLOTS_PER_BLOCK as u64).min(SLOTS_PER_BLOCK as u64)) as usize;
                    let blk = self.block(b, want_w)?;
                    out.extend_from_slice(&blk.1[lo..hi]);
                    if want_w {
                        if let Some(w) = weights.as_deref_mut() {
                            w.extend_from_slice(&blk.2[lo..hi]);
                        }
                    }
                    slot = (b + 1) * SLOTS_PER_BLOCK as u64;
                }
            }
        }
        if let Some(&bad) = out.iter().find(|&&x| x as u64 >= n) {
            return Err(corrupt(
                &self.g.path,
                format!("vertex {v}'s list names vertex {bad}, but the graph has {n} vertices"),
            ));
        }
        Ok(())
    }
}

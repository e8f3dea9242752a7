//! One adjacency in memory (its index, checksums, tags and block map) and
//! the one place that turns block bytes into neighbour lists: raw u32
//! blocks are sliced, packed blocks decoded ([`super::codec`]) into a
//! buffer the caller owns, one per thread. Both engines, `check`,
//! `export` and the synchronous [`BlockReader`] read lists through here.

use super::blockmap::{block_span, BlockMap};
use super::codec::{self, TAG_SPAN};
use super::delta::{patch_piece, Change, Delta, PieceWeights};
use super::format::*;
use super::graph::Graph;
use super::load::corrupt;
use crate::error::Result;
use crate::{BlockId, VertexId};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Bits of a packed index offset that hold the byte within a block (a
/// short list) or the block count less one (a long list, whose offset
/// is a block boundary).
pub const PACKED_LOW_BITS: u32 = 12;
const LOW_MASK: u64 = (1 << PACKED_LOW_BITS) - 1;

/// The first and last block of the on-disk list of vertex `v` whose
/// index entry is `e` (`None` for a list in the index or an empty one).
/// `huge` is the sorted (vertex, degree) table; a packed file (`tags`
/// given) also passes each huge list's block count and the block tags.
#[inline]
pub fn list_blocks(
    e: u64,
    v: u64,
    huge: &[(u64, u64)],
    huge_blocks: &[u64],
    tags: Option<&[u8]>,
) -> Option<(u64, u64)> {
    let (offset, degree) = IndexEntry::disk_span(e, v, huge)?;
    let Some(tags) = tags else {
        return Some(block_span(offset, degree));
    };
    let b = offset >> PACKED_LOW_BITS;
    if let IndexEntry::Huge { .. } = IndexEntry::decode(e) {
        let i = huge.binary_search_by_key(&v, |&(x, _)| x).ok()?;
        let n = huge_blocks.get(i).copied().unwrap_or(1).max(1);
        return Some((b, b + n - 1));
    }
    if tags.get(b as usize) == Some(&TAG_SPAN) {
        Some((b, b + (offset & LOW_MASK)))
    } else {
        Some((b, b))
    }
}

/// One adjacency structure: index in memory, blocks on disk.
#[derive(Debug)]
pub struct Adjacency {
    pub(super) path: PathBuf,
    pub(super) index: Vec<u64>,
    pub(super) huge: Vec<(u64, u64)>,
    /// Packed files: the block count of each huge list (parallel to `huge`).
    pub(super) huge_blocks: Vec<u64>,
    pub(super) crcs: Vec<u32>,
    pub(super) tags: Vec<u8>,
    pub(super) blocks: Section,
    pub(super) weights: Option<Section>,
    pub(super) entries: u64,
    /// Whether blocks hold packed lists (byte-addressed index offsets).
    pub(super) packed: bool,
    /// The block map: read from the file, or built, on first use.
    pub(super) map: OnceLock<BlockMap>,
    /// Where the file keeps its block map, when it does.
    pub(super) stored_map: Option<super::load::StoredMap>,
    /// Committed updates, applied as lists are read (files with updates).
    pub(super) delta: Option<Delta>,
}

impl Adjacency {
    /// Which vertices have list entries in each block (block-mode
    /// engines need it), loaded the first time it is asked for, so that
    /// opening a file costs nothing for it: the file's, checked against
    /// the index (an error names the file and the block), or built from
    /// the index (files written before the map was stored), on rayon's
    /// global pool: the CLI sizes that pool by `--threads`, a library
    /// user by `rayon::ThreadPoolBuilder::build_global`.
    pub fn block_map(&self) -> Result<&BlockMap> {
        if let Some(m) = self.map.get() {
            return Ok(m);
        }
        let m = match &self.stored_map {
            Some(s) => s.read(&self.path, |v| self.block_range(v))?,
            None => BlockMap::build(self.index.len() as u64, self.block_count(), |v| {
                self.block_range(v)
            }),
        };
        Ok(self.map.get_or_init(|| m))
    }

    /// Number of 4 KiB edge blocks.
    pub fn block_count(&self) -> u64 {
        self.blocks.count
    }
    /// Adjacency entries stored (sum of degrees).
    pub fn entries(&self) -> u64 {
        self.entries
    }
    /// Whether the blocks hold packed (compressed) lists.
    pub fn packed(&self) -> bool {
        self.packed
    }
    /// The encoding tag of each block.
    pub fn tags(&self) -> &[u8] {
        &self.tags
    }
    /// Adjacency entries kept inline in the index (degree 1 and 2 lists).
    pub fn inline_entries(&self) -> u64 {
        self.index
            .par_iter()
            .map(|&e| match IndexEntry::decode(e) {
                IndexEntry::One(_) => 1u64,
                IndexEntry::Two(..) => 2,
                _ => 0,
            })
            .sum()
    }
    /// The decoded index entry of `v`.
    pub fn entry(&self, v: VertexId) -> IndexEntry {
        IndexEntry::decode(self.index[v as usize])
    }
    /// The committed updates of this adjacency, if any.
    pub fn delta(&self) -> Option<&Delta> {
        self.delta.as_ref()
    }
    #[inline]
    fn change(&self, v: VertexId) -> Option<Change<'_>> {
        self.delta.as_ref().and_then(|d| d.get(v))
    }
    /// Degree of `v` in this adjacency.
    #[inline]
    pub fn degree(&self, v: VertexId) -> u64 {
        match self.change(v) {
            None => self.base_degree(v),
            Some(Change::Patch { ins, del, .. }) => {
                self.base_degree(v) + ins.len() as u64 - del.len() as u64
            }
            Some(Change::Replace(l, _)) => l.len() as u64,
        }
    }
    /// Degree of `v` in the file's base lists, before updates.
    pub fn base_degree(&self, v: VertexId) -> u64 {
        match self.entry(v) {
            IndexEntry::Disk { degree, .. } => degree,
            IndexEntry::One(_) => 1,
            IndexEntry::Two(..) => 2,
            IndexEntry::Huge { .. } => self.huge_row(v as u64).map_or(0, |i| self.huge[i].1),
        }
    }
    fn huge_row(&self, v: u64) -> Option<usize> {
        self.huge.binary_search_by_key(&v, |&(x, _)| x).ok()
    }
    /// `v`'s list when memory holds it (in the index, degree 1 or 2, or
    /// replaced by an update), else `None` (an empty list, or one in edge
    /// blocks).
    #[inline]
    pub fn inline_list(&self, v: VertexId) -> Option<InlineList<'_>> {
        match self.change(v) {
            None => self.base_inline(v),
            Some(Change::Replace(l, w)) => (!l.is_empty()).then_some(InlineList::Updated(l, w)),
            Some(Change::Patch { .. }) => None,
        }
    }
    /// `v`'s base list when the index holds it.
    #[inline]
    pub(super) fn base_inline(&self, v: VertexId) -> Option<InlineList<'_>> {
        match self.entry(v) {
            IndexEntry::One(a) => Some(InlineList::Index([a, 0], 1)),
            IndexEntry::Two(a, b) => Some(InlineList::Index([a, b], 2)),
            _ => None,
        }
    }

    /// The first and last edge block holding `v`'s list, if it is on disk.
    #[inline]
    pub fn block_range(&self, v: VertexId) -> Option<(u64, u64)> {
        let tags = self.packed.then_some(&self.tags[..]);
        list_blocks(
            self.index[v as usize],
            v as u64,
            &self.huge,
            &self.huge_blocks,
            tags,
        )
    }

    /// The part of `v`'s list held by edge block `b`, whose bytes are
    /// `block`; `None` when `b` holds none of it. The one place that
    /// reads a list out of a block, for both engines: a raw block is
    /// sliced, a packed one decoded into `scratch` (the caller's, reused
    /// from call to call), so the piece borrows one or the other. Fails
    /// when packed bytes do not decode to the list the index describes.
    #[inline]
    pub fn list_in_block<'b>(
        &self,
        v: VertexId,
        b: u64,
        block: &'b [u8],
        scratch: &'b mut Vec<VertexId>,
    ) -> Result<Option<ListPiece<'b>>> {
        match self.change(v) {
            Some(Change::Patch { ins, del, .. }) => {
                self.patched_piece(v, b, block, scratch, ins, del, None)
            }
            _ => self.base_piece(v, b, block, scratch),
        }
    }

    /// [`Adjacency::list_in_block`] with the piece's weights, for a
    /// weighted graph (whose blocks are raw): `wblock` is the weight block
    /// of `b`. The weights borrow `wblock`, or `wscratch` when an update
    /// changed the list.
    #[allow(clippy::too_many_arguments)]
    pub fn weighted_list_in_block<'b>(
        &self,
        v: VertexId,
        b: u64,
        block: &'b [u8],
        wblock: &'b [u8],
        scratch: &'b mut Vec<VertexId>,
        wscratch: &'b mut Vec<f32>,
    ) -> Result<Option<(ListPiece<'b>, &'b [f32])>> {
        let all: &'b [f32] = bytemuck::try_cast_slice(wblock)
            .ok()
            .filter(|_| !self.packed)
            .ok_or_else(|| self.undecodable(v, b, "has no raw weight block"))?;
        let piece = match self.change(v) {
            Some(Change::Patch { ins, del, ins_w }) => {
                let w = (all, &mut *wscratch, ins_w);
                let p = self.patched_piece(v, b, block, scratch, ins, del, Some(w))?;
                let ws: &'b Vec<f32> = wscratch;
                return Ok(p.map(|p| (p, &ws[..])));
            }
            _ => self.base_piece(v, b, block, scratch)?,
        };
        let Some(p) = piece else {
            return Ok(None);
        };
        let ws = all
            .get(p.range.clone())
            .ok_or_else(|| self.undecodable(v, b, "lies past its weight block"))?;
        Ok(Some((p, ws)))
    }
    /// The part of `v`'s base list held by block `b`, merged with the
    /// vertex's committed inserts and deletes (see [`super::delta`]);
    /// with `weights` (the raw weight block, a buffer for the merged
    /// piece's weights, the inserts' weights), the weights too.
    #[cold]
    #[allow(clippy::too_many_arguments)]
    fn patched_piece<'b>(
        &self,
        v: VertexId,
        b: u64,
        block: &'b [u8],
        scratch: &'b mut Vec<VertexId>,
        ins: &[VertexId],
        del: &[VertexId],
        weights: Option<(&[f32], &mut Vec<f32>, &[f32])>,
    ) -> Result<Option<ListPiece<'b>>> {
        let (first, len, range, base_degree) = match self.base_piece(v, b, block, scratch)? {
            None => return Ok(None),
            Some(p) => (p.first, p.ids.len(), p.range, p.degree),
        };
        // Where the piece's ids are in `scratch`: a packed list was
        // decoded past the padding in front, and is patched there.
        let mut at = 0;
        if !self.packed {
            let ids: &[VertexId] = bytemuck::cast_slice(block);
            scratch.clear();
            scratch.extend_from_slice(&ids[range.clone()]);
        } else if self.tags.get(b as usize) != Some(&TAG_SPAN) {
            at = codec::PAD;
        }
        // Only a list spanning blocks has fences and a piece number.
        let (k, fences) = if first == 0 && len as u64 == base_degree {
            (0, &[][..])
        } else {
            let k = self.block_range(v).map_or(0, |(a, _)| b - a) as usize;
            (k, self.delta.as_ref().map_or(&[][..], |d| d.fences(v)))
        };
        let weights = match weights {
            Some((all, buf, ins_w)) => {
                buf.clear();
                let base = all
                    .get(range.clone())
                    .ok_or_else(|| self.undecodable(v, b, "lies past its weight block"))?;
                buf.extend_from_slice(base);
                Some(PieceWeights { buf, ins: ins_w })
            }
            None => None,
        };
        let pos =
            patch_piece(scratch, at, len, first, k, fences, ins, del, weights).map_err(|why| {
                corrupt(
                    &self.path,
                    format!(
                        "the committed update of vertex {v}'s {} list {why}",
                        self.blocks.kind.name()
                    ),
                )
            })?;
        Ok(Some(ListPiece {
            ids: &scratch[at..],
            first: pos,
            degree: base_degree + ins.len() as u64 - del.len() as u64,
            range,
        }))
    }

    /// The part of `v`'s base list held by block `b` (the file's bytes,
    /// without updates).
    #[inline]
    pub(super) fn base_piece<'b>(
        &self,
        v: VertexId,
        b: u64,
        block: &'b [u8],
        scratch: &'b mut Vec<VertexId>,
    ) -> Result<Option<ListPiece<'b>>> {
        let Some((slot, degree)) = self.disk_span(v) else {
            return Ok(None);
        };
        if self.packed {
            return self.packed_piece(v, b, slot, degree, block, scratch);
        }
        let per = SLOTS_PER_BLOCK as u64;
        let start = b * per;
        let lo = slot.max(start);
        let hi = (slot + degree).min(start + per);
        if lo >= hi {
            return Ok(None);
        }
        let range = (lo - start) as usize..(hi - start) as usize;
        let ids: &[VertexId] = bytemuck::cast_slice(block);
        Ok(Some(ListPiece {
            ids: &ids[range.clone()],
            first: lo - slot,
            degree,
            range,
        }))
    }

    #[cold]
    fn undecodable(&self, v: VertexId, b: u64, why: &str) -> crate::error::Error {
        corrupt(
            &self.path,
            format!(
                "{} block {b}: the list of vertex {v} {why}",
                self.blocks.kind.name()
            ),
        )
    }

    #[inline]
    fn packed_piece<'b>(
        &self,
        v: VertexId,
        b: u64,
        offset: u64,
        degree: u64,
        block: &'b [u8],
        scratch: &'b mut Vec<VertexId>,
    ) -> Result<Option<ListPiece<'b>>> {
        let first = offset >> PACKED_LOW_BITS;
        let tag = self.tags.get(b as usize).copied();
        if tag != Some(TAG_SPAN) {
            if b != first {
                return Ok(None);
            }
        } else {
            let Some((first, last)) = self.block_range(v) else {
                return Ok(None);
            };
            if b < first || b > last {
                return Ok(None);
            }
            let pos = codec::decode_span(block, scratch)
                .ok_or_else(|| self.undecodable(v, b, "does not decode"))?;
            let end = pos.checked_add(scratch.len() as u64);
            if end.is_none_or(|e| e > degree) {
                return Err(self.undecodable(v, b, "runs past its degree"));
            }
            return Ok(Some(ListPiece {
                ids: scratch.as_slice(),
                first: pos,
                degree,
                range: 0..block.len(),
            }));
        }
        let at = (offset & LOW_MASK) as usize;
        let d = degree as usize;
        let room = d + 2 * codec::PAD;
        if scratch.len() < room {
            scratch.resize(room, 0);
        }
        let used = block
            .get(at..)
            .and_then(|src| codec::decode_list_padded(src, v, d, scratch))
            .ok_or_else(|| self.undecodable(v, b, "does not decode"))?;
        Ok(Some(ListPiece {
            ids: &scratch[codec::PAD..codec::PAD + d],
            first: 0,
            degree,
            range: at..at + used,
        }))
    }

    /// Where `v`'s on-disk list starts (a slot; in a packed file, the
    /// packed offset) and its length, or `None` for a list kept in memory
    /// or an empty one.
    #[inline]
    pub fn disk_span(&self, v: VertexId) -> Option<(u64, u64)> {
        IndexEntry::disk_span(self.index[v as usize], v as u64, &self.huge)
    }

    /// Two vertices whose on-disk lists share a slot, if any (the builder
    /// gives every list slots of its own). Sorts the lists' spans: 16
    /// bytes per vertex with an on-disk list. Raw files only: packed
    /// lists' extents are known once decoded (`Graph::verify_all_blocks`).
    pub fn overlapping_lists(&self) -> Option<(VertexId, VertexId)> {
        use rayon::prelude::*;
        if self.packed {
            return None;
        }
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

/// A list held in memory: one or two ids kept in the vertex index, or a
/// list an update replaced.
#[derive(Clone, Copy, Debug)]
pub enum InlineList<'a> {
    /// In the index: the ids and how many are used.
    Index([VertexId; 2], u8),
    /// In the delta of committed updates, with its weights (a weighted
    /// graph's; else empty).
    Updated(&'a [VertexId], &'a [f32]),
}

impl InlineList<'_> {
    /// The ids.
    #[inline]
    pub fn ids(&self) -> &[VertexId] {
        match self {
            InlineList::Index(ids, len) => &ids[..*len as usize],
            InlineList::Updated(l, _) => l,
        }
    }

    /// The weights, when the list has them (a list an update gave a
    /// weighted graph; lists in the index are unweighted).
    #[inline]
    pub fn weights(&self) -> Option<&[f32]> {
        match self {
            InlineList::Updated(_, w) if !w.is_empty() => Some(w),
            _ => None,
        }
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
    /// Where the piece lies in the block: slots of a raw block (the
    /// weight block uses the same), bytes of a packed one.
    pub range: std::ops::Range<usize>,
}

/// Sequential reader of adjacency lists with a small block cache, good for
/// scans in vertex order (lists of nearby vertices share blocks).
pub struct BlockReader<'g> {
    g: &'g Graph,
    a: &'g Adjacency,
    /// (block, its bytes, its weight block's bytes) per cache slot.
    slots: Vec<(u64, Vec<u8>, Vec<u8>)>,
    scratch: Vec<VertexId>,
    wscratch: Vec<f32>,
    /// Blocks read from disk so far.
    pub blocks_read: u64,
    /// Blocks read at once on a miss (1: the block alone).
    ahead: usize,
    span: Vec<u8>,
}

const READER_CACHE_BLOCKS: usize = 64;

impl<'g> BlockReader<'g> {
    /// A reader over the `dir` adjacency of `g`.
    pub fn new(g: &'g Graph, dir: super::Direction) -> Result<BlockReader<'g>> {
        Ok(BlockReader {
            g,
            a: g.adjacency(dir)?,
            slots: (0..READER_CACHE_BLOCKS)
                .map(|_| (u64::MAX, vec![0u8; BLOCK_BYTES], Vec::new()))
                .collect(),
            scratch: Vec::new(),
            wscratch: Vec::new(),
            blocks_read: 0,
            ahead: 1,
            span: Vec::new(),
        })
    }

    /// Reads the following blocks too (up to the cache's 64) in the same
    /// request when a block is missing: for scans that visit most blocks
    /// in order, where one request per block would cost more than the
    /// bytes.
    pub fn read_ahead(mut self) -> Self {
        self.ahead = READER_CACHE_BLOCKS;
        self
    }

    /// Loads block `b` (and its weights when asked) into its cache slot.
    fn load(&mut self, b: u64, weights: bool) -> Result<usize> {
        let i = (b % READER_CACHE_BLOCKS as u64) as usize;
        if self.slots[i].0 != b && self.ahead > 1 && !weights {
            let n = (self.ahead as u64).min(self.a.block_count().saturating_sub(b)) as usize;
            self.span.resize(n * BLOCK_BYTES, 0);
            self.g.read_blocks_of(self.a, b, &mut self.span)?;
            for (k, bytes) in self.span.chunks(BLOCK_BYTES).enumerate() {
                let slot = &mut self.slots[(b as usize + k) % READER_CACHE_BLOCKS];
                slot.1.copy_from_slice(bytes);
                slot.0 = b + k as u64;
                slot.2.clear();
            }
            self.blocks_read += n as u64;
            return Ok(i);
        }
        let slot = &mut self.slots[i];
        if slot.0 != b {
            slot.0 = u64::MAX;
            slot.2.clear();
            self.g
                .read_block_of(self.a, false, BlockId(b), &mut slot.1)?;
            slot.0 = b;
            self.blocks_read += 1;
        }
        if weights && slot.2.is_empty() {
            slot.2.resize(BLOCK_BYTES, 0);
            if let Err(e) = self.g.read_block_of(self.a, true, BlockId(b), &mut slot.2) {
                slot.2.clear();
                return Err(e);
            }
        }
        Ok(i)
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
        let want_w = weights.is_some() && self.a.weights.is_some();
        if let Some(l) = self.a.inline_list(v) {
            out.extend_from_slice(l.ids());
            if let Some(w) = weights.as_deref_mut().filter(|_| want_w) {
                let ws = l.weights().ok_or_else(|| {
                    self.g
                        .corrupt_here(format!("vertex {v}'s updated list has no weights"))
                })?;
                w.extend_from_slice(ws);
            }
        } else if let Some((first, last)) = self.a.block_range(v) {
            let mut scratch = std::mem::take(&mut self.scratch);
            let mut wscratch = std::mem::take(&mut self.wscratch);
            for b in first..=last {
                let i = self.load(b, want_w)?;
                let (_, bytes, wbytes) = &self.slots[i];
                let (piece, ws) = if want_w {
                    match self.a.weighted_list_in_block(
                        v,
                        b,
                        bytes,
                        wbytes,
                        &mut scratch,
                        &mut wscratch,
                    )? {
                        Some((p, ws)) => (Some(p), ws),
                        None => (None, &[][..]),
                    }
                } else {
                    (self.a.list_in_block(v, b, bytes, &mut scratch)?, &[][..])
                };
                let Some(piece) = piece else {
                    return Err(self.g.corrupt_here(format!(
                        "vertex {v}'s list should touch block {b} but does not"
                    )));
                };
                if piece.first != out.len() as u64 {
                    return Err(self.g.corrupt_here(format!(
                        "block {b} holds vertex {v}'s list from entry {}, expected {}",
                        piece.first,
                        out.len()
                    )));
                }
                out.extend_from_slice(piece.ids);
                if let Some(w) = weights.as_deref_mut().filter(|_| want_w) {
                    w.extend_from_slice(ws);
                }
            }
            self.scratch = scratch;
            self.wscratch = wscratch;
            if out.len() as u64 != self.a.degree(v) {
                return Err(self.g.corrupt_here(format!(
                    "vertex {v}'s list holds {} entries, its index entry says {}",
                    out.len(),
                    self.a.degree(v)
                )));
            }
        }
        self.g.check_list(v, out)
    }

    /// The fences of `v`'s base list: the first base id of each of its
    /// blocks after the first (empty when the list fits one block or is
    /// not on disk). See [`super::delta`].
    pub fn base_fences(&mut self, v: VertexId) -> Result<Vec<VertexId>> {
        let Some((first, last)) = self.a.block_range(v) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::with_capacity((last - first) as usize);
        let mut scratch = std::mem::take(&mut self.scratch);
        for b in first + 1..=last {
            let i = self.load(b, false)?;
            let piece = self.a.base_piece(v, b, &self.slots[i].1, &mut scratch)?;
            match piece.and_then(|p| p.ids.first().copied()) {
                Some(x) => out.push(x),
                None => {
                    return Err(self.g.corrupt_here(format!(
                        "vertex {v}'s list should touch block {b} but does not"
                    )))
                }
            }
        }
        self.scratch = scratch;
        Ok(out)
    }
}

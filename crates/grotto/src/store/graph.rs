//! Opening a graph file: validation, the in-memory vertex index, and a
//! simple synchronous block reader. The concurrent reader used by the
//! engines belongs to the io layer; this one serves `info`, `export`,
//! `check` and library users who want a vertex's neighbours.

use super::adjacency::{Adjacency, BlockReader};
use super::blockmap::BlockMap;
use super::format::*;
pub use super::history::Updates;
use super::load::{corrupt, load_adjacency, read_checked, required};
use super::names::Names;
use crate::error::{Error, Result};
use crate::{BlockId, VertexId};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// Which adjacency of a directed graph to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Out-edges (for an undirected graph: all edges).
    Out,
    /// In-edges (needs the reverse section).
    In,
}

/// An open, validated graph file.
#[derive(Debug)]
pub struct Graph {
    pub(super) path: PathBuf,
    file: File,
    pub(super) header: Header,
    pub(super) out: Adjacency,
    pub(super) inn: Option<Adjacency>,
    pub(super) id_map: Option<Vec<u64>>,
    /// Every 64th id of the id map, built on first lookup.
    pub(super) id_samples: std::sync::OnceLock<Vec<u64>>,
    pub(super) names: Option<std::sync::Arc<Names>>,
    /// Rank in the user's order of each internal vertex (files with an
    /// order section): read from the file in passes, or loaded whole on
    /// first random lookup.
    pub(super) order: Option<super::order::Order>,
    /// Files with committed updates: what the manifest in force says.
    pub(super) updates: Option<Updates>,
    /// Files with room for updates: where the next commit goes.
    pub(super) commit_point: Option<CommitPoint>,
    /// Damaged manifest slots found on opening.
    pub(super) slot_findings: Vec<super::history::SlotFinding>,
}

/// Where a file's next commit goes: the manifest in force, its slot, the
/// manifest section and the first free byte after the runs.
#[derive(Clone, Debug)]
pub(super) struct CommitPoint {
    pub(super) manifest: super::manifest::Manifest,
    pub(super) slot: usize,
    pub(super) manifest_at: u64,
    pub(super) end: u64,
    pub(super) header_crc: u32,
}

/// Sizes of the in-memory part of an open graph.
#[derive(Clone, Copy, Debug)]
pub struct MemoryFootprint {
    /// Bytes of vertex index (all adjacencies, huge tables included).
    pub index_bytes: u64,
    /// Bytes of per-block metadata (checksums, tags, and the block map
    /// once read or built).
    pub block_meta_bytes: u64,
    /// Bytes of the tables of user ids: id map, names, vertex order.
    pub id_map_bytes: u64,
    /// Bytes of committed updates held in memory.
    pub delta_bytes: u64,
}

impl Graph {
    /// Opens and validates `path`: magic, version, header checksum,
    /// section bounds, the header's fields against each other
    /// ([`Header::check_fields`]), metadata checksums, the huge table,
    /// id map and vertex order, and every index entry (the list in
    /// `docs/format.md`, "What opening checks"). What it keeps is the
    /// index and small tables: the vertex order is read in passes when
    /// needed, the block map when first asked for
    /// ([`Adjacency::block_map`], which checks it against the index).
    /// Edge blocks are checked by their own checksums when read, and
    /// their contents by [`Graph::verify_all_blocks`].
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
        // The new file of a merge or `compact` killed before its rename.
        crate::io::output::sweep_stale_of(path);
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
        // The committed runs are read and checked while the index loads:
        // both are mostly waiting on the disk.
        let crc = super::header::get_u32(&hb, BLOCK_BYTES - 4);
        // (A small file has nothing worth overlapping: no hand-off to the
        // thread pool, which costs more than its index.)
        let (out, committed) = if !header.has_delta() {
            (
                load_adjacency(&file, path, &header, Direction::Out),
                Ok(None),
            )
        } else if len <= 1 << 20 {
            (
                load_adjacency(&file, path, &header, Direction::Out),
                super::history::read_committed(&file, path, &header, crc, len).map(Some),
            )
        } else {
            rayon::join(
                || load_adjacency(&file, path, &header, Direction::Out),
                || super::history::read_committed(&file, path, &header, crc, len).map(Some),
            )
        };
        let (out, committed) = (out?, committed?);
        let mut g = Graph {
            path: path.to_path_buf(),
            out,
            inn: None,
            id_map: None,
            id_samples: Default::default(),
            names: None,
            order: None,
            updates: None,
            commit_point: None,
            slot_findings: Vec::new(),
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
        if g.header.has_order() {
            let s = required(&g.header, SectionKind::Order, path)?;
            g.order = Some(super::order::Order::open(
                &g.file,
                path,
                &s,
                g.header.vertex_count,
            )?);
        }
        if let Some(mut c) = committed {
            g.slot_findings = std::mem::take(&mut c.findings);
            if c.manifest.seq > 0 {
                g.apply_committed(&mut c, len)?;
            }
            g.commit_point = Some(CommitPoint {
                manifest: c.manifest,
                slot: c.slot,
                manifest_at: c.manifest_at,
                end: c.end,
                header_crc: crc,
            });
        }
        Ok(g)
    }

    /// What committed updates amount to, for a file that has any.
    pub fn updates(&self) -> Option<&Updates> {
        self.updates.as_ref()
    }

    /// Damaged manifest slots found on opening, each with what it means
    /// (`grotto check` lists them all; commands that open the graph warn
    /// of those that may hide a commit).
    pub fn slot_findings(&self) -> &[super::history::SlotFinding] {
        &self.slot_findings
    }

    /// What the user should be warned of when this graph is opened: the
    /// damaged manifest slots that may hide a commit.
    pub fn warnings(&self) -> Vec<String> {
        self.slot_findings
            .iter()
            .filter(|f| f.may_hide_a_commit)
            .map(|f| format!("{}: {}", self.path.display(), f.text))
            .collect()
    }

    /// The file this graph was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file itself: readers that open it again for their own
    /// I/O go through this, never the path, which a merge may have
    /// renamed another file over since.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }
    /// The decoded header; with committed updates, its vertex, edge and
    /// entry counts are the updated graph's ([`Graph::updates`] has the
    /// base's).
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
                + self.id_samples.get().map_or(0, |s| s.len() as u64 * 8)
                + self.names.as_ref().map_or(0, |n| n.bytes())
                + self.order.as_ref().map_or(0, super::order::Order::bytes),
            delta_bytes: [Some(&self.out), self.inn.as_ref()]
                .into_iter()
                .flatten()
                .filter_map(|a| a.delta.as_ref())
                .map(super::delta::Delta::bytes)
                .sum(),
        }
    }

    /// Reads and checks edge block `b` of `dir` into `buf` (4096 bytes).
    pub fn read_block(&self, dir: Direction, b: BlockId, buf: &mut [u8]) -> Result<()> {
        let a = self.adjacency(dir)?;
        self.read_block_of(a, false, b, buf)
    }

    pub(super) fn read_block_of(
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

    /// Reads the edge blocks from `first` on into `buf` (a whole number
    /// of blocks, all inside the section) in one request, and checks each.
    pub(super) fn read_blocks_of(&self, a: &Adjacency, first: u64, buf: &mut [u8]) -> Result<()> {
        let n = (buf.len() / BLOCK_BYTES) as u64;
        let at = self.block_offset_of(a, false, BlockId(first))?;
        if first + n > a.blocks.count {
            return Err(Error::Invalid(format!(
                "blocks {first}..{} out of range ({} blocks)",
                first + n,
                a.blocks.count
            )));
        }
        self.file.read_exact_at(buf, at).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                Error::Truncated {
                    path: self.path.clone(),
                    what: format!(
                        "{} blocks from {first} are past the end of the file",
                        a.blocks.kind.name()
                    ),
                }
            } else {
                Error::io(&self.path, format!("read blocks {first}.. at byte {at}"), e)
            }
        })?;
        for (k, bytes) in buf.chunks(BLOCK_BYTES).enumerate() {
            self.check_block_of(a, false, BlockId(first + k as u64), bytes)?;
        }
        Ok(())
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
        let tag = a.tags[b.0 as usize];
        let known = if a.packed {
            tag == TAG_PACKED || tag == TAG_SPAN
        } else {
            tag == ENCODING_RAW_U32
        };
        if !weights && !known {
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

    /// A "corrupt graph file" error naming this file.
    pub(crate) fn corrupt_here(&self, what: String) -> Error {
        corrupt(&self.path, what)
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
            // The stored block map, checked against the index (opening
            // leaves it for the first run that needs it).
            a.block_map()?;
            let mut scratch = Vec::new();
            for b in 0..a.blocks.count {
                self.read_block_of(a, false, BlockId(b), &mut buf)?;
                if a.packed {
                    self.check_packed_block(a, b, &buf, &mut scratch)?;
                }
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

impl Graph {
    /// The lists of packed block `b` (bytes `buf`) decode and do not
    /// share bytes; a span block belongs to exactly one list.
    fn check_packed_block(
        &self,
        a: &Adjacency,
        b: u64,
        buf: &[u8],
        scratch: &mut Vec<VertexId>,
    ) -> Result<()> {
        let name = a.blocks.kind.name();
        let owners: Vec<VertexId> = a.block_map()?.vertices(b).collect();
        if a.tags[b as usize] == TAG_SPAN {
            if owners.len() != 1 {
                return Err(corrupt(
                    &self.path,
                    format!("{name} block {b} is a span block of {} lists", owners.len()),
                ));
            }
            return Ok(());
        }
        let mut extents = Vec::with_capacity(owners.len());
        for v in owners {
            if let Some(p) = a.list_in_block(v, b, buf, scratch)? {
                extents.push((p.range.start, p.range.end, v));
            }
        }
        extents.sort_unstable();
        if let Some(w) = extents.windows(2).find(|w| w[0].1 > w[1].0) {
            return Err(corrupt(
                &self.path,
                format!(
                    "the lists of vertices {} and {} share bytes of {name} block {b}",
                    w[0].2, w[1].2
                ),
            ));
        }
        Ok(())
    }
}

/// An order-free fingerprint term of the edge `u -> v` with weight bits `w`.
fn edge_print(u: VertexId, v: VertexId, w: u32) -> u64 {
    let mut x = ((u as u64) << 32) | v as u64;
    let mut y = crate::rng::splitmix64(&mut x) ^ w as u64;
    crate::rng::splitmix64(&mut y)
}

//! From sorted lists to edge blocks (the lists come from
//! [`super::cell::build_cell`]).
//!
//! [`AdjBuilder`] places the lists of consecutive cells with the last-fit
//! packer, copies them into a staging area of blocks in parallel,
//! checksums the blocks that can no longer change and streams them to the
//! output file. Called once with every cell (in-memory build) or once per
//! partition (external build). Short lists are packed apart into the short
//! region, spilled to a temporary file as their blocks close and appended
//! after the long lists at the end (their index offsets are rebased then).
//!
//! Packed blocks (the default for unweighted graphs) go the same way with
//! bytes for slots: every list is coded first ([`crate::store::codec`], on
//! all cores), placed by the size of its coding, and a coding longer than
//! a block becomes whole span blocks of its own.

use super::cell::LocalCsr;
use crate::error::Error;
use crate::error::Result;
use crate::store::adjacency::{list_blocks, PACKED_LOW_BITS};
use crate::store::blockmap::BlockMap;
use crate::store::codec;
use crate::store::format::{
    IndexEntry, SectionKind, BLOCK_BYTES, ENTRY_MAX_DEGREE, ENTRY_MAX_OFFSET, SLOTS_PER_BLOCK,
    TAG_PACKED, TAG_SPAN,
};
use crate::store::layout::{LayoutConfig, Packer};
use crate::store::writer::GraphWriter;
use rayon::prelude::*;
use std::io::Write;

/// Counts of one finished adjacency.
#[derive(Clone, Debug, Default)]
pub struct AdjSummary {
    /// Adjacency entries.
    pub entries: u64,
    /// 4 KiB blocks written.
    pub blocks: u64,
    /// Of those, blocks of the short-list region (at the end).
    pub short_blocks: u64,
    /// Entries kept inline in the index.
    pub inline_entries: u64,
    /// Duplicate non-loop entries removed.
    pub dup_entries: u64,
    /// Duplicate loop entries removed.
    pub dup_loops: u64,
    /// Self loops kept.
    pub loops: u64,
    /// Whether the blocks hold packed lists.
    pub packed: bool,
}

impl AdjSummary {
    /// Adds the duplicates and loops the cell builder counted in `c`.
    fn count_cell(&mut self, c: &LocalCsr) {
        self.dup_entries += c.dup_entries;
        self.dup_loops += c.dup_loops;
        self.loops += c.loops;
    }
}

/// The packed codings of one cell's on-disk lists, in vertex order: a
/// list of at most a block is one coded list, a longer one whole span
/// blocks (a multiple of 4096 bytes, more than one block).
#[derive(Default)]
struct CellCode {
    bytes: Vec<u8>,
    /// `starts[i]..starts[i + 1]` is the coding of source `lo + i`
    /// (empty for lists kept in the index and empty lists).
    starts: Vec<usize>,
}

impl CellCode {
    /// Codes the lists of `c` into this coding's buffers (kept from the
    /// cell coded before: fresh memory costs a page fault per 4 KiB).
    fn code(&mut self, c: &LocalCsr, inline: bool, gaps: &mut Vec<u32>) {
        let n = (c.hi - c.lo) as usize;
        self.bytes.clear();
        self.starts.clear();
        self.bytes.reserve(c.targets.len() * 2);
        self.starts.reserve(n + 1);
        self.starts.push(0);
        for i in 0..n {
            let v = c.lo + i as u64;
            let (t, _) = c.list(v);
            let in_index = inline && fits_inline(t);
            if !t.is_empty() && !in_index {
                let at = self.bytes.len();
                codec::encode_list(t, v as u32, gaps, &mut self.bytes);
                if self.bytes.len() - at > BLOCK_BYTES {
                    self.bytes.truncate(at);
                    codec::encode_span(t, gaps, &mut self.bytes);
                }
            }
            self.starts.push(self.bytes.len());
        }
    }

    fn list(&self, i: usize) -> &[u8] {
        &self.bytes[self.starts[i]..self.starts[i + 1]]
    }
}

/// Whether a list goes into the index (degree 1, or 2 with ids below 2^31).
fn fits_inline(t: &[u32]) -> bool {
    match t {
        [_] => true,
        [a, b] => IndexEntry::fits_two(*a, *b),
        _ => false,
    }
}

/// Streams one adjacency (out or in) into a [`GraphWriter`].
pub struct AdjBuilder {
    packer: Packer,
    inline: bool,
    weighted: bool,
    /// Lists are packed: the packers count bytes, offsets are byte addresses.
    packed: bool,
    /// Packed: the tag of each block of the long region so far.
    tags: Vec<u8>,
    index: Vec<u64>,
    huge: Vec<(u64, u64)>,
    /// Packed: the block count of each huge list.
    huge_blocks: Vec<u64>,
    staging: Vec<u32>,
    staging_w: Vec<f32>,
    staging_base: u64,
    written: u64,
    crcs: Vec<u32>,
    wcrcs: Vec<u32>,
    weight_spill: Option<std::io::BufWriter<std::fs::File>>,
    kinds: [SectionKind; 6],
    summary: AdjSummary,
    spill_dir: std::path::PathBuf,
    short: ShortRegion,
    /// Packed: the codings of the last cells added, kept for their buffers.
    codes: Vec<CellCode>,
}

/// The short-list region while it is built: its own packer, the blocks
/// not yet final, and the spill file the final ones go to.
struct ShortRegion {
    /// Longest list placed here (0: no region).
    max: u64,
    packer: Packer,
    staging: Vec<u32>,
    /// Blocks already spilled (the staging starts there).
    written: u64,
    crcs: Vec<u32>,
    spill: Option<std::io::BufWriter<std::fs::File>>,
}

impl ShortRegion {
    /// Places a packed list's coding and returns its byte within the region.
    fn place_packed(&mut self, code: &[u8]) -> u64 {
        let bytes = BLOCK_BYTES as u64;
        let at = self.packer.place(code.len() as u64);
        let want = ((self.packer.blocks() - self.written) * SLOTS_PER_BLOCK as u64) as usize;
        if self.staging.len() < want {
            self.staging.resize(want, 0);
        }
        let i = (at - self.written * bytes) as usize;
        bytemuck::cast_slice_mut::<u32, u8>(&mut self.staging)[i..i + code.len()]
            .copy_from_slice(code);
        at
    }

    /// Places `list` and returns its slot within the region.
    fn place(&mut self, list: &[u32]) -> u64 {
        let cap = SLOTS_PER_BLOCK as u64;
        let d = list.len() as u64;
        let slot = self.packer.place(d);
        let want = ((self.packer.blocks() - self.written) * cap) as usize;
        if self.staging.len() < want {
            self.staging.resize(want, 0);
        }
        let at = (slot - self.written * cap) as usize;
        self.staging[at..at + list.len()].copy_from_slice(list);
        slot
    }

    /// Checksums and spills the staged blocks below `to_block`.
    fn spill_to(&mut self, to_block: u64, dir: &std::path::Path) -> Result<()> {
        if to_block <= self.written {
            return Ok(());
        }
        let cap = SLOTS_PER_BLOCK;
        let n = ((to_block - self.written) as usize) * cap;
        let part = &self.staging[..n];
        self.crcs.extend(block_crcs(part));
        if self.spill.is_none() {
            let f = tempfile::tempfile_in(dir)
                .map_err(|e| Error::io(dir, "create short-list spill file", e))?;
            self.spill = Some(std::io::BufWriter::with_capacity(8 << 20, f));
        }
        if let Some(f) = self.spill.as_mut() {
            f.write_all(bytemuck::cast_slice(part))
                .map_err(|e| Error::io(dir, "write short-list spill", e))?;
        }
        self.staging.drain(..n);
        self.written = to_block;
        Ok(())
    }
}

/// The checksum of each block of `part` (whole blocks of slots).
fn block_crcs<T: bytemuck::Pod + Sync>(part: &[T]) -> Vec<u32> {
    part.par_chunks(SLOTS_PER_BLOCK)
        .map(|b| crc32c::crc32c(bytemuck::cast_slice(b)))
        .collect()
}

fn too_many_slots() -> Error {
    Error::Limit {
        what: "graph exceeds 2^40 edge slots, the format's limit".into(),
    }
}

const FILL_CHUNK_BLOCKS: u64 = 64;

/// Notes list `(ci, v)`, which takes `len` units from unit `at` (`unit`
/// a block), under every fill chunk it touches, counted from the chunk of
/// block `staging_base`.
fn by_fill_chunk(
    by_chunk: &mut Vec<Vec<(u64, u32, u64)>>,
    staging_base: u64,
    (at, len, unit): (u64, u64, u64),
    ci: usize,
    v: u64,
) {
    let first = at / unit / FILL_CHUNK_BLOCKS;
    let last = (at + len - 1) / unit / FILL_CHUNK_BLOCKS;
    for ch in first..=last {
        let ch = (ch - staging_base / FILL_CHUNK_BLOCKS) as usize;
        if by_chunk.len() <= ch {
            by_chunk.resize_with(ch + 1, Vec::new);
        }
        by_chunk[ch].push((at, ci as u32, v));
    }
}
/// Fill chunks per group written while the next is filled (16 MiB).
const GROUP_CHUNKS: usize = 64;

impl AdjBuilder {
    /// Starts the adjacency whose sections are `kinds` (blocks, weights,
    /// index, crcs, tags, huge) for `n` vertices; opens its block section.
    pub fn new(
        w: &mut GraphWriter,
        n: u64,
        layout: &LayoutConfig,
        weighted: bool,
        kinds: [SectionKind; 6],
        spill_dir: &std::path::Path,
    ) -> Result<AdjBuilder> {
        w.begin(kinds[0]);
        let weight_spill = if weighted {
            let f = tempfile::tempfile_in(spill_dir)
                .map_err(|e| Error::io(spill_dir, "create weight spill file", e))?;
            Some(std::io::BufWriter::with_capacity(8 << 20, f))
        } else {
            None
        };
        let packed = layout.packed && !weighted;
        let unit = if packed {
            BLOCK_BYTES as u64
        } else {
            SLOTS_PER_BLOCK as u64
        };
        Ok(AdjBuilder {
            packer: Packer::with_capacity(layout.window, unit),
            inline: layout.inline_small && !weighted,
            weighted,
            packed,
            tags: Vec::new(),
            index: vec![0u64; n as usize],
            huge: Vec::new(),
            huge_blocks: Vec::new(),
            staging: Vec::new(),
            staging_w: Vec::new(),
            staging_base: 0,
            written: 0,
            crcs: Vec::new(),
            wcrcs: Vec::new(),
            weight_spill,
            kinds,
            summary: AdjSummary::default(),
            spill_dir: spill_dir.to_path_buf(),
            short: ShortRegion {
                max: if weighted {
                    0
                } else {
                    layout.short_max.min(SLOTS_PER_BLOCK as u32) as u64
                },
                packer: Packer::with_capacity(layout.window, unit),
                staging: Vec::new(),
                written: 0,
                crcs: Vec::new(),
                spill: None,
            },
            codes: Vec::new(),
        })
    }

    /// Places and copies the lists of `cells` (consecutive, in order), then
    /// writes out every block that no later list can enter.
    pub fn add(&mut self, w: &mut GraphWriter, cells: &[LocalCsr]) -> Result<()> {
        crate::interrupt::check()?;
        if self.packed {
            return self.add_packed(w, cells);
        }
        let cap = SLOTS_PER_BLOCK as u64;
        // Plan: sequential, degrees only.
        let mut by_chunk: Vec<Vec<(u64, u32, u64)>> = Vec::new();
        for (ci, c) in cells.iter().enumerate() {
            self.summary.count_cell(c);
            for v in c.lo..c.hi {
                let i = (v - c.lo) as usize;
                let d = (c.offsets[i + 1] - c.offsets[i]) as u64;
                self.summary.entries += d;
                let t = &c.targets[c.offsets[i] as usize..c.offsets[i + 1] as usize];
                let entry = match d {
                    0 => IndexEntry::Disk {
                        offset: 0,
                        degree: 0,
                    },
                    1 if self.inline => IndexEntry::One(t[0]),
                    2 if self.inline && IndexEntry::fits_two(t[0], t[1]) => {
                        IndexEntry::Two(t[0], t[1])
                    }
                    // Rebased past the long lists in `finish`.
                    _ if d <= self.short.max => IndexEntry::Disk {
                        offset: self.short.place(t),
                        degree: d,
                    },
                    _ => {
                        let slot = self.packer.place(d);
                        if slot + d > ENTRY_MAX_OFFSET {
                            return Err(too_many_slots());
                        }
                        let span = (slot, d, cap);
                        by_fill_chunk(&mut by_chunk, self.staging_base, span, ci, v);
                        if d > ENTRY_MAX_DEGREE {
                            self.huge.push((v, d));
                            IndexEntry::Huge { offset: slot }
                        } else {
                            IndexEntry::Disk {
                                offset: slot,
                                degree: d,
                            }
                        }
                    }
                };
                if matches!(entry, IndexEntry::One(_) | IndexEntry::Two(..)) {
                    self.summary.inline_entries += d;
                }
                self.index[v as usize] = entry.encode();
            }
        }
        let chunk_slots = (FILL_CHUNK_BLOCKS * cap) as usize;
        let base_slot = self.staging_base * cap;
        let fill = |ch: usize, dst: &mut [u32], wdst: Option<&mut [f32]>| {
            let lo = base_slot + (ch * chunk_slots) as u64;
            let hi = lo + dst.len() as u64;
            let mut wdst = wdst;
            for &(slot, ci, v) in by_chunk.get(ch).map(|v| v.as_slice()).unwrap_or(&[]) {
                let (t, ws) = cells[ci as usize].list(v);
                let s = slot.max(lo);
                let e = (slot + t.len() as u64).min(hi);
                let (a, b) = ((s - slot) as usize, (e - slot) as usize);
                dst[(s - lo) as usize..(e - lo) as usize].copy_from_slice(&t[a..b]);
                if let Some(wd) = wdst.as_deref_mut() {
                    wd[(s - lo) as usize..(e - lo) as usize].copy_from_slice(&ws[a..b]);
                }
            }
        };
        self.fill_and_write(w, fill)
    }

    /// [`AdjBuilder::add`] for packed lists: codes every list (on all
    /// cores), places the codings by their size in bytes, then copies them.
    fn add_packed(&mut self, w: &mut GraphWriter, cells: &[LocalCsr]) -> Result<()> {
        let unit = BLOCK_BYTES as u64;
        let inline = self.inline;
        let mut codes = std::mem::take(&mut self.codes);
        codes.resize_with(cells.len().max(codes.len()), CellCode::default);
        codes
            .par_iter_mut()
            .zip(cells.par_iter())
            .for_each_init(Vec::new, |gaps, (code, c)| code.code(c, inline, gaps));
        // (first byte, cell, source) of the long-region lists, by fill chunk.
        let mut by_chunk: Vec<Vec<(u64, u32, u64)>> = Vec::new();
        for (ci, c) in cells.iter().enumerate() {
            self.summary.count_cell(c);
            for v in c.lo..c.hi {
                let i = (v - c.lo) as usize;
                let (t, _) = c.list(v);
                let d = t.len() as u64;
                self.summary.entries += d;
                let code = codes[ci].list(i);
                let len = code.len() as u64;
                let entry = if d == 0 {
                    IndexEntry::Disk {
                        offset: 0,
                        degree: 0,
                    }
                } else if inline && fits_inline(t) {
                    self.summary.inline_entries += d;
                    match t {
                        [a] => IndexEntry::One(*a),
                        _ => IndexEntry::Two(t[0], t[1]),
                    }
                } else if d <= self.short.max && len <= unit {
                    // Rebased past the long lists in `finish`.
                    IndexEntry::Disk {
                        offset: self.short.place_packed(code),
                        degree: d,
                    }
                } else {
                    let span = len > unit;
                    let at = if span {
                        self.packer.place_span(len / unit) * unit
                    } else {
                        self.packer.place(len)
                    };
                    if at + len > ENTRY_MAX_OFFSET {
                        return Err(too_many_slots());
                    }
                    self.tags.resize(self.packer.blocks() as usize, TAG_PACKED);
                    by_fill_chunk(&mut by_chunk, self.staging_base, (at, len, unit), ci, v);
                    if !span {
                        IndexEntry::Disk {
                            offset: at,
                            degree: d,
                        }
                    } else {
                        let n = len / unit;
                        let b = at / unit;
                        self.tags[b as usize..(b + n) as usize].fill(TAG_SPAN);
                        if d > ENTRY_MAX_DEGREE {
                            self.huge.push((v, d));
                            self.huge_blocks.push(n);
                            IndexEntry::Huge { offset: at }
                        } else if n > 1 << PACKED_LOW_BITS {
                            return Err(Error::Limit {
                                what: format!(
                                    "the list of vertex {v} takes {n} packed blocks, more than \
                                     an index entry counts; convert with --compress none"
                                ),
                            });
                        } else {
                            IndexEntry::Disk {
                                offset: at | (n - 1),
                                degree: d,
                            }
                        }
                    }
                };
                self.index[v as usize] = entry.encode();
            }
        }
        let chunk_bytes = (FILL_CHUNK_BLOCKS * unit) as usize;
        let base = self.staging_base * unit;
        let fill = |ch: usize, dst: &mut [u32], _: Option<&mut [f32]>| {
            let dst: &mut [u8] = bytemuck::cast_slice_mut(dst);
            let lo = base + (ch * chunk_bytes) as u64;
            let hi = lo + dst.len() as u64;
            for &(at, ci, v) in by_chunk.get(ch).map(|v| v.as_slice()).unwrap_or(&[]) {
                let code = codes[ci as usize].list((v - cells[ci as usize].lo) as usize);
                let s = at.max(lo);
                let e = (at + code.len() as u64).min(hi);
                let (a, b) = ((s - at) as usize, (e - at) as usize);
                dst[(s - lo) as usize..(e - lo) as usize].copy_from_slice(&code[a..b]);
            }
        };
        let written = self.fill_and_write(w, fill);
        self.codes = codes;
        written
    }

    /// Spills the short-list blocks no later list can enter, fills the
    /// staging area chunk by chunk with `fill(chunk, slots, weight
    /// slots)` and writes out every block that no later list can enter.
    fn fill_and_write<F>(&mut self, w: &mut GraphWriter, fill: F) -> Result<()>
    where
        F: Fn(usize, &mut [u32], Option<&mut [f32]>) + Sync,
    {
        self.short
            .spill_to(self.short.packer.first_open_block(), &self.spill_dir)?;
        let cap = SLOTS_PER_BLOCK as u64;
        // Fill: staging covers blocks staging_base..packer.blocks(); the
        // base is a multiple of FILL_CHUNK_BLOCKS so chunks line up.
        debug_assert_eq!(self.staging_base % FILL_CHUNK_BLOCKS, 0);
        let want = ((self.packer.blocks() - self.staging_base) * cap) as usize;
        self.staging.resize(want, 0);
        if self.weighted {
            self.staging_w.resize(want, 0.0);
        }
        let chunk_slots = (FILL_CHUNK_BLOCKS * cap) as usize;
        // Fill and write in groups: the writer thread puts one group on
        // the device while the workers fill the next. Only whole fill
        // chunks below the first block still open are written now.
        let open = self.packer.first_open_block();
        let flush_to = open / FILL_CHUNK_BLOCKS * FILL_CHUNK_BLOCKS;
        let chunks = want.div_ceil(chunk_slots);
        let mut done = 0usize;
        while done < chunks {
            let end = (done + GROUP_CHUNKS).min(chunks);
            let (a, b) = (done * chunk_slots, (end * chunk_slots).min(want));
            if self.weighted {
                self.staging[a..b]
                    .par_chunks_mut(chunk_slots)
                    .zip(self.staging_w[a..b].par_chunks_mut(chunk_slots))
                    .enumerate()
                    .for_each(|(i, (d, wd))| fill(done + i, d, Some(wd)));
            } else {
                self.staging[a..b]
                    .par_chunks_mut(chunk_slots)
                    .enumerate()
                    .for_each(|(i, d)| fill(done + i, d, None));
            }
            let group_end = self.staging_base + end as u64 * FILL_CHUNK_BLOCKS;
            self.write_out(w, group_end.min(flush_to))?;
            done = end;
        }
        self.drop_written();
        Ok(())
    }

    /// Checksums and writes the staged blocks from the last written one
    /// up to `to_block` (exclusive).
    fn write_out(&mut self, w: &mut GraphWriter, to_block: u64) -> Result<()> {
        if to_block <= self.written {
            return Ok(());
        }
        let cap = SLOTS_PER_BLOCK;
        let a = ((self.written - self.staging_base) as usize) * cap;
        let b = ((to_block - self.staging_base) as usize) * cap;
        let part = &self.staging[a..b];
        self.crcs.extend(block_crcs(part));
        w.write(bytemuck::cast_slice(part))?;
        if self.weighted {
            let part = &self.staging_w[a..b];
            self.wcrcs.extend(block_crcs(part));
            if let Some(f) = self.weight_spill.as_mut() {
                f.write_all(bytemuck::cast_slice(part))
                    .map_err(|e| Error::io(&self.spill_dir, "write weight spill", e))?;
            }
        }
        self.written = to_block;
        Ok(())
    }

    /// Forgets the staged blocks already written (keeps the staging base
    /// a multiple of the fill chunk, as the written prefix always is).
    fn drop_written(&mut self) {
        let n = ((self.written - self.staging_base) as usize) * SLOTS_PER_BLOCK;
        self.staging.drain(..n);
        if self.weighted {
            self.staging_w.drain(..n);
        }
        self.staging_base = self.written;
    }

    /// Writes the remaining blocks and the adjacency's metadata sections.
    pub fn finish(mut self, w: &mut GraphWriter) -> Result<AdjSummary> {
        let long = self.packer.blocks();
        self.write_out(w, long)?;
        // The short region follows the long lists.
        let short = self.short.packer.blocks();
        self.short.spill_to(short, &self.spill_dir)?;
        let cap = if self.packed {
            BLOCK_BYTES as u64
        } else {
            SLOTS_PER_BLOCK as u64
        };
        if (long + short) * cap > ENTRY_MAX_OFFSET {
            return Err(too_many_slots());
        }
        if let Some(f) = self.short.spill.take() {
            let mut f = f.into_inner().map_err(|e| {
                Error::io(&self.spill_dir, "flush short-list spill", e.into_error())
            })?;
            w.write_from_file(&mut f)?;
            self.crcs.append(&mut self.short.crcs);
            let max = self.short.max;
            self.index.par_iter_mut().for_each(|e| {
                if let IndexEntry::Disk { offset, degree } = IndexEntry::decode(*e) {
                    if degree > 0 && degree <= max {
                        *e = IndexEntry::Disk {
                            offset: offset + long * cap,
                            degree,
                        }
                        .encode();
                    }
                }
            });
        }
        let blocks = long + short;
        debug_assert_eq!(self.crcs.len() as u64, blocks);
        w.end(blocks)?;
        let [_, kw, ki, kc, kt, kh] = self.kinds;
        if let Some(f) = self.weight_spill.take() {
            let mut f = f
                .into_inner()
                .map_err(|e| Error::io(&self.spill_dir, "flush weight spill", e.into_error()))?;
            w.section_from_file(kw, &mut f, blocks)?;
        }
        w.section(
            ki,
            bytemuck::cast_slice(&self.index),
            self.index.len() as u64,
        )?;
        let mut all = std::mem::take(&mut self.crcs);
        all.extend_from_slice(&self.wcrcs);
        w.section(kc, bytemuck::cast_slice(&all), all.len() as u64)?;
        let tags = if self.packed {
            let mut t = std::mem::take(&mut self.tags);
            t.resize(long as usize, TAG_PACKED);
            t.resize(blocks as usize, TAG_PACKED);
            t
        } else {
            vec![crate::store::format::ENCODING_RAW_U32; blocks as usize]
        };
        w.section(kt, &tags, blocks)?;
        let flat: Vec<u64> = if self.packed {
            self.huge
                .iter()
                .zip(&self.huge_blocks)
                .flat_map(|(&(v, d), &n)| [v, d, n])
                .collect()
        } else {
            self.huge.iter().flat_map(|&(v, d)| [v, d]).collect()
        };
        w.section(kh, bytemuck::cast_slice(&flat), self.huge.len() as u64)?;
        // The inverse of the index, so that block-mode runs need not
        // build it.
        let km = if ki == SectionKind::InIndex {
            SectionKind::InBlockMap
        } else {
            SectionKind::OutBlockMap
        };
        let packed_tags = self.packed.then_some(&tags[..]);
        let map = BlockMap::build(self.index.len() as u64, blocks, |v| {
            let e = self.index[v as usize];
            list_blocks(e, v as u64, &self.huge, &self.huge_blocks, packed_tags)
        });
        w.begin(km);
        for part in map.coded_parts() {
            w.write(part)?;
        }
        w.end(blocks)?;
        self.summary.blocks = blocks;
        self.summary.short_blocks = short;
        self.summary.packed = self.packed;
        Ok(self.summary)
    }
}

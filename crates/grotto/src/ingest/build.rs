//! From records to edge blocks.
//!
//! 1. [`build_cell`] turns the records of one cell into sorted adjacency
//!    lists with a counting scatter (counters fit in cache), then sorts each
//!    list, drops duplicates unless asked to keep them, and notes loops.
//! 2. [`AdjBuilder`] places the lists of consecutive cells with the
//!    last-fit packer, copies them into a staging area of blocks in
//!    parallel, checksums the blocks that can no longer change and streams
//!    them to the output file. Called once with every cell (in-memory build)
//!    or once per partition (external build). Short lists are packed apart
//!    into the short region, spilled to a temporary file as their blocks
//!    close and appended after the long lists at the end (their index
//!    offsets are rebased then).

use crate::error::Error;
use crate::error::Result;
use crate::store::blockmap::BlockMap;
use crate::store::format::{
    IndexEntry, SectionKind, ENTRY_MAX_DEGREE, ENTRY_MAX_OFFSET, SLOTS_PER_BLOCK,
};
use crate::store::layout::{LayoutConfig, Packer};
use crate::store::writer::GraphWriter;
use rayon::prelude::*;
use std::io::Write;

/// Sorted adjacency lists of the sources `lo..hi`.
#[derive(Debug, Default)]
pub struct LocalCsr {
    /// First source.
    pub lo: u64,
    /// One past the last source.
    pub hi: u64,
    /// `offsets[i]..offsets[i+1]` is the list of source `lo + i`.
    pub offsets: Vec<u32>,
    /// Targets.
    pub targets: Vec<u32>,
    /// Weights (empty when unweighted).
    pub weights: Vec<f32>,
    /// Duplicate entries removed (excluding loops).
    pub dup_entries: u64,
    /// Duplicate self-loop entries removed.
    pub dup_loops: u64,
    /// Self loops kept.
    pub loops: u64,
}

impl LocalCsr {
    /// The list of source `v` (global id).
    pub fn list(&self, v: u64) -> (&[u32], &[f32]) {
        let i = (v - self.lo) as usize;
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let w = if self.weights.is_empty() {
            &[][..]
        } else {
            &self.weights[a..b]
        };
        (&self.targets[a..b], w)
    }
}

/// Orders f32 bits so that integer order equals numeric order.
#[inline]
fn ordered_bits(w: f32) -> u32 {
    let b = w.to_bits();
    if b >> 31 == 1 {
        !b
    } else {
        b | (1 << 31)
    }
}
#[inline]
fn from_ordered_bits(b: u32) -> f32 {
    f32::from_bits(if b >> 31 == 1 { b & !(1 << 31) } else { !b })
}

/// Builds the lists of sources `lo..hi` from record slices.
pub fn build_cell(
    lo: u64,
    hi: u64,
    parts: &[(&[u64], &[f32])],
    weighted: bool,
    keep_duplicates: bool,
) -> LocalCsr {
    let n = (hi - lo) as usize;
    let mut offsets = vec![0u32; n + 1];
    for (keys, _) in parts {
        for &k in *keys {
            offsets[((k >> 32) - lo) as usize + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let total = offsets[n] as usize;
    let mut targets = vec![0u32; total];
    let mut weights = if weighted {
        vec![0f32; total]
    } else {
        Vec::new()
    };
    let mut cur: Vec<u32> = offsets[..n].to_vec();
    for (keys, ws) in parts {
        for (i, &k) in keys.iter().enumerate() {
            let s = ((k >> 32) - lo) as usize;
            let at = cur[s] as usize;
            cur[s] += 1;
            targets[at] = k as u32;
            if weighted {
                weights[at] = ws[i];
            }
        }
    }
    drop(cur);
    // Sort each list, drop duplicates, compact in place.
    let mut out = LocalCsr {
        lo,
        hi,
        ..LocalCsr::default()
    };
    let mut write = 0usize;
    let mut scratch: Vec<u64> = Vec::new();
    let mut start = 0usize;
    for i in 0..n {
        let end = offsets[i + 1] as usize;
        let src = (lo + i as u64) as u32;
        offsets[i] = write as u32;
        if weighted {
            scratch.clear();
            scratch.extend(
                (start..end).map(|j| ((targets[j] as u64) << 32) | ordered_bits(weights[j]) as u64),
            );
            scratch.sort_unstable();
            let mut last = u64::MAX;
            for &x in &scratch {
                let t = x >> 32;
                if t == last && !keep_duplicates {
                    if t as u32 == src {
                        out.dup_loops += 1
                    } else {
                        out.dup_entries += 1
                    }
                    continue;
                }
                last = t;
                targets[write] = t as u32;
                weights[write] = from_ordered_bits(x as u32);
                if t as u32 == src {
                    out.loops += 1;
                }
                write += 1;
            }
        } else {
            targets[start..end].sort_unstable();
            let mut last = u64::MAX;
            for j in start..end {
                let t = targets[j];
                if t as u64 == last && !keep_duplicates {
                    if t == src {
                        out.dup_loops += 1
                    } else {
                        out.dup_entries += 1
                    }
                    continue;
                }
                last = t as u64;
                targets[write] = t;
                if t == src {
                    out.loops += 1;
                }
                write += 1;
            }
        }
        start = end;
    }
    offsets[n] = write as u32;
    targets.truncate(write);
    targets.shrink_to_fit();
    if weighted {
        weights.truncate(write);
        weights.shrink_to_fit();
    }
    out.offsets = offsets;
    out.targets = targets;
    out.weights = weights;
    out
}

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
}

/// Streams one adjacency (out or in) into a [`GraphWriter`].
pub struct AdjBuilder {
    packer: Packer,
    inline: bool,
    weighted: bool,
    index: Vec<u64>,
    huge: Vec<(u64, u64)>,
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
        Ok(AdjBuilder {
            packer: Packer::new(layout.window),
            inline: layout.inline_small && !weighted,
            weighted,
            index: vec![0u64; n as usize],
            huge: Vec::new(),
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
                packer: Packer::new(layout.window),
                staging: Vec::new(),
                written: 0,
                crcs: Vec::new(),
                spill: None,
            },
        })
    }

    /// Places and copies the lists of `cells` (consecutive, in order), then
    /// writes out every block that no later list can enter.
    pub fn add(&mut self, w: &mut GraphWriter, cells: &[LocalCsr]) -> Result<()> {
        crate::interrupt::check()?;
        let cap = SLOTS_PER_BLOCK as u64;
        // Plan: sequential, degrees only.
        let mut by_chunk: Vec<Vec<(u64, u32, u64)>> = Vec::new();
        for (ci, c) in cells.iter().enumerate() {
            self.summary.dup_entries += c.dup_entries;
            self.summary.dup_loops += c.dup_loops;
            self.summary.loops += c.loops;
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
                        let first = slot / cap / FILL_CHUNK_BLOCKS;
                        let last = (slot + d - 1) / cap / FILL_CHUNK_BLOCKS;
                        for ch in first..=last {
                            let ch = (ch - self.staging_base / FILL_CHUNK_BLOCKS) as usize;
                            if by_chunk.len() <= ch {
                                by_chunk.resize_with(ch + 1, Vec::new);
                            }
                            by_chunk[ch].push((slot, ci as u32, v));
                        }
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
        self.short
            .spill_to(self.short.packer.first_open_block(), &self.spill_dir)?;
        // Fill: staging covers blocks staging_base..packer.blocks(); the
        // base is a multiple of FILL_CHUNK_BLOCKS so chunks line up.
        debug_assert_eq!(self.staging_base % FILL_CHUNK_BLOCKS, 0);
        let want = ((self.packer.blocks() - self.staging_base) * cap) as usize;
        self.staging.resize(want, 0);
        if self.weighted {
            self.staging_w.resize(want, 0.0);
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
        let cap = SLOTS_PER_BLOCK as u64;
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
        w.section(
            kt,
            &vec![crate::store::format::ENCODING_RAW_U32; blocks as usize],
            blocks,
        )?;
        let flat: Vec<u64> = self.huge.iter().flat_map(|&(v, d)| [v, d]).collect();
        w.section(kh, bytemuck::cast_slice(&flat), self.huge.len() as u64)?;
        // The inverse of the index, so that block-mode runs need not
        // build it.
        let km = if ki == SectionKind::InIndex {
            SectionKind::InBlockMap
        } else {
            SectionKind::OutBlockMap
        };
        let map = BlockMap::build(self.index.len() as u64, blocks, |v| {
            IndexEntry::disk_span(self.index[v as usize], v as u64, &self.huge)
        });
        w.section(km, &map.to_bytes(), blocks)?;
        self.summary.blocks = blocks;
        self.summary.short_blocks = short;
        Ok(self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_sort_dedup_and_count_loops() {
        let keys = [
            (5u64 << 32) | 9,
            (5 << 32) | 7,
            (5 << 32) | 9,
            (6 << 32) | 6,
            (6 << 32) | 6,
            (4 << 32) | 1,
        ];
        let c = build_cell(4, 8, &[(&keys, &[])], false, false);
        assert_eq!(c.list(4).0, &[1]);
        assert_eq!(c.list(5).0, &[7, 9]);
        assert_eq!(c.list(6).0, &[6]);
        assert_eq!(c.list(7).0, &[] as &[u32]);
        assert_eq!((c.dup_entries, c.dup_loops, c.loops), (1, 1, 1));
        let k = build_cell(4, 8, &[(&keys, &[])], false, true);
        assert_eq!(k.list(5).0, &[7, 9, 9]);
    }

    #[test]
    fn weighted_duplicates_keep_the_smallest_weight() {
        let keys = [3u64, 3, 1];
        let ws = [2.0f32, -1.5, 0.25];
        let c = build_cell(0, 1, &[(&keys, &ws)], true, false);
        assert_eq!(c.list(0), (&[1u32, 3][..], &[0.25f32, -1.5][..]));
    }
}

//! Where parsed edges go before the blocks are built.
//!
//! An edge becomes a record: a u64 key `(source << 32) | target` in
//! internal ids, plus an f32 weight for weighted graphs. Records are kept
//! by *cell*, a range of 2^16 consecutive sources, in fixed-size pages, so
//! that each cell can later be turned into adjacency lists with counters
//! that fit in the CPU cache. Two destinations:
//! - memory: pages stay in memory, grouped by cell;
//! - spill: pages are appended to one temporary file per *partition* (a run
//!   of consecutive cells sized to the memory budget) in 1 MiB writes.

use super::ids::{IdMapper, SeenIds};
use super::parse::EdgeSink;
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

/// log2 of the number of sources in a cell.
pub const CELL_SHIFT: u32 = 16;
/// Records per in-memory page.
pub const PAGE_RECORDS: usize = 8192;
/// Records per spill page (one write).
pub const SPILL_PAGE_RECORDS: usize = 1 << 17;

/// A page of records of one cell (memory) or one partition (spill).
#[derive(Debug, Default)]
pub struct Page {
    /// Cell (memory) or partition (spill) the page belongs to.
    pub owner: u32,
    /// `(source << 32) | target`.
    pub keys: Vec<u64>,
    /// Weights, parallel to `keys` (empty when unweighted).
    pub weights: Vec<f32>,
}

impl Page {
    /// Bytes a page of `n` records takes.
    pub fn bytes(n: usize, weighted: bool) -> i64 {
        (n * if weighted { 12 } else { 8 }) as i64
    }
}

/// Spill files, one per partition, shared by all workers.
pub struct SpillSet {
    files: Vec<Mutex<File>>,
    /// Records written to each file.
    records: Vec<std::sync::atomic::AtomicU64>,
    /// First source (internal id) of each partition, then the vertex count.
    starts: Vec<u32>,
    /// Records a worker gathers per partition before one write.
    page_records: usize,
    path_hint: std::path::PathBuf,
}

impl SpillSet {
    /// Creates one anonymous temporary file in `dir` per partition, the
    /// partitions beginning at `starts` (then the vertex count); workers
    /// write `page_records` records at a time.
    pub fn new(dir: &std::path::Path, starts: Vec<u32>, page_records: usize) -> Result<SpillSet> {
        let parts = starts.len().saturating_sub(1).max(1);
        let files = (0..parts)
            .map(|_| {
                tempfile::tempfile_in(dir)
                    .map(Mutex::new)
                    .map_err(|e| Error::io(dir, "create spill file", e))
            })
            .collect::<Result<_>>()?;
        Ok(SpillSet {
            files,
            records: (0..parts).map(|_| Default::default()).collect(),
            starts,
            page_records: page_records.max(1),
            path_hint: dir.to_path_buf(),
        })
    }

    /// The partition holding source `src`.
    #[inline]
    fn part_of(&self, src: u32) -> usize {
        self.starts
            .partition_point(|&s| s <= src)
            .saturating_sub(1)
            .min(self.files.len() - 1)
    }

    fn write(&self, page: &Page) -> Result<()> {
        let mut f = self.files[page.owner as usize]
            .lock()
            .map_err(|_| Error::Invalid("spill lock poisoned".into()))?;
        let n = page.keys.len() as u32;
        let err = |e| Error::io(&self.path_hint, "write spill file", e);
        f.write_all(&n.to_le_bytes()).map_err(err)?;
        f.write_all(bytemuck::cast_slice(&page.keys)).map_err(err)?;
        f.write_all(bytemuck::cast_slice(&page.weights))
            .map_err(err)?;
        self.records[page.owner as usize].fetch_add(n as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Number of partitions.
    pub fn parts(&self) -> usize {
        self.files.len()
    }

    /// Reads back all records of partition `p` and removes them from disk;
    /// reads straight into the record arrays (no second copy).
    pub fn take(&self, p: usize, weighted: bool) -> Result<(Vec<u64>, Vec<f32>)> {
        use std::io::Seek;
        let mut f = self.files[p]
            .lock()
            .map_err(|_| Error::Invalid("spill lock poisoned".into()))?;
        let err = |e| Error::io(&self.path_hint, "read spill file", e);
        f.flush().map_err(err)?;
        f.seek(std::io::SeekFrom::Start(0)).map_err(err)?;
        let total = self.records[p].load(Ordering::Relaxed) as usize;
        let mut keys = vec![0u64; total];
        let mut weights = vec![0f32; if weighted { total } else { 0 }];
        let mut at = 0usize;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, &mut *f);
        let short = || Error::Invalid("spill file shorter than written".into());
        while at < total {
            let mut head = [0u8; 4];
            reader.read_exact(&mut head).map_err(|_| short())?;
            let n = u32::from_le_bytes(head) as usize;
            if at + n > total {
                return Err(Error::Invalid("spill file longer than written".into()));
            }
            reader
                .read_exact(bytemuck::cast_slice_mut(&mut keys[at..at + n]))
                .map_err(|_| short())?;
            if weighted {
                reader
                    .read_exact(bytemuck::cast_slice_mut(&mut weights[at..at + n]))
                    .map_err(|_| short())?;
            }
            at += n;
        }
        drop(reader);
        f.set_len(0).map_err(err)?;
        Ok((keys, weights))
    }
}

/// Where a sink's full pages go.
#[derive(Clone)]
pub enum Destination {
    /// Keep pages in memory; stop once the shared budget (bytes) runs out.
    Memory(Arc<AtomicI64>),
    /// Append pages to the spill sets of the out- and in-adjacency.
    Spill(Arc<SpillSet>, Option<Arc<SpillSet>>),
}

/// Records of one build unit: a vertex range and the pages holding its records.
pub(crate) struct Unit {
    /// First source.
    pub lo: u64,
    /// End of the sources.
    pub hi: u64,
    /// Pages holding the unit's records.
    pub pages: Vec<Page>,
}

/// Records of consecutive build units in one array, grouped by unit:
/// unit `i` holds the sources `units[i]..units[i + 1]` and the records
/// `keys[bounds[i]..bounds[i + 1]]` (with their weights, if any).
pub(crate) struct Bucketed {
    /// `(source << 32) | target`, grouped by unit.
    pub keys: Vec<u64>,
    /// Weights, parallel to `keys` (empty when unweighted).
    pub weights: Vec<f32>,
    /// First source of each unit, then the end of the last.
    pub units: Vec<u32>,
    /// Where each unit's records begin in `keys`, then their count.
    pub bounds: Vec<usize>,
}

/// The records of one partition, built together.
pub(crate) enum Group {
    /// Units with their own pages (the memory build).
    Pages(Vec<Unit>),
    /// Units sharing one array (a partition of the external build).
    Bucketed(Bucketed),
    /// Units whose lists are built already (the memory build under a
    /// vertex order, see `gather`).
    Built(Vec<super::cell::LocalCsr>),
}

/// What the build does with each edge.
#[derive(Clone, Copy, Debug)]
pub struct RecordRules {
    /// Store each edge in both directions.
    pub undirected: bool,
    /// Also store the edge reversed in the in-adjacency.
    pub reverse: bool,
    /// Keep weights.
    pub weighted: bool,
    /// Keep self loops.
    pub keep_self_loops: bool,
}

/// Per-worker sink that turns edges into records.
pub struct CellSink {
    rules: RecordRules,
    mapper: IdMapper,
    dest: Destination,
    /// Open pages of the out-adjacency, by cell or partition.
    open_out: Vec<Page>,
    open_in: Vec<Page>,
    /// Full pages kept in memory.
    pub full_out: Vec<Page>,
    /// Full pages of the in-adjacency kept in memory.
    pub full_in: Vec<Page>,
    /// Ids seen (dense mode only).
    pub seen: SeenIds,
    /// Whether to fill `seen` (default: yes; not needed when the vertex
    /// count is given, and two random writes an edge saved).
    pub track_seen: bool,
    /// Keep only the records of one adjacency (in-edges when true) whose
    /// source is in `lo..hi` (default: all): a partition's replay pass.
    pub keep: Option<(bool, u32, u32)>,
    /// With `keep`: the partition of each user id (ids as the source gives
    /// them) and the partitions kept (`lo..hi`), so that edges with no
    /// record in them are dropped before their ids are mapped (one
    /// two-byte lookup an end instead of two through the order).
    pub prefilter: Option<(Arc<Vec<u16>>, u32, u32)>,
    /// Self loops dropped.
    pub self_loops: u64,
    /// An id did not fit the dense mapping.
    pub needs_compaction: bool,
    /// The memory budget ran out.
    pub over_budget: bool,
    /// A spill write failed.
    pub error: Option<Error>,
    /// Edges (user ids) not yet placed, with a vertex order only: their
    /// ids are mapped through the order in one loop, so the random
    /// lookups overlap (see [`CellSink::drain`]).
    pending: Vec<(u64, u64, f32)>,
}

impl CellSink {
    /// A sink with the given rules, id mapping and destination.
    pub fn new(rules: RecordRules, mapper: IdMapper, dest: Destination) -> CellSink {
        CellSink {
            rules,
            mapper,
            dest,
            open_out: Vec::new(),
            open_in: Vec::new(),
            full_out: Vec::new(),
            full_in: Vec::new(),
            seen: SeenIds::default(),
            track_seen: true,
            keep: None,
            prefilter: None,
            self_loops: 0,
            needs_compaction: false,
            over_budget: false,
            error: None,
            pending: Vec::new(),
        }
    }

    /// Places the pending edges; false if one could not be (the flags
    /// or the error say why). Called when the batch is full, and by the
    /// pass's owner at its end.
    pub fn drain(&mut self) -> bool {
        let pending = std::mem::take(&mut self.pending);
        let mut mapped = Vec::with_capacity(pending.len());
        mapped.extend(
            pending
                .iter()
                .map(|&(u, v, w)| (self.mapper.map(u), self.mapper.map(v), w)),
        );
        let mut ok = true;
        for (a, b, w) in mapped {
            let (Some(a), Some(b)) = (a, b) else {
                self.needs_compaction = true;
                ok = false;
                break;
            };
            if !self.place(a, b, w) {
                ok = false;
                break;
            }
        }
        self.pending = pending;
        self.pending.clear();
        ok
    }

    /// Stores the records of the edge `a -> b` in internal ids.
    #[inline]
    fn place(&mut self, a: u32, b: u32, w: f32) -> bool {
        if self.track_seen {
            if let IdMapper::Dense { .. } = self.mapper {
                self.seen.small.set(a as u64);
                self.seen.small.set(b as u64);
            }
        }
        if a == b && !self.rules.keep_self_loops {
            self.self_loops += 1;
            return true;
        }
        if !self.push(false, a, b, w) {
            return false;
        }
        if self.rules.undirected && a != b {
            return self.push(false, b, a, w);
        }
        if self.rules.reverse {
            return self.push(true, b, a, w);
        }
        true
    }

    #[inline]
    fn push(&mut self, inn: bool, src: u32, dst: u32, w: f32) -> bool {
        if let Some((i, lo, hi)) = self.keep {
            if i != inn || src < lo || src >= hi {
                return true;
            }
        }
        let cell = (src >> CELL_SHIFT) as usize;
        let (slot, cap) = match &self.dest {
            Destination::Memory(_) => (cell, PAGE_RECORDS),
            Destination::Spill(o, i) => {
                let set = if inn { i.as_ref().unwrap_or(o) } else { o };
                (set.part_of(src), set.page_records)
            }
        };
        let weighted = self.rules.weighted;
        let open = if inn {
            &mut self.open_in
        } else {
            &mut self.open_out
        };
        if slot >= open.len() {
            open.resize_with(slot + 1, Page::default);
        }
        let page = &mut open[slot];
        if page.keys.capacity() == 0 {
            page.owner = slot as u32;
            page.keys.reserve_exact(cap);
            if weighted {
                page.weights.reserve_exact(cap);
            }
            if let Destination::Memory(budget) = &self.dest {
                if budget.fetch_sub(Page::bytes(cap, weighted), Ordering::Relaxed) < 0 {
                    self.over_budget = true;
                    return false;
                }
            }
        }
        page.keys.push(((src as u64) << 32) | dst as u64);
        if weighted {
            page.weights.push(w);
        }
        if page.keys.len() == cap {
            let full = std::mem::take(page);
            return self.retire(inn, full);
        }
        true
    }

    fn retire(&mut self, inn: bool, page: Page) -> bool {
        match &self.dest {
            Destination::Memory(_) => {
                if inn {
                    self.full_in.push(page)
                } else {
                    self.full_out.push(page)
                }
                true
            }
            Destination::Spill(o, i) => {
                match (if inn { i.as_ref().unwrap_or(o) } else { o }).write(&page) {
                    Ok(()) => true,
                    Err(e) => {
                        self.error = Some(e);
                        false
                    }
                }
            }
        }
    }

    /// Moves every partly filled page to the full lists (or the spill
    /// files). Call [`CellSink::drain`] first (and check the flags).
    pub fn finish(&mut self) -> Result<()> {
        debug_assert!(self.pending.is_empty());
        for inn in [false, true] {
            let open = std::mem::take(if inn {
                &mut self.open_in
            } else {
                &mut self.open_out
            });
            for p in open.into_iter().filter(|p| !p.keys.is_empty()) {
                if !self.retire(inn, p) {
                    break;
                }
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl EdgeSink for CellSink {
    #[inline]
    fn edge(&mut self, u: u64, v: u64, w: f32) -> bool {
        if let (Some((part, lo, hi)), Some((inn, _, _))) = (&self.prefilter, self.keep) {
            // Out-records come from u (and v when undirected), in-records
            // from v; a self loop goes on, to be counted.
            // An id beyond the table goes on too, for the mapper to judge.
            let has = |x: u64| {
                part.get(x as usize)
                    .is_none_or(|&q| (*lo..*hi).contains(&(q as u32)))
            };
            let wanted = u == v
                || if inn {
                    has(v)
                } else {
                    has(u) || (self.rules.undirected && has(v))
                };
            if !wanted {
                return true;
            }
        }
        if let IdMapper::Ordered { .. } = self.mapper {
            self.pending.push((u, v, w));
            return self.pending.len() < BATCH || self.drain();
        }
        let (Some(a), Some(b)) = (self.mapper.map(u), self.mapper.map(v)) else {
            self.needs_compaction = true;
            return false;
        };
        self.place(a, b, w)
    }

    fn vertex(&mut self, u: u64) {
        match self.mapper.map(u) {
            Some(a) => {
                if let IdMapper::Dense { .. } = self.mapper {
                    self.seen.small.set(a as u64);
                }
            }
            None => self.needs_compaction = true,
        }
    }
}

/// Records per vertex, for a vertex order (see [`super::order`]).
pub enum PerVertex {
    /// Counters of this worker alone (when every worker can have its
    /// own): out-records (both directions of an undirected edge) and
    /// in-records (empty unless in-edges are stored).
    Local(Vec<u32>, Vec<u32>),
    /// Counters every worker adds to at once.
    Shared(std::sync::Arc<[Vec<std::sync::atomic::AtomicU32>; 2]>),
}

/// Per-worker sink for the first passes of the external build: ids seen
/// (without a mapper) or records per vertex (with one), nothing stored.
pub struct StatsSink {
    rules: RecordRules,
    mapper: Option<IdMapper>,
    /// Count per vertex instead of per cell.
    pub per_vertex: Option<PerVertex>,
    /// Ids seen (when no mapper is set).
    pub seen: SeenIds,
    /// The largest id the mapper refused (with a mapper only): beyond a
    /// given vertex count.
    pub outside: Option<u64>,
    /// Edges (internal ids) not yet added to `per_vertex`: counting a
    /// batch in one tight loop lets the random counter updates overlap
    /// (2.4x faster than one update per parsed edge on rmat22).
    pending: Vec<(u32, u32)>,
}

/// Edges a sink holds before it counts or places them in one loop.
const BATCH: usize = 4096;

impl StatsSink {
    /// A sink that records seen ids (`mapper = None`) or, with a mapper,
    /// counts records per vertex of mapped ids (set `per_vertex`).
    pub fn new(rules: RecordRules, mapper: Option<IdMapper>) -> StatsSink {
        StatsSink {
            rules,
            mapper,
            per_vertex: None,
            seen: SeenIds::default(),
            outside: None,
            pending: Vec::new(),
        }
    }

    /// Adds the pending edges to the per-vertex counters; call before
    /// reading them.
    pub fn flush(&mut self) {
        let (undirected, reverse) = (self.rules.undirected, self.rules.reverse);
        match &mut self.per_vertex {
            Some(PerVertex::Local(out, inn)) => {
                for &(a, b) in &self.pending {
                    out[a as usize] = out[a as usize].saturating_add(1);
                    if undirected && a != b {
                        out[b as usize] = out[b as usize].saturating_add(1);
                    }
                    if reverse {
                        inn[b as usize] = inn[b as usize].saturating_add(1);
                    }
                }
            }
            Some(PerVertex::Shared(c)) => {
                use std::sync::atomic::Ordering::Relaxed;
                for &(a, b) in &self.pending {
                    c[0][a as usize].fetch_add(1, Relaxed);
                    if undirected && a != b {
                        c[0][b as usize].fetch_add(1, Relaxed);
                    }
                    if reverse {
                        c[1][b as usize].fetch_add(1, Relaxed);
                    }
                }
            }
            None => {}
        }
        self.pending.clear();
    }
}

impl EdgeSink for StatsSink {
    #[inline]
    fn edge(&mut self, u: u64, v: u64, _w: f32) -> bool {
        let (a, b) = match &self.mapper {
            None => {
                self.seen.insert(u);
                self.seen.insert(v);
                (u, v)
            }
            Some(m) => match (m.map(u), m.map(v)) {
                (Some(a), Some(b)) => (a as u64, b as u64),
                (a, _) => {
                    let id = if a.is_none() { u } else { v };
                    self.outside = self.outside.max(Some(id));
                    return true;
                }
            },
        };
        if a == b && !self.rules.keep_self_loops {
            return true;
        }
        if self.per_vertex.is_some() {
            // A mapper gives u32 ids.
            self.pending.push((a as u32, b as u32));
            if self.pending.len() >= BATCH {
                self.flush();
            }
        }
        true
    }

    fn vertex(&mut self, u: u64) {
        if self.mapper.is_none() {
            self.seen.insert(u);
        }
    }
}

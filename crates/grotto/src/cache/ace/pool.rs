//! The write pool: fixed 4 KiB slots over pages of a file opened for
//! writing, with dirty pages, a replacement order, and (optionally) ACE's
//! batched write-back and prefetching. One owner at a time (`&mut self`):
//! every read and write it issues has completed before a call returns.

use super::order::{PolicyKind, WriteOrder};
use super::prefetch::Prefetcher;
use crate::cache::SLOT_BYTES;
use crate::error::{Error, Result};
use crate::io::{AlignedBuf, Done, IoBuf, IoFile, Reader};
use std::sync::Arc;
use std::time::Instant;

/// A run of pages in the file: keys `first_key..first_key + pages` live
/// at `offset`, 4 KiB apart.
#[derive(Clone, Copy, Debug)]
pub struct Section {
    /// The first key of the run.
    pub first_key: u64,
    /// Byte offset of that key's page (4 KiB-aligned).
    pub offset: u64,
    /// Pages in the run.
    pub pages: u64,
}

/// ACE's settings: how many dirty pages the writer cleans at once, and how
/// many pages the evictor frees when prefetching is on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ace {
    /// Dirty pages written concurrently when the top page is dirty
    /// (default: the device profile's k_w, capped by the pool's size:
    /// [`Ace::default_n_w`]).
    pub n_w: usize,
    /// Pages evicted when prefetching, the requested one plus up to
    /// `n_e - 1` prefetched (default: n_w, as the thesis measured best).
    pub n_e: usize,
    /// Whether the reader prefetches (sequential, else history-based).
    pub prefetch: bool,
}

impl Ace {
    /// The default `n_w` for a device of write concurrency `k_w` and a
    /// pool of `slots` slots: k_w, capped at 1/256 of the slots (at least
    /// 4). Measured (docs/ace.md): writing further ahead in the order
    /// cleans pages that are dirtied again before they leave, so pages are
    /// written twice, while the speedup had already levelled off.
    pub fn default_n_w(k_w: usize, slots: usize) -> usize {
        k_w.clamp(1, 1024).min((slots / 256).max(4))
    }
}

/// How a write pool is set up.
#[derive(Clone, Copy, Debug)]
pub struct PoolConfig {
    /// Slots (the budget is `slots * 4 KiB`).
    pub slots: usize,
    /// Replacement policy (default clock).
    pub policy: PolicyKind,
    /// ACE on top of the policy, or the plain policy (one write per dirty
    /// eviction) when `None`.
    pub ace: Option<Ace>,
    /// Concurrent writes [`WritePool::flush`] issues (default 32).
    pub flush_depth: usize,
}

/// What a write pool did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WriteStats {
    /// Page requests served from memory.
    pub hits: u64,
    /// Page requests that had to read the page.
    pub misses: u64,
    /// Pages read (misses plus prefetched pages).
    pub pages_read: u64,
    /// Pages prefetched.
    pub prefetched: u64,
    /// Prefetched pages used before they left.
    pub prefetch_used: u64,
    /// Pages written.
    pub pages_written: u64,
    /// Times the pool waited for writes (a batch of concurrent writes
    /// counts once; the plain policy waits once per page).
    pub write_waits: u64,
    /// Times the pool waited for reads.
    pub read_waits: u64,
    /// Seconds spent waiting for writes.
    pub write_seconds: f64,
    /// Seconds spent waiting for reads.
    pub read_seconds: f64,
}

const NONE: u32 = u32::MAX;
const NO_KEY: u64 = u64::MAX;

/// The write pool.
pub struct WritePool {
    io: Reader,
    arena: Arc<AlignedBuf>,
    sections: Vec<Section>,
    map: Vec<u32>,
    key_of: Vec<u64>,
    dirty: Vec<bool>,
    prefetched: Vec<bool>,
    free: Vec<usize>,
    order: Box<dyn WriteOrder>,
    ace: Option<Ace>,
    prefetcher: Option<Prefetcher>,
    flush_depth: usize,
    stats: WriteStats,
    picked: Vec<usize>,
    predicted: Vec<u64>,
    done: Vec<Done>,
    broken: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Dir {
    Read,
    Write,
}

impl WritePool {
    /// A pool over the pages `sections` describe in `file` (opened for
    /// writing when pages will be written).
    pub fn new(file: &Arc<IoFile>, sections: Vec<Section>, cfg: PoolConfig) -> Result<WritePool> {
        if cfg.slots == 0 {
            return Err(Error::Invalid(
                "the write pool needs at least one 4 KiB slot".into(),
            ));
        }
        let too_big = || Error::Limit {
            what: format!(
                "{}: write pool sections past 2^62 pages",
                file.path().display()
            ),
        };
        let mut keys = 0u64;
        for s in &sections {
            let end = s.first_key.checked_add(s.pages).ok_or_else(too_big)?;
            keys = keys.max(end);
        }
        let mut by_key: Vec<&Section> = sections.iter().filter(|s| s.pages > 0).collect();
        by_key.sort_by_key(|s| s.first_key);
        if by_key
            .windows(2)
            .any(|w| w[0].first_key + w[0].pages > w[1].first_key)
        {
            return Err(Error::Invalid(format!(
                "{}: write pool sections overlap in their keys",
                file.path().display()
            )));
        }
        if cfg.slots >= NONE as usize || keys >= NO_KEY / 2 {
            return Err(Error::Limit {
                what: format!(
                    "write pool of {} slots over {keys} pages exceeds the pool's limits",
                    cfg.slots
                ),
            });
        }
        for s in &sections {
            let end = s
                .pages
                .checked_mul(SLOT_BYTES as u64)
                .and_then(|b| s.offset.checked_add(b));
            if !s.offset.is_multiple_of(SLOT_BYTES as u64) || end.is_none_or(|e| e > file.len()) {
                return Err(Error::Invalid(format!(
                    "{}: pages {}..{} at byte {} are not 4 KiB-aligned pages inside the file",
                    file.path().display(),
                    s.first_key,
                    s.first_key + s.pages,
                    s.offset
                )));
            }
        }
        let ace = cfg.ace.map(|a| Ace {
            n_w: a.n_w.clamp(1, 1024),
            n_e: a.n_e.clamp(1, 1024),
            prefetch: a.prefetch,
        });
        let n_e = ace.filter(|a| a.prefetch).map_or(1, |a| a.n_e);
        let depth = ace
            .map_or(1, |a| a.n_w)
            .max(n_e)
            .max(cfg.flush_depth.max(1))
            .min(cfg.slots.max(1));
        crate::metrics::check_memory(
            WritePool::memory_bytes(cfg.slots, keys, n_e > 1),
            "the write pool",
        )?;
        let arena = AlignedBuf::new(cfg.slots * SLOT_BYTES, SLOT_BYTES)?;
        let arena = Arc::new(arena);
        let io = file.reader(depth, Some(Arc::clone(&arena)))?;
        Ok(WritePool {
            io,
            arena,
            sections,
            map: vec![NONE; keys as usize],
            key_of: vec![NO_KEY; cfg.slots],
            dirty: vec![false; cfg.slots],
            prefetched: vec![false; cfg.slots],
            free: (0..cfg.slots).rev().collect(),
            order: cfg.policy.build(cfg.slots),
            prefetcher: ace
                .filter(|a| a.prefetch)
                .map(|_| Prefetcher::new(keys, cfg.slots.max(64))),
            ace,
            flush_depth: cfg.flush_depth.max(1),
            stats: WriteStats::default(),
            picked: Vec::new(),
            predicted: Vec::new(),
            done: Vec::new(),
            broken: None,
        })
    }

    /// Bytes a pool of `slots` slots over `keys` pages holds: the slots,
    /// about 40 bytes of bookkeeping per slot (policy links included), 4
    /// bytes per key, and the prefetch history when `prefetch`.
    pub fn memory_bytes(slots: usize, keys: u64, prefetch: bool) -> u64 {
        let per_slot = SLOT_BYTES as u64 + 40;
        let history = if prefetch {
            Prefetcher::table_bytes(slots.max(64))
        } else {
            0
        };
        slots as u64 * per_slot + keys.saturating_mul(4) + history as u64
    }

    /// Number of page keys.
    pub fn keys(&self) -> u64 {
        self.map.len() as u64
    }

    /// Number of slots.
    pub fn slots(&self) -> usize {
        self.key_of.len()
    }

    /// The policy's name, with "ace-" (and "+pf") when ACE wraps it.
    pub fn name(&self) -> String {
        match self.ace {
            None => self.order.name().to_string(),
            Some(a) if a.prefetch => format!("ace-{}+pf", self.order.name()),
            Some(_) => format!("ace-{}", self.order.name()),
        }
    }

    /// Counters so far.
    pub fn stats(&self) -> WriteStats {
        self.stats
    }

    /// Sets the counters back to zero (after a warm-up).
    pub fn reset_stats(&mut self) {
        self.stats = WriteStats::default();
    }

    /// Dirty pages in the pool.
    pub fn dirty_pages(&self) -> usize {
        self.dirty.iter().filter(|&&d| d).count()
    }

    /// The bytes of page `key`, read from the file on a miss.
    pub fn read(&mut self, key: u64) -> Result<&[u8]> {
        let s = self.fetch(key)?;
        // SAFETY: `s` is a slot index below `slots`, no I/O is in flight
        // (every batch completes before `fetch` returns), and the shared
        // borrow of `self` keeps the slot unchanged while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts(self.slot_ptr(s), SLOT_BYTES) })
    }

    /// The bytes of page `key` for changing; the page is dirty from now on.
    pub fn write(&mut self, key: u64) -> Result<&mut [u8]> {
        let s = self.fetch(key)?;
        self.dirty[s] = true;
        // SAFETY: as in `read`; the exclusive borrow of `self` makes this
        // the only reference to the slot's bytes while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(s), SLOT_BYTES) })
    }

    /// Writes every dirty page back, `flush_depth` at a time, in key order.
    pub fn flush(&mut self) -> Result<()> {
        let mut all: Vec<usize> = (0..self.slots()).filter(|&s| self.dirty[s]).collect();
        all.sort_unstable_by_key(|&s| self.key_of[s]);
        for chunk in all.chunks(self.flush_depth) {
            self.picked.clear();
            self.picked.extend_from_slice(chunk);
            self.write_picked()?;
        }
        Ok(())
    }

    /// Flushes, then makes the writes durable (fdatasync).
    pub fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.io.file().sync()
    }

    fn slot_ptr(&self, s: usize) -> *mut u8 {
        debug_assert!(s < self.slots());
        // SAFETY: the arena holds `slots * SLOT_BYTES` bytes and `s` is a
        // slot index, so the offset stays inside it.
        unsafe { self.arena.as_ptr().add(s * SLOT_BYTES) }
    }

    fn offset_of(&self, key: u64) -> Result<u64> {
        self.sections
            .iter()
            .find(|s| key >= s.first_key && key - s.first_key < s.pages)
            .map(|s| s.offset + (key - s.first_key) * SLOT_BYTES as u64)
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{}: page {key} is outside the pages of the pool ({})",
                    self.io.file().path().display(),
                    self.keys()
                ))
            })
    }

    /// The slot holding `key`, reading it (and evicting, writing back,
    /// prefetching as the configuration says) on a miss.
    fn fetch(&mut self, key: u64) -> Result<usize> {
        self.check_usable()?;
        // Refused before anything is evicted (sections may leave gaps).
        self.offset_of(key)?;
        let s = self.map[key as usize];
        if s != NONE {
            let s = s as usize;
            self.stats.hits += 1;
            if self.prefetched[s] {
                self.prefetched[s] = false;
                self.stats.prefetch_used += 1;
            }
            self.order.touched(s);
            return Ok(s);
        }
        self.stats.misses += 1;
        let prefetch = self.ace.filter(|a| a.prefetch).map(|a| a.n_e);
        if self.free.is_empty() {
            let top = self
                .order
                .victim(&self.dirty)
                .ok_or_else(|| Error::Invalid("the write pool has no page to evict".into()))?;
            if !self.dirty[top] {
                self.evict(top);
                return self.load(key, 0);
            }
            match self.ace {
                None => {
                    self.picked.clear();
                    self.picked.push(top);
                    self.write_picked()?;
                    self.evict(top);
                    return self.load(key, 0);
                }
                Some(a) => {
                    self.picked.clear();
                    self.order.next_dirty(&self.dirty, a.n_w, &mut self.picked);
                    if !self.picked.contains(&top) {
                        self.picked.insert(0, top);
                        self.picked.truncate(a.n_w);
                    }
                    self.write_picked()?;
                    let Some(n_e) = prefetch else {
                        self.evict(top);
                        return self.load(key, 0);
                    };
                    self.picked.clear();
                    self.order.next_clean(&self.dirty, n_e, &mut self.picked);
                    if !self.picked.contains(&top) {
                        self.picked.insert(0, top);
                        self.picked.truncate(n_e);
                    }
                    let evict = std::mem::take(&mut self.picked);
                    for &e in &evict {
                        self.evict(e);
                    }
                    self.picked = evict;
                    return self.load(key, n_e - 1);
                }
            }
        }
        let extra = prefetch.map_or(0, |n| n - 1).min(self.free.len() - 1);
        self.load(key, extra)
    }

    /// Reads `key` into a free slot, with up to `extra` prefetched pages
    /// into further free slots, concurrently.
    fn load(&mut self, key: u64, extra: usize) -> Result<usize> {
        self.predicted.clear();
        self.predicted.push(key);
        if let Some(p) = self.prefetcher.as_mut() {
            let mut guess = Vec::new();
            p.predict(key, extra, &mut guess);
            for g in guess {
                if (g as usize) < self.map.len()
                    && self.map[g as usize] == NONE
                    && g != key
                    && self.offset_of(g).is_ok()
                {
                    self.predicted.push(g);
                }
            }
        }
        let n = self.predicted.len().min(self.free.len());
        self.predicted.truncate(n);
        self.picked.clear();
        for _ in 0..n {
            if let Some(s) = self.free.pop() {
                self.picked.push(s);
            }
        }
        let jobs: Vec<(usize, u64)> = self
            .picked
            .iter()
            .copied()
            .zip(self.predicted.iter().copied())
            .collect();
        if let Err(e) = self.transfer(Dir::Read, &jobs) {
            self.free.extend(jobs.iter().map(|j| j.0));
            return Err(e);
        }
        for (i, &(s, k)) in jobs.iter().enumerate() {
            self.map[k as usize] = s as u32;
            self.key_of[s] = k;
            self.dirty[s] = false;
            self.prefetched[s] = i > 0;
            self.order.inserted(s, i == 0);
        }
        self.stats.pages_read += jobs.len() as u64;
        self.stats.prefetched += jobs.len() as u64 - 1;
        Ok(jobs[0].0)
    }

    fn evict(&mut self, s: usize) {
        let k = self.key_of[s];
        if k != NO_KEY {
            self.map[k as usize] = NONE;
        }
        self.key_of[s] = NO_KEY;
        self.dirty[s] = false;
        self.prefetched[s] = false;
        self.order.removed(s);
        self.free.push(s);
    }

    /// Writes the slots in `self.picked` concurrently and marks them clean.
    fn write_picked(&mut self) -> Result<()> {
        let jobs: Vec<(usize, u64)> = self.picked.iter().map(|&s| (s, self.key_of[s])).collect();
        self.transfer(Dir::Write, &jobs)?;
        for &(s, _) in &jobs {
            self.dirty[s] = false;
        }
        self.stats.pages_written += jobs.len() as u64;
        Ok(())
    }

    /// Issues one request per (slot, key) at once and waits for all; the
    /// first failure is returned naming its page. Every request queued has
    /// completed when this returns, error or not, so no slot is ever
    /// reused while the device may still read or write it; if the reader
    /// itself fails while requests are in flight, the pool refuses all
    /// further work.
    fn transfer(&mut self, dir: Dir, jobs: &[(usize, u64)]) -> Result<()> {
        if jobs.is_empty() {
            return Ok(());
        }
        self.check_usable()?;
        let offsets = jobs
            .iter()
            .map(|&(_, k)| self.offset_of(k))
            .collect::<Result<Vec<u64>>>()?;
        let t = Instant::now();
        let depth = self.io.depth();
        let mut first_err = None;
        let mut waits = 0u64;
        for (c, chunk) in jobs.chunks(depth).enumerate() {
            for (i, &(s, _)) in chunk.iter().enumerate() {
                let buf = IoBuf {
                    ptr: self.slot_ptr(s),
                    len: SLOT_BYTES,
                };
                // SAFETY: the slot's bytes belong to this pool, nobody else
                // reads or writes them (`&mut self`), and the request has
                // completed before this function returns (the loop below
                // waits until nothing is in flight).
                let r = unsafe {
                    match dir {
                        Dir::Read => self.io.read(offsets[c * depth + i], &[buf], i as u64),
                        Dir::Write => self.io.write(offsets[c * depth + i], &[buf], i as u64),
                    }
                };
                if let Err(e) = r {
                    first_err.get_or_insert(e);
                    break;
                }
            }
            if let Err(e) = self.io.flush() {
                first_err.get_or_insert(e);
            }
            waits += 1;
            while self.io.in_flight() > 0 {
                self.done.clear();
                let want = self.io.in_flight();
                if let Err(e) = self.io.wait(&mut self.done, want) {
                    self.broken = Some(e.to_string());
                    return Err(e);
                }
                for d in self.done.drain(..) {
                    if let Err(e) = d.result {
                        let key = chunk.get(d.tag as usize).map_or(u64::MAX, |j| j.1);
                        first_err.get_or_insert(name_page(e, dir, key));
                    }
                }
            }
            if first_err.is_some() {
                break;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        match dir {
            Dir::Read => {
                self.stats.read_waits += waits;
                self.stats.read_seconds += secs;
            }
            Dir::Write => {
                self.stats.write_waits += waits;
                self.stats.write_seconds += secs;
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    fn check_usable(&self) -> Result<()> {
        match &self.broken {
            None => Ok(()),
            Some(why) => Err(Error::Invalid(format!(
                "{}: the write pool stopped after an I/O failure it could not recover from ({why}); open it again",
                self.io.file().path().display()
            ))),
        }
    }
}

/// Puts the page in the message of an I/O error.
fn name_page(e: Error, dir: Dir, key: u64) -> Error {
    let verb = if dir == Dir::Read { "read" } else { "write" };
    match e {
        Error::Io { path, op, source } => Error::Io {
            path,
            op: format!("{verb} page {key} ({op})"),
            source,
        },
        other => other,
    }
}

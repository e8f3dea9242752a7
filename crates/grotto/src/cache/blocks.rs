//! The pool bound to one graph file: block keys, merged reads of adjacent
//! misses, checksum verification before a block is published.

use super::pool::{BufferPool, Joined, Load, Lookup, Pinned};
use crate::error::{Error, Result};
use crate::io::{Done, IoBuf, IoFile, IoStats, Reader};
use crate::store::{Direction, Graph};
use crate::BlockId;
use std::sync::Arc;

/// A block of one of the graph's block sections, as a dense pool key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockKey(pub u64);

#[derive(Clone, Copy, Debug)]
struct Space {
    base: u64,
    count: u64,
    dir: Direction,
    weights: bool,
}

/// A graph's blocks behind a shared buffer pool.
pub struct BlockCache {
    graph: Arc<Graph>,
    io: Arc<IoFile>,
    pool: BufferPool,
    spaces: Vec<Space>,
    merge_blocks: usize,
}

impl BlockCache {
    /// A cache of `budget_bytes` over `graph`, reading through `io` (the
    /// same file opened by the io layer), merging up to `merge_bytes` of
    /// adjacent blocks into one request.
    pub fn new(
        graph: Arc<Graph>,
        io: Arc<IoFile>,
        budget_bytes: u64,
        merge_bytes: usize,
    ) -> Result<BlockCache> {
        let mut spaces = Vec::new();
        let mut base = 0;
        for dir in [Direction::Out, Direction::In] {
            let Ok(a) = graph.adjacency(dir) else {
                continue;
            };
            let n = a.block_count();
            spaces.push(Space {
                base,
                count: n,
                dir,
                weights: false,
            });
            base += n;
            if graph.weighted() {
                spaces.push(Space {
                    base,
                    count: n,
                    dir,
                    weights: true,
                });
                base += n;
            }
        }
        let slots =
            (budget_bytes / super::SLOT_BYTES as u64).clamp(1, u32::MAX as u64 - 1) as usize;
        Ok(BlockCache {
            pool: BufferPool::new(base, slots)?,
            graph,
            io,
            spaces,
            merge_blocks: (merge_bytes / super::SLOT_BYTES).max(1),
        })
    }

    /// The key of block `b` of `dir` (its weights block when `weights`).
    pub fn key(&self, dir: Direction, weights: bool, b: BlockId) -> Result<BlockKey> {
        self.spaces
            .iter()
            .find(|s| s.dir == dir && s.weights == weights)
            .filter(|s| b.0 < s.count)
            .map(|s| BlockKey(s.base + b.0))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "no block {} in the {dir:?} {} section",
                    b.0,
                    if weights { "weight" } else { "edge" }
                ))
            })
    }

    fn locate(&self, k: BlockKey) -> Option<(Space, BlockId)> {
        self.spaces
            .iter()
            .find(|s| k.0 >= s.base && k.0 < s.base + s.count)
            .map(|s| (*s, BlockId(k.0 - s.base)))
    }

    /// The graph.
    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// The pool.
    pub fn pool(&self) -> &BufferPool {
        &self.pool
    }

    /// The file as the io layer opened it.
    pub fn io(&self) -> &Arc<IoFile> {
        &self.io
    }

    /// Most blocks merged into one request.
    pub fn merge_blocks(&self) -> usize {
        self.merge_blocks
    }

    /// A per-thread reader with `depth` requests in flight.
    pub fn reader(&self, depth: usize) -> Result<CacheReader<'_>> {
        Ok(CacheReader {
            cache: self,
            reader: self.io.reader(depth, Some(Arc::clone(self.pool.arena())))?,
            groups: Vec::new(),
            free: Vec::new(),
            done: Vec::new(),
            joins: Vec::new(),
            retry: Vec::new(),
            ahead: None,
        })
    }

    fn describe(&self, first: BlockKey, n: usize) -> String {
        match self.locate(first) {
            Some((s, b)) => {
                let what =
                    format!("{:?}{}", s.dir, if s.weights { " weight" } else { "" }).to_lowercase();
                if n == 1 {
                    format!("{what} block {}", b.0)
                } else {
                    format!("{what} blocks {}..={}", b.0, b.0 + n as u64 - 1)
                }
            }
            None => format!("block key {}", first.0),
        }
    }
}

/// Extra reaps a [`CacheReader::pump`] round makes while it hands landed
/// groups out, each followed by a refill of the freed slots.
pub const PUMP_REAPS: usize = 64;

/// One thread's access to a [`BlockCache`].
pub struct CacheReader<'c> {
    cache: &'c BlockCache,
    reader: Reader,
    groups: Vec<Option<Vec<Load<'c>>>>,
    free: Vec<usize>,
    done: Vec<Done>,
    joins: Vec<Joined<'c>>,
    retry: Vec<BlockKey>,
    ahead: Option<BlockKey>,
}

/// What one [`CacheReader::pump`] round did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pumped {
    /// Blocks handed to the callback (hits, joined reads, completions;
    /// a completion that failed counts too).
    pub delivered: usize,
    /// Whether the source returned `None` during the round.
    pub dry: bool,
}

impl<'c> CacheReader<'c> {
    /// The underlying reader's counters.
    pub fn io_stats(&self) -> &IoStats {
        self.reader.stats()
    }

    /// The backend in use.
    pub fn backend(&self) -> &'static str {
        self.reader.backend()
    }

    /// Whether the pool's memory is registered with io_uring.
    pub fn registered_buffers(&self) -> bool {
        self.reader.registered_buffers()
    }

    /// Reads of this reader in flight.
    pub fn in_flight(&self) -> usize {
        self.reader.in_flight()
    }

    /// The block `key`, pinned; reads it if needed and waits.
    pub fn get(&mut self, key: BlockKey) -> Result<Pinned<'c>> {
        let mut out = None;
        self.fetch(&[key], |p| {
            out = Some(p);
            Ok(())
        })?;
        out.ok_or_else(|| Error::Invalid(format!("block key {} was not delivered", key.0)))
    }

    /// Delivers every block of `keys` to `f`, pinned, in whatever order they
    /// become available, keeping up to the reader's depth of reads in flight
    /// and merging runs of adjacent keys that all miss. Pass keys sorted
    /// (increasing or decreasing) to get merged requests. `f` should drop each pin soon: a pool whose
    /// slots are all pinned cannot load more.
    pub fn fetch(
        &mut self,
        keys: &[BlockKey],
        f: impl FnMut(Pinned<'c>) -> Result<()>,
    ) -> Result<()> {
        self.fetch_iter(keys.iter().copied(), f)
    }

    /// [`CacheReader::fetch`] over keys produced on demand: the reader
    /// pulls the next key only when it has room for another read, so a
    /// caller can hand out work from a shared queue and keep the reader's
    /// depth of reads in flight without a pause between batches.
    pub fn fetch_iter(
        &mut self,
        keys: impl Iterator<Item = BlockKey>,
        mut f: impl FnMut(Pinned<'c>) -> Result<()>,
    ) -> Result<()> {
        let mut keys = keys.fuse();
        let mut source = || keys.next();
        loop {
            let p = self.pump(&mut source, &mut f, true)?;
            if p.dry && self.idle() {
                return Ok(());
            }
        }
    }

    /// Whether nothing is in flight, buffered or waited for.
    pub fn idle(&self) -> bool {
        self.reader.in_flight() == 0
            && self.joins.is_empty()
            && self.retry.is_empty()
            && self.ahead.is_none()
    }

    /// Adds this reader's completed bytes to a throughput timeline that
    /// starts at `epoch` (see [`crate::io::WINDOW_MS`]).
    pub fn set_epoch(&mut self, epoch: std::time::Instant) {
        self.reader.set_epoch(epoch);
    }

    /// One round of fetching that returns instead of blocking: pulls keys
    /// from `source` while there is room for reads (merging runs of
    /// adjacent misses), hands hits and every read that has landed to
    /// `f`, and returns. With `wait`, a round that can make no progress
    /// otherwise blocks for one completion of this reader. The round stops
    /// pulling when `source` returns `None`, and pulls again next round.
    ///
    /// The device is kept busy while `f` works: the slots of the reads
    /// reaped are refilled before their blocks are handed out, and between
    /// two landed groups, once the ones in hand are down to the last, the
    /// round reaps what landed meanwhile and refills again (up to
    /// [`PUMP_REAPS`] times a round, so a caller still gets
    /// control back regularly).
    pub fn pump(
        &mut self,
        source: &mut dyn FnMut() -> Option<BlockKey>,
        f: &mut dyn FnMut(Pinned<'c>) -> Result<()>,
        wait: bool,
    ) -> Result<Pumped> {
        let mut out = Pumped::default();
        let mut blocked = self.fill(source, f, &mut out)?;
        self.reader.flush()?;
        // Joined reads that landed.
        let mut k = 0;
        while k < self.joins.len() {
            let j = self.joins.swap_remove(k);
            let key = j.key();
            match j.poll() {
                Ok(Ok(p)) => {
                    out.delivered += 1;
                    f(p)?;
                }
                Ok(Err(())) => self.retry.push(BlockKey(key)),
                Err(j) => {
                    self.joins.push(j);
                    let last = self.joins.len() - 1;
                    self.joins.swap(k, last);
                    k += 1;
                }
            }
        }
        // Our own completions; block for one only when nothing else moved.
        let more = !out.dry || !self.retry.is_empty() || self.ahead.is_some();
        let stuck = out.delivered == 0
            && self.reader.in_flight() > 0
            && (self.reader.room() == 0 || blocked || !more);
        self.done.clear();
        let mut done = std::mem::take(&mut self.done);
        if wait && stuck && self.joins.is_empty() {
            self.reader.wait(&mut done, 1)?;
        } else {
            self.reader.reap(&mut done)?;
            if wait
                && done.is_empty()
                && out.delivered == 0
                && (blocked || !more)
                && self.reader.in_flight() == 0
                && !self.idle()
            {
                // Waiting on other threads' reads or pins.
                std::thread::yield_now();
            }
        }
        // Hand the landed groups out one at a time, refilling the device's
        // queue before each: a group's processing can take longer than a
        // read, and slots left empty meanwhile are throughput lost. Reap
        // again only at the last group in hand: reaping while groups wait
        // lets a fast device pile up landed, unprocessed groups that hold
        // most of the pool (their slots cannot be evicted, so every miss
        // sweeps the clock over them).
        let mut first_err = None;
        let mut i = 0;
        let mut reaps = 0;
        while i < done.len() {
            if i + 1 == done.len() && i > 0 && reaps < PUMP_REAPS && first_err.is_none() {
                reaps += 1;
                self.reader.reap(&mut done)?;
            }
            if !blocked && self.reader.room() > 0 && first_err.is_none() {
                blocked = self.fill(source, f, &mut out)?;
                self.reader.flush()?;
            }
            out.delivered += 1;
            if first_err.is_some() {
                // After an error the rest are dropped, freeing their slots.
                drop(self.take_group(done[i].tag));
                i += 1;
                continue;
            }
            let group = match self.landed(&mut done[i]) {
                Ok(g) => g,
                Err(e) => {
                    first_err = Some(e);
                    Vec::new()
                }
            };
            for load in group {
                // On an error the rest of the group is dropped with it.
                if let Err(e) = self.hand_out(load, f) {
                    first_err = Some(e);
                    break;
                }
            }
            i += 1;
        }
        done.clear();
        self.done = done;
        first_err.map_or(Ok(out), Err)
    }

    /// Issues lookups while there is room for reads: hits go to `f`,
    /// runs of adjacent misses become one read each. Returns whether the
    /// pool was full (the key is kept for the next round).
    fn fill(
        &mut self,
        source: &mut dyn FnMut() -> Option<BlockKey>,
        f: &mut dyn FnMut(Pinned<'c>) -> Result<()>,
        out: &mut Pumped,
    ) -> Result<bool> {
        let cache = self.cache;
        let pool = &cache.pool;
        let mut blocked = false;
        let mut deliver = |p: Pinned<'c>, out: &mut Pumped| -> Result<()> {
            out.delivered += 1;
            f(p)
        };
        while self.reader.room() > 0 && !blocked {
            let Some(key) = self.pull(source, &mut out.dry) else {
                break;
            };
            match pool.lookup(key.0)? {
                Lookup::Hit(p) => deliver(p, out)?,
                Lookup::Joined(j) => self.joins.push(j),
                Lookup::Full => {
                    self.retry.push(key);
                    blocked = true;
                }
                Lookup::Miss(first) => {
                    let mut group = vec![first];
                    let space = cache.locate(key);
                    // Extend with the following keys while they are
                    // adjacent (in increasing or decreasing order), in the
                    // same section, and also miss.
                    let mut down = None;
                    while group.len() < cache.merge_blocks && self.retry.is_empty() {
                        let Some(next) = self.pull(source, &mut out.dry) else {
                            break;
                        };
                        let prev = group[group.len() - 1].key();
                        let step_down = if next.0 == prev + 1 {
                            false
                        } else if next.0 + 1 == prev {
                            true
                        } else {
                            self.ahead = Some(next);
                            break;
                        };
                        if *down.get_or_insert(step_down) != step_down
                            || cache.locate(next).map(|s| s.0.base) != space.map(|s| s.0.base)
                        {
                            self.ahead = Some(next);
                            break;
                        }
                        match pool.lookup(next.0)? {
                            Lookup::Miss(l) => group.push(l),
                            Lookup::Hit(p) => {
                                deliver(p, out)?;
                                break;
                            }
                            Lookup::Joined(j) => {
                                self.joins.push(j);
                                break;
                            }
                            Lookup::Full => {
                                self.retry.push(next);
                                blocked = true;
                                break;
                            }
                        }
                    }
                    if down == Some(true) {
                        group.reverse();
                    }
                    self.submit(group)?;
                }
            }
        }
        Ok(blocked)
    }

    /// The next key to look up: one put back for a full pool first, then
    /// one pulled ahead while merging, then a fresh one from `source`.
    fn pull(
        &mut self,
        source: &mut dyn FnMut() -> Option<BlockKey>,
        dry: &mut bool,
    ) -> Option<BlockKey> {
        if let Some(k) = self.retry.pop() {
            return Some(k);
        }
        if let Some(k) = self.ahead.take() {
            return Some(k);
        }
        if *dry {
            return None;
        }
        let k = source();
        *dry = k.is_none();
        k
    }

    fn submit(&mut self, group: Vec<Load<'c>>) -> Result<()> {
        let cache = self.cache;
        let first = BlockKey(group[0].key());
        let (space, b) = cache
            .locate(first)
            .ok_or_else(|| Error::Invalid(format!("block key {} out of range", first.0)))?;
        let offset = cache.graph.block_offset(space.dir, space.weights, b)?;
        let bufs: Vec<IoBuf> = group.iter().map(|l| l.buf()).collect();
        let tag = match self.free.pop() {
            Some(t) => t,
            None => {
                self.groups.push(None);
                self.groups.len() - 1
            }
        };
        // SAFETY: each buffer is a claimed slot (phase LOADING, owned by the
        // Load handles stored in `groups[tag]`), which nobody reads or
        // reclaims until the handles are finished or dropped after the
        // completion with this tag; the pool's arena outlives the reader
        // (the reader holds an Arc to it).
        let r = unsafe { self.reader.read(offset, &bufs, tag as u64) };
        match r {
            Ok(()) => {
                self.groups[tag] = Some(group);
                Ok(())
            }
            Err(e) => {
                self.free.push(tag);
                Err(e)
            }
        }
    }

    /// The loads of the read tagged `tag`, its tag freed for reuse.
    fn take_group(&mut self, tag: u64) -> Option<Vec<Load<'c>>> {
        let tag = tag as usize;
        let group = self.groups.get_mut(tag).and_then(|g| g.take())?;
        self.free.push(tag);
        Some(group)
    }

    /// The loads of one landed group; a failed read becomes an error
    /// naming its blocks (dropping the loads frees their slots).
    fn landed(&mut self, d: &mut Done) -> Result<Vec<Load<'c>>> {
        let Some(group) = self.take_group(d.tag) else {
            return Ok(Vec::new());
        };
        let result = std::mem::replace(&mut d.result, Ok(()));
        let Err(e) = result else {
            return Ok(group);
        };
        let what = self.cache.describe(BlockKey(group[0].key()), group.len());
        Err(match e {
            Error::Io { path, op, source } => Error::Io {
                path,
                op: format!("{op} ({what})"),
                source,
            },
            Error::Truncated { path, what: w } => Error::Truncated {
                path,
                what: format!("{what}: {w}"),
            },
            other => other,
        })
    }

    /// Verifies one loaded block (its checksum names it on a mismatch)
    /// and hands it to `f`.
    fn hand_out(&self, load: Load<'c>, f: &mut dyn FnMut(Pinned<'c>) -> Result<()>) -> Result<()> {
        let cache = self.cache;
        let key = BlockKey(load.key());
        cache
            .locate(key)
            .ok_or_else(|| Error::Invalid(format!("block key {} out of range", key.0)))
            .and_then(|(s, b)| {
                // SAFETY: hand_out is called only for the loads of a group
                // whose read `landed` reported complete and successful, so
                // the device no longer writes this slot.
                let bytes = unsafe { load.bytes() };
                cache.graph.check_block(s.dir, s.weights, b, bytes)
            })?;
        f(load.finish())
    }
}

impl Drop for CacheReader<'_> {
    fn drop(&mut self) {
        // Let the reader drain before the Load handles give their slots
        // back: no slot is reused while the kernel may still write it.
        let mut sink = Vec::new();
        while self.reader.in_flight() > 0 {
            sink.clear();
            if self.reader.wait(&mut sink, 1).is_err() {
                // Leave the slots claimed forever rather than reuse memory
                // the kernel may still own.
                for g in self.groups.drain(..).flatten() {
                    std::mem::forget(g);
                }
                return;
            }
        }
    }
}

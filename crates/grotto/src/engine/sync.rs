//! The synchronous engine (CAVE): level-synchronous frontier processing
//! with the device's read concurrency worth of block reads in flight.
//!
//! # How a step runs
//!
//! Each I/O worker thread owns a [`CacheReader`] with its share of the
//! concurrency as depth, created once per run. Workers claim frontier
//! units (or blocks) from a shared atomic cursor, `GRAB_UNITS` at a time,
//! and feed the keys they need to their reader as an iterator: the reader
//! pulls a key only when it has room for another read, so reads stay in
//! flight across claims and only drain at the level's end, the one barrier
//! a synchronous engine needs.
//!
//! * **Vertex mode** (CAVE's ProcessQueue): a worker walks its frontier
//!   vertices; a list kept inline in the index (one or two neighbours) is
//!   visited at once, a list on disk asks the pool for each of its blocks.
//!   A block two active vertices share is read twice unless the pool still
//!   holds it, so reads fall as the cache grows.
//! * **Block mode** (ProcessQueueBlock): a first parallel pass visits the
//!   inline lists and marks, in a bitmap over blocks, every block an
//!   active vertex has neighbours in; the marked blocks are then fetched
//!   in increasing order (so adjacent ones merge into one request) and,
//!   when a block arrives, every active vertex with neighbours in it is
//!   visited from that one copy ([`BlockMap`]). Each block is read at most
//!   once per level whatever the cache size; a cached block is a hit.
//!   Levels alternate between increasing and decreasing block order, so
//!   the blocks read last in one level, which the pool still holds, are
//!   the first the next level looks up.
//!
//! Activations go through [`Next`]: a shared [`AtomicBitmap`] decides who
//! adds a vertex, each worker appends to its own list, and the lists are
//! combined after the barrier (see [`super::frontier`]).
//!
//! Threads: `min(threads, concurrency)` I/O workers, each with depth
//! `concurrency / workers` (the remainder spread over the first ones), so
//! the total in flight never exceeds the concurrency. CPU-only passes use
//! all `threads`.

use super::frontier::{merge_sorted, AtomicBitmap, Frontier, DENSE_DIVISOR, GRAB_UNITS};
use super::par::fan_out;
use super::{Edges, EngineConfig, Mode, Next, RunMetrics};
use crate::cache::{BlockCache, BlockKey, CacheReader};
use crate::error::{Error, Result};
use crate::io::{IoFile, IoStats};
use crate::store::blockmap::{block_span, BlockMap};
use crate::store::{Adjacency, Direction, Graph};
use crate::{BlockId, VertexId};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// A level's result of at least this many vertices is collected by all
/// threads (below it, starting threads costs more than it saves).
const PARALLEL_COLLECT: usize = 1 << 16;

/// Activations a thread takes at a time when it sets a dense result's bits.
const COLLECT_PIECE: usize = 1 << 14;

/// The synchronous engine over one graph file.
pub struct SyncEngine {
    graph: Arc<Graph>,
    io: Arc<IoFile>,
    cfg: EngineConfig,
    file_bytes: u64,
}

impl SyncEngine {
    /// Opens the graph's file for block I/O with `cfg`'s settings.
    pub fn open(graph: Arc<Graph>, cfg: EngineConfig) -> Result<SyncEngine> {
        let io = super::open_file(&graph, &cfg)?;
        let file_bytes = io.len();
        Ok(SyncEngine {
            graph,
            io,
            cfg,
            file_bytes,
        })
    }

    /// The graph.
    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// The settings.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// The file as the io layer opened it (backend, notes).
    pub fn io(&self) -> &Arc<IoFile> {
        &self.io
    }

    /// The buffer pool size a run uses, in bytes.
    pub fn cache_bytes(&self) -> u64 {
        self.cfg.cache.resolve(self.file_bytes)
    }

    /// Runs `algorithm` with a fresh (cold) buffer pool and returns its
    /// result with the run's measurements.
    pub fn run<T>(
        &self,
        algorithm: impl FnOnce(&mut Run<'_>) -> Result<T>,
    ) -> Result<(T, RunMetrics)> {
        let t0 = Instant::now();
        let cache = BlockCache::new(
            Arc::clone(&self.graph),
            Arc::clone(&self.io),
            self.cache_bytes(),
            self.cfg.merge_bytes,
        )?;
        let conc = self.cfg.concurrency;
        let workers = self.cfg.threads.min(conc).max(1);
        let mut readers = Vec::with_capacity(workers);
        for i in 0..workers {
            let depth = conc / workers + usize::from(i < conc % workers);
            let mut r = cache.reader(depth)?;
            r.set_epoch(t0);
            readers.push(r);
        }
        let n = self.graph.vertex_count();
        let mut run = Run {
            graph: &self.graph,
            cache: &cache,
            cfg: &self.cfg,
            readers,
            need: [OnceLock::new(), OnceLock::new()],
            next_bits: AtomicBitmap::new(n),
            cur_bits: AtomicBitmap::new(n),
            n,
            steps: 0,
            visits: 0,
            edges: 0,
        };
        let t1 = Instant::now();
        let out = algorithm(&mut run)?;
        let algo_s = t1.elapsed().as_secs_f64();
        let mut io = IoStats::default();
        for r in &run.readers {
            io.merge(r.io_stats());
        }
        let backend = run.readers.first().map_or("none", |r| r.backend());
        let registered = run.readers.first().is_some_and(|r| r.registered_buffers());
        let (steps, visits, edges) = (run.steps, run.visits, run.edges);
        drop(run);
        let mut m = RunMetrics::from_io(&io, &cache, self.cfg.threads, algo_s);
        m.engine = "sync";
        m.mode = match self.cfg.mode {
            Mode::Vertex => "vertex",
            Mode::Block => "block",
        };
        m.concurrency = conc;
        m.backend = backend;
        m.registered_buffers = registered;
        m.wall_s = t0.elapsed().as_secs_f64();
        m.steps = steps;
        m.visits = visits;
        m.traversed_edges = edges;
        m.bytes_per_edge = if edges > 0 {
            io.bytes as f64 / edges as f64
        } else {
            0.0
        };
        Ok((out, m))
    }
}

/// One run of an algorithm on the synchronous engine: the interface
/// algorithms are written against.
pub struct Run<'c> {
    graph: &'c Graph,
    cache: &'c BlockCache,
    cfg: &'c EngineConfig,
    readers: Vec<CacheReader<'c>>,
    need: [OnceLock<AtomicBitmap>; 2],
    next_bits: AtomicBitmap,
    cur_bits: AtomicBitmap,
    n: u64,
    steps: u64,
    visits: u64,
    edges: u64,
}

/// What one worker produced in a step.
#[derive(Default)]
struct Local {
    next: Vec<VertexId>,
    /// Activations made with [`Next::activate_new`] (no bit set).
    fresh: Vec<VertexId>,
    visits: u64,
    edges: u64,
}

/// Everything a worker of one step reads.
struct StepCtx<'s, F> {
    graph: &'s Graph,
    adj: &'s Adjacency,
    frontier: &'s Frontier,
    cur_bits: &'s AtomicBitmap,
    next_bits: &'s AtomicBitmap,
    visit: &'s F,
    /// Block mode: decides whether a vertex outside the frontier whose
    /// whole list is in a block just loaded is visited too.
    eager: Option<&'s (dyn Fn(VertexId) -> bool + Sync)>,
    base: u64,
    cursor: AtomicUsize,
    abort: AtomicBool,
}

fn dir_index(dir: Direction) -> usize {
    match dir {
        Direction::Out => 0,
        Direction::In => 1,
    }
}

impl<'c> Run<'c> {
    /// The graph (borrowed for the whole run, not just from `self`, so
    /// an algorithm can hold it across steps).
    pub fn graph(&self) -> &'c Graph {
        self.graph
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.n
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.cfg.threads
    }

    /// The processing mode.
    pub fn mode(&self) -> Mode {
        self.cfg.mode
    }

    /// Degree of `v` in direction `dir` (from the in-memory index, no I/O).
    /// `In` on a graph without reverse edges is an error.
    pub fn degree(&self, dir: Direction, v: VertexId) -> Result<u64> {
        Ok(self.graph.adjacency(dir)?.degree(v))
    }

    /// Runs `f` on every vertex, in parallel.
    pub fn for_each_vertex(&self, f: impl Fn(VertexId) + Sync) {
        super::par::for_each_vertex(self.n, self.cfg.threads, f)
    }

    /// The sum of `f` over all vertices, computed in parallel in fixed
    /// chunks added in order, so the result does not depend on threads.
    pub fn sum_f64(&self, f: impl Fn(VertexId) -> f64 + Sync) -> f64 {
        super::par::sum_f64(self.n, self.cfg.threads, f)
    }

    /// Runs one level: hands every active vertex's neighbours in direction
    /// `dir` to `visit` and returns the vertices `visit` activated.
    ///
    /// `visit(v, edges, next)` may be called several times for one vertex
    /// (once per piece of its list, see [`Edges::first`]), on any thread,
    /// in any order. Vertices without neighbours are not visited.
    pub fn step<F>(&mut self, frontier: &Frontier, dir: Direction, visit: F) -> Result<Frontier>
    where
        F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
    {
        self.step_inner(frontier, dir, None, &visit)
    }

    /// [`Run::step`] that also lets the algorithm use blocks it reads
    /// anyway: in block mode, each vertex outside the frontier whose whole
    /// list lies in a block loaded for this level is offered to
    /// `eager(v)`, and visited as well when that returns true (once per
    /// step; vertices with lists over several blocks, or kept in the
    /// index, are never offered). A BFS uses it to expand vertices found
    /// earlier in the same level while their block is in memory, instead
    /// of reading the block again next level. In vertex mode `eager` is
    /// never called and this is [`Run::step`].
    pub fn step_eager<F, E>(
        &mut self,
        frontier: &Frontier,
        dir: Direction,
        eager: E,
        visit: F,
    ) -> Result<Frontier>
    where
        F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
        E: Fn(VertexId) -> bool + Sync,
    {
        self.step_inner(frontier, dir, Some(&eager), &visit)
    }

    fn step_inner<F>(
        &mut self,
        frontier: &Frontier,
        dir: Direction,
        eager: Option<&(dyn Fn(VertexId) -> bool + Sync)>,
        visit: &F,
    ) -> Result<Frontier>
    where
        F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
    {
        let adj = self.graph.adjacency(dir)?;
        self.steps += 1;
        if frontier.is_empty() {
            return Ok(Frontier::empty());
        }
        let base = if adj.block_count() > 0 {
            self.cache.key(dir, false, BlockId(0))?.0
        } else {
            0
        };
        let ctx = StepCtx {
            graph: self.graph,
            adj,
            frontier,
            cur_bits: &self.cur_bits,
            next_bits: &self.next_bits,
            visit,
            eager,
            base,
            cursor: AtomicUsize::new(0),
            abort: AtomicBool::new(false),
        };
        let results = match self.cfg.mode {
            Mode::Vertex => fan_out(self.readers.iter_mut().collect(), |r| {
                vertex_worker(r, &ctx)
            }),
            Mode::Block => {
                let d = dir_index(dir);
                let map = adj.block_map();
                let need = self.need[d].get_or_init(|| AtomicBitmap::new(adj.block_count()));
                // Pass 1: inline lists, membership bits, needed blocks.
                let mut results =
                    fan_out((0..self.cfg.threads).collect(), |_| plan_worker(&ctx, need));
                let mut blocks: Vec<u64> = if matches!(frontier, Frontier::All(_)) {
                    (0..adj.block_count()).collect()
                } else {
                    let mut b = Vec::new();
                    need.drain_words(0, need.word_count(), &mut b);
                    b
                };
                // Elevator order: every other level walks the blocks
                // downwards, so the blocks the pool still holds from the
                // end of one level are the first the next level asks for.
                if self.steps.is_multiple_of(2) {
                    blocks.reverse();
                }
                // Pass 2: each needed block once, in order.
                ctx.cursor.store(0, Ordering::Relaxed);
                results.extend(fan_out(self.readers.iter_mut().collect(), |r| {
                    block_worker(r, &ctx, map, &blocks)
                }));
                if let Frontier::Sparse(list) = frontier {
                    for &v in list {
                        self.cur_bits.remove(v as u64);
                    }
                }
                results
            }
        };
        let mut locals = Vec::with_capacity(results.len());
        let mut first_err = None;
        for r in results {
            match r {
                Ok(l) => locals.push(l),
                Err(e) => {
                    first_err.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_err {
            // Leave no activation behind for the next step.
            for l in &locals {
                for &v in &l.next {
                    self.next_bits.remove(v as u64);
                }
            }
            return Err(e);
        }
        Ok(self.collect(locals))
    }

    fn collect(&mut self, locals: Vec<Local>) -> Frontier {
        let total: usize = locals.iter().map(|l| l.next.len() + l.fresh.len()).sum();
        for l in &locals {
            self.visits += l.visits;
            self.edges += l.edges;
        }
        // Between two levels no read is in flight: a large result is
        // built by all threads.
        let threads = if total < PARALLEL_COLLECT {
            1
        } else {
            self.cfg.threads.max(1)
        };
        if total as u64 * DENSE_DIVISOR > self.n {
            let pieces: Vec<&[VertexId]> = locals
                .iter()
                .flat_map(|l| l.fresh.chunks(COLLECT_PIECE))
                .collect();
            let cursor = AtomicUsize::new(0);
            let bits = &self.next_bits;
            fan_out((0..threads).collect(), |_| {
                while let Some(p) = pieces.get(cursor.fetch_add(1, Ordering::Relaxed)) {
                    for &v in *p {
                        bits.insert(v as u64);
                    }
                }
            });
            let bits = std::mem::replace(&mut self.next_bits, AtomicBitmap::new(self.n));
            return Frontier::Dense(bits, total as u64);
        }
        // Each thread sorts the lists of some workers (clearing the bits
        // of their checked activations); the sorted runs are then merged.
        let mut shares: Vec<Vec<Local>> = (0..threads).map(|_| Vec::new()).collect();
        for (i, l) in locals.into_iter().enumerate() {
            shares[i % threads].push(l);
        }
        let bits = &self.next_bits;
        let runs = fan_out(shares, |share| {
            let mut run = Vec::new();
            for l in share {
                for &v in &l.next {
                    bits.remove(v as u64);
                }
                run.extend_from_slice(&l.next);
                run.extend_from_slice(&l.fresh);
            }
            run.sort_unstable();
            run
        });
        let list = runs
            .into_iter()
            .reduce(|a, b| merge_sorted(a, &b))
            .unwrap_or_default();
        Frontier::Sparse(list)
    }
}

impl<F> StepCtx<'_, F>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    /// Claims the next run of frontier units; false when none is left.
    fn claim(&self, out: &mut Vec<VertexId>) -> bool {
        out.clear();
        if self.abort.load(Ordering::Relaxed) {
            return false;
        }
        let units = self.frontier.units();
        let lo = self.cursor.fetch_add(GRAB_UNITS, Ordering::Relaxed);
        if lo >= units {
            return false;
        }
        self.frontier
            .vertices(lo, (lo + GRAB_UNITS).min(units), out);
        true
    }

    fn member(&self, v: VertexId) -> bool {
        match self.frontier {
            Frontier::All(_) => true,
            Frontier::Dense(bits, _) => bits.contains(v as u64),
            Frontier::Sparse(_) => self.cur_bits.contains(v as u64),
        }
    }

    fn call(&self, v: VertexId, ids: &[VertexId], first: u64, degree: u64, local: &mut Local) {
        local.visits += 1;
        local.edges += ids.len() as u64;
        let mut next = Next {
            bits: self.next_bits,
            list: &mut local.next,
            fresh: &mut local.fresh,
        };
        (self.visit)(v, Edges { ids, first, degree }, &mut next);
    }

    /// Visits `v` if its list is kept in the index; true if it was.
    fn inline(&self, v: VertexId, local: &mut Local) -> Result<bool> {
        let Some(list) = self.adj.inline_list(v) else {
            return Ok(false);
        };
        let ids = list.ids();
        self.graph.check_list(v, ids)?;
        self.call(v, ids, 0, ids.len() as u64, local);
        Ok(true)
    }

    /// Whether `v`'s whole list is in block `b`.
    fn whole_list_in(&self, v: VertexId, b: u64) -> bool {
        self.adj.block_range(v) == Some((b, b))
    }

    /// Visits the part of `v`'s list held by block `b` (bytes `bytes`).
    fn deliver(&self, v: VertexId, b: u64, bytes: &[u8], local: &mut Local) -> Result<()> {
        let Some(piece) = self.adj.list_in_block(v, b, bytes) else {
            return Ok(());
        };
        self.graph.check_list(v, piece.ids)?;
        self.call(v, piece.ids, piece.first, piece.degree, local);
        Ok(())
    }
}

/// Vertex mode: each active vertex fetches its own blocks.
fn vertex_worker<F>(reader: &mut CacheReader<'_>, ctx: &StepCtx<'_, F>) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let local = RefCell::new(Local::default());
    let pending = RefCell::new(Pending::default());
    let failed: RefCell<Option<Error>> = RefCell::new(None);
    let mut batch = Vec::new();
    let mut at = 0;
    let mut queue: VecDeque<BlockKey> = VecDeque::new();
    let keys = std::iter::from_fn(|| loop {
        if let Some(k) = queue.pop_front() {
            return Some(k);
        }
        if at >= batch.len() {
            at = 0;
            if !ctx.claim(&mut batch) {
                return None;
            }
            continue;
        }
        let v = batch[at];
        at += 1;
        match ctx.inline(v, &mut local.borrow_mut()) {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => {
                ctx.abort.store(true, Ordering::Relaxed);
                failed.borrow_mut().get_or_insert(e);
                return None;
            }
        }
        if let Some((slot, degree)) = ctx.adj.disk_span(v) {
            let (a, b) = block_span(slot, degree);
            for blk in a..=b {
                let k = BlockKey(ctx.base + blk);
                pending.borrow_mut().push(k.0, v);
                queue.push_back(k);
            }
        }
    });
    let r = reader.fetch_iter(keys, |pin| {
        let key = pin.key();
        let v = pending.borrow_mut().pop(key).ok_or_else(|| {
            Error::Invalid(format!(
                "block key {key} arrived but no vertex asked for it"
            ))
        })?;
        ctx.deliver(v, key - ctx.base, pin.bytes(), &mut local.borrow_mut())
    });
    if let Err(e) = r {
        ctx.abort.store(true, Ordering::Relaxed);
        return Err(e);
    }
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    Ok(local.into_inner())
}

/// Block mode, pass 1: visit inline lists, record membership of a sparse
/// frontier, mark the blocks the frontier needs.
fn plan_worker<F>(ctx: &StepCtx<'_, F>, need: &AtomicBitmap) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let mut local = Local::default();
    let mut batch = Vec::new();
    let sweep = matches!(ctx.frontier, Frontier::All(_));
    let sparse = matches!(ctx.frontier, Frontier::Sparse(_));
    while ctx.claim(&mut batch) {
        for &v in &batch {
            if ctx.inline(v, &mut local)? || sweep {
                continue;
            }
            if let Some((slot, degree)) = ctx.adj.disk_span(v) {
                if sparse {
                    ctx.cur_bits.insert(v as u64);
                }
                let (a, b) = block_span(slot, degree);
                for blk in a..=b {
                    need.insert(blk);
                }
            }
        }
    }
    Ok(local)
}

/// Block mode, pass 2: read each needed block once and visit every active
/// vertex with neighbours in it.
fn block_worker<F>(
    reader: &mut CacheReader<'_>,
    ctx: &StepCtx<'_, F>,
    map: &BlockMap,
    blocks: &[u64],
) -> Result<Local>
where
    F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
{
    let mut local = Local::default();
    let mut mine: &[u64] = &[];
    let keys = std::iter::from_fn(|| loop {
        if let Some((&b, rest)) = mine.split_first() {
            mine = rest;
            return Some(BlockKey(ctx.base + b));
        }
        if ctx.abort.load(Ordering::Relaxed) {
            return None;
        }
        let lo = ctx.cursor.fetch_add(GRAB_UNITS, Ordering::Relaxed);
        if lo >= blocks.len() {
            return None;
        }
        mine = &blocks[lo..(lo + GRAB_UNITS).min(blocks.len())];
    });
    let r = reader.fetch_iter(keys, |pin| {
        let b = pin.key() - ctx.base;
        for &v in map.vertices(b) {
            if ctx.member(v) {
                ctx.deliver(v, b, pin.bytes(), &mut local)?;
            } else if let Some(eager) = ctx.eager {
                if ctx.whole_list_in(v, b) && eager(v) {
                    ctx.deliver(v, b, pin.bytes(), &mut local)?;
                }
            }
        }
        Ok(())
    });
    if let Err(e) = r {
        ctx.abort.store(true, Ordering::Relaxed);
        return Err(e);
    }
    Ok(local)
}

/// Vertices waiting for each block key (vertex mode): a multimap as an
/// intrusive list per key, so a step allocates nothing per request.
#[derive(Default)]
struct Pending {
    heads: HashMap<u64, u32, BuildHasherDefault<KeyHasher>>,
    nodes: Vec<(VertexId, u32)>,
    free: Vec<u32>,
}

const NIL: u32 = u32::MAX;

impl Pending {
    fn push(&mut self, key: u64, v: VertexId) {
        let next = self.heads.get(&key).copied().unwrap_or(NIL);
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = (v, next);
                i
            }
            None => {
                self.nodes.push((v, next));
                (self.nodes.len() - 1) as u32
            }
        };
        self.heads.insert(key, i);
    }

    fn pop(&mut self, key: u64) -> Option<VertexId> {
        let i = *self.heads.get(&key)?;
        let (v, next) = self.nodes[i as usize];
        if next == NIL {
            self.heads.remove(&key);
        } else {
            self.heads.insert(key, next);
        }
        self.free.push(i);
        Some(v)
    }
}

/// A multiplicative hash for dense integer keys.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::CacheSize;
    use crate::io::{FaultPlan, IoOptions};
    use crate::store::format::SLOTS_PER_BLOCK;
    use crate::testkit;

    fn count_reached(e: &SyncEngine) -> Result<u64> {
        let n = e.graph().vertex_count();
        e.run(|r| {
            let seen = AtomicBitmap::new(n);
            seen.insert(0);
            let mut f = Frontier::single(0);
            let mut total = 0;
            while !f.is_empty() {
                total += f.len();
                f = r.step(&f, Direction::Out, |_, edges, next| {
                    for &u in edges.ids {
                        if seen.insert(u as u64) {
                            next.activate(u);
                        }
                    }
                })?;
            }
            Ok(total)
        })
        .map(|p| p.0)
    }

    #[test]
    fn read_errors_end_the_run_with_the_block_named() {
        // About 40 blocks read one per request (no merging): at least one
        // of the two readers pushes a fifth request, whatever the
        // scheduling (a 7-block graph with merged requests sometimes
        // finished without any reader reaching five).
        let tg = testkit::grid(100, 100);
        for mode in [Mode::Vertex, Mode::Block] {
            for backend in [
                crate::io::BackendChoice::Auto,
                crate::io::BackendChoice::Pread,
            ] {
                let cfg = EngineConfig {
                    mode,
                    threads: 2,
                    concurrency: 8,
                    cache: CacheSize::Bytes(8 * 4096),
                    merge_bytes: 4096,
                    io: IoOptions {
                        backend,
                        faults: Some(FaultPlan {
                            eio_every: 5,
                            ..FaultPlan::default()
                        }),
                        ..IoOptions::default()
                    },
                };
                let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
                let err = count_reached(&e).unwrap_err();
                let msg = err.to_string();
                assert!(matches!(err, Error::Io { .. }), "{msg}");
                assert!(msg.contains("out block"), "{msg}");
            }
        }
    }

    #[test]
    fn short_reads_and_interrupts_change_nothing() {
        let tg = testkit::rmat(10, 8, 21, true);
        let clean = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
        let want = count_reached(&clean).unwrap();
        for mode in [Mode::Vertex, Mode::Block] {
            let cfg = EngineConfig {
                mode,
                threads: 2,
                concurrency: 16,
                cache: CacheSize::Bytes(16 * 4096),
                io: IoOptions {
                    faults: Some(FaultPlan {
                        short_every: 3,
                        eintr_every: 7,
                        eagain_every: 11,
                        ..FaultPlan::default()
                    }),
                    ..IoOptions::default()
                },
                ..EngineConfig::default()
            };
            let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
            assert_eq!(count_reached(&e).unwrap(), want);
        }
    }

    #[test]
    fn block_mode_reads_each_block_at_most_once_per_level() {
        let tg = testkit::rmat(11, 8, 22, true);
        let blocks = tg.graph.out().block_count();
        for cache in [CacheSize::Bytes(4096), CacheSize::Percent(100.0)] {
            let cfg = EngineConfig {
                cache,
                ..EngineConfig::default()
            };
            let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
            let n = e.graph().vertex_count();
            let ((), m) = e
                .run(|r| {
                    r.step(&Frontier::all(n), Direction::Out, |_, _, _| {})?;
                    Ok(())
                })
                .unwrap();
            assert_eq!(m.bytes_read, blocks * 4096);
        }
    }

    #[test]
    fn unchecked_and_checked_activations_make_the_same_frontiers() {
        // Every vertex activates its neighbours that are multiples of
        // `m`: once through the duplicate check, once through
        // `activate_new` with a claim bitmap; small m gives a dense next
        // frontier, large m a sparse one.
        let tg = testkit::rmat(11, 8, 23, true);
        let e = SyncEngine::open(tg.graph.clone(), EngineConfig::default()).unwrap();
        let n = e.graph().vertex_count();
        for m in [1u32, 97] {
            let (fronts, _) = e
                .run(|r| {
                    let checked = r.step(&Frontier::all(n), Direction::Out, |_, edges, next| {
                        for &u in edges.ids.iter().filter(|&&u| u % m == 0) {
                            next.activate(u);
                        }
                    })?;
                    let claimed = AtomicBitmap::new(n);
                    let fresh = r.step(&Frontier::all(n), Direction::Out, |_, edges, next| {
                        for &u in edges.ids.iter().filter(|&&u| u % m == 0) {
                            if claimed.insert(u as u64) {
                                next.activate_new(u);
                            }
                        }
                    })?;
                    Ok((checked, fresh))
                })
                .unwrap();
            assert_eq!(
                fronts.0.is_dense(),
                m == 1,
                "both frontier forms are covered"
            );
            assert_eq!(fronts.0.is_dense(), fronts.1.is_dense());
            assert_eq!(fronts.0.len(), fronts.1.len());
            assert_eq!(fronts.0.to_vec(), fronts.1.to_vec());
            assert!(!fronts.0.is_empty());
        }
    }

    #[test]
    fn eager_visits_only_whole_lists_in_loaded_blocks() {
        let tg = testkit::rmat(11, 8, 24, true);
        let adj = tg.graph.out();
        let n = tg.graph.vertex_count();
        // A frontier of a few vertices with lists on disk.
        let front: Vec<VertexId> = (0..n as VertexId)
            .filter(|&v| adj.disk_span(v).is_some())
            .step_by(97)
            .collect();
        let per = SLOTS_PER_BLOCK as u64;
        let loaded: std::collections::HashSet<u64> = front
            .iter()
            .flat_map(|&v| {
                let (slot, d) = adj.disk_span(v).unwrap();
                slot / per..=(slot + d - 1) / per
            })
            .collect();
        for mode in [Mode::Block, Mode::Vertex] {
            let cfg = EngineConfig {
                mode,
                ..EngineConfig::default()
            };
            let e = SyncEngine::open(tg.graph.clone(), cfg).unwrap();
            let offered = AtomicBitmap::new(n);
            let edges_seen: Vec<std::sync::atomic::AtomicU64> = (0..n)
                .map(|_| std::sync::atomic::AtomicU64::new(0))
                .collect();
            let frontier = Frontier::from_vertices(front.clone());
            e.run(|r| {
                r.step_eager(
                    &frontier,
                    Direction::Out,
                    |v| offered.insert(v as u64) && v % 2 == 0,
                    |v, edges, _| {
                        edges_seen[v as usize].fetch_add(edges.ids.len() as u64, Ordering::Relaxed);
                    },
                )
            })
            .unwrap();
            let offered = offered.to_vec_for_test();
            if mode == Mode::Vertex {
                assert!(offered.is_empty());
                continue;
            }
            assert!(!offered.is_empty());
            for &v in &offered {
                let (slot, d) = adj.disk_span(v as VertexId).unwrap();
                assert!(!front.contains(&(v as VertexId)));
                assert_eq!(slot / per, (slot + d - 1) / per, "a whole list");
                assert!(loaded.contains(&(slot / per)), "in a loaded block");
                let want = if v % 2 == 0 { d } else { 0 };
                assert_eq!(edges_seen[v as usize].load(Ordering::Relaxed), want);
            }
        }
    }

    #[test]
    fn bad_settings_are_refused() {
        let tg = testkit::grid(3, 3);
        for cfg in [
            EngineConfig {
                concurrency: 0,
                ..EngineConfig::default()
            },
            EngineConfig {
                threads: 0,
                ..EngineConfig::default()
            },
        ] {
            assert!(SyncEngine::open(tg.graph.clone(), cfg).is_err());
        }
    }
}

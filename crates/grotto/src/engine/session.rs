//! What both engines share: the [`Session`] over one graph file (the
//! graph, its file opened for block I/O, the settings), the start of a
//! run (a cold buffer pool and readers that split the concurrency), the
//! measurements at its end, and [`RunBase`], the part of a run every
//! algorithm sees on either engine (the graph, vertex count, threads,
//! degrees, parallel loops over vertex state). [`Engine`] is either
//! engine, for front ends that pick one per run.
//!
//! Both engines deref to their [`Session`] and both runs ([`super::Run`],
//! [`super::AsyncRun`]) to their [`RunBase`], so `engine.graph()` and
//! `run.vertex_count()` are written once.

use super::{AsyncEngine, EngineConfig, RunMetrics, SyncEngine};
use crate::cache::{BlockCache, CacheReader};
use crate::error::{Error, Result};
use crate::io::{IoFile, IoStats};
use crate::store::{Direction, Graph};
use crate::{BlockId, VertexId};
use std::sync::Arc;
use std::time::Instant;

/// Vertices per range of [`RunBase::for_ranges`]: a multiple of 64, so a
/// range covers whole words of a vertex bitmap.
pub const RANGE: u64 = 1 << 16;

/// One of the two engines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    /// The level-synchronous engine ([`SyncEngine`]).
    Sync,
    /// The asynchronous engine ([`AsyncEngine`]).
    Async,
}

impl EngineKind {
    /// `"sync"` or `"async"`.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Sync => "sync",
            EngineKind::Async => "async",
        }
    }
}

/// A graph, its file opened for block I/O, and the settings of the runs
/// an engine makes over it.
pub struct Session {
    graph: Arc<Graph>,
    io: Arc<IoFile>,
    cfg: EngineConfig,
    file_bytes: u64,
    live: Arc<RunProgress>,
}

/// How far the current run is, readable from another thread while it
/// goes (for progress bars): levels or passes started, and edges handed
/// to the algorithm so far (updated at least once per level, and every
/// 64 blocks per thread within an asynchronous pass). Reset when a run
/// starts.
#[derive(Debug, Default)]
pub struct RunProgress {
    /// Levels (sync) or passes (async) started.
    pub steps: std::sync::atomic::AtomicU64,
    /// Edges handed to the algorithm.
    pub edges: std::sync::atomic::AtomicU64,
    /// Steps the run will take in all, when the algorithm knows them
    /// ([`RunBase::expect_steps`]: a random walk its length); 0 when not.
    pub total: std::sync::atomic::AtomicU64,
}

/// Threads that can have work on `graph`: one per chunk of vertices or
/// edge block, whichever is more (at least one).
fn useful_threads(graph: &Graph) -> usize {
    let chunks = graph.vertex_count().div_ceil(super::par::CHUNK);
    let blocks = graph.out().block_count() + graph.inn().map_or(0, |a| a.block_count());
    chunks.max(blocks).clamp(1, usize::MAX as u64) as usize
}

impl Session {
    /// Checks `cfg`'s ranges and opens the graph's file for block I/O.
    pub(super) fn open(graph: Arc<Graph>, cfg: EngineConfig) -> Result<Session> {
        if cfg.concurrency == 0 || cfg.concurrency > 4096 {
            return Err(Error::Invalid(format!(
                "concurrency {} is out of range: use 1 to 4096 reads in flight",
                cfg.concurrency
            )));
        }
        if cfg.threads == 0 || cfg.threads > 1024 {
            return Err(Error::Invalid(format!(
                "{} threads is out of range: use 1 to 1024",
                cfg.threads
            )));
        }
        let io = IoFile::open_same(graph.file(), graph.path(), &cfg.io)?;
        let file_bytes = io.len();
        // No more threads than there are pieces of work: a chunk of
        // vertices or an edge block each. Starting a thread costs tens of
        // microseconds, as much as a whole run on a graph of ten vertices.
        let mut cfg = cfg;
        cfg.threads = cfg.threads.min(useful_threads(&graph));
        Ok(Session {
            graph,
            io,
            cfg,
            file_bytes,
            live: Arc::default(),
        })
    }

    /// The live progress of this engine's runs.
    pub fn progress(&self) -> Arc<RunProgress> {
        Arc::clone(&self.live)
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

    /// Bytes of the graph file.
    pub(super) fn file_bytes(&self) -> u64 {
        self.file_bytes
    }

    /// The configured buffer pool size for this file, in bytes.
    pub(super) fn configured_cache_bytes(&self) -> u64 {
        self.cfg.cache.resolve(self.file_bytes)
    }

    /// A cold buffer pool of `bytes`.
    pub(super) fn pool(&self, bytes: u64) -> Result<BlockCache> {
        BlockCache::new(
            Arc::clone(&self.graph),
            Arc::clone(&self.io),
            bytes,
            self.cfg.merge_bytes,
        )
    }

    /// A run's shared part: `readers` readers on `cache` splitting the
    /// concurrency between them (the remainder to the first ones; each
    /// at least one read deep), their clocks started at `t0`.
    pub(super) fn start<'c>(
        &'c self,
        cache: &'c BlockCache,
        readers: usize,
        t0: Instant,
    ) -> Result<RunBase<'c>> {
        self.live
            .steps
            .store(0, std::sync::atomic::Ordering::Relaxed);
        self.live
            .edges
            .store(0, std::sync::atomic::Ordering::Relaxed);
        self.live
            .total
            .store(0, std::sync::atomic::Ordering::Relaxed);
        let conc = self.cfg.concurrency;
        let count = readers.max(1);
        let mut rs = Vec::with_capacity(count);
        for i in 0..count {
            let depth = (conc / count + usize::from(i < conc % count)).max(1);
            let mut r = cache.reader(depth)?;
            r.set_epoch(t0);
            rs.push(r);
        }
        Ok(RunBase {
            graph: &self.graph,
            cache,
            cfg: &self.cfg,
            readers: rs,
            file_bytes: self.file_bytes,
            n: self.graph.vertex_count(),
            tally: Tally::default(),
            live: &self.live,
        })
    }

    /// The measurements of a run that started at `t0` and whose
    /// algorithm started at `t1`, once it is over.
    pub(super) fn finish(
        &self,
        run: RunBase<'_>,
        cache: &BlockCache,
        t0: Instant,
        t1: Instant,
        engine: &'static str,
        mode: &'static str,
    ) -> RunMetrics {
        let algo_s = t1.elapsed().as_secs_f64();
        let mut io = IoStats::default();
        for r in &run.readers {
            io.merge(r.io_stats());
        }
        let backend = run.readers.first().map_or("none", |r| r.backend());
        let registered = run.readers.first().is_some_and(|r| r.registered_buffers());
        let t = run.tally;
        drop(run);
        let mut m = RunMetrics::from_io(&io, cache, self.cfg.threads, algo_s);
        m.engine = engine;
        m.mode = mode;
        m.concurrency = self.cfg.concurrency;
        m.merge_bytes = self.cfg.merge_bytes;
        m.backend = backend;
        m.registered_buffers = registered;
        m.wall_s = t0.elapsed().as_secs_f64();
        m.steps = t.steps;
        m.visits = t.visits;
        m.traversed_edges = t.edges;
        m.block_visits = t.blocks;
        m.block_reuses = t.reuses;
        m.readahead_blocks = t.ahead;
        m.readahead_wasted = t.ahead_wasted;
        m.bytes_per_edge = if t.edges > 0 {
            io.bytes as f64 / t.edges as f64
        } else {
            0.0
        };
        m
    }
}

/// What a run counts as it goes.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tally {
    /// Levels (sync) or passes and rounds (async).
    pub(super) steps: u64,
    /// Vertex visits.
    pub(super) visits: u64,
    /// Edges handed to the algorithm.
    pub(super) edges: u64,
    /// Blocks processed (async).
    pub(super) blocks: u64,
    /// Blocks processed again while still in memory (async).
    pub(super) reuses: u64,
    /// Blocks read ahead of the wave (async, [`super::Flow::readahead`]).
    pub(super) ahead: u64,
    /// Blocks read ahead and never activated in their pass.
    pub(super) ahead_wasted: u64,
}

impl Tally {
    /// Adds `o`'s counts (not its steps).
    pub(super) fn add(&mut self, o: &Tally) {
        self.visits += o.visits;
        self.edges += o.edges;
        self.blocks += o.blocks;
        self.reuses += o.reuses;
        self.ahead += o.ahead;
        self.ahead_wasted += o.ahead_wasted;
    }
}

/// The part of one run both engines give an algorithm: the graph, the
/// vertex count, threads, degrees and parallel loops over vertex state.
pub struct RunBase<'c> {
    pub(super) graph: &'c Graph,
    pub(super) cache: &'c BlockCache,
    pub(super) cfg: &'c EngineConfig,
    pub(super) readers: Vec<CacheReader<'c>>,
    /// Length of the graph file the run reads.
    pub(super) file_bytes: u64,
    pub(super) n: u64,
    pub(super) tally: Tally,
    pub(super) live: &'c RunProgress,
}

impl<'c> RunBase<'c> {
    /// The graph (borrowed for the whole run, not just from the run, so
    /// an algorithm can hold it across steps).
    pub fn graph(&self) -> &'c Graph {
        self.graph
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.n
    }

    /// Bytes of the buffer pool this run reads through.
    pub fn cache_bytes(&self) -> u64 {
        self.cfg.cache.resolve(self.file_bytes)
    }

    /// `size` in bytes, a percentage taken of the graph file's length
    /// (as `--cache` takes it).
    pub fn resolve_size(&self, size: crate::cache::CacheSize) -> u64 {
        match size {
            crate::cache::CacheSize::Bytes(b) => b,
            crate::cache::CacheSize::Percent(p) => (self.file_bytes as f64 * p / 100.0) as u64,
        }
    }

    /// Worker threads.
    pub fn threads(&self) -> usize {
        self.cfg.threads
    }

    /// The settings the run's engine was opened with (for an engine over
    /// another graph that runs alike: a multilevel algorithm's scratch
    /// level).
    pub fn engine_config(&self) -> &super::EngineConfig {
        self.cfg
    }

    /// Degree of `v` in direction `dir` (from the in-memory index, no
    /// I/O). `In` on a graph without reverse edges is an error.
    pub fn degree(&self, dir: Direction, v: VertexId) -> Result<u64> {
        Ok(self.graph.adjacency(dir)?.degree(v))
    }

    /// Tells progress readers ([`RunProgress`]) how many steps (levels
    /// or passes) the run will take in all, for an algorithm that knows
    /// ahead: a long run then shows how far it is, not only that it goes.
    pub fn expect_steps(&self, steps: u64) {
        self.live
            .total
            .store(steps, std::sync::atomic::Ordering::Relaxed);
    }

    /// Runs `f` on every vertex, in parallel.
    pub fn for_each_vertex(&self, f: impl Fn(VertexId) + Sync) {
        super::par::for_each_vertex(self.n, self.cfg.threads, f)
    }

    /// `f` of every vertex, in order, computed in parallel and written in
    /// place (on rayon's global pool, which the CLI sizes by
    /// `--threads`): for per-vertex state of several bytes a vertex,
    /// whose first writes (page faults and all) cost more than a serial
    /// loop should spend. Huge pages are requested ([`crate::io::huge`]).
    pub fn collect<T: Send>(&self, f: impl Fn(VertexId) -> T + Sync + Send) -> Vec<T> {
        use rayon::prelude::*;
        let mut out = crate::io::huge::with_capacity(self.n as usize);
        (0..self.n as usize)
            .into_par_iter()
            .with_min_len(super::par::CHUNK as usize)
            .map(|v| f(v as VertexId))
            .collect_into_vec(&mut out);
        out
    }

    /// Per-vertex state whose values start as all zero bits, allocated
    /// zeroed: the kernel maps a page when it is first touched, so a
    /// run that touches few vertices (a push from one source) pays for
    /// those pages only, where [`RunBase::collect`] writes every one.
    /// Huge pages are requested ([`crate::io::huge`]).
    pub fn zeroed<T: bytemuck::Zeroable>(&self) -> Result<Vec<T>> {
        crate::io::huge::zeroed_vec(self.n as usize).ok_or_else(|| Error::Limit {
            what: format!(
                "{} bytes of per-vertex state cannot be allocated",
                self.n.saturating_mul(std::mem::size_of::<T>() as u64)
            ),
        })
    }

    /// Runs `f(lo, part)` on `out` (one value per vertex) cut into fixed
    /// ranges of [`RANGE`] vertices, `lo` the first vertex of `part`, in
    /// parallel on rayon's global pool; returns the results in range
    /// order (so a sum of them does not depend on the threads).
    pub fn for_ranges<T: Send, R: Send>(
        &self,
        out: &mut [T],
        f: impl Fn(u64, &mut [T]) -> R + Sync + Send,
    ) -> Vec<R> {
        use rayon::prelude::*;
        out.par_chunks_mut(RANGE as usize)
            .enumerate()
            .map(|(k, part)| f(k as u64 * RANGE, part))
            .collect()
    }

    /// The sum of `f` over all vertices, computed in parallel in fixed
    /// chunks added in order, so the result does not depend on threads.
    pub fn sum_f64(&self, f: impl Fn(VertexId) -> f64 + Sync) -> f64 {
        super::par::sum_f64(self.n, self.cfg.threads, f)
    }

    /// `K` sums over all vertices in one pass, each as
    /// [`RunBase::sum_f64`] computes it.
    pub fn sum_f64s<const K: usize>(&self, f: impl Fn(VertexId) -> [f64; K] + Sync) -> [f64; K] {
        super::par::sum_f64s(self.n, self.cfg.threads, f)
    }

    /// The pool key of block 0 of `dir`'s edge blocks (or its weight
    /// blocks); block `b` is this plus `b`. 0 when there are no blocks.
    pub(super) fn first_key(&self, dir: Direction, weights: bool) -> Result<u64> {
        if self.graph.adjacency(dir)?.block_count() == 0 {
            return Ok(0);
        }
        Ok(self.cache.key(dir, weights, BlockId(0))?.0)
    }
}

/// 0 for out-edges, 1 for in-edges: the index of per-direction state.
pub(super) fn dir_index(dir: Direction) -> usize {
    match dir {
        Direction::Out => 0,
        Direction::In => 1,
    }
}

/// The values of workers' results, and the first error among them.
pub(super) fn split_errors<T>(results: Vec<Result<T>>) -> (Vec<T>, Option<Error>) {
    let mut ok = Vec::with_capacity(results.len());
    let mut first_err = None;
    for r in results {
        match r {
            Ok(x) => ok.push(x),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    (ok, first_err)
}

/// Either engine, opened for a run.
pub enum Engine {
    /// The synchronous engine.
    Sync(SyncEngine),
    /// The asynchronous engine.
    Async(AsyncEngine),
}

impl Engine {
    /// Opens the engine of `kind` over `graph`.
    pub fn open(kind: EngineKind, graph: Arc<Graph>, cfg: EngineConfig) -> Result<Engine> {
        Ok(match kind {
            EngineKind::Sync => Engine::Sync(SyncEngine::open(graph, cfg)?),
            EngineKind::Async => Engine::Async(AsyncEngine::open(graph, cfg)?),
        })
    }

    /// Which engine this is.
    pub fn kind(&self) -> EngineKind {
        match self {
            Engine::Sync(_) => EngineKind::Sync,
            Engine::Async(_) => EngineKind::Async,
        }
    }

    /// The buffer pool size a run uses, in bytes.
    pub fn cache_bytes(&self) -> u64 {
        match self {
            Engine::Sync(e) => e.cache_bytes(),
            Engine::Async(e) => e.cache_bytes(),
        }
    }
}

impl std::ops::Deref for Engine {
    type Target = Session;
    fn deref(&self) -> &Session {
        match self {
            Engine::Sync(e) => e,
            Engine::Async(e) => e,
        }
    }
}

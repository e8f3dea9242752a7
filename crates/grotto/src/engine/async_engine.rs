//! The asynchronous block-centric engine (after ACGraph): no level
//! barrier; blocks are the unit of scheduling and I/O, taken in priority
//! order, and a block reactivated while in memory is processed again
//! before it is let go.
//!
//! # How a pass runs
//!
//! An algorithm calls [`AsyncRun::flow`] with seeds and two functions:
//! `apply(v) -> Option<message>` runs when an active vertex is processed
//! (it reads and updates `v`'s state and says what to send), and
//! `propagate(message, edge) -> Option<Priority>` runs for each of `v`'s
//! neighbours (it updates the neighbour's state and, by returning a
//! priority, activates it). The pass ends when no vertex is active and no
//! read is in flight.
//!
//! Every executor thread owns a [`CacheReader`] (io_uring when available)
//! with its share of the concurrency. It loops: process a batch of active
//! vertices whose lists live in the index (no I/O), then one
//! [`CacheReader::pump`] round that claims the best queued blocks while
//! it has room for reads (hits are processed at once, adjacent misses
//! merge into one request) and processes every block whose read has
//! landed. It blocks on its own reads only when a round moved nothing,
//! and sleeps at the `Gate` only when it holds no work, no read and the
//! queue is empty; the last executor to finish work wakes everyone.
//!
//! Termination is exact: a counter holds the blocks that are not idle,
//! the seeded index-resident vertices no executor has claimed yet, and
//! one unit per executor whose private queue of index-resident vertices
//! is not drained (given back only after the last of them ran). Only
//! work that is itself counted can activate more, so the counter
//! reaching zero means nothing is active and nothing is in flight.
//!
//! A vertex whose list spans several blocks is applied once, in its first
//! block; the message is queued for each later block as a continuation
//! (and that block activated), so `apply` runs exactly once per
//! activation whatever the list length.
//!
//! [`Flow::rounds`] gives the synchronous mode on the same machinery:
//! activations go to the next round's set, and a round ends when its
//! blocks are done.

use super::frontier::AtomicBitmap;
use super::local::LocalQueue;
use super::par::fan_out;
use super::schedule::{
    BlockQueue, BlockStates, Cursor, Gate, Priority, AGAIN, IDLE, LOADING, PROCESSING, QUEUED,
};
use super::{EngineConfig, RunMetrics};
use crate::cache::{BlockCache, BlockKey, CacheReader, Pinned};
use crate::error::{Error, Result};
use crate::io::{IoFile, IoStats};
use crate::store::blockmap::{block_span, BlockMap};
use crate::store::format::SLOTS_PER_BLOCK;
use crate::store::{Adjacency, Direction, Graph};
use crate::{BlockId, VertexId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// One neighbour entry handed to `propagate`.
#[derive(Clone, Copy, Debug)]
pub struct Edge {
    /// The vertex being processed.
    pub src: VertexId,
    /// Its neighbour.
    pub dst: VertexId,
    /// The edge's weight (1.0 unless [`Flow::weights`] is set).
    pub weight: f32,
}

/// A run of one vertex's neighbours handed to the `spread` function of
/// [`AsyncRun::flow_runs`]: the part of the list held by one block (or
/// the whole list, when it is short).
#[derive(Clone, Copy, Debug)]
pub struct Neighbours<'a> {
    /// The vertex being processed.
    pub src: VertexId,
    /// Its neighbours in this run.
    pub ids: &'a [VertexId],
    /// Their edge weights, when [`Flow::weights`] is set.
    pub weights: Option<&'a [f32]>,
}

/// Where the `spread` function of [`AsyncRun::flow_runs`] activates the
/// neighbours it changed.
pub struct Activate<'a> {
    sink: &'a mut dyn FnMut(VertexId, Priority),
}

impl Activate<'_> {
    /// Activates `v` with priority `p` (as `propagate` returning
    /// `Some(p)` for it would).
    #[inline]
    pub fn activate(&mut self, v: VertexId, p: Priority) {
        (self.sink)(v, p)
    }
}

/// How a message travels along a run of neighbours: edge by edge (the
/// `propagate` of [`AsyncRun::flow`]) or a run at once
/// ([`AsyncRun::flow_runs`]).
trait Spread<M>: Sync {
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority));
}

/// [`Spread`] by a function of one edge.
struct PerEdge<P>(P);

impl<M: Copy, P: Fn(M, Edge) -> Option<Priority> + Sync> Spread<M> for PerEdge<P> {
    #[inline]
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority)) {
        for (k, &u) in run.ids.iter().enumerate() {
            let weight = run.weights.map_or(1.0, |w| w[k]);
            let edge = Edge {
                src: run.src,
                dst: u,
                weight,
            };
            if let Some(p) = (self.0)(msg, edge) {
                activate(u, p);
            }
        }
    }
}

/// [`Spread`] by a function of a whole run.
struct PerRun<P>(P);

impl<M, P: Fn(M, Neighbours<'_>, &mut Activate<'_>) + Sync> Spread<M> for PerRun<P> {
    #[inline]
    fn spread(&self, msg: M, run: Neighbours<'_>, activate: &mut impl FnMut(VertexId, Priority)) {
        (self.0)(msg, run, &mut Activate { sink: activate })
    }
}

/// How a pass runs.
#[derive(Clone, Debug)]
pub struct Flow {
    /// Which lists a processed vertex sends along (default: out-edges).
    pub dir: Direction,
    /// Read the weight blocks too and pass weights in [`Edge::weight`]
    /// (default: no; an error on an unweighted graph).
    pub weights: bool,
    /// Synchronous mode: vertices activated in a round run in the next
    /// round (default: no, fully asynchronous).
    pub rounds: bool,
    /// Times a block reactivated while in memory is processed again
    /// before it is queued like any other block (default 16; ACGraph's
    /// early stop).
    pub reuse: u32,
}

impl Default for Flow {
    fn default() -> Flow {
        Flow {
            dir: Direction::Out,
            weights: false,
            rounds: false,
            reuse: 16,
        }
    }
}

/// The vertices a pass starts from.
#[derive(Clone, Copy)]
pub enum Seeds<'s> {
    /// Every vertex, with one priority.
    All(Priority),
    /// Every vertex, with the priority the function gives it.
    AllWith(&'s (dyn Fn(VertexId) -> Priority + Sync)),
    /// The vertices the function gives a priority, with that priority
    /// (no list of them is built: the engine asks about every vertex in
    /// parallel).
    Where(&'s (dyn Fn(VertexId) -> Option<Priority> + Sync)),
    /// These vertices and priorities (ids out of range are ignored).
    List(&'s [(VertexId, Priority)]),
}

/// The asynchronous engine over one graph file.
pub struct AsyncEngine {
    graph: Arc<Graph>,
    io: Arc<IoFile>,
    cfg: EngineConfig,
    file_bytes: u64,
}

impl AsyncEngine {
    /// Opens the graph's file for block I/O with `cfg`'s settings
    /// (`cfg.mode` does not apply: the engine is block-centric).
    pub fn open(graph: Arc<Graph>, cfg: EngineConfig) -> Result<AsyncEngine> {
        let io = super::open_file(&graph, &cfg)?;
        let file_bytes = io.len();
        Ok(AsyncEngine {
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

    /// The file as the io layer opened it.
    pub fn io(&self) -> &Arc<IoFile> {
        &self.io
    }

    /// The buffer pool size a run uses, in bytes: the configured size, but
    /// at least four slots per read in flight (an executor holds a block
    /// and its weights while more reads land).
    pub fn cache_bytes(&self) -> u64 {
        let floor = (4 * self.cfg.concurrency + 4 * self.cfg.threads) as u64
            * crate::cache::SLOT_BYTES as u64;
        self.cfg.cache.resolve(self.file_bytes).max(floor)
    }

    /// Runs `algorithm` with a fresh (cold) buffer pool and returns its
    /// result with the run's measurements.
    pub fn run<T>(
        &self,
        algorithm: impl FnOnce(&mut AsyncRun<'_>) -> Result<T>,
    ) -> Result<(T, RunMetrics)> {
        let t0 = Instant::now();
        let cache = BlockCache::new(
            Arc::clone(&self.graph),
            Arc::clone(&self.io),
            self.cache_bytes(),
            self.cfg.merge_bytes,
        )?;
        let conc = self.cfg.concurrency;
        let threads = self.cfg.threads;
        let mut readers = Vec::with_capacity(threads);
        for i in 0..threads {
            let depth = (conc / threads + usize::from(i < conc % threads)).max(1);
            let mut r = cache.reader(depth)?;
            r.set_epoch(t0);
            readers.push(r);
        }
        let n = self.graph.vertex_count();
        let mut run = AsyncRun {
            graph: &self.graph,
            cache: &cache,
            cfg: &self.cfg,
            readers,
            states: [OnceLock::new(), OnceLock::new()],
            active: AtomicBitmap::new(n),
            next: AtomicBitmap::new(n),
            n,
            counts: Counts::default(),
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
        let c = run.counts;
        drop(run);
        let mut m = RunMetrics::from_io(&io, &cache, threads, algo_s);
        m.engine = "async";
        m.mode = "block";
        m.concurrency = conc;
        m.backend = backend;
        m.registered_buffers = registered;
        m.wall_s = t0.elapsed().as_secs_f64();
        m.steps = c.rounds;
        m.visits = c.visits;
        m.traversed_edges = c.edges;
        m.block_visits = c.blocks;
        m.block_reuses = c.reuses;
        m.bytes_per_edge = if c.edges > 0 {
            io.bytes as f64 / c.edges as f64
        } else {
            0.0
        };
        Ok((out, m))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    rounds: u64,
    visits: u64,
    edges: u64,
    blocks: u64,
    reuses: u64,
}

/// One run of an algorithm on the asynchronous engine.
pub struct AsyncRun<'c> {
    graph: &'c Graph,
    cache: &'c BlockCache,
    cfg: &'c EngineConfig,
    readers: Vec<CacheReader<'c>>,
    states: [OnceLock<BlockStates>; 2],
    active: AtomicBitmap,
    next: AtomicBitmap,
    n: u64,
    counts: Counts,
}

fn dir_index(dir: Direction) -> usize {
    match dir {
        Direction::Out => 0,
        Direction::In => 1,
    }
}

impl<'c> AsyncRun<'c> {
    /// The graph (borrowed for the whole run).
    pub fn graph(&self) -> &'c Graph {
        self.graph
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.n
    }

    /// Executor threads.
    pub fn threads(&self) -> usize {
        self.cfg.threads
    }

    /// Passes and rounds run so far (a pass in rounds mode counts each
    /// round).
    pub fn rounds(&self) -> u64 {
        self.counts.rounds
    }

    /// Degree of `v` in direction `dir` (from the in-memory index).
    pub fn degree(&self, dir: Direction, v: VertexId) -> Result<u64> {
        Ok(self.graph.adjacency(dir)?.degree(v))
    }

    /// Runs `f` on every vertex, in parallel.
    pub fn for_each_vertex(&self, f: impl Fn(VertexId) + Sync) {
        super::par::for_each_vertex(self.n, self.cfg.threads, f)
    }

    /// The vertices left active after the last flow: those activated with
    /// [`Priority::DEFER`] whose block did not run after it (empty if no
    /// flow deferred any). They stay active and run when their block next
    /// runs, in a later flow of this run.
    pub fn active_vertices(&self) -> Vec<VertexId> {
        let mut out = Vec::new();
        self.active
            .members_in_words(0, self.active.word_count(), &mut out);
        out.into_iter().map(|v| v as VertexId).collect()
    }

    /// The sum of `f` over all vertices, independent of the thread count.
    pub fn sum_f64(&self, f: impl Fn(VertexId) -> f64 + Sync) -> f64 {
        super::par::sum_f64(self.n, self.cfg.threads, f)
    }

    /// Runs a pass from `seeds` until no vertex is active: each active
    /// vertex `v` is processed by `apply(v)`, and when that returns a
    /// message, `propagate(message, edge)` runs for each neighbour in
    /// `flow.dir`; a `Some(priority)` activates the neighbour (again, if
    /// it already ran). Activating an active vertex only improves its
    /// block's priority; [`Priority::DEFER`] marks the neighbour active
    /// without scheduling its block (the pass ends when no scheduled work
    /// is left). Both functions run on several threads at once, so vertex
    /// state lives in atomics.
    pub fn flow<M, A, P>(
        &mut self,
        flow: &Flow,
        seeds: Seeds<'_>,
        apply: A,
        propagate: P,
    ) -> Result<()>
    where
        M: Copy + Send,
        A: Fn(VertexId) -> Option<M> + Sync,
        P: Fn(M, Edge) -> Option<Priority> + Sync,
    {
        self.flow_with(flow, seeds, apply, PerEdge(propagate))
    }

    /// [`AsyncRun::flow`] with `spread(message, neighbours, activate)`
    /// called once per run of a vertex's neighbours instead of once per
    /// edge; it calls `activate.activate(u, priority)` for each neighbour
    /// it activates. For algorithms whose per-edge test is cheap enough
    /// that the call and its branch dominate: a run can be probed without
    /// branching on each answer, so the CPU overlaps the cache misses.
    ///
    /// Connected components of an undirected graph by label propagation,
    /// smallest label first:
    ///
    /// ```
    /// use grotto::engine::{AsyncEngine, EngineConfig, Flow, Priority, Seeds};
    /// use grotto::store::Graph;
    /// use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
    /// use std::sync::Arc;
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let dir = tempfile::tempdir()?;
    /// # let path = dir.path().join("two.grotto");
    /// # let text = dir.path().join("two.el");
    /// # std::fs::write(&text, "0 1\n1 2\n3 4\n")?;
    /// # let opts = grotto::ingest::ConvertOptions { undirected: true, ..Default::default() };
    /// # grotto::ingest::convert(&grotto::ingest::Input::path(&text), &path, &opts)?;
    /// let engine = AsyncEngine::open(Arc::new(Graph::open(&path)?), EngineConfig::default())?;
    /// let n = engine.graph().vertex_count();
    /// let (labels, _metrics) = engine.run(|run| {
    ///     let label: Vec<AtomicU32> = (0..n as u32).map(AtomicU32::new).collect();
    ///     run.flow_runs(
    ///         &Flow::default(),
    ///         Seeds::AllWith(&|v| Priority(v)),
    ///         |v| Some(label[v as usize].load(Relaxed)),
    ///         |l, nb, act| {
    ///             for &u in nb.ids {
    ///                 if l < label[u as usize].fetch_min(l, Relaxed) {
    ///                     act.activate(u, Priority(l));
    ///                 }
    ///             }
    ///         },
    ///     )?;
    ///     Ok(label.into_iter().map(|a| a.into_inner()).collect::<Vec<_>>())
    /// })?;
    /// assert_eq!(labels, vec![0, 0, 0, 3, 3]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn flow_runs<M, A, S>(
        &mut self,
        flow: &Flow,
        seeds: Seeds<'_>,
        apply: A,
        spread: S,
    ) -> Result<()>
    where
        M: Copy + Send,
        A: Fn(VertexId) -> Option<M> + Sync,
        S: Fn(M, Neighbours<'_>, &mut Activate<'_>) + Sync,
    {
        self.flow_with(flow, seeds, apply, PerRun(spread))
    }

    fn flow_with<M, A, S>(
        &mut self,
        flow: &Flow,
        seeds: Seeds<'_>,
        apply: A,
        spread: S,
    ) -> Result<()>
    where
        M: Copy + Send,
        A: Fn(VertexId) -> Option<M> + Sync,
        S: Spread<M>,
    {
        let adj = self.graph.adjacency(flow.dir)?;
        if flow.weights && !self.graph.weighted() {
            return Err(Error::Invalid(
                "this algorithm needs edge weights, and the graph has none (convert a \
                 weighted edge list with --weighted)"
                    .into(),
            ));
        }
        let blocks = adj.block_count();
        if blocks > u32::MAX as u64 {
            return Err(Error::Limit {
                what: format!(
                    "{blocks} edge blocks: the asynchronous engine schedules at most 2^32"
                ),
            });
        }
        let d = dir_index(flow.dir);
        let map = adj.block_map();
        let st = self.states[d].get_or_init(|| BlockStates::new(blocks));
        let (base, wbase) = if blocks > 0 {
            (
                self.cache.key(flow.dir, false, BlockId(0))?.0,
                if flow.weights {
                    Some(self.cache.key(flow.dir, true, BlockId(0))?.0)
                } else {
                    None
                },
            )
        } else {
            (0, None)
        };
        let mut owned: Vec<(VertexId, Priority)> = Vec::new();
        let mut first = Some(seeds);
        loop {
            let seeds = match first.take() {
                Some(s) => s,
                None => Seeds::List(&owned),
            };
            self.counts.rounds += 1;
            let mut pass = Pass {
                graph: self.graph,
                adj,
                map,
                st,
                active: &self.active,
                next: flow.rounds.then_some(&self.next),
                base,
                wbase,
                blocks,
                n: self.n,
                queue: BlockQueue::new(self.cfg.threads),
                gate: Gate::new(),
                outstanding: AtomicI64::new(0),
                abort: AtomicBool::new(false),
                conts: (0..CONT_SHARDS)
                    .map(|_| Mutex::new(HashMap::new()))
                    .collect(),
                conts_len: AtomicUsize::new(0),
                seeds: Vec::new(),
                seed_cursor: AtomicUsize::new(0),
                apply: &apply,
                spread: &spread,
                reuse: flow.reuse,
                run_blocks: self.cache.merge_blocks() as u64,
            };
            pass.seed(seeds, self.cfg.threads);
            let pass = &pass;
            let results = fan_out(self.readers.iter_mut().enumerate().collect(), |(i, r)| {
                pass.executor(r, i as u64 + 1)
            });
            let mut first_err = None;
            for r in results {
                match r {
                    Ok(c) => {
                        self.counts.visits += c.visits;
                        self.counts.edges += c.edges;
                        self.counts.blocks += c.blocks;
                        self.counts.reuses += c.reuses;
                    }
                    Err(e) => {
                        first_err.get_or_insert(e);
                    }
                }
            }
            if let Some(e) = first_err {
                st.reset();
                let (a, b) = (self.active.word_count(), self.next.word_count());
                let mut sink = Vec::new();
                self.active.drain_words(0, a, &mut sink);
                sink.clear();
                self.next.drain_words(0, b, &mut sink);
                return Err(e);
            }
            if !flow.rounds {
                return Ok(());
            }
            let mut list = Vec::new();
            self.next.drain_words(0, self.next.word_count(), &mut list);
            if list.is_empty() {
                return Ok(());
            }
            owned = list
                .into_iter()
                .map(|v| (v as VertexId, Priority::FIRST))
                .collect();
        }
    }
}

/// Shards of the continuation table.
const CONT_SHARDS: usize = 64;
/// Index-resident vertices an executor runs between two pump rounds.
const INLINE_BATCH: usize = 256;
/// Seeded index-resident vertices an executor claims at a time.
const SEED_CLAIM: usize = 1024;
/// Seeds a seeding worker takes at a time.
const SEED_CHUNK: usize = 1 << 14;

type Conts<M> = Mutex<HashMap<u64, Vec<(VertexId, M)>>>;

/// Everything the executors of one pass share.
struct Pass<'p, M, A, S> {
    graph: &'p Graph,
    adj: &'p Adjacency,
    map: &'p BlockMap,
    st: &'p BlockStates,
    active: &'p AtomicBitmap,
    next: Option<&'p AtomicBitmap>,
    base: u64,
    wbase: Option<u64>,
    blocks: u64,
    n: u64,
    queue: BlockQueue,
    gate: Gate,
    /// Blocks not idle, unclaimed index-resident seeds, and one per
    /// executor queue of index-resident vertices not yet drained.
    outstanding: AtomicI64,
    abort: AtomicBool,
    conts: Vec<Conts<M>>,
    conts_len: AtomicUsize,
    seeds: Vec<(u32, VertexId)>,
    seed_cursor: AtomicUsize,
    apply: &'p A,
    spread: &'p S,
    reuse: u32,
    /// Blocks one merged read holds (the device profile's merge size).
    run_blocks: u64,
}

/// One executor's private state.
struct Exec<'c> {
    local: LocalQueue,
    /// Whether `local` holds its one unit of the pass's outstanding work
    /// (taken when it gets its first vertex, given back when it is
    /// drained), so its vertices cost no shared counter update each.
    held: bool,
    halves: HashMap<u64, (Option<Pinned<'c>>, Option<Pinned<'c>>)>,
    counts: Counts,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<'p, M, A, S> Pass<'p, M, A, S>
where
    M: Copy + Send,
    A: Fn(VertexId) -> Option<M> + Sync,
    S: Spread<M>,
{
    /// The block holding the start of `v`'s list, if it is on disk.
    #[inline]
    fn first_block(&self, v: VertexId) -> Option<u64> {
        self.adj.block_range(v).map(|(first, _)| first)
    }

    /// Activates the seeds with `threads` threads: blocks holding a seed
    /// are queued with their seeds' best priority, index-resident seeds
    /// are listed in priority order for the executors to claim.
    fn seed(&mut self, seeds: Seeds<'_>, threads: usize) {
        let (len, filled) = match seeds {
            Seeds::List(l) => (l.len(), false),
            Seeds::Where(_) => (self.n as usize, false),
            Seeds::All(_) | Seeds::AllWith(_) => (self.n as usize, true),
        };
        if filled {
            self.active.fill();
        }
        let cursor = AtomicUsize::new(0);
        let this = &*self;
        // Per worker: its chunks' index-resident seeds, keyed by where
        // each chunk starts, and the blocks it queued.
        let parts = fan_out((0..threads.max(1)).collect(), |_| {
            let (mut inline, mut queued) = (Vec::new(), Vec::new());
            loop {
                let lo = cursor.fetch_add(SEED_CHUNK, Ordering::Relaxed);
                if lo >= len {
                    return (inline, queued);
                }
                let mut mine = Vec::new();
                for i in lo..(lo + SEED_CHUNK).min(len) {
                    let (v, p) = match seeds {
                        Seeds::All(p) => (i as VertexId, p),
                        Seeds::AllWith(f) => (i as VertexId, f(i as VertexId)),
                        Seeds::Where(f) => match f(i as VertexId) {
                            Some(p) => (i as VertexId, p),
                            None => continue,
                        },
                        Seeds::List(l) => match l[i] {
                            (v, p) if (v as u64) < this.n => (v, p),
                            _ => continue,
                        },
                    };
                    let p = p.min(Priority::LAST);
                    let new = filled || this.active.insert(v as u64);
                    match this.first_block(v) {
                        Some(b) => {
                            // Look before writing: most seeds share their
                            // block with others, and a write would take the
                            // line from the other workers.
                            let i = b as usize;
                            if p.0 < this.st.prio[i].load(Ordering::Relaxed) {
                                this.st.prio[i].fetch_min(p.0, Ordering::Relaxed);
                            }
                            if this.st.state[i].load(Ordering::Relaxed) == IDLE
                                && this.st.state[i]
                                    .compare_exchange(
                                        IDLE,
                                        QUEUED,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                queued.push(b);
                            }
                        }
                        None if new => mine.push((p.0, v)),
                        None => {}
                    }
                }
                inline.push((lo, mine));
            }
        });
        // No executor runs yet: every count and priority is final here.
        let (mut chunks, mut blocks) = (Vec::new(), Vec::new());
        for (inline, queued) in parts {
            chunks.extend(inline);
            blocks.push(queued);
        }
        chunks.sort_unstable_by_key(|c| c.0);
        let mut list: Vec<(u32, VertexId)> = chunks.into_iter().flat_map(|c| c.1).collect();
        if !list.is_sorted() {
            list.sort_unstable();
        }
        let queued: usize = blocks.iter().map(Vec::len).sum();
        self.outstanding
            .fetch_add((queued + list.len()) as i64, Ordering::SeqCst);
        self.seeds = list;
        let this = &*self;
        fan_out(blocks, |bs| {
            for b in bs {
                this.queue
                    .push(b, this.st.prio[b as usize].load(Ordering::Relaxed));
            }
        });
    }

    fn seeds_left(&self) -> bool {
        self.seed_cursor.load(Ordering::Relaxed) < self.seeds.len()
    }

    fn claim_seeds(&self, x: &mut Exec<'_>) {
        if !self.seeds_left() {
            return;
        }
        let lo = self.seed_cursor.fetch_add(SEED_CLAIM, Ordering::Relaxed);
        let mine = &self.seeds[lo.min(self.seeds.len())..(lo + SEED_CLAIM).min(self.seeds.len())];
        if mine.is_empty() {
            return;
        }
        // Each seed was counted on its own; the queue's unit covers them
        // once it is held.
        self.hold(x);
        for &(p, v) in mine {
            x.local.push(p, v);
        }
        self.outstanding
            .fetch_sub(mine.len() as i64, Ordering::SeqCst);
    }

    /// Makes the executor's queue hold its unit of outstanding work.
    #[inline]
    fn hold(&self, x: &mut Exec<'_>) {
        if !x.held {
            x.held = true;
            self.outstanding.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Activates `u` with priority `p`.
    #[inline]
    fn activate(&self, u: VertexId, p: Priority, x: &mut Exec<'_>) {
        if let Some(next) = self.next {
            next.insert(u as u64);
            return;
        }
        let new = self.active.insert(u as u64);
        match self.first_block(u) {
            Some(_) if p == Priority::DEFER => {}
            Some(b) => self.block_activate(b, p),
            None => {
                if new {
                    self.hold(x);
                    x.local.push(p.min(Priority::LAST).0, u);
                }
            }
        }
    }

    /// Makes block `b` (re)run with priority at most `p`.
    fn block_activate(&self, b: u64, p: Priority) {
        let i = b as usize;
        let old = self.st.prio[i].fetch_min(p.0, Ordering::AcqRel);
        let s = &self.st.state[i];
        let mut cur = s.load(Ordering::Acquire);
        loop {
            match cur {
                IDLE => match s.compare_exchange(IDLE, QUEUED, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => {
                        self.outstanding.fetch_add(1, Ordering::SeqCst);
                        self.queue
                            .push(b, self.st.prio[i].load(Ordering::Acquire).min(p.0));
                        self.gate.wake();
                        return;
                    }
                    Err(c) => cur = c,
                },
                QUEUED => {
                    if p.0 < old {
                        self.queue.push(b, p.0);
                    }
                    return;
                }
                PROCESSING => {
                    match s.compare_exchange(PROCESSING, AGAIN, Ordering::AcqRel, Ordering::Acquire)
                    {
                        Ok(_) => return,
                        Err(c) => cur = c,
                    }
                }
                _ => return, // LOADING or AGAIN: it will look at its vertices
            }
        }
    }

    fn finished_one(&self) {
        if self.outstanding.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.gate.wake();
        }
    }

    fn fail(&self) {
        self.abort.store(true, Ordering::SeqCst);
        self.gate.wake();
    }

    /// Sends `msg` along `ids` (with `weights`, if read).
    #[inline]
    fn send(
        &self,
        v: VertexId,
        ids: &[VertexId],
        weights: Option<&[f32]>,
        msg: M,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        self.graph.check_list(v, ids)?;
        x.counts.edges += ids.len() as u64;
        let run = Neighbours {
            src: v,
            ids,
            weights,
        };
        self.spread
            .spread(msg, run, &mut |u, p| self.activate(u, p, x));
        Ok(())
    }

    /// Runs an active vertex whose list is kept in the index (or empty).
    fn run_inline(&self, v: VertexId, x: &mut Exec<'_>) -> Result<()> {
        if self.active.take(v as u64) {
            x.counts.visits += 1;
            if let Some(msg) = (self.apply)(v) {
                let list = self.adj.inline_list(v);
                let ids = list.as_ref().map_or(&[][..], |l| l.ids());
                self.send(v, ids, None, msg, x)?;
            }
        }
        Ok(())
    }

    /// Sends `msg` along the part of `v`'s list held by block `b`.
    fn piece(
        &self,
        v: VertexId,
        b: u64,
        eb: &[u8],
        wb: Option<&[u8]>,
        msg: M,
        x: &mut Exec<'_>,
    ) -> Result<()> {
        let Some(piece) = self.adj.list_in_block(v, b, eb) else {
            return Ok(());
        };
        let ws = wb.map(|w| &bytemuck::cast_slice::<u8, f32>(w)[piece.range.clone()]);
        self.send(v, piece.ids, ws, msg, x)
    }

    /// Processes every active vertex whose list starts in block `b` and
    /// every continuation queued for it.
    fn scan(&self, b: u64, eb: &[u8], wb: Option<&[u8]>, bp: u32, x: &mut Exec<'_>) -> Result<()> {
        x.counts.blocks += 1;
        if self.conts_len.load(Ordering::Acquire) > 0 {
            let taken = lock(&self.conts[b as usize % CONT_SHARDS]).remove(&b);
            if let Some(list) = taken {
                self.conts_len.fetch_sub(list.len(), Ordering::AcqRel);
                for (v, msg) in list {
                    self.piece(v, b, eb, wb, msg, x)?;
                }
            }
        }
        let per = SLOTS_PER_BLOCK as u64;
        for &v in self.map.vertices(b) {
            let Some((slot, degree)) = self.adj.disk_span(v) else {
                continue;
            };
            let (first, last) = block_span(slot, degree);
            if first != b || !self.active.take(v as u64) {
                continue;
            }
            x.counts.visits += 1;
            let Some(msg) = (self.apply)(v) else {
                continue;
            };
            self.piece(v, b, eb, wb, msg, x)?;
            let last = last.min(self.blocks.saturating_sub(1));
            for b2 in first + 1..=last {
                debug_assert!(b2 * per < slot + degree);
                lock(&self.conts[b2 as usize % CONT_SHARDS])
                    .entry(b2)
                    .or_default()
                    .push((v, msg));
                self.conts_len.fetch_add(1, Ordering::AcqRel);
                self.block_activate(b2, Priority(bp));
            }
        }
        Ok(())
    }

    /// Processes block `b`, claimed by this executor, again while it is
    /// reactivated (up to the reuse cap), then lets it go.
    fn process(&self, b: u64, eb: &[u8], wb: Option<&[u8]>, x: &mut Exec<'_>) -> Result<()> {
        let i = b as usize;
        let s = &self.st.state[i];
        s.store(PROCESSING, Ordering::Release);
        let mut runs = 0u32;
        loop {
            let bp = self.st.prio[i].swap(u32::MAX, Ordering::AcqRel);
            self.scan(b, eb, wb, bp, x)?;
            runs += 1;
            if s.compare_exchange(PROCESSING, IDLE, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.finished_one();
                return Ok(());
            }
            // Reactivated while we held it.
            if runs <= self.reuse {
                x.counts.reuses += 1;
                s.store(PROCESSING, Ordering::Release);
                continue;
            }
            s.store(QUEUED, Ordering::Release);
            self.queue.push(b, self.st.prio[i].load(Ordering::Acquire));
            self.gate.wake();
            return Ok(());
        }
    }

    /// A block (or its weights) arrived.
    fn arrive<'c>(&self, pin: Pinned<'c>, x: &mut Exec<'c>) -> Result<()> {
        let key = pin.key();
        let Some(wbase) = self.wbase else {
            return self.process(key - self.base, pin.bytes(), None, x);
        };
        let (b, is_weight) = if key >= wbase && key < wbase + self.blocks {
            (key - wbase, true)
        } else {
            (key - self.base, false)
        };
        let e = x.halves.entry(b).or_default();
        if is_weight {
            e.1 = Some(pin);
        } else {
            e.0 = Some(pin);
        }
        if e.0.is_some() && e.1.is_some() {
            if let Some((Some(ep), Some(wp))) = x.halves.remove(&b) {
                return self.process(b, ep.bytes(), Some(wp.bytes()), x);
            }
        }
        Ok(())
    }

    /// One executor: runs until the pass is over or fails.
    fn executor<'c>(&self, reader: &mut CacheReader<'c>, seed: u64) -> Result<Counts> {
        let mut x = Exec {
            local: LocalQueue::new(),
            held: false,
            halves: HashMap::new(),
            counts: Counts::default(),
        };
        let r = self.executor_loop(reader, seed, &mut x);
        if r.is_err() {
            self.fail();
        }
        r.map(|()| x.counts)
    }

    /// Takes queued block `b` for reading; false if it is not queued.
    fn claim(&self, b: u64) -> bool {
        self.st.state[b as usize]
            .compare_exchange(QUEUED, LOADING, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// The key of edge block `b`; its weight block is asked for next.
    fn key_of(&self, b: u64, wnext: &mut Option<BlockKey>) -> BlockKey {
        if let Some(w) = self.wbase {
            *wnext = Some(BlockKey(w + b));
        }
        BlockKey(self.base + b)
    }

    fn executor_loop<'c>(
        &self,
        reader: &mut CacheReader<'c>,
        seed: u64,
        x: &mut Exec<'c>,
    ) -> Result<()> {
        let mut cursor = Cursor::new(seed);
        let mut wnext: Option<BlockKey> = None;
        // The block after the last one taken from the queue, the
        // priority it was taken with, and how many more may follow it.
        let mut run: Option<(u64, u32, u64)> = None;
        loop {
            if self.abort.load(Ordering::Relaxed) {
                return Ok(());
            }
            if x.local.is_empty() {
                self.claim_seeds(x);
            }
            for _ in 0..INLINE_BATCH {
                let Some((_, v)) = x.local.pop() else {
                    break;
                };
                self.run_inline(v, x)?;
            }
            // Drained: what its vertices activated is counted by now.
            if x.held && x.local.is_empty() {
                x.held = false;
                self.finished_one();
            }
            let mut round = |reader: &mut CacheReader<'c>, wait: bool| {
                let mut source = || -> Option<BlockKey> {
                    if let Some(k) = wnext.take() {
                        return Some(k);
                    }
                    // The queued block after the last one taken joins its
                    // read when it is no less urgent: a longer request
                    // costs the device little more than a short one.
                    if let Some((b, p, left)) = run.take() {
                        if left > 0
                            && b < self.blocks
                            && self.st.prio[b as usize].load(Ordering::Acquire) <= p
                            && self.claim(b)
                        {
                            run = Some((b + 1, p, left - 1));
                            return Some(self.key_of(b, &mut wnext));
                        }
                    }
                    loop {
                        let (b, p) = self.queue.pop(&mut cursor)?;
                        if self.claim(b) {
                            run = Some((b + 1, p, self.run_blocks - 1));
                            return Some(self.key_of(b, &mut wnext));
                        }
                    }
                };
                let mut f = |pin: Pinned<'c>| self.arrive(pin, x);
                reader.pump(&mut source, &mut f, wait)
            };
            let p = round(reader, false)?;
            if p.delivered > 0 || !x.local.is_empty() {
                continue;
            }
            if !reader.idle() || wnext.is_some() || !x.halves.is_empty() {
                let mut round = |reader: &mut CacheReader<'c>| {
                    let mut source = || -> Option<BlockKey> {
                        if let Some(k) = wnext.take() {
                            return Some(k);
                        }
                        None
                    };
                    let mut f = |pin: Pinned<'c>| self.arrive(pin, x);
                    reader.pump(&mut source, &mut f, true)
                };
                round(reader)?;
                continue;
            }
            if self.outstanding.load(Ordering::SeqCst) <= 0 {
                return Ok(());
            }
            if self.queue.maybe_nonempty() || self.seeds_left() {
                continue;
            }
            self.gate.sleep_until(|| {
                self.queue.maybe_nonempty()
                    || self.seeds_left()
                    || self.outstanding.load(Ordering::SeqCst) <= 0
                    || self.abort.load(Ordering::SeqCst)
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;
    use std::sync::atomic::AtomicU32;

    /// BFS depths by label correction on the async engine, edge by edge
    /// ([`AsyncRun::flow`]) or a run at a time ([`AsyncRun::flow_runs`]).
    fn depths(e: &AsyncEngine, s: VertexId, runs: bool) -> Vec<u32> {
        let n = e.graph().vertex_count() as usize;
        let (d, _) = e
            .run(|run| {
                let depth: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
                depth[s as usize].store(0, Ordering::Relaxed);
                let relax = |d: u32, u: VertexId| {
                    let old = depth[u as usize].fetch_min(d + 1, Ordering::Relaxed);
                    (d + 1 < old).then_some(Priority(d + 1))
                };
                let seeds = Seeds::List(&[(s, Priority::FIRST)]);
                let apply = |v: VertexId| Some(depth[v as usize].load(Ordering::Relaxed));
                if runs {
                    run.flow_runs(&Flow::default(), seeds, apply, |d, nb, act| {
                        for &u in nb.ids {
                            if let Some(p) = relax(d, u) {
                                act.activate(u, p);
                            }
                        }
                    })?;
                } else {
                    run.flow(&Flow::default(), seeds, apply, |d, e| relax(d, e.dst))?;
                }
                Ok(depth
                    .into_iter()
                    .map(|a| a.into_inner())
                    .collect::<Vec<_>>())
            })
            .unwrap();
        d
    }

    /// How many times each vertex was applied in a pass from `seeds` that
    /// sends nothing.
    fn applied(e: &AsyncEngine, seeds: Seeds<'_>) -> Vec<u32> {
        let n = e.graph().vertex_count() as usize;
        let (runs, _) = e
            .run(|run| {
                let runs: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                run.flow(
                    &Flow::default(),
                    seeds,
                    |v| {
                        runs[v as usize].fetch_add(1, Ordering::Relaxed);
                        None::<()>
                    },
                    |(), _| None,
                )?;
                Ok(runs.into_iter().map(|a| a.into_inner()).collect::<Vec<_>>())
            })
            .unwrap();
        runs
    }

    #[test]
    fn every_kind_of_seed_runs_each_chosen_vertex_once() {
        // Lists inline in the index, in the short region and long, and
        // isolated vertices; seeding runs on several threads.
        let t = testkit::rmat(12, 4, 5, true);
        let n = t.graph.vertex_count() as VertexId;
        let chosen = |v: VertexId| v % 3 != 1;
        let want: Vec<u32> = (0..n).map(|v| u32::from(chosen(v))).collect();
        let mut list: Vec<(VertexId, Priority)> = (0..n)
            .rev()
            .filter(|&v| chosen(v))
            .map(|v| (v, Priority(v % 7)))
            .collect();
        // Repeats and ids out of range are ignored.
        list.push((0, Priority(3)));
        list.push((n + 5, Priority::FIRST));
        let pick = |v: VertexId| chosen(v).then_some(Priority(v % 5));
        for cfg in testkit::configs() {
            let e = AsyncEngine::open(Arc::clone(&t.graph), cfg.clone()).unwrap();
            assert_eq!(applied(&e, Seeds::Where(&pick)), want, "where, {cfg:?}");
            assert_eq!(applied(&e, Seeds::List(&list)), want, "list, {cfg:?}");
            let all = vec![1; n as usize];
            assert_eq!(applied(&e, Seeds::All(Priority(2))), all, "all, {cfg:?}");
            let f = |v: VertexId| Priority(v / 100);
            assert_eq!(applied(&e, Seeds::AllWith(&f)), all, "all with, {cfg:?}");
        }
    }

    #[test]
    fn deferred_vertices_wait_for_their_block_and_are_never_lost() {
        let t = testkit::rmat(12, 4, 5, true);
        let g = &t.graph;
        let n = g.vertex_count() as usize;
        let adj = g.adjacency(Direction::Out).unwrap();
        let block = |v: VertexId| {
            adj.disk_span(v)
                .map(|(slot, _)| slot / SLOTS_PER_BLOCK as u64)
        };
        let s = (0..n as VertexId).max_by_key(|&v| adj.degree(v)).unwrap();
        let (lo, hi) = adj
            .disk_span(s)
            .map(|(slot, d)| block_span(slot, d))
            .unwrap();
        let nbrs = crate::algo::reference::Csr::load(g, Direction::Out)
            .unwrap()
            .neighbors(s)
            .to_vec();
        for cfg in testkit::configs() {
            let e = AsyncEngine::open(Arc::clone(g), cfg.clone()).unwrap();
            let ((first, total, left, after), _) = e
                .run(|run| {
                    let runs: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                    let count = |v: VertexId| runs[v as usize].fetch_add(1, Ordering::Relaxed);
                    // The source defers all its neighbours.
                    run.flow(
                        &Flow::default(),
                        Seeds::List(&[(s, Priority::FIRST)]),
                        |v| (count(v) == 0 && v == s).then_some(()),
                        |(), _| Some(Priority::DEFER),
                    )?;
                    let first: Vec<u32> = runs.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                    let left = run.active_vertices();
                    // A later flow from what is left runs it.
                    let seeds: Vec<(VertexId, Priority)> =
                        left.iter().map(|&v| (v, Priority::FIRST)).collect();
                    run.flow(
                        &Flow::default(),
                        Seeds::List(&seeds),
                        |v| {
                            count(v);
                            None::<()>
                        },
                        |(), _| None,
                    )?;
                    let total: Vec<u32> = runs.iter().map(|a| a.load(Ordering::Relaxed)).collect();
                    Ok((first, total, left, run.active_vertices()))
                })
                .unwrap();
            assert_eq!(first[s as usize], 1, "{cfg:?}");
            assert!(!left.is_empty(), "no neighbour was left waiting: {cfg:?}");
            assert!(after.is_empty(), "{cfg:?}");
            for &u in &nbrs {
                let i = u as usize;
                // Each ran once: in the first flow if its list is in the
                // index or its block was read for the source's list,
                // otherwise in the second.
                assert_eq!(total[i], 1, "vertex {u}, {cfg:?}");
                let with_source = block(u).is_none_or(|b| (lo..=hi).contains(&b));
                if first[i] == 1 {
                    assert!(with_source, "vertex {u} ran without its block, {cfg:?}");
                } else {
                    assert!(left.contains(&u), "vertex {u} was lost, {cfg:?}");
                }
                if block(u).is_none() {
                    assert_eq!(first[i], 1, "index vertex {u} waited, {cfg:?}");
                }
            }
            let others = (0..n).filter(|&v| v != s as usize && !nbrs.contains(&(v as VertexId)));
            for v in others {
                assert_eq!(total[v], 0, "vertex {v}, {cfg:?}");
            }
        }
    }

    #[test]
    fn label_correcting_bfs_matches_serial_bfs_in_every_setting() {
        for t in [
            testkit::rmat(10, 8, 3, true),
            testkit::star(3000),
            testkit::grid(30, 40),
        ] {
            let csr = crate::algo::reference::Csr::load(&t.graph, Direction::Out).unwrap();
            let want = csr.bfs_depths(0);
            for cfg in testkit::configs() {
                let e = AsyncEngine::open(Arc::clone(&t.graph), cfg.clone()).unwrap();
                assert_eq!(depths(&e, 0, false), want, "{cfg:?}");
                assert_eq!(depths(&e, 0, true), want, "runs, {cfg:?}");
            }
        }
    }
}

//! The synchronous engine (CAVE): level-synchronous frontier processing
//! with the device's read concurrency worth of block reads in flight.
//!
//! # How a step runs
//!
//! Each I/O worker thread owns a [`CacheReader`](crate::cache::CacheReader) with its share of the
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
//!   visited from that one copy ([`BlockMap`](crate::store::blockmap::BlockMap)). Each block is read at most
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

mod step;

use super::frontier::{merge_sorted, AtomicBitmap, Frontier, DENSE_DIVISOR};
use super::par::fan_out;
use super::session::{dir_index, split_errors, RunBase, Session};
use super::{Edges, EngineConfig, Mode, Next, RunMetrics};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;
use step::{block_worker, plan_worker, vertex_worker, Local, StepCtx};

/// A level's result of at least this many vertices is collected by all
/// threads (below it, starting threads costs more than it saves).
const PARALLEL_COLLECT: usize = 1 << 16;

/// A block-mode step whose dense frontier holds more than one vertex in
/// this many walks every block instead of planning the ones it needs.
const WALK_DIVISOR: u64 = 4;

/// Activations a thread takes at a time when it sets a dense result's bits.
const COLLECT_PIECE: usize = 1 << 14;

/// A worker's activation list is never spilled into the bitmap below
/// this many vertices (64 KiB), whatever the graph's size.
const SPILL_FLOOR: usize = 1 << 14;

/// The synchronous engine over one graph file (its [`Session`] gives
/// `graph()`, `config()` and `io()`).
pub struct SyncEngine {
    session: Session,
}

impl std::ops::Deref for SyncEngine {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl SyncEngine {
    /// Opens the graph's file for block I/O with `cfg`'s settings.
    pub fn open(graph: Arc<Graph>, cfg: EngineConfig) -> Result<SyncEngine> {
        Ok(SyncEngine {
            session: Session::open(graph, cfg)?,
        })
    }

    /// The buffer pool size a run uses, in bytes: the configured size,
    /// and on a weighted graph at least four slots a read in flight (a
    /// weighted step holds a landed block until its weights land too, see
    /// [`Run::step_weighted`]), never more than the file's blocks need.
    pub fn cache_bytes(&self) -> u64 {
        let s = &self.session;
        let configured = s.configured_cache_bytes();
        if !s.graph().weighted() {
            return configured;
        }
        let slot = crate::cache::SLOT_BYTES as u64;
        let blocks = s.file_bytes().div_ceil(slot).max(1);
        let cfg = s.config();
        let in_flight = (cfg.concurrency as u64).min(blocks);
        let floor = ((4 * in_flight + 4 * cfg.threads as u64) * slot).min(blocks * slot);
        configured.max(floor)
    }

    /// Runs `algorithm` with a fresh (cold) buffer pool and returns its
    /// result with the run's measurements.
    pub fn run<T>(
        &self,
        algorithm: impl FnOnce(&mut Run<'_>) -> Result<T>,
    ) -> Result<(T, RunMetrics)> {
        let t0 = Instant::now();
        let s = &self.session;
        let cache = s.pool(self.cache_bytes())?;
        // No more I/O workers than reads in flight: each keeps one or more.
        let workers = s.config().threads.min(s.config().concurrency);
        let base = s.start(&cache, workers, t0)?;
        let mut run = Run {
            base,
            need: [OnceLock::new(), OnceLock::new()],
            next_bits: OnceLock::new(),
            cur_bits: OnceLock::new(),
            no_bits: AtomicBitmap::new(0),
        };
        let t1 = Instant::now();
        let out = algorithm(&mut run)?;
        let mode = match s.config().mode {
            Mode::Vertex => "vertex",
            Mode::Block => "block",
        };
        Ok((out, s.finish(run.base, &cache, t0, t1, "sync", mode)))
    }
}

/// One run of an algorithm on the synchronous engine: the interface
/// algorithms are written against. It derefs to [`RunBase`] for what
/// both engines offer (`graph()`, `vertex_count()`, `threads()`,
/// `degree()`, `for_each_vertex()`, `sum_f64()`).
pub struct Run<'c> {
    base: RunBase<'c>,
    need: [OnceLock<AtomicBitmap>; 2],
    /// Bitmaps over all vertices, made when a step first needs them (a
    /// run of whole-graph sweeps, such as PageRank's, never does): the
    /// next frontier's, and a sparse frontier's members.
    next_bits: OnceLock<AtomicBitmap>,
    cur_bits: OnceLock<AtomicBitmap>,
    /// What steps over other frontiers see as the members' bitmap.
    no_bits: AtomicBitmap,
}

impl<'c> std::ops::Deref for Run<'c> {
    type Target = RunBase<'c>;
    fn deref(&self) -> &RunBase<'c> {
        &self.base
    }
}

impl Run<'_> {
    /// The processing mode.
    pub fn mode(&self) -> Mode {
        self.base.cfg.mode
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
        self.step_inner(frontier, dir, None, false, &visit)
    }

    /// [`Run::step`] that also reads the edges' weights on a weighted
    /// graph and hands them to `visit` in [`Edges::weights`] (one per id;
    /// `None` on an unweighted graph, whose every weight is 1). A weight
    /// block is read with each edge block and a block's lists are visited
    /// once both have landed, so a weighted step runs in block mode
    /// whatever [`Mode`] the engine was opened with.
    pub fn step_weighted<F>(
        &mut self,
        frontier: &Frontier,
        dir: Direction,
        visit: F,
    ) -> Result<Frontier>
    where
        F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
    {
        let weighted = self.base.graph.weighted();
        self.step_inner(frontier, dir, None, weighted, &visit)
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
        self.step_inner(frontier, dir, Some(&eager), false, &visit)
    }

    fn step_inner<F>(
        &mut self,
        frontier: &Frontier,
        dir: Direction,
        eager: Option<&(dyn Fn(VertexId) -> bool + Sync)>,
        weights: bool,
        visit: &F,
    ) -> Result<Frontier>
    where
        F: Fn(VertexId, Edges<'_>, &mut Next<'_>) + Sync,
    {
        crate::interrupt::check()?;
        let adj = self.base.graph.adjacency(dir)?;
        self.base.tally.steps += 1;
        self.base.live.steps.fetch_add(1, Ordering::Relaxed);
        if frontier.is_empty() {
            return Ok(Frontier::empty());
        }
        let base = self.base.first_key(dir, false)?;
        let wbase = if weights {
            Some(self.base.first_key(dir, true)?)
        } else {
            None
        };
        let ctx = StepCtx {
            graph: self.base.graph,
            adj,
            frontier,
            cur_bits: if matches!(frontier, Frontier::Sparse(_)) {
                let n = self.base.n;
                self.cur_bits.get_or_init(|| AtomicBitmap::new(n))
            } else {
                &self.no_bits
            },
            next_bits: &self.next_bits,
            visit,
            eager,
            base,
            wbase,
            // Lists that, all workers together, stay below the size at
            // which the level would end dense anyway.
            spill: ((self.base.n / DENSE_DIVISOR) as usize / self.base.cfg.threads.max(1))
                .max(SPILL_FLOOR),
            cursor: AtomicUsize::new(0),
            abort: AtomicBool::new(false),
        };
        // A weighted step pairs each edge block with its weight block, which
        // block mode does (each block is asked for once a step).
        let mode = if weights {
            Mode::Block
        } else {
            self.base.cfg.mode
        };
        let results = match mode {
            Mode::Vertex => fan_out(self.base.readers.iter_mut().collect(), |r| {
                vertex_worker(r, &ctx)
            }),
            Mode::Block => {
                let d = dir_index(dir);
                let map = adj.block_map()?;
                let need = self.need[d].get_or_init(|| AtomicBitmap::new(adj.block_count()));
                // A sweep reads every block; a frontier of a quarter of
                // the vertices or more walks every block too, skipping
                // those it has no member in as it goes, where planning
                // would look up each member's blocks before the first read.
                let every = match frontier {
                    Frontier::All(_) => true,
                    Frontier::Dense(_, c) => c * WALK_DIVISOR > self.base.n,
                    Frontier::Sparse(_) => false,
                };
                let filter = every && !matches!(frontier, Frontier::All(_));
                // Pass 1: inline lists, membership bits, needed blocks.
                let mut results = fan_out((0..self.base.cfg.threads).collect(), |_| {
                    plan_worker(&ctx, (!every).then_some(need))
                });
                let mut blocks: Vec<u64> = if every {
                    (0..adj.block_count()).collect()
                } else {
                    let mut b = Vec::new();
                    need.drain_words(0, need.word_count(), &mut b);
                    b
                };
                // Elevator order: every other level walks the blocks
                // downwards, so the blocks the pool still holds from the
                // end of one level are the first the next level asks for.
                if self.base.tally.steps.is_multiple_of(2) {
                    blocks.reverse();
                }
                // Pass 2: each needed block once, in order.
                ctx.cursor.store(0, Ordering::Relaxed);
                results.extend(fan_out(self.base.readers.iter_mut().collect(), |r| {
                    block_worker(r, &ctx, map, &blocks, filter)
                }));
                if let (Frontier::Sparse(list), Some(bits)) = (frontier, self.cur_bits.get()) {
                    for &v in list {
                        bits.remove(v as u64);
                    }
                }
                results
            }
        };
        let (locals, mut first_err) = split_errors(results);
        if first_err.is_none() && crate::interrupt::requested() {
            // Workers stopped claiming at the request: the level is not
            // whole, so it must not be taken for one.
            first_err = Some(Error::Interrupted);
        }
        if let Some(e) = first_err {
            // Leave no activation behind for the next step.
            self.next_bits = OnceLock::new();
            return Err(e);
        }
        Ok(self.collect(locals))
    }

    fn collect(&mut self, locals: Vec<Local>) -> Frontier {
        let total: usize = locals
            .iter()
            .map(|l| l.next.len() + l.fresh.len() + l.spilled as usize)
            .sum();
        let spilled = locals.iter().any(|l| l.spilled > 0);
        for l in &locals {
            self.base.tally.visits += l.visits;
            self.base.tally.edges += l.edges;
            self.base
                .live
                .edges
                .store(self.base.tally.edges, Ordering::Relaxed);
        }
        // Between two levels no read is in flight: a large result is
        // built by all threads.
        let threads = if total < PARALLEL_COLLECT {
            1
        } else {
            self.base.cfg.threads.max(1)
        };
        if spilled || total as u64 * DENSE_DIVISOR > self.base.n {
            let pieces: Vec<&[VertexId]> = locals
                .iter()
                .flat_map(|l| l.fresh.chunks(COLLECT_PIECE))
                .collect();
            let cursor = AtomicUsize::new(0);
            let n = self.base.n;
            let bits = self.next_bits.get_or_init(|| AtomicBitmap::new(n));
            fan_out((0..threads).collect(), |_| {
                while let Some(p) = pieces.get(cursor.fetch_add(1, Ordering::Relaxed)) {
                    for &v in *p {
                        bits.insert(v as u64);
                    }
                }
            });
            let bits = self
                .next_bits
                .take()
                .unwrap_or_else(|| AtomicBitmap::new(n));
            return Frontier::Dense(bits, total as u64);
        }
        // Each thread sorts the lists of some workers (clearing the bits
        // of their checked activations); the sorted runs are then merged.
        let mut shares: Vec<Vec<Local>> = (0..threads).map(|_| Vec::new()).collect();
        for (i, l) in locals.into_iter().enumerate() {
            shares[i % threads].push(l);
        }
        let bits = self.next_bits.get();
        let runs = fan_out(shares, |share| {
            let mut run = Vec::new();
            for l in share {
                for &v in &l.next {
                    if let Some(b) = bits {
                        b.remove(v as u64);
                    }
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

#[cfg(test)]
mod tests;

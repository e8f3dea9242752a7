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
//! Every executor thread owns a [`CacheReader`](crate::cache::CacheReader) (io_uring when available)
//! with its share of the concurrency. It loops: process a batch of active
//! vertices whose lists live in the index (no I/O), then one
//! [`CacheReader::pump`](crate::cache::CacheReader::pump) round that claims the best queued blocks while
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

mod ahead;
mod flow;
mod pass;
mod seeds;

pub use flow::{Activate, Edge, Flow, Neighbours, Seeds};

use super::frontier::AtomicBitmap;
use super::par::fan_out;
use super::schedule::{BlockQueue, BlockStates, Gate, Priority};
use super::session::{dir_index, split_errors, RunBase, Session};
use super::{EngineConfig, RunMetrics};
use crate::cache::SLOT_BYTES;
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use ahead::Ahead;
use flow::{PerEdge, PerRun, Spread};
use pass::{Pass, CONT_SHARDS};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

/// The asynchronous engine over one graph file (its [`Session`] gives
/// `graph()`, `config()` and `io()`).
pub struct AsyncEngine {
    session: Session,
}

impl std::ops::Deref for AsyncEngine {
    type Target = Session;
    fn deref(&self) -> &Session {
        &self.session
    }
}

impl AsyncEngine {
    /// Opens the graph's file for block I/O with `cfg`'s settings
    /// (`cfg.mode` does not apply: the engine is block-centric).
    pub fn open(graph: Arc<Graph>, cfg: EngineConfig) -> Result<AsyncEngine> {
        Ok(AsyncEngine {
            session: Session::open(graph, cfg)?,
        })
    }

    /// The buffer pool size a run uses, in bytes: the configured size, but
    /// at least four slots per read in flight (an executor holds a block
    /// and its weights while more reads land). A file of fewer blocks
    /// than the reads allowed has no more than its blocks in flight: a
    /// 24 KiB graph does not get (and fault in) a pool of half a MiB.
    pub fn cache_bytes(&self) -> u64 {
        let cfg = self.session.config();
        let blocks = self.session.file_bytes().div_ceil(SLOT_BYTES as u64).max(1);
        let in_flight = (cfg.concurrency as u64).min(blocks);
        let floor = (4 * in_flight + 4 * cfg.threads as u64) * SLOT_BYTES as u64;
        self.session.configured_cache_bytes().max(floor)
    }

    /// Runs `algorithm` with a fresh (cold) buffer pool and returns its
    /// result with the run's measurements.
    pub fn run<T>(
        &self,
        algorithm: impl FnOnce(&mut AsyncRun<'_>) -> Result<T>,
    ) -> Result<(T, RunMetrics)> {
        let t0 = Instant::now();
        let s = &self.session;
        let cache = s.pool(self.cache_bytes())?;
        // One reader per executor thread.
        let base = s.start(&cache, s.config().threads, t0)?;
        let n = base.n;
        let mut run = AsyncRun {
            base,
            states: [OnceLock::new(), OnceLock::new()],
            active: AtomicBitmap::new(n),
            next: AtomicBitmap::new(n),
        };
        let t1 = Instant::now();
        let out = algorithm(&mut run)?;
        Ok((out, s.finish(run.base, &cache, t0, t1, "async", "block")))
    }
}

/// One run of an algorithm on the asynchronous engine. It derefs to
/// [`RunBase`] for what both engines offer (`graph()`,
/// `vertex_count()`, `threads()`, `degree()`, `for_each_vertex()`,
/// `sum_f64()`).
pub struct AsyncRun<'c> {
    base: RunBase<'c>,
    states: [OnceLock<BlockStates>; 2],
    active: AtomicBitmap,
    next: AtomicBitmap,
}

impl<'c> std::ops::Deref for AsyncRun<'c> {
    type Target = RunBase<'c>;
    fn deref(&self) -> &RunBase<'c> {
        &self.base
    }
}

impl AsyncRun<'_> {
    /// Passes and rounds run so far (a pass in rounds mode counts each
    /// round).
    pub fn rounds(&self) -> u64 {
        self.base.tally.steps
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
        let adj = self.base.graph.adjacency(flow.dir)?;
        if flow.weights && !self.base.graph.weighted() {
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
        let map = adj.block_map()?;
        let st = self.states[d].get_or_init(|| BlockStates::new(blocks));
        let base = self.base.first_key(flow.dir, false)?;
        let wbase = if flow.weights {
            Some(self.base.first_key(flow.dir, true)?)
        } else {
            None
        };
        let mut owned: Vec<(VertexId, Priority)> = Vec::new();
        let mut first = Some(seeds);
        loop {
            let seeds = match first.take() {
                Some(s) => s,
                None => Seeds::List(&owned),
            };
            self.base.tally.steps += 1;
            self.base.live.steps.fetch_add(1, Ordering::Relaxed);
            let mut pass = Pass {
                graph: self.base.graph,
                adj,
                map,
                st,
                active: &self.active,
                next: flow.rounds.then_some(&self.next),
                base,
                wbase,
                blocks,
                n: self.base.n,
                queue: BlockQueue::new(self.base.cfg.threads),
                gate: Gate::new(),
                outstanding: AtomicI64::new(0),
                abort: AtomicBool::new(false),
                conts: (0..CONT_SHARDS)
                    .map(|_| Mutex::new(HashMap::new()))
                    .collect(),
                conts_len: AtomicUsize::new(0),
                seeds: Default::default(),
                seed_cursor: AtomicUsize::new(0),
                apply: &apply,
                spread: &spread,
                reuse: flow.reuse,
                run_blocks: self.base.cache.merge_blocks() as u64,
                live: self.base.live,
                ahead: (flow.readahead && !flow.rounds).then(|| {
                    let slots = self.base.cache.pool().slots();
                    Ahead::new(blocks, (slots / 2).min(2 * self.base.cfg.concurrency))
                }),
                queued: AtomicI64::new(0),
            };
            pass.seed(seeds, self.base.cfg.threads);
            let pass = &pass;
            let results = fan_out(
                self.base.readers.iter_mut().enumerate().collect(),
                |(i, r)| pass.executor(r, i as u64 + 1),
            );
            let (tallies, first_err) = split_errors(results);
            for t in &tallies {
                self.base.tally.add(t);
            }
            if let Some(a) = &pass.ahead {
                let (read, wasted) = a.counts();
                self.base.tally.ahead += read;
                self.base.tally.ahead_wasted += wasted;
            }
            self.base
                .live
                .edges
                .store(self.base.tally.edges, Ordering::Relaxed);
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

#[cfg(test)]
mod tests;

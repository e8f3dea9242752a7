//! Engines: they run an algorithm's per-vertex code over a graph whose
//! edges stay on disk, owning frontiers, blocks, I/O and threads. An
//! algorithm never sees a block, a buffer or a file descriptor.
//!
//! The synchronous engine ([`SyncEngine`], after CAVE) processes the graph
//! level by level. A level is a [`Frontier`] of active vertices; the engine
//! hands each active vertex's neighbours to the algorithm's `visit`
//! function as [`Edges`], and `visit` activates vertices for the next level
//! through [`Next`]. Meanwhile the engine keeps the configured number of
//! block reads in flight (the device's read concurrency k_r), in one of two
//! [`Mode`]s: per vertex through the buffer pool, or per block, reading
//! each block the level needs once.
//!
//! # Writing an algorithm
//!
//! Everything happens inside [`SyncEngine::run`], which gives the
//! algorithm a [`Run`]: `step` runs one level, `for_each_vertex` and
//! `sum_f64` are parallel loops over vertex state. Here is a complete
//! breadth-first search that counts the vertices at each depth:
//!
//! ```
//! use grotto::engine::{EngineConfig, Frontier, SyncEngine};
//! use grotto::store::{Direction, Graph};
//! use std::sync::atomic::{AtomicU32, Ordering};
//! use std::sync::Arc;
//!
//! # let dir = tempfile::tempdir().unwrap();
//! # let path = dir.path().join("path.grotto");
//! # let text = dir.path().join("path.el");
//! # std::fs::write(&text, "0 1\n1 2\n2 3\n1 4\n").unwrap();
//! # let opts = grotto::ingest::ConvertOptions { undirected: true, ..Default::default() };
//! # grotto::ingest::convert(&grotto::ingest::Input::path(&text), &path, &opts).unwrap();
//! let graph = Arc::new(Graph::open(&path).unwrap());
//! let engine = SyncEngine::open(graph, EngineConfig::default()).unwrap();
//! let n = engine.graph().vertex_count() as usize;
//!
//! let (sizes, metrics) = engine
//!     .run(|run| {
//!         let depth: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
//!         depth[0].store(0, Ordering::Relaxed);
//!         let mut frontier = Frontier::single(0);
//!         let mut sizes = vec![];
//!         while !frontier.is_empty() {
//!             sizes.push(frontier.len());
//!             let level = sizes.len() as u32;
//!             frontier = run.step(&frontier, Direction::Out, |_v, edges, next| {
//!                 for &u in edges.ids {
//!                     let d = &depth[u as usize];
//!                     if d.load(Ordering::Relaxed) == u32::MAX
//!                         && d.compare_exchange(u32::MAX, level, Ordering::Relaxed, Ordering::Relaxed).is_ok()
//!                     {
//!                         next.activate(u);
//!                     }
//!                 }
//!             })?;
//!         }
//!         Ok(sizes)
//!     })
//!     .unwrap();
//! assert_eq!(sizes, vec![1, 1, 2, 1]); // 0 | 1 | 2 4 | 3
//! assert_eq!(metrics.traversed_edges, 8);
//! ```
//!
//! `visit` runs on several threads at once, so vertex state is held in
//! atomics; a vertex's list may arrive in several pieces (a list longer
//! than one block, in block mode), each a separate call whose
//! [`Edges::first`] says where the piece starts in the whole list.
//!
//! # Where things are
//!
//! * [`session`]: what both engines share: [`Session`] (the graph, its
//!   file opened for block I/O, the settings; a run's pool, readers and
//!   metrics), [`RunBase`] (what a run of either engine offers every
//!   algorithm) and [`Engine`] (either engine, for front ends).
//! * [`sync`]: the synchronous engine and [`Run`]; its step workers in
//!   `sync/step.rs`.
//! * [`async_engine`]: the asynchronous engine and [`AsyncRun`]; the
//!   types its algorithms see in `flow.rs`, the executor in `pass.rs`;
//!   [`schedule`] holds its block states and priority queue.
//! * [`frontier`], [`metrics`]: frontiers and bitmaps, run measurements.
//! * [`multilevel`]: a level of a multilevel algorithm (the file through
//!   a run, or a smaller graph in memory) and [`multilevel::contract`],
//!   the pass that makes the next level from a grouping of the vertices.
//!
//! Neither engine decodes the file format: lists come from
//! [`crate::store::Adjacency`] (`inline_list`, `list_in_block`), and
//! neither knows any algorithm.

pub mod async_engine;
pub mod frontier;
mod local;
pub mod metrics;
pub mod multilevel;
pub(crate) mod par;
pub mod schedule;
pub mod session;
pub mod sync;

pub use async_engine::{Activate, AsyncEngine, AsyncRun, Edge, Flow, Neighbours, Seeds};
pub use frontier::{AtomicBitmap, Frontier};
pub use metrics::RunMetrics;
pub use schedule::Priority;
pub use session::{Engine, EngineKind, RunBase, RunProgress, Session};
pub use sync::{Run, SyncEngine};

use crate::cache::CacheSize;
use crate::io::IoOptions;
use crate::VertexId;
use std::sync::OnceLock;

/// How the synchronous engine reads a level (CAVE's ProcessQueue and
/// ProcessQueueBlock).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Each active vertex fetches its blocks through the buffer pool; a
    /// block shared by several active vertices is read again whenever the
    /// pool has evicted it in between, so I/O falls as the cache grows.
    Vertex,
    /// The level's active vertices are grouped by block; every block the
    /// level needs is read once and all its active vertices are processed
    /// together, so I/O does not depend on the cache size.
    Block,
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Mode, String> {
        match s {
            "vertex" => Ok(Mode::Vertex),
            "block" => Ok(Mode::Block),
            _ => Err(format!("mode \"{s}\": expected vertex or block")),
        }
    }
}

/// Settings of an engine run.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Per-vertex or per-block processing (default: block).
    pub mode: Mode,
    /// Block reads kept in flight across all threads: the device's read
    /// concurrency k_r (default 32; the CLI takes it from the stored device
    /// profile).
    pub concurrency: usize,
    /// Worker threads (default: the machine's available parallelism).
    /// Threads beyond `concurrency` do CPU work only.
    pub threads: usize,
    /// Buffer pool size (default: 3% of the graph file, CAVE's and
    /// ACGraph's setting for out-of-core runs).
    pub cache: CacheSize,
    /// Largest request adjacent missing blocks are merged into (default
    /// 128 KiB; the CLI takes the profile's merge size).
    pub merge_bytes: usize,
    /// How the graph file is opened (default: O_DIRECT, io_uring when
    /// available).
    pub io: IoOptions,
}

impl Default for EngineConfig {
    fn default() -> EngineConfig {
        EngineConfig {
            mode: Mode::Block,
            concurrency: 32,
            threads: crate::metrics::cores(),
            cache: CacheSize::Percent(3.0),
            merge_bytes: 128 << 10,
            io: IoOptions::default(),
        }
    }
}

/// A run of one vertex's neighbours, handed to `visit`.
#[derive(Clone, Copy, Debug)]
pub struct Edges<'a> {
    /// Neighbour ids, in the list's (sorted) order.
    pub ids: &'a [VertexId],
    /// Position of `ids[0]` in the vertex's whole list.
    pub first: u64,
    /// Length of the vertex's whole list (its degree in this direction).
    pub degree: u64,
    /// The weights of `ids`' edges, one each, in a step that reads them
    /// ([`Run::step_weighted`] on a weighted graph); else `None`.
    pub weights: Option<&'a [f32]>,
}

impl Edges<'_> {
    /// Whether this run is the vertex's whole list.
    pub fn is_whole(&self) -> bool {
        self.first == 0 && self.ids.len() as u64 == self.degree
    }
}

/// Where `visit` activates vertices for the next level. Activating a vertex
/// twice in a level is harmless: the first call wins.
///
/// Each worker's lists are bounded: past `spill` vertices they go into
/// the next frontier's bitmap, and the level ends with a dense frontier.
/// So a level that reaches most of the graph holds an eighth of a byte a
/// vertex, not four.
pub struct Next<'a> {
    /// The next frontier's bitmap, made at the first activation.
    bits: &'a OnceLock<AtomicBitmap>,
    n: u64,
    list: &'a mut Vec<VertexId>,
    fresh: &'a mut Vec<VertexId>,
    spill: usize,
    spilled: &'a mut u64,
}

impl Next<'_> {
    #[inline]
    fn bits(&self) -> &AtomicBitmap {
        self.bits.get_or_init(|| AtomicBitmap::new(self.n))
    }

    /// Puts `v` in the next frontier; true when this call added it.
    #[inline]
    pub fn activate(&mut self, v: VertexId) -> bool {
        if self.bits().insert(v as u64) {
            self.list.push(v);
            if self.list.len() >= self.spill {
                // Their bits are set: the bitmap holds them already.
                *self.spilled += self.list.len() as u64;
                self.list.clear();
            }
            true
        } else {
            false
        }
    }

    /// Puts `v` in the next frontier without the engine's duplicate
    /// check, for a caller that already knows no other call in this level
    /// (on any thread) activates `v`, typically because it just won `v`
    /// in a visited set of its own. Saves an atomic read-modify-write per
    /// activation; activating a vertex twice this way, or both ways, puts
    /// it in the frontier twice.
    #[inline]
    pub fn activate_new(&mut self, v: VertexId) {
        self.fresh.push(v);
        if self.fresh.len() >= self.spill {
            let bits = self.bits();
            for &u in self.fresh.iter() {
                bits.insert(u as u64);
            }
            *self.spilled += self.fresh.len() as u64;
            self.fresh.clear();
        }
    }
}

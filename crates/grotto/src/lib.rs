//! grotto: out-of-core graph analytics on one machine with an SSD.
//!
//! Vertex state lives in memory, edges on disk in 4 KiB blocks read with
//! as much concurrency as the device serves. The crate's layers, each
//! using only those after it:
//!
//! - [`ingest`] turns text edge lists (or [`gen`]erated graphs) into a
//!   graph file, with memory bounded by the vertex count;
//! - [`algo`]: BFS, DFS, WCC, PageRank, k-core and core numbers,
//!   personalized PageRank, MIS, SSSP and random walks, one file each with
//!   a serial verifier, written against
//! - [`engine`]: the synchronous engine ([`engine::SyncEngine`], level by
//!   level, after CAVE) and the asynchronous one ([`engine::AsyncEngine`],
//!   block-centric with priorities, after ACGraph), over
//! - [`cache`], the buffer pool, and [`io`], the only code that issues
//!   system calls on graph files (reads with io_uring or pread, the device
//!   profile, crash-safe output files), over
//! - [`store`], the file format: header, sections, index, blocks.
//!
//! [`export`] writes a graph back as text; [`metrics`] measures a process.
//!
//! # Tutorial
//!
//! Build a graph file from an edge list, read neighbours in the user's own
//! vertex ids, and run the shipped BFS on the synchronous engine with the
//! edges on disk (the `engine` module shows the same BFS written from
//! scratch in twenty lines; `examples/async_bfs.rs` the asynchronous one):
//!
//! ```
//! use grotto::algo::bfs::{self, BfsConfig};
//! use grotto::engine::{EngineConfig, SyncEngine};
//! use grotto::ingest::{convert, ConvertOptions, Input};
//! use grotto::store::Graph;
//! use std::sync::Arc;
//!
//! let dir = tempfile::tempdir().unwrap();
//! let text = dir.path().join("g.el");
//! std::fs::write(&text, "# a triangle and a tail\n10 20\n20 30\n30 10\n30 40\n").unwrap();
//! let out = dir.path().join("g.grotto");
//!
//! let opts = ConvertOptions { undirected: true, ..ConvertOptions::default() };
//! let report = convert(&Input::path(&text), &out, &opts).unwrap();
//! assert_eq!(report.edges, 4);
//!
//! let g = Arc::new(Graph::open(&out).unwrap());
//! let v = g.vertex_of(30).unwrap();
//! let mut nbrs: Vec<u64> = g.neighbors(v).unwrap().iter().map(|&u| g.original_id(u)).collect();
//! nbrs.sort();
//! assert_eq!(nbrs, vec![10, 20, 40]);
//!
//! let engine = SyncEngine::open(Arc::clone(&g), EngineConfig::default()).unwrap();
//! let cfg = BfsConfig {
//!     source: g.vertex_of(10).unwrap(),
//!     first_parents: false,
//!     direction: bfs::BfsDirection::Auto,
//! };
//! let (result, metrics) = engine.run(|run| bfs::run(run, &cfg)).unwrap();
//! assert_eq!(result.depth.get(g.vertex_of(40).unwrap() as usize), 2);
//! assert_eq!(result.reached, 4);
//! assert!(metrics.traversed_edges > 0);
//! ```

#![deny(missing_docs)]

#[cfg(target_endian = "big")]
compile_error!(
    "grotto's file format is little-endian and is only implemented for little-endian hosts"
);

pub mod algo;
pub mod cache;
pub mod engine;
pub mod error;
pub mod export;
pub mod extract;
pub mod gen;
pub mod ingest;
pub mod interrupt;
pub mod io;
pub mod metrics;
pub mod rng;
pub mod setup;
pub mod small;
pub mod store;
#[cfg(test)]
pub(crate) mod testkit;

pub use error::{Error, Result};

/// An internal vertex id: dense in `0..vertex_count`. Users never see it;
/// [`store::Graph::original_id`] turns it into theirs.
pub type VertexId = u32;

/// Index of a 4 KiB edge block inside one block section. A distinct type so
/// that a block number is never mistaken for a vertex or a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u64);

//! grotto: out-of-core graph analytics on one machine with an SSD.
//!
//! This crate holds the library: text ingest ([`ingest`]), the on-disk
//! format and a simple synchronous reader ([`store`]), graph generators
//! ([`gen`]) and text export ([`export`]).
//!
//! # Tutorial
//!
//! Build a graph file from an edge list, open it, and read neighbours in
//! the user's own vertex ids:
//!
//! ```
//! use grotto::ingest::{convert, ConvertOptions, Input};
//! use grotto::store::Graph;
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
//! let g = Graph::open(&out).unwrap();
//! let v = g.vertex_of(30).unwrap();
//! let mut nbrs: Vec<u64> = g.neighbors(v).unwrap().iter().map(|&u| g.original_id(u)).collect();
//! nbrs.sort();
//! assert_eq!(nbrs, vec![10, 20, 40]);
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
pub mod gen;
pub mod ingest;
pub mod io;
pub mod metrics;
pub mod rng;
pub mod store;

pub use error::{Error, Result};

/// An internal vertex id: dense in `0..vertex_count`. Users never see it;
/// [`store::Graph::original_id`] turns it into theirs.
pub type VertexId = u32;

/// Index of a 4 KiB edge block inside one block section. A distinct type so
/// that a block number is never mistaken for a vertex or a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u64);

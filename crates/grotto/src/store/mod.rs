//! The on-disk graph format: layout constants and encodings ([`self::format`]),
//! the header block and its checks ([`header`]),
//! block packing ([`layout`]), the block-to-vertices map ([`blockmap`]), crash-safe writing ([`writer`]), and
//! opening a file with a synchronous reader ([`graph`], its sections loaded
//! and checked by `load.rs`), and the user's ids and names ([`names`]).

pub mod adjacency;
pub mod blockmap;
pub mod codec;
mod committed;
pub mod delta;
pub mod format;
pub mod graph;
pub mod header;
pub mod history;
pub mod layout;
mod load;
pub mod manifest;
pub mod names;
mod order;
mod staging;
pub mod stats;
pub mod update;
pub mod writer;

pub use adjacency::{Adjacency, BlockReader, InlineList, ListPiece};
pub use graph::{Direction, Graph, Updates};

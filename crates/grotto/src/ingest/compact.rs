//! `grotto compact`: rewrites a graph file with its committed updates
//! folded into fresh blocks, through the same build as `convert` (the
//! open graph is the edge source), then replaces the file, as convert
//! replaces its output: a crash or Ctrl-C leaves the old file. The update
//! lock is held throughout, so no commit is lost to the rewrite. Files of
//! older format versions come out as the current one, with room for
//! updates.

use super::options::{ConvertOptions, ConvertReport, Progress, Source};
use super::subgraph::{options_like, GraphEdges};
use crate::error::{Error, Result};
use crate::io::inplace::InPlace;
use crate::store::format::PACKED_VERSION;
use crate::store::Graph;
use std::path::{Path, PathBuf};

/// Rewrites `path` in place (see the module comment). `opts` gives the
/// build settings (threads, memory, layout); the graph's own properties
/// (direction, reverse edges, weights, self loops and duplicates kept,
/// packed or raw blocks) are kept, and a renumbered file is renumbered
/// again by the order that suits its degrees now.
pub fn compact(
    path: &Path,
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertReport> {
    let _lock = InPlace::open(path)?;
    let g = Graph::open(path)?;
    let h = g.header();
    if g.vertex_count() == 0 {
        return Err(Error::Invalid(format!(
            "{} has no vertices",
            path.display()
        )));
    }
    let opts = ConvertOptions {
        layout: crate::store::layout::LayoutConfig {
            // Raw blocks stay raw unless the file predates packed blocks.
            packed: h.packed() || (h.version < PACKED_VERSION && !h.weighted()),
            ..opts.layout
        },
        ..options_like(&g, opts)
    };
    let edges = GraphEdges::all(&g);
    let target: PathBuf = path.to_path_buf();
    super::convert_from(&Source::Generated(&edges), &target, &opts, progress)
}

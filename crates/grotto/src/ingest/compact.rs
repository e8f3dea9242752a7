//! `grotto compact`: rewrites a graph file with its committed updates
//! folded into fresh blocks, through the same build as `convert` (the
//! open graph is the edge source), then replaces the file, as convert
//! replaces its output: a crash or Ctrl-C leaves the old file. The update
//! lock is held throughout, so no commit is lost to the rewrite. Files of
//! older format versions come out as the current one, with room for
//! updates.

use super::options::{ConvertOptions, ConvertReport, EdgeGenerator, Progress, Source, VertexOrder};
use super::parse::EdgeSink;
use crate::error::{Error, Result};
use crate::io::inplace::InPlace;
use crate::store::format::{FLAG_MULTI, FLAG_SELF_LOOPS, PACKED_VERSION};
use crate::store::names::Names;
use crate::store::{BlockReader, Direction, Graph};
use crate::VertexId;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Vertices per chunk of the rewrite.
const CHUNK_VERTICES: u64 = 1 << 16;

/// A graph's edges as a conversion source, in the user's ids: each
/// undirected edge once, isolated vertices of compacted ids named.
struct GraphEdges<'g> {
    g: &'g Graph,
    undirected: bool,
}

impl EdgeGenerator for GraphEdges<'_> {
    fn chunks(&self) -> usize {
        self.g.vertex_count().div_ceil(CHUNK_VERTICES) as usize
    }

    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> Result<bool> {
        let g = self.g;
        let lo = chunk as u64 * CHUNK_VERTICES;
        let hi = (lo + CHUNK_VERTICES).min(g.vertex_count());
        let mut r = BlockReader::new(g, Direction::Out)?;
        let (mut ids, mut ws) = (Vec::new(), Vec::new());
        let (mut us, mut vs, mut wv) = (Vec::new(), Vec::new(), Vec::new());
        // The id a sink receives: the user's id less the base (which the
        // rewrite keeps), or the name's rank.
        let base = self.id_base();
        g.load_order()?;
        let id = |v: VertexId| g.original_id(v) - base;
        for v in lo..hi {
            let v = v as VertexId;
            r.neighbors(v, &mut ids, Some(&mut ws))?;
            let mut any = false;
            for (i, &u) in ids.iter().enumerate() {
                if self.undirected && u < v {
                    any = true;
                    continue;
                }
                any = true;
                us.push(id(v));
                vs.push(id(u));
                wv.push(ws.get(i).copied().unwrap_or(1.0));
            }
            if !any {
                sink.vertex(id(v));
            }
            if us.len() >= 1 << 14 || v as u64 + 1 == hi {
                let w = g.weighted().then_some(&wv[..]);
                if !sink.edges(&us, &vs, w) {
                    return Ok(false);
                }
                us.clear();
                vs.clear();
                wv.clear();
            }
        }
        Ok(true)
    }

    fn edges(&self) -> u64 {
        self.g.edge_count()
    }

    fn vertex_count(&self) -> Option<u64> {
        // Ids without an id map are dense: every vertex, isolated or not.
        (!self.g.header().has_id_map()).then(|| self.g.vertex_count())
    }

    fn weighted(&self) -> bool {
        self.g.weighted()
    }

    fn describe(&self) -> String {
        format!("the graph {}", self.g.path().display())
    }

    fn names(&self) -> Option<Arc<Names>> {
        self.g.names().cloned()
    }

    fn id_base(&self) -> u64 {
        if self.g.names().is_some() || self.g.header().has_id_map() {
            0
        } else {
            self.g.header().id_base
        }
    }
}

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
        undirected: !h.directed(),
        reverse: h.has_reverse(),
        weighted: Some(h.weighted()),
        keep_self_loops: h.flags & FLAG_SELF_LOOPS != 0,
        keep_duplicates: h.flags & FLAG_MULTI != 0,
        order: if h.has_order() {
            VertexOrder::Auto
        } else {
            VertexOrder::None
        },
        layout: crate::store::layout::LayoutConfig {
            // Raw blocks stay raw unless the file predates packed blocks.
            packed: h.packed() || (h.version < PACKED_VERSION && !h.weighted()),
            ..opts.layout
        },
        allow_empty: true,
        ..opts.clone()
    };
    let edges = GraphEdges {
        g: &g,
        undirected: !h.directed(),
    };
    let target: PathBuf = path.to_path_buf();
    super::convert_from(&Source::Generated(&edges), &target, &opts, progress)
}

//! An open graph as a conversion source: all of it (`grotto compact`) or
//! the subgraph induced by a set of its vertices (`grotto extract`), in
//! the user's ids or names, through the same build as `convert`.

use super::options::{ConvertOptions, ConvertReport, EdgeGenerator, Progress, Source, VertexOrder};
use super::parse::EdgeSink;
use crate::error::{Error, Result};
use crate::store::format::{FLAG_MULTI, FLAG_SELF_LOOPS};
use crate::store::names::Names;
use crate::store::{BlockReader, Direction, Graph};
use crate::VertexId;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Vertices per chunk of a rewrite.
const CHUNK_VERTICES: u64 = 1 << 16;

/// A graph's edges in the user's ids: each undirected edge once, and
/// every kept vertex without edges named so it stays a vertex. With a
/// `keep` set, only edges whose two ends are kept, and a graph of names
/// gets the kept vertices' names as its table.
pub(crate) struct GraphEdges<'g> {
    g: &'g Graph,
    undirected: bool,
    /// Per internal vertex: whether it is in the output (`None`: all).
    keep: Option<&'g [bool]>,
    /// The kept names, and each old rank's new one (graphs of names).
    names: Option<(Arc<Names>, Vec<u32>)>,
    /// At most this many edges are emitted (all of them, or the kept
    /// vertices' degrees summed): what the build plans its memory for.
    bound: u64,
    /// More files the output may not replace (a result a filter read).
    extra: Vec<PathBuf>,
    /// The output replaces the graph itself (a vertex delete, under the
    /// update lock), so the graph is no input it must keep.
    in_place: bool,
}

impl<'g> GraphEdges<'g> {
    /// Every edge of `g`.
    pub(crate) fn all(g: &'g Graph) -> GraphEdges<'g> {
        GraphEdges {
            g,
            undirected: !g.directed(),
            keep: None,
            names: None,
            bound: g.edge_count(),
            extra: Vec::new(),
            in_place: false,
        }
    }

    /// The subgraph of `g` induced by the vertices with `keep[v]` set.
    pub(crate) fn induced(g: &'g Graph, keep: &'g [bool]) -> Result<GraphEdges<'g>> {
        if keep.len() as u64 != g.vertex_count() {
            return Err(Error::Invalid(format!(
                "a vertex set of {} entries for a graph of {} vertices",
                keep.len(),
                g.vertex_count()
            )));
        }
        let names = match g.names() {
            None => None,
            Some(t) => {
                g.load_order()?;
                // Names are stored by rank: walk the ranks in order.
                let n = g.vertex_count() as u32;
                let mut new_rank = vec![u32::MAX; n as usize];
                let mut kept: Vec<&[u8]> = Vec::new();
                for r in 0..n {
                    if keep[g.vertex_at_rank(r) as usize] {
                        new_rank[r as usize] = kept.len() as u32;
                        kept.push(t.get(r).as_bytes());
                    }
                }
                Some((Arc::new(Names::from_sorted(&kept)?), new_rank))
            }
        };
        let out = g.out();
        let bound = (0..keep.len())
            .filter(|&v| keep[v])
            .map(|v| out.degree(v as VertexId))
            .sum::<u64>()
            .min(g.edge_count());
        Ok(GraphEdges {
            g,
            undirected: !g.directed(),
            keep: Some(keep),
            names,
            bound,
            extra: Vec::new(),
            in_place: false,
        })
    }

    fn kept(&self, v: VertexId) -> bool {
        self.keep.is_none_or(|k| k[v as usize])
    }

    /// The id a sink receives for `v`: the user's id less the base (which
    /// a rewrite keeps), or the name's rank (in the kept table).
    fn id(&self, v: VertexId) -> u64 {
        match &self.names {
            Some((_, new_rank)) => new_rank[self.g.rank(v) as usize] as u64,
            None => self.g.original_id(v) - self.id_base(),
        }
    }
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
        g.load_order()?;
        for v in lo..hi {
            let v = v as VertexId;
            if self.kept(v) {
                r.neighbors(v, &mut ids, Some(&mut ws))?;
                let mut any = false;
                for (i, &u) in ids.iter().enumerate() {
                    if !self.kept(u) {
                        continue;
                    }
                    any = true;
                    if self.undirected && u < v {
                        continue;
                    }
                    us.push(self.id(v));
                    vs.push(self.id(u));
                    wv.push(ws.get(i).copied().unwrap_or(1.0));
                }
                if !any {
                    sink.vertex(self.id(v));
                }
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
        self.bound
    }

    fn vertex_count(&self) -> Option<u64> {
        // Ids without an id map are dense: every vertex, isolated or not.
        // A subgraph's are whichever ids it keeps.
        (self.keep.is_none() && !self.g.header().has_id_map()).then(|| self.g.vertex_count())
    }

    fn weighted(&self) -> bool {
        self.g.weighted()
    }

    fn describe(&self) -> String {
        match self.keep {
            None => format!("the graph {}", self.g.path().display()),
            Some(_) => format!("a subgraph of {}", self.g.path().display()),
        }
    }

    /// A subgraph may not replace its graph (a rewrite of the whole
    /// graph by `compact` does, under the update lock).
    fn inputs(&self) -> Vec<PathBuf> {
        match self.keep {
            Some(_) if self.in_place => self.extra.clone(),
            Some(_) => std::iter::once(self.g.path().to_path_buf())
                .chain(self.extra.iter().cloned())
                .collect(),
            None => Vec::new(),
        }
    }

    fn names(&self) -> Option<Arc<Names>> {
        match (&self.names, self.keep) {
            (Some((t, _)), _) => Some(t.clone()),
            (None, None) => self.g.names().cloned(),
            (None, Some(_)) => None,
        }
    }

    fn id_base(&self) -> u64 {
        if self.keep.is_some() || self.g.names().is_some() || self.g.header().has_id_map() {
            0
        } else {
            self.g.header().id_base
        }
    }
}

/// The options that rebuild `g`'s kind of file: direction, reverse edges,
/// weights, self loops and duplicates as `g` keeps them; `opts` gives
/// the build settings (threads, memory, layout).
pub(crate) fn options_like(g: &Graph, opts: &ConvertOptions) -> ConvertOptions {
    let h = g.header();
    ConvertOptions {
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
        allow_empty: true,
        ..opts.clone()
    }
}

/// Writes the subgraph of `g` induced by the vertices with `keep[v]` set
/// as the grotto file `output` (a new file: `g` itself is refused), a
/// graph of the same kind as `g` (see [`options_like`]) whose vertices are
/// exactly the kept ones, isolated ones included, in the user's ids or
/// names. `extra` are more files the output may not replace.
pub fn extract_graph(
    g: &Graph,
    keep: &[bool],
    output: &Path,
    extra: &[&Path],
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<ConvertReport> {
    let mut edges = GraphEdges::induced(g, keep)?;
    edges.extra = extra.iter().map(|p| p.to_path_buf()).collect();
    let opts = options_like(g, opts);
    super::convert_from(&Source::Generated(&edges), output, &opts, progress)
}

/// What [`delete_vertices`] did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct VertexDeletes {
    /// Vertices removed, each with all its edges.
    pub deleted: u64,
    /// Vertices listed that the graph did not have.
    pub not_present: u64,
    /// Vertices and edges after.
    pub vertices: u64,
    /// Edges after (an undirected edge once).
    pub edges: u64,
}

/// Removes the vertices `doomed` (the user's ids or names, as text) from
/// the graph file `path` with every edge at them, both directions, as
/// networkx's `remove_node` does; a vertex the graph lacks is counted,
/// not an error. The ids of the others do not change. Vertex ids are
/// positions in the file, so this rewrites it (one pass over the edges,
/// as `compact`) under the update lock, and replaces it as convert
/// replaces its output: a crash or Ctrl-C leaves the old file.
pub fn delete_vertices(
    path: &Path,
    doomed: &[String],
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<VertexDeletes> {
    let _lock = crate::io::inplace::InPlace::open(path)?;
    let g = Graph::open(path)?;
    g.load_order()?;
    let mut keep = vec![true; g.vertex_count() as usize];
    let (mut deleted, mut not_present) = (0u64, 0u64);
    for t in doomed {
        match g.vertex_named(t) {
            Ok(v) if keep[v as usize] => {
                keep[v as usize] = false;
                deleted += 1;
            }
            Ok(_) => {}
            Err(Error::NoSuchVertex { .. }) => not_present += 1,
            Err(e) => return Err(e),
        }
    }
    if deleted == 0 {
        return Ok(VertexDeletes {
            deleted,
            not_present,
            vertices: g.vertex_count(),
            edges: g.edge_count(),
        });
    }
    if deleted == g.vertex_count() {
        return Err(Error::Invalid(format!(
            "deleting every vertex of {} would leave an empty graph; remove the file instead",
            path.display()
        )));
    }
    let mut edges = GraphEdges::induced(&g, &keep)?;
    edges.in_place = true;
    let h = g.header();
    let opts = ConvertOptions {
        layout: crate::store::layout::LayoutConfig {
            packed: h.packed(),
            ..opts.layout
        },
        ..options_like(&g, opts)
    };
    let target = path.to_path_buf();
    let r = super::convert_from(&Source::Generated(&edges), &target, &opts, progress)?;
    Ok(VertexDeletes {
        deleted,
        not_present,
        vertices: r.vertices,
        edges: r.edges,
    })
}

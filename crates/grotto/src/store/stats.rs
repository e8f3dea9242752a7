//! Summary statistics of an open graph, computed from the in-memory index
//! alone (no edge block is read): what `grotto info` prints.

use super::adjacency::Adjacency;
use super::format::{SectionKind, BLOCK_BYTES, SLOTS_PER_BLOCK, TAG_SPAN};
use super::graph::Graph;
use rayon::prelude::*;
use serde::Serialize;

/// Degree distribution of one adjacency.
#[derive(Clone, Debug, Serialize)]
pub struct DegreeStats {
    /// Smallest degree.
    pub min: u64,
    /// Largest degree.
    pub max: u64,
    /// Mean degree.
    pub mean: f64,
    /// Vertices with degree 0.
    pub zero: u64,
    /// `log2_histogram[0]` counts degree 1, `[i]` counts degrees in `2^i..2^(i+1)`.
    pub log2_histogram: Vec<u64>,
}

/// Storage figures of one adjacency.
#[derive(Clone, Debug, Serialize)]
pub struct AdjacencyStats {
    /// Adjacency entries (sum of degrees).
    pub entries: u64,
    /// Entries held inline in the index (lists of degree 1 or 2).
    pub inline_entries: u64,
    /// 4 KiB edge blocks.
    pub blocks: u64,
    /// On-disk entries over the capacity of as many raw blocks (above 1
    /// when blocks are packed).
    pub fill_ratio: f64,
    /// How blocks store lists: "raw" (u32 ids) or "packed".
    pub encoding: &'static str,
    /// Packed blocks holding whole lists (0 when raw).
    pub packed_blocks: u64,
    /// Packed blocks holding a piece of one long list (0 when raw).
    pub span_blocks: u64,
    /// Edge block bytes on disk per entry (inline entries included).
    pub bytes_per_entry: f64,
    /// Degree distribution.
    pub degrees: DegreeStats,
}

/// Computes the figures of `a` for a graph of `n` vertices.
pub fn adjacency_stats(a: &Adjacency, n: u64) -> AdjacencyStats {
    // One pass over the index on all cores: each chunk of vertices
    // counts its own (min, max, zeros, histogram), then they are summed.
    const CHUNK: u64 = 1 << 16;
    let count = |lo: u64, hi: u64| {
        let mut t = ([u64::MAX, 0, 0], [0u64; 64]);
        for v in lo..hi {
            let x = a.degree(v as u32);
            t.0[0] = t.0[0].min(x);
            t.0[1] = t.0[1].max(x);
            if x == 0 {
                t.0[2] += 1;
            } else {
                t.1[63 - x.leading_zeros() as usize] += 1;
            }
        }
        t
    };
    let join = |mut a: ([u64; 3], [u64; 64]), b: ([u64; 3], [u64; 64])| {
        a.0[0] = a.0[0].min(b.0[0]);
        a.0[1] = a.0[1].max(b.0[1]);
        a.0[2] += b.0[2];
        a.1.iter_mut().zip(b.1).for_each(|(x, y)| *x += y);
        a
    };
    let empty = || ([u64::MAX, 0, 0], [0u64; 64]);
    let ([min, max, zero], hist) = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| count(c * CHUNK, ((c + 1) * CHUNK).min(n)))
        .reduce(empty, join);
    let bins = hist.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
    let mut d = DegreeStats {
        min,
        max,
        mean: 0.0,
        zero,
        log2_histogram: hist[..bins].to_vec(),
    };
    if n == 0 {
        d.min = 0;
    } else {
        d.mean = a.entries() as f64 / n as f64;
    }
    let inline = a.inline_entries();
    let cap = a.block_count() * SLOTS_PER_BLOCK as u64;
    let span_blocks = a.tags().iter().filter(|&&t| t == TAG_SPAN).count() as u64;
    AdjacencyStats {
        entries: a.entries(),
        inline_entries: inline,
        blocks: a.block_count(),
        encoding: if a.packed() { "packed" } else { "raw" },
        packed_blocks: if a.packed() {
            a.block_count() - span_blocks
        } else {
            0
        },
        span_blocks,
        bytes_per_entry: if a.entries() == 0 {
            0.0
        } else {
            (a.block_count() * BLOCK_BYTES as u64) as f64 / a.entries() as f64
        },
        fill_ratio: if cap == 0 {
            1.0
        } else {
            (a.entries() - inline) as f64 / cap as f64
        },
        degrees: d,
    }
}

/// Everything `grotto info` reports.
#[derive(Clone, Debug, Serialize)]
pub struct GraphInfo {
    /// Vertices.
    pub vertices: u64,
    /// Edges (arcs if directed, unordered pairs otherwise).
    pub edges: u64,
    /// Directed or not.
    pub directed: bool,
    /// Weighted or not.
    pub weighted: bool,
    /// Reverse edges stored.
    pub reverse: bool,
    /// Ids compacted with an id map.
    pub id_map: bool,
    /// Which ids are the vertices: `"dense"` (every id in 0..vertices,
    /// the rule of files with dense ids, of `--vertices N` and of files
    /// written by builds before session 34 whatever their gaps), `"ids"`
    /// (the ids in the id map: those that occur in an edge or were
    /// listed), or `"names"`.
    pub vertex_set: &'static str,
    /// Vertices are renumbered inside (an order section).
    pub ordered: bool,
    /// Vertices have names: bytes of the names section, when they do.
    pub names_bytes: Option<u64>,
    /// Format version of the file.
    pub format_version: u32,
    /// File size in bytes.
    pub file_bytes: u64,
    /// In-memory index bytes per vertex (all adjacencies).
    pub index_bytes_per_vertex: f64,
    /// In-memory bytes per vertex of the tables of user ids (id map,
    /// names, vertex order) once loaded.
    pub id_table_bytes_per_vertex: f64,
    /// Whether the file stores its block map (files written before it
    /// existed have it built by each block-mode run).
    pub block_map_stored: bool,
    /// Self loops dropped at build time.
    pub self_loops_dropped: u64,
    /// Whether self loops were kept at build time (`--keep-self-loops`),
    /// so the lists may hold some.
    pub self_loops_kept: bool,
    /// Duplicates dropped at build time.
    pub duplicates_dropped: u64,
    /// Input lines skipped as malformed.
    pub lines_skipped: u64,
    /// Out-adjacency (all edges when undirected).
    pub out: AdjacencyStats,
    /// In-adjacency, with reverse edges.
    pub r#in: Option<AdjacencyStats>,
    /// Committed updates (none for a file as converted).
    pub updates: Option<super::graph::Updates>,
    /// Bytes of memory the committed updates take once the file is open.
    pub delta_memory_bytes: u64,
}

/// Computes [`GraphInfo`] for an open graph.
pub fn graph_info(g: &Graph) -> GraphInfo {
    let h = g.header();
    let n = g.vertex_count();
    let mem = g.memory_footprint();
    GraphInfo {
        vertices: n,
        edges: g.edge_count(),
        directed: h.directed(),
        weighted: h.weighted(),
        reverse: h.has_reverse(),
        id_map: h.has_id_map(),
        vertex_set: if h.has_names() {
            "names"
        } else if h.has_id_map() {
            "ids"
        } else {
            "dense"
        },
        ordered: h.has_order(),
        names_bytes: h
            .section(super::format::SectionKind::Names)
            .map(|s| s.length),
        format_version: h.version,
        file_bytes: std::fs::metadata(g.path()).map(|m| m.len()).unwrap_or(0),
        index_bytes_per_vertex: if n == 0 {
            0.0
        } else {
            mem.index_bytes as f64 / n as f64
        },
        id_table_bytes_per_vertex: if n == 0 {
            0.0
        } else {
            mem.id_map_bytes as f64 / n as f64
        },
        block_map_stored: h.section(SectionKind::OutBlockMap).is_some(),
        self_loops_dropped: h.self_loops_dropped,
        self_loops_kept: h.flags & crate::store::format::FLAG_SELF_LOOPS != 0,
        duplicates_dropped: h.duplicates_dropped,
        lines_skipped: h.lines_skipped,
        out: adjacency_stats(g.out(), n),
        r#in: g.inn().map(|a| adjacency_stats(a, n)),
        updates: g.updates().cloned(),
        delta_memory_bytes: mem.delta_bytes,
    }
}

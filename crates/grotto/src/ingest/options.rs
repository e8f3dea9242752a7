//! What a conversion is asked to do and what it reports: options, the
//! report, progress, and where edges come from.

use super::parse::{EdgeSink, Format, ParseCounts};
use super::source::{Compression, Input};
use crate::store::layout::LayoutConfig;
use serde::Serialize;
use std::path::PathBuf;

/// How user ids become internal ids.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdMode {
    /// The vertices are the ids that occur (in an edge or a vertex
    /// file), as networkx, pandas, Spark and Graphalytics mean it: dense
    /// (internal id = user id) when they are exactly `0..n`, else
    /// compacted with an id map, so an id that never occurs is no vertex.
    /// A vertex count given (`vertices`, `# vertices N`, a Matrix Market
    /// size line) makes every id below it a vertex instead.
    #[default]
    Auto,
    /// Internal id = user id (fails for ids at or above 2^32 - 1).
    Dense,
    /// Always compact and store an id map.
    Compact,
    /// Ids are names: any token, not only integers; the names are stored
    /// in the file and every result speaks them.
    String,
}

/// How vertices are numbered inside the file. The user's ids never
/// change: a renumbering is stored as an order section and every id a
/// user sees or types goes through it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VertexOrder {
    /// Inside ids follow the user's order.
    #[default]
    None,
    /// By out-degree, largest first (ties in the user's order): lists of
    /// similar length share blocks, and hubs' small ids shrink gaps.
    Degree,
    /// Breadth-first from a peripheral vertex of each component, as
    /// Cuthill-McKee numbers a mesh: neighbours get near ids, so a
    /// traversal's wave stays in few blocks (road networks and meshes
    /// whose ids come in no useful order). Needs the memory build: the
    /// records must fit the memory budget.
    Bfs,
    /// Degree order when degrees are skewed (the top 1% of vertices hold
    /// at least a tenth of the records, as in social and web graphs);
    /// else breadth-first order when the user's ids put neighbours far
    /// apart (a mean gap over 2^8) and breadth-first brings them at least
    /// 4x nearer (memory build only); else the user's order (grids and
    /// meshes in row order keep their locality).
    Auto,
}

/// Options of a conversion; the CLI flattens these.
#[derive(Clone, Debug)]
pub struct ConvertOptions {
    /// Force the input format (default: detected from the first lines;
    /// CSV with a header only when forced).
    pub format: Option<Format>,
    /// Names of the edge columns of CSV with a header (default `src`,
    /// `dst`, `weight`); refused for text without a header.
    pub columns: Option<EdgeColumns>,
    /// Treat every edge as undirected (store it in both lists).
    pub undirected: bool,
    /// Read a weight column: `None` detects it from the first data line.
    pub weighted: Option<bool>,
    /// Read but drop a weight column.
    pub ignore_weights: bool,
    /// Also store in-edges (directed graphs).
    pub reverse: bool,
    /// Keep self loops (dropped and counted by default).
    pub keep_self_loops: bool,
    /// Keep duplicate edges (dropped and counted by default).
    pub keep_duplicates: bool,
    /// Skip malformed lines with a counted warning instead of failing.
    pub skip_invalid: bool,
    /// Id handling.
    pub ids: IdMode,
    /// Vertex numbering inside the file (default: the user's order).
    pub order: VertexOrder,
    /// Memory budget in bytes (default: half of the available memory).
    pub memory_bytes: Option<u64>,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// Block layout.
    pub layout: LayoutConfig,
    /// Directory for spill files (default: the output's directory).
    pub temp_dir: Option<PathBuf>,
    /// Take the external path even when the records would fit (for tests
    /// and benchmarks of that path).
    pub force_external: bool,
    /// Records an external build loads at once, at most (default: what
    /// the memory budget leaves above the floor). For tests of builds with
    /// many partitions on small graphs.
    pub partition_records: Option<u64>,
    /// Build each partition of an external build from its own pass over a
    /// replayable source (see `EdgeGenerator::replayable`) instead of
    /// spilling records (default: only when the spill would not fit the
    /// temporary directory). For tests of that path.
    pub replay_partitions: bool,
    /// Records one spill group of an external build holds at most
    /// (default: what the temporary directory's free space allows, and
    /// all in one group when they fit). For tests of builds that spill
    /// in groups, one pass over the input each.
    pub spill_group_records: Option<u64>,
    /// The graph has vertices with ids `0..n` (isolated ones included);
    /// an id at or above `n` is an error. Default: a `# vertices N`
    /// comment before the first data line (grotto writes one), else the
    /// ids seen.
    pub vertices: Option<u64>,
    /// More vertices by id, isolated or not, besides those the edges name
    /// (`--vertex-file`; default none). With `vertices` each must be
    /// below it; not with names (`--ids string`).
    pub vertex_ids: Option<std::sync::Arc<Vec<u64>>>,
    /// More vertices by name, isolated or not, besides those the edges
    /// name (`--vertex-file` with `--ids string`; default none).
    pub vertex_names: Option<std::sync::Arc<Vec<String>>>,
    /// Write a graph without vertices when the input holds no edge
    /// (default: refuse, since an empty input is more often a mistake).
    pub allow_empty: bool,
    /// Build a scratch graph: the finished temporary is left open in this
    /// slot instead of being renamed onto the output path, for this
    /// process to open ([`crate::io::output::Output::reopen_path`]) and
    /// drop (default: none, the output is committed).
    pub scratch: Option<ScratchSlot>,
}

/// Where a scratch build leaves its finished, uncommitted file.
pub type ScratchSlot = std::sync::Arc<std::sync::Mutex<Option<crate::io::output::Output>>>;

impl Default for ConvertOptions {
    fn default() -> Self {
        ConvertOptions {
            format: None,
            columns: None,
            undirected: false,
            weighted: None,
            ignore_weights: false,
            reverse: false,
            keep_self_loops: false,
            keep_duplicates: false,
            skip_invalid: false,
            ids: IdMode::Auto,
            order: VertexOrder::None,
            memory_bytes: None,
            threads: 0,
            layout: LayoutConfig::default(),
            temp_dir: None,
            force_external: false,
            partition_records: None,
            replay_partitions: false,
            spill_group_records: None,
            allow_empty: false,
            scratch: None,
            vertices: None,
            vertex_ids: None,
            vertex_names: None,
        }
    }
}

/// Which build path ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildPath {
    /// Records held in memory.
    Memory,
    /// Records spilled to partition files.
    External,
}

/// Seconds spent per stage.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Timings {
    /// Parsing passes (all of them on the external path).
    pub parse_s: f64,
    /// The memory path's lists under a vertex order: scattered in the
    /// user's order, counted, renumbered, sorted and gathered in the new
    /// order (the external path counts in its parse passes).
    pub order_s: f64,
    /// Sorting, deduplicating, packing, writing blocks.
    pub build_s: f64,
    /// Final sections, fsync and rename.
    pub finish_s: f64,
    /// Whole conversion.
    pub total_s: f64,
}

/// What a conversion did.
#[derive(Clone, Debug, Serialize)]
pub struct ConvertReport {
    /// Input description (path or generator).
    pub input: String,
    /// Output path.
    pub output: PathBuf,
    /// Input format.
    pub format: Option<Format>,
    /// Why that format: detection's evidence, or "given with --format".
    pub format_evidence: Option<String>,
    /// Input compression.
    pub compression: Option<Compression>,
    /// Directed graph.
    pub directed: bool,
    /// Weighted graph.
    pub weighted: bool,
    /// In-edges stored.
    pub reverse: bool,
    /// Vertices.
    pub vertices: u64,
    /// Edges (arcs, or unordered pairs when undirected).
    pub edges: u64,
    /// Out-adjacency entries.
    pub out_entries: u64,
    /// Out-adjacency edge blocks.
    pub blocks: u64,
    /// Of those, the blocks of the short-list region (at the end).
    pub short_blocks: u64,
    /// On-disk entries over the capacity of as many raw blocks (out-adjacency;
    /// above 1 when blocks are packed).
    pub fill_ratio: f64,
    /// Whether the blocks hold packed lists (`--compress packed`).
    pub packed: bool,
    /// Edge block bytes per out-adjacency entry (inline entries included).
    pub bytes_per_entry: f64,
    /// In-memory index bytes per vertex.
    pub index_bytes_per_vertex: f64,
    /// Self loops dropped.
    pub self_loops_dropped: u64,
    /// Duplicate edges dropped.
    pub duplicates_dropped: u64,
    /// Parse counts of the last pass.
    pub parse: ParseCounts,
    /// Ids were compacted and an id map stored.
    pub ids_compacted: bool,
    /// How vertices are numbered inside the file (what was applied:
    /// `Degree` or `None`).
    pub order: VertexOrder,
    /// Vertex ids are names, stored in the file.
    pub names: bool,
    /// Build path taken.
    pub path: BuildPath,
    /// Why that path.
    pub path_reason: String,
    /// Memory budget in bytes.
    pub memory_budget_bytes: u64,
    /// What the external build needs whatever the budget (0 on the
    /// memory path); a budget below it is raised to it.
    pub memory_floor_bytes: u64,
    /// The floor in its three parts: buffers (process, writer, per
    /// thread), the bytes for the vertices (16 a vertex, 24 with in-edges),
    /// and the one partition of records that cannot be split (the longest
    /// list, at least 8 MiB). All zero on the memory path.
    pub memory_floor_parts: [u64; 3],
    /// Spill partitions (external path).
    pub partitions: usize,
    /// Passes over the input (names, ids, counts, records): one on the
    /// memory path; on the external path one more for each group of
    /// partitions spilled separately (when the spill does not fit the
    /// temporary directory at once) or replayed.
    pub input_passes: u32,
    /// Worker threads.
    pub threads: usize,
    /// Input size on disk.
    pub input_bytes: u64,
    /// Output size.
    pub output_bytes: u64,
    /// Stage times.
    pub timings: Timings,
}

/// Receives progress; the CLI draws a bar, the library default ignores it.
pub trait Progress: Sync {
    /// A new stage with an optional total (bytes).
    fn stage(&self, _name: &str, _total: Option<u64>) {}
    /// Progress within the stage.
    fn set(&self, _done: u64) {}
}

/// A progress sink that shows nothing.
pub struct NoProgress;
impl Progress for NoProgress {}

/// Edges that come from a program instead of a file (the generators).
pub trait EdgeGenerator: Sync {
    /// Number of independent chunks.
    fn chunks(&self) -> usize;
    /// Emits the edges of `chunk` into `sink`; returns false if the sink
    /// stopped, an error if the edges could not be read (the conversion
    /// then fails with it and writes nothing).
    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> crate::Result<bool>;
    /// Exact number of edges emitted over all chunks.
    fn edges(&self) -> u64;
    /// Vertices the graph has even if isolated (ids `0..n`); `None` when
    /// the edges alone decide, as for a text edge list (ids may then be
    /// compacted, see [`IdMode`]).
    fn vertex_count(&self) -> Option<u64>;
    /// Whether [`EdgeGenerator::emit`] gives edge weights (default: no,
    /// every weight is 1).
    fn weighted(&self) -> bool {
        false
    }
    /// A short description for reports.
    fn describe(&self) -> String;
    /// The files the edges are read from, which the output may not
    /// replace (default: none).
    fn inputs(&self) -> Vec<PathBuf> {
        Vec::new()
    }
    /// What the user's first id is: the ids [`EdgeGenerator::emit`] gives
    /// are the user's less this (default 0; 1 for a graph read from
    /// Matrix Market, kept when the graph is rewritten).
    fn id_base(&self) -> u64 {
        0
    }
    /// Whether emitting the edges again is cheap and gives the same edges
    /// (a generator: yes; default no). A bounded build of such a source
    /// whose spill would not fit the temporary directory makes one pass
    /// per partition instead, keeping only that partition's records.
    fn replayable(&self) -> bool {
        false
    }
    /// The vertex names, when the source's ids are strings: the ids
    /// [`EdgeGenerator::emit`] gives are then ranks in this table, and
    /// [`EdgeGenerator::vertex_count`] is its length (default: none).
    fn names(&self) -> Option<std::sync::Arc<crate::store::names::Names>> {
        None
    }
}

impl<S: EdgeSink + ?Sized> EdgeSink for &mut S {
    fn edge(&mut self, u: u64, v: u64, w: f32) -> bool {
        (**self).edge(u, v, w)
    }
    fn vertex(&mut self, u: u64) {
        (**self).vertex(u)
    }
    fn name(&mut self, token: &[u8]) {
        (**self).name(token)
    }
    fn edges(&mut self, u: &[u64], v: &[u64], w: Option<&[f32]>) -> bool {
        (**self).edges(u, v, w)
    }
}

/// Where edges come from.
pub enum Source<'a> {
    /// A text file.
    File(&'a Input),
    /// A generator.
    Generated(&'a dyn EdgeGenerator),
}

/// Which columns of a table hold an edge (Parquet, Arrow, CSV with a
/// header).
#[derive(Clone, Debug)]
pub struct EdgeColumns {
    /// Source ids (default `src`).
    pub src: String,
    /// Destination ids (default `dst`).
    pub dst: String,
    /// Weights (default `weight`, used when present).
    pub weight: String,
}

impl Default for EdgeColumns {
    fn default() -> EdgeColumns {
        EdgeColumns {
            src: "src".into(),
            dst: "dst".into(),
            weight: "weight".into(),
        }
    }
}

impl std::str::FromStr for EdgeColumns {
    type Err = String;
    /// `src,dst` or `src,dst,weight`.
    fn from_str(s: &str) -> std::result::Result<EdgeColumns, String> {
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        match parts.as_slice() {
            [a, b] if !a.is_empty() && !b.is_empty() => Ok(EdgeColumns {
                src: a.to_string(),
                dst: b.to_string(),
                weight: "weight".into(),
            }),
            [a, b, c] if !a.is_empty() && !b.is_empty() && !c.is_empty() => Ok(EdgeColumns {
                src: a.to_string(),
                dst: b.to_string(),
                weight: c.to_string(),
            }),
            _ => Err(format!(
                "columns {s:?}: expected SRC,DST or SRC,DST,WEIGHT (column names)"
            )),
        }
    }
}

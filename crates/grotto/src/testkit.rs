//! The test kit shared by the engine, store and algorithm tests: small
//! generated graphs built through the real ingest into temporary files,
//! and the engine settings tests sweep.

use crate::cache::CacheSize;
use crate::engine::{EngineConfig, Mode};
use crate::gen::{grid::Grid, rmat::Rmat, rmat::RmatConfig, Generator};
use crate::ingest::{convert, ConvertOptions, Input};
use crate::io::{BackendChoice, IoOptions};
use crate::store::layout::LayoutConfig;
use crate::store::Graph;
use std::io::Write;
use std::sync::Arc;

pub struct TestGraph {
    pub _dir: tempfile::TempDir,
    pub graph: Arc<Graph>,
}

pub fn from_edges(edges: &[(u64, u64)], undirected: bool, reverse: bool) -> TestGraph {
    from_edges_laid_out(edges, undirected, reverse, LayoutConfig::default())
}

/// [`from_edges`] with a block layout of its own.
pub fn from_edges_laid_out(
    edges: &[(u64, u64)],
    undirected: bool,
    reverse: bool,
    layout: LayoutConfig,
) -> TestGraph {
    from_edges_with(
        edges,
        &ConvertOptions {
            undirected,
            reverse,
            layout,
            ..ConvertOptions::default()
        },
    )
}

/// An undirected rmat graph renumbered in degree order inside (an order
/// section), as `convert --order degree` writes.
pub fn rmat_ordered(scale: u32, edge_factor: u64, seed: u64) -> TestGraph {
    from_edges_with(
        &rmat_edges(scale, edge_factor, seed),
        &ConvertOptions {
            undirected: true,
            order: crate::ingest::VertexOrder::Degree,
            ..ConvertOptions::default()
        },
    )
}

/// A graph of `edges` converted with `opts`.
pub fn from_edges_with(edges: &[(u64, u64)], opts: &ConvertOptions) -> TestGraph {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("g.el");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for (u, v) in edges {
        writeln!(f, "{u} {v}").unwrap();
    }
    drop(f);
    let out = dir.path().join("g.grotto");
    convert(&Input::path(&text), &out, opts).unwrap();
    TestGraph {
        graph: Arc::new(Graph::open(&out).unwrap()),
        _dir: dir,
    }
}

/// A weighted graph from `(u, v, w)` triples.
pub fn from_weighted(edges: &[(u64, u64, f32)], undirected: bool) -> TestGraph {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("g.el");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&text).unwrap());
    for (u, v, w) in edges {
        writeln!(f, "{u} {v} {w}").unwrap();
    }
    drop(f);
    let out = dir.path().join("g.grotto");
    let opts = ConvertOptions {
        undirected,
        weighted: Some(true),
        ..ConvertOptions::default()
    };
    convert(&Input::path(&text), &out, &opts).unwrap();
    TestGraph {
        graph: Arc::new(Graph::open(&out).unwrap()),
        _dir: dir,
    }
}

/// The edges of an R-MAT graph.
pub(crate) fn rmat_edges(scale: u32, edge_factor: u64, seed: u64) -> Vec<(u64, u64)> {
    let g = Rmat::new(RmatConfig {
        scale,
        edge_factor,
        seed,
        ..RmatConfig::default()
    })
    .unwrap();
    edges_of(&g)
}

fn edges_of(g: &dyn Generator) -> Vec<(u64, u64)> {
    let mut edges = Vec::new();
    for c in 0..g.chunks() {
        g.chunk_edges(c, &mut edges);
    }
    edges
}

/// An R-MAT graph with weights 0.25 to 10 from a hash of the edge.
pub fn weighted_rmat(scale: u32, edge_factor: u64, seed: u64, undirected: bool) -> TestGraph {
    let w: Vec<(u64, u64, f32)> = rmat_edges(scale, edge_factor, seed)
        .iter()
        .map(|&(u, v)| {
            let h = crate::rng::Rng::new(u.min(v), u.max(v)).next_u64();
            (u, v, 0.25 * (1 + h % 40) as f32)
        })
        .collect();
    from_weighted(&w, undirected)
}

fn generated(g: &dyn Generator, undirected: bool, reverse: bool) -> TestGraph {
    from_edges(&edges_of(g), undirected, reverse)
}

pub fn rmat(scale: u32, edge_factor: u64, seed: u64, undirected: bool) -> TestGraph {
    from_edges(
        &rmat_edges(scale, edge_factor, seed),
        undirected,
        !undirected,
    )
}

/// [`rmat`] with raw (unpacked) blocks, as `convert --compress none` writes.
pub fn rmat_raw(scale: u32, edge_factor: u64, seed: u64, undirected: bool) -> TestGraph {
    let layout = LayoutConfig {
        packed: false,
        ..LayoutConfig::default()
    };
    from_edges_laid_out(
        &rmat_edges(scale, edge_factor, seed),
        undirected,
        !undirected,
        layout,
    )
}

/// An undirected rmat graph whose lists of at most `short_max` ids
/// are (or with 0, are not) packed apart.
pub fn rmat_short(scale: u32, edge_factor: u64, seed: u64, short_max: u32) -> TestGraph {
    let layout = LayoutConfig {
        short_max,
        ..LayoutConfig::default()
    };
    from_edges_laid_out(&rmat_edges(scale, edge_factor, seed), true, false, layout)
}

/// A hub with `leaves` neighbours (a list over several blocks), a
/// path hanging off leaf 1, and some leaf-to-leaf edges.
pub fn star(leaves: u64) -> TestGraph {
    let mut e: Vec<(u64, u64)> = (1..=leaves).map(|l| (0, l)).collect();
    e.extend((0..50).map(|i| (leaves + i, leaves + i + 1)));
    e.push((1, leaves));
    e.extend((2..leaves).step_by(97).map(|l| (l, l + 1)));
    from_edges(&e, true, false)
}

/// The edges of a `rows` x `cols` grid: each vertex to its right and
/// lower neighbours, vertex `r * cols + c`.
pub fn grid_edges(rows: u64, cols: u64) -> Vec<(u64, u64)> {
    let mut e = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let v = r * cols + c;
            if c + 1 < cols {
                e.push((v, v + 1));
            }
            if r + 1 < rows {
                e.push((v, v + cols));
            }
        }
    }
    e
}

pub fn grid(rows: u64, cols: u64) -> TestGraph {
    generated(&Grid::new(rows, cols).expect("a valid grid"), true, false)
}

/// Modes, tiny and whole-graph caches, 1 and 2 threads, concurrency 1
/// to 64, both I/O backends.
pub fn configs() -> Vec<EngineConfig> {
    let mut out = Vec::new();
    let io = |b| IoOptions {
        backend: b,
        ..IoOptions::default()
    };
    for (mode, cache, threads, concurrency, backend) in [
        (
            Mode::Block,
            CacheSize::Bytes(4 * 4096),
            1,
            1,
            BackendChoice::Auto,
        ),
        (
            Mode::Block,
            CacheSize::Percent(3.0),
            2,
            8,
            BackendChoice::Pread,
        ),
        (
            Mode::Block,
            CacheSize::Percent(100.0),
            2,
            64,
            BackendChoice::Auto,
        ),
        (
            Mode::Vertex,
            CacheSize::Bytes(3 * 4096),
            2,
            4,
            BackendChoice::Auto,
        ),
        (
            Mode::Vertex,
            CacheSize::Percent(10.0),
            1,
            16,
            BackendChoice::Pread,
        ),
        (
            Mode::Vertex,
            CacheSize::Percent(100.0),
            2,
            64,
            BackendChoice::Auto,
        ),
    ] {
        out.push(EngineConfig {
            mode,
            cache,
            threads,
            concurrency,
            merge_bytes: 64 << 10,
            io: io(backend),
        });
    }
    out
}

//! The pieces of a graph for Python: the subgraph a selection induces,
//! written as a file (`Graph.subgraph`, `Graph.ego_graph`,
//! `Graph.extract`), and the edges a batch at a time (`Graph.edges`).

use crate::{invalid, json_to_py, maybe_off_thread, py_err, small_graph, PyGraph};
use grotto::algo::ego::Towards;
use grotto::engine::EngineConfig;
use grotto::extract::{select, write, Filter, PieceFormat, Selection};
use grotto::ingest::{ConvertOptions, NoProgress};
use grotto::store::{BlockReader, Direction};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// The internal vertex of result row `row` (a rank).
fn at_rank(g: &grotto::store::Graph, row: i64) -> PyResult<u32> {
    if row < 0 || row as u64 >= g.vertex_count() {
        return Err(invalid(format!("row {row} is no vertex's")));
    }
    Ok(g.vertex_at_rank(row as u32))
}

/// Writes the subgraph of `graph` that one selection induces to `output`
/// (format "grotto", "edgelist" or "parquet"; None: by the extension) and
/// returns {output, vertices, edges}. Vertices are given as result rows
/// (ranks): `rows` (a list), `ego` (with `radius` and `direction`),
/// `component` (-1: the largest); or `kcore`, `filter`
/// ("RESULT:COLUMN OP VALUE"), `community` ("RESULT:LABEL").
#[pyfunction]
#[pyo3(signature = (graph, output, format=None, rows=None, ego=None, radius=1, direction="out",
    kcore=None, component=None, filter=None, community=None, threads=None, memory=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn extract<'py>(
    py: Python<'py>,
    graph: &PyGraph,
    output: PathBuf,
    format: Option<&str>,
    rows: Option<PyReadonlyArray1<'py, i64>>,
    ego: Option<i64>,
    radius: u32,
    direction: &str,
    kcore: Option<u32>,
    component: Option<i64>,
    filter: Option<&str>,
    community: Option<&str>,
    threads: Option<usize>,
    memory: Option<&str>,
) -> PyResult<Py<PyAny>> {
    let memory = memory
        .map(|m| grotto::cache::parse_bytes(m).map_err(|e| invalid(format!("memory={m:?}: {e}"))))
        .transpose()?;
    let g = &graph.graph;
    g.load_order().map_err(py_err)?;
    let sel = if let Some(rows) = rows {
        let vs = rows
            .as_slice()?
            .iter()
            .map(|&r| at_rank(g, r))
            .collect::<PyResult<Vec<_>>>()?;
        Selection::Vertices(vs)
    } else if let Some(c) = ego {
        Selection::Ego {
            source: at_rank(g, c)?,
            radius,
            towards: Towards::parse(direction).map_err(py_err)?,
        }
    } else if let Some(k) = kcore {
        Selection::Kcore(k)
    } else if let Some(c) = component {
        Selection::Component(if c < 0 { None } else { Some(at_rank(g, c)?) })
    } else if let Some(f) = filter {
        Selection::Filter(Filter::parse(f).map_err(py_err)?)
    } else if let Some(c) = community {
        Selection::Filter(Filter::community(c).map_err(py_err)?)
    } else {
        return Err(invalid(
            "give the vertices: a list, ego=, kcore=, component=, filter= or community=".into(),
        ));
    };
    let format = match format {
        None => PieceFormat::for_path(&output),
        Some("grotto") => PieceFormat::Grotto,
        Some("edgelist") => PieceFormat::EdgeList,
        Some("parquet") => PieceFormat::Parquet,
        Some(f) => {
            return Err(invalid(format!(
                "format={f:?}: expected \"grotto\", \"edgelist\" or \"parquet\""
            )))
        }
    };
    let threads = threads
        .filter(|&t| t > 0)
        .unwrap_or_else(grotto::metrics::cores);
    let cfg = EngineConfig {
        threads,
        ..EngineConfig::default()
    };
    let opts = ConvertOptions {
        threads,
        memory_bytes: memory,
        ..ConvertOptions::default()
    };
    let g2 = g.clone();
    let piece = maybe_off_thread(
        py,
        small_graph(g),
        move || {
            let keep = select(&g2, &sel, &cfg)?;
            let extra: Vec<&Path> = match &sel {
                Selection::Filter(f) => vec![f.path.as_path()],
                _ => Vec::new(),
            };
            write(&g2, &keep, &output, format, &extra, &opts, &NoProgress)
        },
        None,
    )?;
    let v = serde_json::to_value(&piece).map_err(|e| invalid(e.to_string()))?;
    json_to_py(py, &v)
}

/// A batch of edges (an undirected edge once, from its smaller end in
/// the user's order) from the vertex of rank `start` on: the source and
/// destination rows (ranks), the weights (None when unweighted), and the
/// rank to go on from (the vertex count at the end). A batch holds
/// whole lists, at least one, and stops once it has `max_edges`.
#[pyfunction]
#[pyo3(signature = (graph, start, max_edges))]
#[allow(clippy::type_complexity)]
pub(crate) fn edge_batch<'py>(
    py: Python<'py>,
    graph: &PyGraph,
    start: u64,
    max_edges: usize,
) -> PyResult<(
    Bound<'py, PyArray1<u64>>,
    Bound<'py, PyArray1<u64>>,
    Option<Bound<'py, PyArray1<f32>>>,
    u64,
)> {
    let g = graph.graph.clone();
    let (src, dst, w, next) = py
        .detach(move || -> grotto::Result<_> {
            g.load_order()?;
            let n = g.vertex_count();
            let mut r = BlockReader::new(&g, Direction::Out)?;
            let (mut nb, mut ws) = (Vec::new(), Vec::new());
            let (mut src, mut dst, mut wt) = (Vec::new(), Vec::new(), Vec::new());
            let mut rank = start.min(n);
            while rank < n && src.len() < max_edges.max(1) {
                let v = g.vertex_at_rank(rank as u32);
                r.neighbors(v, &mut nb, g.weighted().then_some(&mut ws))?;
                g.sort_by_rank(&mut nb, &mut ws);
                for (i, &u) in nb.iter().enumerate() {
                    let ru = g.rank(u) as u64;
                    if !g.directed() && ru < rank {
                        continue;
                    }
                    src.push(rank);
                    dst.push(ru);
                    if g.weighted() {
                        wt.push(ws[i]);
                    }
                }
                rank += 1;
            }
            Ok((src, dst, g.weighted().then_some(wt), rank))
        })
        .map_err(py_err)?;
    Ok((
        PyArray1::from_vec(py, src),
        PyArray1::from_vec(py, dst),
        w.map(|w| PyArray1::from_vec(py, w)),
        next,
    ))
}

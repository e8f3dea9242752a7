//! Conversion from Python: a file (text or Parquet) or edge columns in
//! memory into a `.grotto` file, through the library's own entry points,
//! with progress and Ctrl-C as every native call has them.

use crate::{invalid, maybe_off_thread, off_thread_with, py_err, Report, Tracker};
use grotto::ingest::arrays::EdgeArrays;
use grotto::ingest::parquet::EdgeColumns;
use grotto::ingest::{
    convert_from, convert_path, ConvertOptions, Format, IdMode, Source, VertexOrder,
};
use grotto::store::names::Names;
use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::Arc;

/// The text format named `f` (`format=` of `convert` and `update`).
pub(crate) fn text_format(f: &str) -> PyResult<Format> {
    match f {
        "edgelist" => Ok(Format::EdgeList),
        "adjacency" | "adjlist" => Ok(Format::AdjList),
        "mtx" => Ok(Format::MatrixMarket),
        "csv" => Ok(Format::Csv),
        f => Err(invalid(format!(
            "format={f:?}: expected \"edgelist\", \"adjacency\", \"mtx\" or \"csv\""
        ))),
    }
}

/// The conversion options shared by both sources.
#[allow(clippy::too_many_arguments)]
pub(crate) fn options(
    undirected: bool,
    reverse: bool,
    weighted: Option<bool>,
    memory: Option<&str>,
    threads: Option<usize>,
    keep_self_loops: bool,
    keep_duplicates: bool,
    ids: &str,
    vertices: Option<u64>,
) -> PyResult<ConvertOptions> {
    let memory_bytes = memory
        .map(|m| grotto::cache::parse_bytes(m).map_err(|e| invalid(format!("memory={m:?}: {e}"))))
        .transpose()?;
    let ids = match ids {
        "auto" => IdMode::Auto,
        "dense" => IdMode::Dense,
        "compact" => IdMode::Compact,
        "string" => IdMode::String,
        o => {
            return Err(invalid(format!(
                "ids={o:?}: expected \"auto\", \"dense\", \"compact\" or \"string\""
            )))
        }
    };
    Ok(ConvertOptions {
        undirected,
        reverse,
        weighted,
        keep_self_loops,
        keep_duplicates,
        ids,
        memory_bytes,
        threads: threads.unwrap_or(0),
        vertices,
        ..ConvertOptions::default()
    })
}

/// The vertex order a Python `order=` names.
fn vertex_order(order: &str) -> PyResult<VertexOrder> {
    match order {
        "degree" => Ok(VertexOrder::Degree),
        "bfs" => Ok(VertexOrder::Bfs),
        "auto" => Ok(VertexOrder::Auto),
        "none" => Ok(VertexOrder::None),
        o => Err(invalid(format!(
            "order={o:?}: expected \"auto\", \"degree\", \"bfs\" or \"none\""
        ))),
    }
}

/// Converts a file into a graph file: a Parquet file or directory of
/// them (edge columns `columns`), or a text file (edge list, adjacency
/// list or Matrix Market, optionally gzip or zstd); returns the report as
/// JSON text.
#[pyfunction]
#[pyo3(signature = (input, output, undirected=false, reverse=false, weighted=None, memory=None, threads=None, keep_self_loops=false, keep_duplicates=false, ids="auto", vertices=None, vertex_ids=None, format=None, columns=None, progress=None, order="auto", vertex_names=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert_file(
    py: Python<'_>,
    input: PathBuf,
    output: PathBuf,
    undirected: bool,
    reverse: bool,
    weighted: Option<bool>,
    memory: Option<&str>,
    threads: Option<usize>,
    keep_self_loops: bool,
    keep_duplicates: bool,
    ids: &str,
    vertices: Option<u64>,
    vertex_ids: Option<Vec<u64>>,
    format: Option<&str>,
    columns: Option<(String, String, String)>,
    progress: Option<Bound<'_, PyAny>>,
    order: &str,
    vertex_names: Option<Vec<String>>,
) -> PyResult<String> {
    let mut opts = options(
        undirected,
        reverse,
        weighted,
        memory,
        threads,
        keep_self_loops,
        keep_duplicates,
        ids,
        vertices,
    )?;
    opts.order = vertex_order(order)?;
    opts.vertex_ids = vertex_ids.map(Arc::new);
    opts.vertex_names = vertex_names.map(Arc::new);
    opts.format = format.map(text_format).transpose()?;
    let columns = columns.map_or_else(EdgeColumns::default, |(src, dst, weight)| EdgeColumns {
        src,
        dst,
        weight,
    });
    let tracker = Tracker::default();
    let read = || tracker.read();
    let report = off_thread_with(
        py,
        || convert_path(&input, &output, &opts, &columns, &tracker),
        progress
            .as_ref()
            .map(|f| (&read as &dyn Fn() -> Option<Report>, f)),
    )?;
    serde_json::to_string(&report).map_err(|e| invalid(e.to_string()))
}

/// Converts edge columns (non-negative 64-bit ids, optional f32 weights)
/// into a graph file; `what` names the columns in reports and errors.
/// Returns the report as JSON text.
#[pyfunction]
#[pyo3(signature = (src, dst, weight, output, what, undirected=false, reverse=false, memory=None, threads=None, keep_self_loops=false, keep_duplicates=false, ids="auto", vertices=None, vertex_ids=None, progress=None, names=None, order="auto"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn convert_arrays(
    py: Python<'_>,
    src: PyReadonlyArray1<'_, u64>,
    dst: PyReadonlyArray1<'_, u64>,
    weight: Option<PyReadonlyArray1<'_, f32>>,
    output: PathBuf,
    what: &str,
    undirected: bool,
    reverse: bool,
    memory: Option<&str>,
    threads: Option<usize>,
    keep_self_loops: bool,
    keep_duplicates: bool,
    ids: &str,
    vertices: Option<u64>,
    vertex_ids: Option<Vec<u64>>,
    progress: Option<Bound<'_, PyAny>>,
    names: Option<Vec<String>>,
    order: &str,
) -> PyResult<String> {
    let mut opts = options(
        undirected,
        reverse,
        Some(weight.is_some()),
        memory,
        threads,
        keep_self_loops,
        keep_duplicates,
        ids,
        vertices,
    )?;
    opts.order = vertex_order(order)?;
    opts.vertex_ids = vertex_ids.map(Arc::new);
    let (s, d) = (src.as_slice()?, dst.as_slice()?);
    let w = weight.as_ref().map(|w| w.as_slice()).transpose()?;
    let mut arrays = EdgeArrays::new(s, d, w, what).map_err(py_err)?;
    if let Some(names) = names {
        let refs: Vec<&[u8]> = names.iter().map(|n| n.as_bytes()).collect();
        let table = Names::from_sorted(&refs).map_err(py_err)?;
        arrays = arrays.with_names(table).map_err(py_err)?;
    }
    let tracker = Tracker::default();
    let read = || tracker.read();
    // A few thousand edges convert in less time than a thread starts.
    let small = s.len() <= 16384;
    let report = maybe_off_thread(
        py,
        small,
        || convert_from(&Source::Generated(&arrays), &output, &opts, &tracker),
        progress
            .as_ref()
            .map(|f| (&read as &dyn Fn() -> Option<Report>, f)),
    )?;
    serde_json::to_string(&report).map_err(|e| invalid(e.to_string()))
}

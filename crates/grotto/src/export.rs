//! Writing a graph back as text in the user's ids, so that anyone can
//! check a round trip with their own tools.

use crate::error::{Error, Result};
use crate::store::{BlockReader, Direction, Graph};
use std::io::Write;
use std::path::Path;

/// Text formats `export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    /// `u v` or `u v w` per line.
    EdgeList,
    /// Matrix Market coordinate; `symmetric` for undirected graphs.
    MatrixMarket,
}

/// Writes every edge of `g` to `out` (named `name` in errors): an
/// undirected edge once (`u <= v`). Matrix Market rows and columns are
/// internal ids + 1 (equal to the user's ids for graphs read from Matrix
/// Market). An edge list of a graph whose ids are `0..n` starts with a
/// `# vertices n` line, which `convert` honours, so isolated vertices
/// survive the round trip. Returns edges written.
pub fn export(g: &Graph, format: ExportFormat, out: &mut dyn Write, name: &Path) -> Result<u64> {
    export_kept(g, None, format, out, name)
}

/// [`export`] of the subgraph induced by the vertices with `keep[v]` set
/// (every vertex when `None`): the edges whose two ends are kept.
/// Isolated vertices have no line, and no `# vertices` line is written
/// for a subgraph (its ids are not `0..n`).
pub fn export_kept(
    g: &Graph,
    keep: Option<&[bool]>,
    format: ExportFormat,
    out: &mut dyn Write,
    name: &Path,
) -> Result<u64> {
    let kept = |v: u32| keep.is_none_or(|k| k[v as usize]);
    let err = |e| Error::io(name, "write", e);
    let n = g.vertex_count();
    let weighted = g.weighted();
    let names = g.names();
    if let (Some(t), ExportFormat::EdgeList) = (names, format) {
        // Every name must read back as one token.
        if let Some(v) = (0..n as u32).find(|&v| !text_token(t.get(v))) {
            return Err(Error::Invalid(format!(
                "vertex name {:?} holds a space, tab, comma or line break (or starts a comment), \
                 so an edge list cannot hold it; export --format parquet keeps any name",
                t.get(v)
            )));
        }
        writeln!(
            out,
            "# vertex ids are names: convert with --ids string ({} edges {})",
            g.edge_count(),
            if g.directed() {
                "directed"
            } else {
                "undirected"
            }
        )
        .map_err(err)?;
    } else if format == ExportFormat::EdgeList
        && keep.is_none()
        && !g.header().has_id_map()
        && g.header().id_base == 0
    {
        writeln!(
            out,
            "# vertices {n} edges {} {}",
            g.edge_count(),
            if g.directed() {
                "directed"
            } else {
                "undirected"
            }
        )
        .map_err(err)?;
    }
    if format == ExportFormat::MatrixMarket {
        let field = if weighted { "real" } else { "pattern" };
        let sym = if g.directed() { "general" } else { "symmetric" };
        writeln!(out, "%%MatrixMarket matrix coordinate {field} {sym}").map_err(err)?;
        if g.header().has_id_map() {
            writeln!(
                out,
                "% vertex ids were compacted: row i is the i-th smallest original id"
            )
            .map_err(err)?;
        }
        if names.is_some() {
            writeln!(
                out,
                "% vertices have names: row i is the i-th name in byte order"
            )
            .map_err(err)?;
        }
        writeln!(out, "{n} {n} {}", g.edge_count()).map_err(err)?;
    }
    // Every list is sorted by rank: the order in memory, not read a
    // rank at a time.
    g.load_order()?;
    let mut r = BlockReader::new(g, Direction::Out)?;
    let mut nb = Vec::new();
    let mut ws = Vec::new();
    let mut line = Vec::with_capacity(64);
    let mut ib = itoa::Buffer::new();
    let mut written = 0u64;
    for rank in 0..n as u32 {
        let v = g.vertex_at_rank(rank);
        if !kept(v) {
            continue;
        }
        r.neighbors(v, &mut nb, if weighted { Some(&mut ws) } else { None })?;
        g.sort_by_rank(&mut nb, &mut ws);
        for (i, &u) in nb.iter().enumerate() {
            // An undirected edge once, from its smaller user id.
            if !kept(u) || (!g.directed() && g.rank(u) < g.rank(v)) {
                continue;
            }
            line.clear();
            match (format, names) {
                (ExportFormat::EdgeList, Some(t)) => {
                    line.extend_from_slice(t.get(g.rank(v)).as_bytes());
                    line.push(b' ');
                    line.extend_from_slice(t.get(g.rank(u)).as_bytes());
                }
                _ => {
                    let (a, b) = match format {
                        ExportFormat::EdgeList => (g.original_id(v), g.original_id(u)),
                        // Symmetric Matrix Market stores the lower triangle (row >= column).
                        ExportFormat::MatrixMarket => {
                            let (rv, ru) = (g.rank(v) as u64 + 1, g.rank(u) as u64 + 1);
                            if g.directed() || ru >= rv {
                                (rv, ru)
                            } else {
                                (ru, rv)
                            }
                        }
                    };
                    line.extend_from_slice(ib.format(a).as_bytes());
                    line.push(b' ');
                    line.extend_from_slice(ib.format(b).as_bytes());
                }
            }
            if weighted {
                line.push(b' ');
                line.extend_from_slice(ws[i].to_string().as_bytes());
            }
            line.push(b'\n');
            out.write_all(&line).map_err(err)?;
            written += 1;
        }
    }
    out.flush().map_err(err)?;
    Ok(written)
}

/// Whether `name` reads back from an edge list as the same single token.
fn text_token(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['#', '%'])
        && !name
            .bytes()
            .any(|c| crate::ingest::parse::is_sep(c) || c == b'\n' || c == b'\r')
}

/// Edges per row group of a Parquet export.
const PARQUET_GROUP_EDGES: usize = 1 << 20;

/// Writes every edge of `g` (an undirected edge once, `src <= dst`) as a
/// Parquet table with GraphFrames' columns `src`, `dst` (the user's ids:
/// i64, Spark's `long`, or u64 when an id exceeds it; strings for a graph
/// with names) and, on a weighted graph, `weight` (f32), in snappy-compressed row
/// groups of 1M edges; `name` names the output in errors. Returns edges
/// written. Isolated vertices have no row, as in GraphFrames' edge tables.
pub fn export_parquet<W: Write + Send>(g: &Graph, out: W, name: &Path) -> Result<u64> {
    export_parquet_kept(g, None, out, name)
}

/// [`export_parquet`] of the subgraph induced by the vertices with
/// `keep[v]` set (every vertex when `None`).
pub fn export_parquet_kept<W: Write + Send>(
    g: &Graph,
    keep: Option<&[bool]>,
    out: W,
    name: &Path,
) -> Result<u64> {
    let kept = |v: u32| keep.is_none_or(|k| k[v as usize]);
    use arrow_array::{ArrayRef, Float32Array, Int64Array, RecordBatch, StringArray, UInt64Array};
    use arrow_schema::{DataType, Field, Schema};
    use std::sync::Arc;
    let perr = |e: parquet::errors::ParquetError| {
        Error::Invalid(format!("{}: writing Parquet: {e}", name.display()))
    };
    let weighted = g.weighted();
    let names = g.names();
    // Spark reads an unsigned 64-bit column as decimal(20,0): ids that
    // fit are written signed.
    let signed = g.ids_fit_i64();
    let id_type = if names.is_some() {
        DataType::Utf8
    } else if signed {
        DataType::Int64
    } else {
        DataType::UInt64
    };
    let mut fields = vec![
        Field::new("src", id_type.clone(), false),
        Field::new("dst", id_type, false),
    ];
    if weighted {
        fields.push(Field::new("weight", DataType::Float32, false));
    }
    let schema = Arc::new(Schema::new(fields));
    let props = parquet::file::properties::WriterProperties::builder()
        .set_compression(parquet::basic::Compression::SNAPPY)
        .set_max_row_group_row_count(Some(PARQUET_GROUP_EDGES))
        .build();
    let mut w =
        parquet::arrow::ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(perr)?;
    let (mut src, mut dst, mut wts) = (Vec::new(), Vec::new(), Vec::new());
    let ids = |vs: Vec<u32>| -> ArrayRef {
        match names {
            Some(t) => Arc::new(StringArray::from_iter_values(
                vs.iter().map(|&v| t.get(g.rank(v))),
            )),
            None if signed => Arc::new(Int64Array::from_iter_values(
                vs.iter().map(|&v| g.original_id(v) as i64),
            )),
            None => Arc::new(UInt64Array::from_iter_values(
                vs.iter().map(|&v| g.original_id(v)),
            )),
        }
    };
    let flush = |src: &mut Vec<u32>,
                 dst: &mut Vec<u32>,
                 wts: &mut Vec<f32>,
                 w: &mut parquet::arrow::ArrowWriter<W>|
     -> Result<()> {
        let mut cols: Vec<ArrayRef> = vec![ids(std::mem::take(src)), ids(std::mem::take(dst))];
        if weighted {
            cols.push(Arc::new(Float32Array::from(std::mem::take(wts))));
        }
        let batch = RecordBatch::try_new(schema.clone(), cols).map_err(|e| {
            Error::Invalid(format!("{}: building a Parquet batch: {e}", name.display()))
        })?;
        w.write(&batch).map_err(perr)
    };
    g.load_order()?;
    let mut r = BlockReader::new(g, Direction::Out)?;
    let (mut nb, mut ws) = (Vec::new(), Vec::new());
    let mut written = 0u64;
    for rank in 0..g.vertex_count() as u32 {
        let v = g.vertex_at_rank(rank);
        if !kept(v) {
            continue;
        }
        r.neighbors(v, &mut nb, if weighted { Some(&mut ws) } else { None })?;
        g.sort_by_rank(&mut nb, &mut ws);
        for (i, &u) in nb.iter().enumerate() {
            // An undirected edge once, from its smaller user id.
            if !kept(u) || (!g.directed() && g.rank(u) < g.rank(v)) {
                continue;
            }
            src.push(v);
            dst.push(u);
            if weighted {
                wts.push(ws[i]);
            }
            written += 1;
            if src.len() == PARQUET_GROUP_EDGES {
                flush(&mut src, &mut dst, &mut wts, &mut w)?;
            }
        }
    }
    if !src.is_empty() || written == 0 {
        flush(&mut src, &mut dst, &mut wts, &mut w)?;
    }
    w.close().map_err(perr)?;
    Ok(written)
}

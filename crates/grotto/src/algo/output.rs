//! Per-vertex results as files: CSV with a header, raw little-endian
//! records, or a NumPy `.npy` structured array. The first column is always
//! the user's vertex id. Files go through [`Output`]: a temporary beside
//! the target, flushed to disk and renamed, so a failed run leaves no
//! partial output; standard output, FIFOs and devices are written through.

use crate::error::{Error, Result};
use crate::io::output::{Output, Streams};
use crate::store::names::Names;
use crate::store::Graph;
use crate::VertexId;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// One column of values, one per internal vertex when the table has a
/// graph (rows are then written in the user's order and vertex columns
/// in the user's ids, at write time: nothing is copied or widened
/// before), else one per row.
#[derive(Debug, Clone)]
pub enum Values {
    /// Unsigned 64-bit integers (vertex ids, counts).
    U64(Vec<u64>),
    /// Signed 64-bit integers (-1 for "none").
    I64(Vec<i64>),
    /// Double-precision floats.
    F64(Vec<f64>),
    /// Vertices of a graph with names, by rank in name order, written as
    /// their names ([`super::NONE`] for none: an empty CSV field, a Parquet null).
    Name(Arc<Names>, Vec<u32>),
    /// Unsigned values kept at 32 bits, written as 8-byte unsigned fields.
    U32(Vec<u32>),
    /// Flags, written as 8-byte unsigned 1 or 0.
    Bool(Vec<bool>),
    /// Single-precision floats, written as doubles.
    F32(Vec<f32>),
    /// Counts kept at 32 bits with `u32::MAX` for none, written as signed
    /// 8-byte fields with -1 for none.
    Count(Vec<u32>),
    /// Counts below 255 kept at 8 bits with `u8::MAX` for none, written
    /// as [`Values::Count`] writes its values.
    Count8(Vec<u8>),
    /// Internal vertex ids ([`super::NONE`] for none), written in the
    /// user's ids (-1 for none) or as names (empty for none).
    Vertex(Vec<u32>),
    /// Vertices by rank in the user's order, written in the user's ids
    /// or as names.
    Rank(Vec<u32>),
    /// A [`Values::Vertex`] column turned into ranks before writing
    /// ([`super::NONE`] stays), written as it would have been.
    VertexRank(Vec<u32>),
    /// Each row's own vertex, in the user's ids or as its name.
    Own,
}

/// One value of a cell, as a writer sees it.
enum Cell<'a> {
    U(u64),
    I(i64),
    F(f64),
    Text(Option<&'a str>),
}

impl Values {
    /// Rows this column holds (`None` for [`Values::Own`], which has one
    /// per vertex of the table's graph).
    fn len(&self) -> Option<usize> {
        Some(match self {
            Values::U64(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Name(_, v) => v.len(),
            Values::U32(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::F32(v) => v.len(),
            Values::Count(v) => v.len(),
            Values::Count8(v) => v.len(),
            Values::Vertex(v) => v.len(),
            Values::Rank(v) => v.len(),
            Values::VertexRank(v) => v.len(),
            Values::Own => return None,
        })
    }

    /// Whether the column is written as names on `g`.
    fn is_names(&self, g: Option<&Graph>) -> bool {
        match self {
            Values::Name(..) => true,
            Values::Vertex(_) | Values::Rank(_) | Values::VertexRank(_) | Values::Own => {
                g.is_some_and(|g| g.names().is_some())
            }
            _ => false,
        }
    }

    fn npy_type(&self, g: Option<&Graph>) -> &'static str {
        if self.is_names(g) {
            return "str";
        }
        match self {
            Values::U64(_) | Values::U32(_) | Values::Bool(_) | Values::Rank(_) | Values::Own => {
                "<u8"
            }
            Values::I64(_)
            | Values::Count(_)
            | Values::Count8(_)
            | Values::Vertex(_)
            | Values::VertexRank(_) => "<i8",
            Values::F64(_) | Values::F32(_) => "<f8",
            Values::Name(..) => "str",
        }
    }

    /// The value at index `i` (an internal vertex for a table with a
    /// graph, else a row) in the row of rank `r`.
    #[inline]
    fn cell<'a>(&'a self, i: usize, r: usize, g: Option<&'a Graph>) -> Cell<'a> {
        let vertex = |v: u32| -> Cell<'a> {
            match g {
                Some(g) => match g.names() {
                    Some(n) => Cell::Text((v != super::NONE).then(|| n.get(g.rank(v)))),
                    None if v == super::NONE => Cell::I(-1),
                    None => Cell::I(g.original_id(v) as i64),
                },
                None if v == super::NONE => Cell::I(-1),
                None => Cell::I(v as i64),
            }
        };
        match self {
            Values::U64(v) => Cell::U(v[i]),
            Values::I64(v) => Cell::I(v[i]),
            Values::F64(v) => Cell::F(v[i]),
            Values::Name(names, v) => Cell::Text((v[i] != super::NONE).then(|| names.get(v[i]))),
            Values::U32(v) => Cell::U(v[i] as u64),
            Values::Bool(v) => Cell::U(v[i] as u64),
            Values::F32(v) => Cell::F(v[i] as f64),
            Values::Count(v) => Cell::I(if v[i] == u32::MAX { -1 } else { v[i] as i64 }),
            Values::Count8(v) => Cell::I(if v[i] == u8::MAX { -1 } else { v[i] as i64 }),
            Values::Vertex(v) => vertex(v[i]),
            Values::Rank(v) => match g {
                Some(g) => match g.names() {
                    Some(n) => Cell::Text(Some(n.get(v[i]))),
                    None => Cell::U(g.original_id_of_rank(v[i])),
                },
                None => Cell::U(v[i] as u64),
            },
            Values::VertexRank(v) => match (g, v[i]) {
                (_, super::NONE) => vertex(super::NONE),
                (Some(g), x) => match g.names() {
                    Some(n) => Cell::Text(Some(n.get(x))),
                    None => Cell::I(g.original_id_of_rank(x) as i64),
                },
                (None, x) => Cell::I(x as i64),
            },
            Values::Own => match g {
                Some(g) => match g.names() {
                    Some(n) => Cell::Text(Some(n.get(r as u32))),
                    None => Cell::U(g.original_id_of_rank(r as u32)),
                },
                None => Cell::U(i as u64),
            },
        }
    }
}

impl Cell<'_> {
    fn bytes(&self) -> [u8; 8] {
        match *self {
            Cell::U(x) => x.to_le_bytes(),
            Cell::I(x) => x.to_le_bytes(),
            Cell::F(x) => x.to_le_bytes(),
            // Refused by `write_to` before records are written.
            Cell::Text(_) => [0; 8],
        }
    }
    fn text(&self, out: &mut Vec<u8>) {
        match *self {
            Cell::U(x) => out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes()),
            Cell::I(x) => out.extend_from_slice(itoa::Buffer::new().format(x).as_bytes()),
            // Shortest text that reads back as the same double.
            Cell::F(x) => {
                let _ = write!(out, "{x:?}");
            }
            Cell::Text(Some(t)) => csv_field(t, out),
            Cell::Text(None) => {}
        }
    }
}

/// Writes `text` as one CSV field, quoted (RFC 4180) when it is empty or
/// holds a comma, a quote, a line break or outer spaces.
fn csv_field(text: &str, out: &mut Vec<u8>) {
    let plain = !text.is_empty()
        && !text.starts_with(' ')
        && !text.ends_with(' ')
        && !text
            .bytes()
            .any(|c| matches!(c, b',' | b'"' | b'\n' | b'\r'));
    if plain {
        out.extend_from_slice(text.as_bytes());
    } else {
        out.push(b'"');
        for c in text.bytes() {
            if c == b'"' {
                out.push(b'"');
            }
            out.push(c);
        }
        out.push(b'"');
    }
}

/// A named column.
#[derive(Debug, Clone)]
pub struct Column {
    /// Header name.
    pub name: &'static str,
    /// Values, one per row.
    pub values: Values,
}

/// Per-vertex results: equal-length columns, the first the vertex id.
///
/// A table over a graph ([`Table::for_graph`]) keeps its columns by
/// internal vertex and is written in the user's order, one row at a
/// time: rows, user ids and names are looked up as each row is written,
/// so writing costs no memory per vertex beyond the columns themselves
/// (and the graph's rank-to-vertex table, for a file with a vertex
/// order).
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The columns.
    pub columns: Vec<Column>,
    /// The graph whose vertices the rows are (or, for a table of
    /// [`Table::rows_of`], whose vertices its vertex columns name).
    graph: Option<Arc<Graph>>,
    /// Whether there is one row per vertex of `graph`, in the user's order.
    per_vertex: bool,
}

/// Rows per row group of a Parquet result.
pub const PARQUET_GROUP_ROWS: usize = 1 << 20;

/// File format of a result table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Comma-separated text with a header line.
    Csv,
    /// Packed little-endian records of 8-byte fields, no header.
    Bin,
    /// NumPy `.npy` (version 1.0) holding a structured array.
    Npy,
    /// Apache Parquet (snappy-compressed row groups of 1M rows); the
    /// vertex column is named `id`, as GraphFrames names it.
    Parquet,
    /// LDBC Graphalytics' output: `id value` lines, no header, the value
    /// the table's first column after the vertex; an unreached vertex's
    /// integer is 9223372036854775807 and an infinite distance
    /// `Infinity`, as Graphalytics spells them.
    Graphalytics,
}

impl Format {
    /// The format a file name asks for: `.parquet`, `.npy`, `.bin`, else
    /// CSV.
    pub fn for_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("parquet") => Format::Parquet,
            Some(e) if e.eq_ignore_ascii_case("npy") => Format::Npy,
            Some(e) if e.eq_ignore_ascii_case("bin") => Format::Bin,
            _ => Format::Csv,
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Format, String> {
        match s {
            "csv" => Ok(Format::Csv),
            "bin" => Ok(Format::Bin),
            "npy" => Ok(Format::Npy),
            "parquet" => Ok(Format::Parquet),
            "graphalytics" => Ok(Format::Graphalytics),
            _ => Err(format!(
                "format \"{s}\": expected csv, bin, npy, parquet or graphalytics"
            )),
        }
    }
}

impl Table {
    /// A table with one row per vertex of `g`, in the user's order, and
    /// a first column `id` holding each row's vertex in the user's ids (or
    /// its name), as GraphFrames, Parquet results and Python name it.
    pub fn for_graph(g: Arc<Graph>) -> Table {
        let mut t = Table {
            columns: Vec::new(),
            graph: Some(g),
            per_vertex: true,
        };
        t.push("id", Values::Own);
        t
    }

    /// A table of rows of its own (a path's steps, say), as many as its
    /// columns hold, whose vertex columns are written in `g`'s user ids or
    /// names.
    pub fn rows_of(g: Arc<Graph>) -> Table {
        Table {
            columns: Vec::new(),
            graph: Some(g),
            per_vertex: false,
        }
    }

    /// The graph whose vertices the rows are, when there is a row per
    /// vertex.
    fn row_graph(&self) -> Option<&Arc<Graph>> {
        self.graph.as_ref().filter(|_| self.per_vertex)
    }

    /// Adds a column.
    pub fn push(&mut self, name: &'static str, values: Values) {
        self.columns.push(Column { name, values });
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        match self.row_graph() {
            Some(g) => g.vertex_count() as usize,
            None => self
                .columns
                .iter()
                .find_map(|c| c.values.len())
                .unwrap_or(0),
        }
    }

    /// Calls `f` with each row's index into the columns (the vertex of
    /// that rank, for a table over a graph), in row order. Vertices are
    /// found a chunk of ranks at a time: a sixteenth of the rows, at
    /// least 64Ki, so the lookup needs a quarter byte per vertex at most.
    fn each_index(
        &self,
        path: &Path,
        mut f: impl FnMut(usize, usize) -> std::io::Result<()>,
    ) -> Result<()> {
        let rows = self.rows();
        let werr = |e| Error::io(path, "write", e);
        let Some(g) = self.row_graph() else {
            return (0..rows).try_for_each(|i| f(i, i)).map_err(werr);
        };
        let chunk = (rows / 16).max(1 << 16).min(rows.max(1));
        let mut vs = vec![0 as VertexId; chunk];
        let mut lo = 0;
        while lo < rows {
            let n = chunk.min(rows - lo);
            g.vertices_at_ranks(lo as u32, &mut vs[..n])?;
            for (k, &v) in vs[..n].iter().enumerate() {
                f(v as usize, lo + k).map_err(werr)?;
            }
            lo += n;
        }
        Ok(())
    }

    /// The indices into the columns of rows `lo..hi`.
    fn indices(&self, lo: usize, hi: usize) -> Result<Vec<usize>> {
        Ok(match self.row_graph() {
            Some(g) => {
                let mut vs = vec![0 as VertexId; hi - lo];
                g.vertices_at_ranks(lo as u32, &mut vs)?;
                vs.into_iter().map(|v| v as usize).collect()
            }
            None => (lo..hi).collect(),
        })
    }

    /// Turns vertex columns into ranks in place, so writing them looks
    /// nothing up at random: without the vertex order in memory, that
    /// takes passes over each column and no memory per vertex.
    fn resolve_vertices(&mut self) -> Result<()> {
        let Some(g) = self.graph.clone() else {
            return Ok(());
        };
        for c in &mut self.columns {
            if let Values::Vertex(x) = &mut c.values {
                g.ranks_in_place(x, super::NONE)?;
                c.values = Values::VertexRank(std::mem::take(x));
            }
        }
        Ok(())
    }

    fn graph(&self) -> Option<&Graph> {
        self.graph.as_deref()
    }

    /// The record layout of the `bin` and `npy` formats, in words.
    pub fn layout(&self) -> String {
        self.columns
            .iter()
            .map(|c| match c.values.npy_type(self.graph()) {
                "str" => format!("{}:name", c.name),
                "<u8" => format!("{}:u64", c.name),
                "<i8" => format!("{}:i64", c.name),
                "<f8" => format!("{}:f64", c.name),
                t => format!("{}:{t}", c.name),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The columns in row order as plain arrays: 64-bit integers and
    /// doubles, or name ranks (for callers that hand arrays on, such as
    /// the Python package).
    pub fn into_columns(mut self) -> Result<Vec<(&'static str, Values)>> {
        self.resolve_vertices()?;
        let rows = self.rows();
        let graph = self.graph.clone();
        let g = graph.as_deref();
        // One column at a time, each dropped once converted, the id column
        // last: it is new memory, which a reordered column's two copies
        // need not sit on top of.
        let mut out = Vec::with_capacity(self.columns.len());
        for c in std::mem::take(&mut self.columns) {
            match c.values {
                Values::Own => out.push((c.name, Values::Own)),
                v => out.push((c.name, column_in_rows(v, rows, g, self.per_vertex)?)),
            }
        }
        for (_, v) in out.iter_mut() {
            if matches!(v, Values::Own) {
                *v = column_in_rows(Values::Own, rows, g, self.per_vertex)?;
            }
        }
        Ok(out)
    }

    /// Writes the table to `path` in `format`, atomically (see
    /// [`Output::create`]; a stream is written through).
    pub fn write(&mut self, path: &Path, format: Format) -> Result<()> {
        self.write_to(Output::create(path, &[], Streams::Allowed)?, format)
    }

    /// Writes the table into `out`, an output opened before the run (so a
    /// bad destination failed before any work), and commits it.
    pub fn write_to(&mut self, out: Output, format: Format) -> Result<()> {
        let rows = self.rows();
        if self
            .columns
            .iter()
            .any(|c| c.values.len().is_some_and(|n| n != rows))
        {
            return Err(Error::Invalid("result columns differ in length".into()));
        }
        let path = out.path().to_path_buf();
        self.resolve_vertices()?;
        if matches!(format, Format::Bin | Format::Npy)
            && self.columns.iter().any(|c| c.values.is_names(self.graph()))
        {
            return Err(Error::Invalid(format!(
                "{}: this graph's vertices have names, and {} files hold numbers only; write csv or parquet",
                path.display(),
                if format == Format::Npy { "npy" } else { "bin" }
            )));
        }
        if format == Format::Parquet {
            self.write_parquet(out.file(), &path)?;
            return out.commit();
        }
        let mut w = std::io::BufWriter::with_capacity(1 << 20, out.file());
        let werr = |e| Error::io(&path, "write", e);
        match format {
            Format::Csv => self.write_csv(&mut w, &path)?,
            Format::Graphalytics => self.write_graphalytics(&mut w, &path)?,
            Format::Bin => self.write_records(&mut w, &path)?,
            Format::Npy => {
                w.write_all(&self.npy_header()).map_err(werr)?;
                self.write_records(&mut w, &path)?;
            }
            Format::Parquet => unreachable!("written above"),
        }
        w.flush().map_err(werr)?;
        drop(w);
        out.commit()
    }

    /// The table as Parquet, in row groups of [`PARQUET_GROUP_ROWS`].
    /// Unsigned 64-bit columns (ids, labels, counts) are written as
    /// signed ones when the graph's ids fit: Spark reads an unsigned
    /// 64-bit column as decimal(20,0), and GraphFrames' ids are `long`.
    fn write_parquet(&self, file: &std::fs::File, path: &Path) -> Result<()> {
        use arrow_array::{
            ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray, UInt64Array,
        };
        let perr = |e: parquet::errors::ParquetError| {
            Error::Invalid(format!("{}: writing Parquet: {e}", path.display()))
        };
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .set_max_row_group_row_count(Some(PARQUET_GROUP_ROWS))
            .build();
        let mut writer: Option<parquet::arrow::ArrowWriter<&std::fs::File>> = None;
        let rows = self.rows();
        let signed = self.graph().is_none_or(|g| g.ids_fit_i64());
        let mut lo = 0;
        while lo < rows || (rows == 0 && writer.is_none()) {
            let hi = (lo + PARQUET_GROUP_ROWS).min(rows);
            let g = self.graph();
            let idx = self.indices(lo, hi)?;
            let cols: Vec<(&str, ArrayRef)> = self
                .columns
                .iter()
                .map(|c| -> Result<(&str, ArrayRef)> {
                    let name = c.name;
                    let v = &c.values;
                    let cells = idx.iter().enumerate().map(|(k, &i)| v.cell(i, lo + k, g));
                    let a: ArrayRef = match v.npy_type(g) {
                        "<u8" if signed => {
                            let mut vals = Vec::with_capacity(idx.len());
                            for x in cells {
                                let x = match x {
                                    Cell::U(x) => x,
                                    _ => 0,
                                };
                                match i64::try_from(x) {
                                    Ok(x) => vals.push(x),
                                    Err(_) => return Err(Error::Invalid(format!(
                                        "{}: column {name} holds {x}, beyond a signed 64-bit integer",
                                        path.display()
                                    ))),
                                }
                            }
                            Arc::new(Int64Array::from(vals))
                        }
                        "<u8" => Arc::new(UInt64Array::from_iter_values(cells.map(|x| match x {
                            Cell::U(x) => x,
                            _ => 0,
                        }))),
                        "<i8" => Arc::new(Int64Array::from_iter_values(cells.map(|x| match x {
                            Cell::I(x) => x,
                            _ => 0,
                        }))),
                        "<f8" => Arc::new(Float64Array::from_iter_values(cells.map(|x| match x {
                            Cell::F(x) => x,
                            _ => 0.0,
                        }))),
                        _ => Arc::new(
                            cells
                                .map(|x| match x {
                                    Cell::Text(t) => t,
                                    _ => None,
                                })
                                .collect::<StringArray>(),
                        ),
                    };
                    Ok((name, a))
                })
                .collect::<Result<_>>()?;
            let batch = RecordBatch::try_from_iter(cols).map_err(|e| {
                Error::Invalid(format!("{}: building a Parquet batch: {e}", path.display()))
            })?;
            if writer.is_none() {
                writer = Some(
                    parquet::arrow::ArrowWriter::try_new(file, batch.schema(), Some(props.clone()))
                        .map_err(perr)?,
                );
            }
            if let Some(w) = writer.as_mut() {
                w.write(&batch).map_err(perr)?;
            }
            lo = hi;
            if rows == 0 {
                break;
            }
        }
        if let Some(w) = writer {
            w.close().map_err(perr)?;
        }
        Ok(())
    }

    fn write_csv(&self, w: &mut impl Write, path: &Path) -> Result<()> {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        writeln!(w, "{}", names.join(",")).map_err(|e| Error::io(path, "write", e))?;
        let mut line = Vec::with_capacity(128);
        let g = self.graph();
        self.each_index(path, |i, r| {
            line.clear();
            for (k, c) in self.columns.iter().enumerate() {
                if k > 0 {
                    line.push(b',');
                }
                c.values.cell(i, r, g).text(&mut line);
            }
            line.push(b'\n');
            w.write_all(&line)
        })
    }

    fn write_graphalytics(&self, w: &mut impl Write, path: &Path) -> Result<()> {
        let Some(value) = self.columns.get(1) else {
            return Err(Error::Invalid(format!(
                "{}: this result has no value column to write in Graphalytics' form",
                path.display()
            )));
        };
        let id = &self.columns[0];
        let mut line = Vec::with_capacity(64);
        let g = self.graph();
        self.each_index(path, |i, r| {
            line.clear();
            id.values.cell(i, r, g).text(&mut line);
            line.push(b' ');
            match value.values.cell(i, r, g) {
                Cell::I(x) if x < 0 => line.extend_from_slice(b"9223372036854775807"),
                Cell::F(x) if x.is_infinite() && x > 0.0 => line.extend_from_slice(b"Infinity"),
                c => c.text(&mut line),
            }
            line.push(b'\n');
            w.write_all(&line)
        })
    }

    fn write_records(&self, w: &mut impl Write, path: &Path) -> Result<()> {
        let mut rec = Vec::with_capacity(8 * self.columns.len());
        let g = self.graph();
        self.each_index(path, |i, r| {
            rec.clear();
            for c in &self.columns {
                rec.extend_from_slice(&c.values.cell(i, r, g).bytes());
            }
            w.write_all(&rec)
        })
    }

    fn npy_header(&self) -> Vec<u8> {
        let descr: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("('{}', '{}')", c.name, c.values.npy_type(self.graph())))
            .collect();
        let mut dict = format!(
            "{{'descr': [{}], 'fortran_order': False, 'shape': ({},), }}",
            descr.join(", "),
            self.rows()
        );
        // Magic (6) + version (2) + length (2) + dict + '\n', to a multiple of 64.
        let total = (10 + dict.len() + 1).div_ceil(64) * 64;
        while 10 + dict.len() + 1 < total {
            dict.push(' ');
        }
        dict.push('\n');
        let mut h = b"\x93NUMPY\x01\x00".to_vec();
        h.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        h.extend_from_slice(dict.as_bytes());
        h
    }
}

/// Column `v` (indexed by vertex) as one of the four kinds
/// [`Table::into_columns`] gives, in row order. A column of one of those
/// kinds whose rows are its vertices (a file without a vertex order) is
/// kept as it is; the others are made row by row ([`by_rows`]).
/// `per_vertex`: whether the rows are `g`'s vertices in the user's order
/// (else they are the columns' own rows).
fn column_in_rows(v: Values, rows: usize, g: Option<&Graph>, per_vertex: bool) -> Result<Values> {
    let ordered = per_vertex && g.is_some_and(Graph::has_vertex_order);
    // The id column's rows are their own vertices' ranks: no lookup.
    let order = g.filter(|_| ordered && !matches!(v, Values::Own));
    Ok(match v {
        Values::U64(x) if x.len() == rows && !ordered => Values::U64(x),
        Values::I64(x) if x.len() == rows && !ordered => Values::I64(x),
        Values::F64(x) if x.len() == rows && !ordered => Values::F64(x),
        v => match v.npy_type(g) {
            "str" => {
                let names = match (&v, g.and_then(|g| g.names())) {
                    (Values::Name(n, _), _) => n.clone(),
                    (_, Some(n)) => n.clone(),
                    _ => Arc::new(Names::default()),
                };
                let ranks = by_rows(rows, ROW_CHUNK, order, |i, r| match &v {
                    Values::Name(_, x) | Values::Rank(x) | Values::VertexRank(x) => x[i],
                    Values::Vertex(x) if x[i] == super::NONE => super::NONE,
                    Values::Vertex(x) => g.map_or(x[i], |g| g.rank(x[i])),
                    _ => r as u32,
                })?;
                Values::Name(names, ranks)
            }
            "<u8" => Values::U64(by_rows(rows, ROW_CHUNK, order, |i, r| {
                match v.cell(i, r, g) {
                    Cell::U(x) => x,
                    _ => 0,
                }
            })?),
            "<i8" => Values::I64(by_rows(rows, ROW_CHUNK, order, |i, r| {
                match v.cell(i, r, g) {
                    Cell::I(x) => x,
                    _ => 0,
                }
            })?),
            _ => Values::F64(by_rows(rows, ROW_CHUNK, order, |i, r| {
                match v.cell(i, r, g) {
                    Cell::F(x) => x,
                    _ => 0.0,
                }
            })?),
        },
    })
}

/// Rows [`by_rows`] finds the vertices of at once: 32 MiB of vertex
/// numbers, and eight passes over the order of 67M vertices (1M-row
/// chunks made it 64 passes, 2.5 s there).
const ROW_CHUNK: usize = 1 << 23;

/// Rows from which [`by_rows`] computes a chunk in parallel.
const PARALLEL_ROWS: usize = 1 << 14;

/// `f(vertex, row)` for every row in order, computed in parallel `chunk`
/// rows at a time (a table under [`PARALLEL_ROWS`] rows on the calling
/// thread): a column of a hundred million values reordered by random
/// reads, several at once, in a second or two. The vertices of a chunk's
/// rows come from `g`'s vertex order, a pass over it each (the order is
/// not held whole: 4 bytes a row at the peak of a large answer); None:
/// each row is its vertex.
fn by_rows<T: Send>(
    rows: usize,
    chunk: usize,
    g: Option<&Graph>,
    f: impl Fn(usize, usize) -> T + Sync,
) -> Result<Vec<T>> {
    use rayon::prelude::*;
    let mut out = Vec::with_capacity(rows);
    let mut vs = vec![0 as VertexId; chunk.min(rows)];
    for lo in (0..rows).step_by(chunk.max(1)) {
        let vs = &mut vs[..(rows - lo).min(chunk)];
        match g {
            Some(g) => g.vertices_at_ranks(lo as u32, vs)?,
            None => vs
                .iter_mut()
                .zip(lo..)
                .for_each(|(v, r)| *v = r as VertexId),
        }
        let each = |(k, &v): (usize, &VertexId)| f(v as usize, lo + k);
        if vs.len() >= PARALLEL_ROWS {
            out.par_extend(vs.par_iter().enumerate().map(each));
        } else {
            // A small table: waking the pool costs more than the rows.
            out.extend(vs.iter().enumerate().map(each));
        }
    }
    Ok(out)
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;

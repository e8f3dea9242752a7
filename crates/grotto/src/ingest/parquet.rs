//! Edge tables in Parquet: one file, or a directory of them (what Spark and
//! pyarrow write), with a source, a destination and optionally a weight
//! column (GraphFrames' `src`, `dst`, and `weight` by default).
//!
//! Each row group is a chunk of the generator path, so the pipeline's
//! threads decode row groups in parallel, each reading only the two or
//! three columns it needs, and memory stays bounded as for text: a thread
//! holds one batch of one row group at a time. Ids are any integer column
//! type with non-negative values; weights any numeric column. Nulls,
//! negative ids, string ids and unreadable files are errors naming the
//! file, the row and the column, and nothing is written.

use super::names::NameSet;
use super::{EdgeGenerator, EdgeSink};
use crate::error::{Error, Result};
use crate::store::names::Names;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Rows decoded at a time.
const BATCH_ROWS: usize = 64 * 1024;

pub use super::options::EdgeColumns;

/// Whether `path` is Parquet: a file ending in `.parquet` (or `.parq`),
/// or a directory holding such files.
pub fn is_parquet(path: &Path) -> bool {
    let named = |p: &Path| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("parq"))
    };
    if path.is_dir() {
        return std::fs::read_dir(path)
            .map(|d| d.flatten().any(|e| named(&e.path())))
            .unwrap_or(false);
    }
    named(path)
}

/// One file's layout: the row groups' sizes and the projected columns.
struct FileParts {
    path: PathBuf,
    /// Leaf column indices of source, destination and (if used) weight.
    leaves: Vec<usize>,
    /// Rows before each row group, and its rows.
    groups: Vec<(u64, u64)>,
}

/// The edges of one or more Parquet files, as a source for the pipeline.
pub struct ParquetEdges {
    files: Vec<FileParts>,
    /// (file, row group) per chunk.
    chunks: Vec<(usize, usize)>,
    columns: EdgeColumns,
    weighted: bool,
    rows: u64,
    what: String,
    /// The id columns hold strings (every file agrees).
    string_ids: bool,
    /// Their names, learnt by [`ParquetEdges::learn_names`].
    names: Option<Arc<Names>>,
}

fn bad(path: &Path, what: String) -> Error {
    Error::BadInput {
        path: path.to_path_buf(),
        what,
    }
}

fn parquet_err(path: &Path, e: impl std::fmt::Display) -> Error {
    bad(path, format!("not a readable Parquet file: {e}"))
}

fn is_string_type(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, v) => is_string_type(v),
        _ => false,
    }
}

fn is_id_type(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32
            | DataType::UInt64
    )
}

impl ParquetEdges {
    /// Opens `path` (a Parquet file or a directory of them) and checks
    /// that every file has the columns with usable types. `weights`:
    /// `Some(true)` requires the weight column, `Some(false)` ignores it,
    /// `None` uses it when every file has it.
    pub fn open(path: &Path, columns: &EdgeColumns, weights: Option<bool>) -> Result<ParquetEdges> {
        let mut paths = Vec::new();
        if path.is_dir() {
            let rd = std::fs::read_dir(path).map_err(|e| Error::io(path, "read directory", e))?;
            for e in rd.flatten() {
                let p = e.path();
                let name = e.file_name().to_string_lossy().to_string();
                if p.is_file() && !name.starts_with('.') && !name.starts_with('_') && is_parquet(&p)
                {
                    paths.push(p);
                }
            }
            paths.sort();
            if paths.is_empty() {
                return Err(bad(path, "the directory holds no .parquet file".into()));
            }
        } else {
            paths.push(path.to_path_buf());
        }
        // First pass: which columns every file has.
        let mut metas = Vec::with_capacity(paths.len());
        for p in &paths {
            let f = File::open(p).map_err(|e| Error::io(p, "open", e))?;
            let b = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| parquet_err(p, e))?;
            metas.push(b);
        }
        let has_weight = metas
            .iter()
            .all(|b| b.schema().column_with_name(&columns.weight).is_some());
        let weighted = match weights {
            Some(true) if !has_weight => {
                return Err(bad(
                    &paths[0],
                    format!(
                        "weights were asked for, and not every file has a {:?} column",
                        columns.weight
                    ),
                ))
            }
            Some(w) => w,
            None => has_weight,
        };
        let mut files = Vec::with_capacity(paths.len());
        let mut chunks = Vec::new();
        let mut rows = 0u64;
        let mut string_ids: Option<(bool, &Path)> = None;
        for (fi, (p, b)) in paths.iter().zip(&metas).enumerate() {
            let schema = b.schema();
            let descr = b.parquet_schema();
            let mut leaves = Vec::new();
            let mut wanted = vec![(&columns.src, true), (&columns.dst, true)];
            if weighted {
                wanted.push((&columns.weight, false));
            }
            for (name, is_id) in wanted {
                let Some((_, field)) = schema.column_with_name(name) else {
                    let names: Vec<&String> = schema.fields().iter().map(|f| f.name()).collect();
                    return Err(bad(
                        p,
                        format!("no column {name:?} (the file has {names:?}; name others with --columns SRC,DST[,WEIGHT])"),
                    ));
                };
                let t = field.data_type();
                if is_id && !is_id_type(t) && !is_string_type(t) {
                    return Err(bad(
                        p,
                        format!(
                            "column {name:?} holds {t}; vertex ids must be integers or strings"
                        ),
                    ));
                }
                if is_id {
                    let here = is_string_type(t);
                    match string_ids {
                        Some((was, first)) if was != here => {
                            return Err(bad(
                                p,
                                format!(
                                    "column {name:?} holds {t}, and the ids read before (in {}) are {}; \
                                     both id columns of every file must be integers or both strings",
                                    first.display(),
                                    if was { "strings" } else { "integers" }
                                ),
                            ))
                        }
                        _ => string_ids = Some((here, p)),
                    }
                }
                let numeric = is_id_type(t) || matches!(t, DataType::Float32 | DataType::Float64);
                if !is_id && !numeric {
                    return Err(bad(
                        p,
                        format!("column {name:?} holds {t}; weights must be numbers"),
                    ));
                }
                let leaf = (0..descr.num_columns())
                    .find(|&i| descr.column(i).path().string() == *name)
                    .ok_or_else(|| {
                        bad(
                            p,
                            format!("column {name:?} is nested; edge columns must be top-level"),
                        )
                    })?;
                leaves.push(leaf);
            }
            let md = b.metadata();
            let mut groups = Vec::with_capacity(md.num_row_groups());
            let mut before = 0u64;
            for g in 0..md.num_row_groups() {
                let n = md.row_group(g).num_rows().max(0) as u64;
                groups.push((before, n));
                before += n;
                chunks.push((fi, g));
            }
            rows += before;
            files.push(FileParts {
                path: p.clone(),
                leaves,
                groups,
            });
        }
        let what = format!(
            "{} ({} file{}, {} row groups; columns {}, {}{})",
            path.display(),
            files.len(),
            if files.len() == 1 { "" } else { "s" },
            chunks.len(),
            columns.src,
            columns.dst,
            if weighted {
                format!(", {}", columns.weight)
            } else {
                String::new()
            }
        );
        Ok(ParquetEdges {
            files,
            chunks,
            columns: columns.clone(),
            weighted,
            rows,
            what,
            string_ids: string_ids.is_some_and(|(s, _)| s),
            names: None,
        })
    }

    /// True when the id columns hold strings (names).
    pub fn string_ids(&self) -> bool {
        self.string_ids
    }

    /// The first pass over string id columns: reads every row group (with
    /// `threads` workers) and keeps the sorted table of distinct names,
    /// those in `listed` included (vertices on no edge), which the edges
    /// are then resolved against.
    pub fn learn_names(&mut self, threads: usize, listed: &[String]) -> Result<()> {
        let set = NameSet::default();
        for name in listed {
            set.insert(name.as_bytes());
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let first_error: std::sync::Mutex<Option<Error>> = std::sync::Mutex::new(None);
        std::thread::scope(|s| {
            for _ in 0..threads.max(1) {
                s.spawn(|| loop {
                    let c = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if c >= self.chunks.len() || crate::interrupt::requested() {
                        break;
                    }
                    let r = self.each_batch(c, &mut |batch, p, row| {
                        for name in [&self.columns.src, &self.columns.dst] {
                            let col = column(batch, name, p)?;
                            for_each_name(&col, name, p, row, &mut |_, t| set.insert(t))?;
                        }
                        Ok(true)
                    });
                    if let Err(e) = r {
                        if let Ok(mut f) = first_error.lock() {
                            f.get_or_insert(e);
                        }
                        break;
                    }
                });
            }
        });
        if let Some(e) = first_error.into_inner().ok().flatten() {
            return Err(e);
        }
        crate::interrupt::check()?;
        self.names = Some(Arc::new(set.into_names()?));
        Ok(())
    }

    /// Reads the batches of chunk `c`, calling `f(batch, file, first row)`
    /// until it returns false.
    fn each_batch(
        &self,
        c: usize,
        f: &mut dyn FnMut(&RecordBatch, &Path, u64) -> Result<bool>,
    ) -> Result<bool> {
        let (fi, g) = self.chunks[c];
        let file = &self.files[fi];
        let p = &file.path;
        let handle = File::open(p).map_err(|e| Error::io(p, "open", e))?;
        let b = ParquetRecordBatchReaderBuilder::try_new(handle).map_err(|e| parquet_err(p, e))?;
        let mask = ProjectionMask::leaves(b.parquet_schema(), file.leaves.iter().copied());
        let reader = b
            .with_row_groups(vec![g])
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| parquet_err(p, e))?;
        let mut row = file.groups[g].0;
        for batch in reader {
            let batch = batch.map_err(|e| parquet_err(p, e))?;
            if !f(&batch, p, row)? {
                return Ok(false);
            }
            row += batch.num_rows() as u64;
            if crate::interrupt::requested() {
                return Err(Error::Interrupted);
            }
        }
        Ok(true)
    }

    /// [`ParquetEdges::open`] with the weight rule of `opts`
    /// (`ignore_weights` drops the weight column, `weighted` requires it),
    /// and the names learnt when the id columns hold strings (with
    /// `opts.vertex_names`, the listed vertices).
    pub fn for_options(
        path: &Path,
        columns: &EdgeColumns,
        opts: &super::ConvertOptions,
    ) -> Result<ParquetEdges> {
        let weights = if opts.ignore_weights {
            Some(false)
        } else {
            opts.weighted
        };
        let mut edges = ParquetEdges::open(path, columns, weights)?;
        if edges.string_ids {
            let threads = match opts.threads {
                0 => crate::metrics::cores(),
                t => t,
            };
            edges.learn_names(
                threads,
                opts.vertex_names.as_deref().map_or(&[][..], |v| &v[..]),
            )?;
        }
        Ok(edges)
    }

    /// Rows over all files.
    pub fn rows(&self) -> u64 {
        self.rows
    }
}

/// The position of the first null in `col`, if any.
fn first_null(col: &ArrayRef) -> Option<usize> {
    if col.null_count() == 0 {
        return None;
    }
    (0..col.len()).find(|&i| col.is_null(i))
}

/// An error naming the first null of id column `name`, if it has one.
fn no_null_id(col: &ArrayRef, name: &str, path: &Path, row0: u64) -> Result<()> {
    match first_null(col) {
        Some(i) => Err(bad(
            path,
            format!(
                "row {} has no {name:?} (a null); every edge needs both ids",
                row0 + i as u64
            ),
        )),
        None => Ok(()),
    }
}

/// Ids of an integer column as u64, or an error naming the first null or
/// negative value (`row0`: the file row of the column's first entry).
fn ids(col: &ArrayRef, name: &str, path: &Path, row0: u64, out: &mut Vec<u64>) -> Result<()> {
    out.clear();
    no_null_id(col, name, path, row0)?;
    macro_rules! signed {
        ($t:ty) => {{
            let a = col.as_primitive::<$t>();
            for (i, &x) in a.values().iter().enumerate() {
                if x < 0 {
                    return Err(bad(
                        path,
                        format!(
                            "row {} has {name} {x}; vertex ids must be non-negative",
                            row0 + i as u64
                        ),
                    ));
                }
                out.push(x as u64);
            }
        }};
    }
    macro_rules! unsigned {
        ($t:ty) => {{
            out.extend(col.as_primitive::<$t>().values().iter().map(|&x| x as u64));
        }};
    }
    match col.data_type() {
        DataType::Int64 => signed!(Int64Type),
        DataType::Int32 => signed!(Int32Type),
        DataType::Int16 => signed!(Int16Type),
        DataType::Int8 => signed!(Int8Type),
        DataType::UInt64 => unsigned!(UInt64Type),
        DataType::UInt32 => unsigned!(UInt32Type),
        DataType::UInt16 => unsigned!(UInt16Type),
        DataType::UInt8 => unsigned!(UInt8Type),
        t => {
            return Err(bad(
                path,
                format!("column {name:?} holds {t}; vertex ids must be integers"),
            ))
        }
    }
    Ok(())
}

/// Column `name` of a batch.
fn column(batch: &RecordBatch, name: &str, p: &Path) -> Result<ArrayRef> {
    batch
        .column_by_name(name)
        .cloned()
        .ok_or_else(|| bad(p, format!("column {name:?} is missing from a row group")))
}

/// Calls `f(i, bytes)` for each name of a string id column, or returns an
/// error naming the first null.
fn for_each_name(
    col: &ArrayRef,
    name: &str,
    path: &Path,
    row0: u64,
    f: &mut dyn FnMut(usize, &[u8]),
) -> Result<()> {
    no_null_id(col, name, path, row0)?;
    match col.data_type() {
        DataType::Utf8 => {
            for (i, t) in col.as_string::<i32>().iter().enumerate() {
                f(i, t.unwrap_or_default().as_bytes());
            }
        }
        DataType::LargeUtf8 => {
            for (i, t) in col.as_string::<i64>().iter().enumerate() {
                f(i, t.unwrap_or_default().as_bytes());
            }
        }
        DataType::Utf8View => {
            for (i, t) in col.as_string_view().iter().enumerate() {
                f(i, t.unwrap_or_default().as_bytes());
            }
        }
        DataType::Dictionary(..) => {
            let dict = col.as_any_dictionary();
            let keys = dict.normalized_keys();
            let mut values: Vec<Vec<u8>> = Vec::new();
            for_each_name(dict.values(), name, path, 0, &mut |_, t| {
                values.push(t.to_vec())
            })?;
            for (i, k) in keys.into_iter().enumerate() {
                let t = values.get(k).ok_or_else(|| {
                    bad(
                        path,
                        format!("row {}: a dictionary key past its values", row0 + i as u64),
                    )
                })?;
                f(i, t);
            }
        }
        t => {
            return Err(bad(
                path,
                format!("column {name:?} holds {t}; expected strings like the other id columns"),
            ))
        }
    }
    Ok(())
}

/// The ranks of a string id column's names in `names`.
fn resolve(
    col: &ArrayRef,
    name: &str,
    path: &Path,
    row0: u64,
    names: &Names,
    out: &mut Vec<u64>,
) -> Result<()> {
    out.clear();
    let mut missing = None;
    for_each_name(col, name, path, row0, &mut |i, t| match names.find(t) {
        Some(v) => out.push(v as u64),
        None => {
            missing.get_or_insert(i);
            out.push(0);
        }
    })?;
    match missing {
        Some(i) => Err(bad(
            path,
            format!(
                "row {}: a {name} not read in the first pass (did the file change?)",
                row0 + i as u64
            ),
        )),
        None => Ok(()),
    }
}

/// Weights of a numeric column as f32, or an error naming the first null
/// or non-finite one.
fn weights(col: &ArrayRef, name: &str, path: &Path, row0: u64, out: &mut Vec<f32>) -> Result<()> {
    out.clear();
    if let Some(i) = first_null(col) {
        return Err(bad(
            path,
            format!("row {} has no {name:?} (a null)", row0 + i as u64),
        ));
    }
    macro_rules! conv {
        ($t:ty) => {
            out.extend(col.as_primitive::<$t>().values().iter().map(|&x| x as f32))
        };
    }
    match col.data_type() {
        DataType::Float32 => conv!(Float32Type),
        DataType::Float64 => conv!(Float64Type),
        DataType::Int64 => conv!(Int64Type),
        DataType::Int32 => conv!(Int32Type),
        DataType::Int16 => conv!(Int16Type),
        DataType::Int8 => conv!(Int8Type),
        DataType::UInt64 => conv!(UInt64Type),
        DataType::UInt32 => conv!(UInt32Type),
        DataType::UInt16 => conv!(UInt16Type),
        DataType::UInt8 => conv!(UInt8Type),
        t => {
            return Err(bad(
                path,
                format!("column {name:?} holds {t}; weights must be numbers"),
            ))
        }
    }
    if let Some(i) = out.iter().position(|w| !w.is_finite()) {
        return Err(bad(
            path,
            format!(
                "row {} has {name} {}; weights must be finite numbers",
                row0 + i as u64,
                out[i]
            ),
        ));
    }
    Ok(())
}

impl EdgeGenerator for ParquetEdges {
    fn chunks(&self) -> usize {
        self.chunks.len()
    }

    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> Result<bool> {
        let (mut s, mut d, mut w) = (Vec::new(), Vec::new(), Vec::new());
        let c = &self.columns;
        self.each_batch(chunk, &mut |batch, p, row| {
            match &self.names {
                Some(names) => {
                    resolve(&column(batch, &c.src, p)?, &c.src, p, row, names, &mut s)?;
                    resolve(&column(batch, &c.dst, p)?, &c.dst, p, row, names, &mut d)?;
                }
                None if self.string_ids => {
                    return Err(bad(p, "string ids are read after learn_names".into()))
                }
                None => {
                    ids(&column(batch, &c.src, p)?, &c.src, p, row, &mut s)?;
                    ids(&column(batch, &c.dst, p)?, &c.dst, p, row, &mut d)?;
                }
            }
            if self.weighted {
                weights(&column(batch, &c.weight, p)?, &c.weight, p, row, &mut w)?;
            }
            Ok(sink.edges(&s, &d, self.weighted.then_some(&w[..])))
        })
    }

    fn edges(&self) -> u64 {
        self.rows
    }

    fn vertex_count(&self) -> Option<u64> {
        self.names.as_ref().map(|n| n.len())
    }

    fn names(&self) -> Option<Arc<Names>> {
        self.names.clone()
    }

    fn weighted(&self) -> bool {
        self.weighted
    }

    fn describe(&self) -> String {
        self.what.clone()
    }

    fn inputs(&self) -> Vec<PathBuf> {
        self.files.iter().map(|f| f.path.clone()).collect()
    }
}

#[cfg(test)]
mod tests;

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

use super::{EdgeGenerator, EdgeSink};
use crate::error::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ProjectionMask;
use std::fs::File;
use std::path::{Path, PathBuf};

/// Rows decoded at a time.
const BATCH_ROWS: usize = 64 * 1024;

/// Which columns hold an edge.
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
                if is_id && !is_id_type(t) {
                    let hint =
                        if matches!(t, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) {
                            " (string vertex ids are not supported yet)"
                        } else {
                            ""
                        };
                    return Err(bad(
                        p,
                        format!("column {name:?} holds {t}; vertex ids must be integers{hint}"),
                    ));
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
        })
    }

    /// [`ParquetEdges::open`] with the weight rule of `opts`:
    /// `ignore_weights` drops the weight column, `weighted` requires it.
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
        ParquetEdges::open(path, columns, weights)
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

/// Ids of an integer column as u64, or an error naming the first null or
/// negative value (`row0`: the file row of the column's first entry).
fn ids(col: &ArrayRef, name: &str, path: &Path, row0: u64, out: &mut Vec<u64>) -> Result<()> {
    out.clear();
    if let Some(i) = first_null(col) {
        return Err(bad(
            path,
            format!(
                "row {} has no {name:?} (a null); every edge needs both ids",
                row0 + i as u64
            ),
        ));
    }
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
        let (fi, g) = self.chunks[chunk];
        let f = &self.files[fi];
        let p = &f.path;
        let file = File::open(p).map_err(|e| Error::io(p, "open", e))?;
        let b = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| parquet_err(p, e))?;
        let mask = ProjectionMask::leaves(b.parquet_schema(), f.leaves.iter().copied());
        let reader = b
            .with_row_groups(vec![g])
            .with_projection(mask)
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| parquet_err(p, e))?;
        let (mut s, mut d, mut w) = (Vec::new(), Vec::new(), Vec::new());
        let mut row = f.groups[g].0;
        let c = &self.columns;
        for batch in reader {
            let batch = batch.map_err(|e| parquet_err(p, e))?;
            let col = |name: &str| {
                batch
                    .column_by_name(name)
                    .cloned()
                    .ok_or_else(|| bad(p, format!("column {name:?} is missing from a row group")))
            };
            ids(&col(&c.src)?, &c.src, p, row, &mut s)?;
            ids(&col(&c.dst)?, &c.dst, p, row, &mut d)?;
            if self.weighted {
                weights(&col(&c.weight)?, &c.weight, p, row, &mut w)?;
            }
            for i in 0..s.len() {
                let wi = if self.weighted { w[i] } else { 1.0 };
                if !sink.edge(s[i], d[i], wi) {
                    return Ok(false);
                }
            }
            row += batch.num_rows() as u64;
            if crate::interrupt::requested() {
                return Err(Error::Interrupted);
            }
        }
        Ok(true)
    }

    fn edges(&self) -> u64 {
        self.rows
    }

    fn vertex_count(&self) -> Option<u64> {
        None
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
mod tests {
    use super::*;
    use crate::ingest::{convert, convert_path, ConvertOptions, Input, NoProgress};
    use crate::store::{BlockReader, Direction, Graph};
    use arrow_array::{
        Float64Array, Int32Array, Int64Array, RecordBatch, StringArray, UInt64Array,
    };
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;

    /// Writes `cols` as a Parquet file with row groups of `group` rows.
    fn write(path: &Path, cols: Vec<(&str, ArrayRef)>, group: usize) {
        let batch = RecordBatch::try_from_iter(cols).unwrap();
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group))
            .build();
        let mut w =
            ArrowWriter::try_new(File::create(path).unwrap(), batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
    }

    fn lists(path: &Path) -> Vec<(u64, Vec<(u64, u32)>)> {
        let g = Graph::open(path).unwrap();
        let mut r = BlockReader::new(&g, Direction::Out).unwrap();
        let (mut ids, mut ws) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for v in 0..g.vertex_count() as u32 {
            r.neighbors(v, &mut ids, Some(&mut ws)).unwrap();
            let w: Vec<u32> = if g.weighted() {
                ws.iter().map(|x| x.to_bits()).collect()
            } else {
                vec![0; ids.len()]
            };
            let mut l: Vec<(u64, u32)> = ids.iter().map(|&u| g.original_id(u)).zip(w).collect();
            l.sort();
            out.push((g.original_id(v), l));
        }
        out.sort();
        out
    }

    /// A file in several row groups, a directory of two files and the
    /// same edges as text give the same graph.
    #[test]
    fn parquet_files_and_text_give_the_same_graph() {
        let dir = tempfile::tempdir().unwrap();
        let n = 5000usize;
        let src: Vec<i64> = (0..n)
            .map(|i| (i * 7919 % 1000) as i64 + 1_000_000_000_000)
            .collect();
        let dst: Vec<i64> = (0..n)
            .map(|i| (i * 104_729 % 1000) as i64 + 1_000_000_000_000)
            .collect();
        let w: Vec<f64> = (0..n).map(|i| (i % 13) as f64 * 0.5 + 1.0).collect();
        let text: String = (0..n)
            .map(|i| format!("{} {} {}\n", src[i], dst[i], w[i]))
            .collect();
        std::fs::write(dir.path().join("e.txt"), text).unwrap();
        let one = dir.path().join("one.parquet");
        write(
            &one,
            vec![
                ("src", Arc::new(Int64Array::from(src.clone())) as ArrayRef),
                ("dst", Arc::new(Int64Array::from(dst.clone())) as ArrayRef),
                (
                    "weight",
                    Arc::new(Float64Array::from(w.clone())) as ArrayRef,
                ),
            ],
            700,
        );
        let parts = dir.path().join("parts");
        std::fs::create_dir(&parts).unwrap();
        for (k, r) in [(0, 0..2000), (1, 2000..n)] {
            write(
                &parts.join(format!("part-{k}.parquet")),
                vec![
                    (
                        "src",
                        Arc::new(UInt64Array::from(
                            src[r.clone()].iter().map(|&x| x as u64).collect::<Vec<_>>(),
                        )) as ArrayRef,
                    ),
                    (
                        "dst",
                        Arc::new(Int64Array::from(dst[r.clone()].to_vec())) as ArrayRef,
                    ),
                    (
                        "weight",
                        Arc::new(Float64Array::from(w[r].to_vec())) as ArrayRef,
                    ),
                ],
                1 << 20,
            );
        }
        std::fs::write(parts.join("_SUCCESS"), "").unwrap();
        let opts = ConvertOptions {
            undirected: true,
            ..Default::default()
        };
        let t = dir.path().join("t.grotto");
        convert(&Input::path(dir.path().join("e.txt")), &t, &opts).unwrap();
        let want = lists(&t);
        for (src_path, groups) in [(&one, 8), (&parts, 2)] {
            let out = dir.path().join("p.grotto");
            let e = ParquetEdges::open(src_path, &EdgeColumns::default(), None).unwrap();
            assert_eq!((e.chunks(), e.rows()), (groups, n as u64));
            let r =
                convert_path(src_path, &out, &opts, &EdgeColumns::default(), &NoProgress).unwrap();
            assert!(r.weighted && r.ids_compacted);
            assert_eq!(lists(&out), want, "{}", src_path.display());
        }
        // The input itself is never the output.
        let e = convert_path(&one, &one, &opts, &EdgeColumns::default(), &NoProgress);
        assert!(e.is_err());
        assert!(ParquetEdges::open(&one, &EdgeColumns::default(), None).is_ok());
    }

    #[test]
    fn bad_tables_are_refused_with_file_row_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let case = |name: &str, cols: Vec<(&str, ArrayRef)>, columns: &str| {
            let p = dir.path().join(format!("{name}.parquet"));
            write(&p, cols, 1 << 20);
            let out = dir.path().join(format!("{name}.grotto"));
            let c: EdgeColumns = columns.parse().unwrap();
            let e =
                convert_path(&p, &out, &ConvertOptions::default(), &c, &NoProgress).unwrap_err();
            assert!(!out.exists());
            e.to_string()
        };
        let ids = |v: Vec<i64>| Arc::new(Int64Array::from(v)) as ArrayRef;
        let e = case(
            "neg",
            vec![("src", ids(vec![1, 2, -3])), ("dst", ids(vec![2, 3, 4]))],
            "src,dst",
        );
        assert!(
            e.contains("neg.parquet") && e.contains("row 2 has src -3"),
            "{e}"
        );
        let nulls = Arc::new(Int32Array::from(vec![Some(1), None])) as ArrayRef;
        let e = case("null", vec![("a", nulls), ("b", ids(vec![2, 3]))], "a,b");
        assert!(e.contains("row 1 has no \"a\""), "{e}");
        let s = Arc::new(StringArray::from(vec!["x", "y"])) as ArrayRef;
        let e = case("str", vec![("src", s), ("dst", ids(vec![2, 3]))], "src,dst");
        assert!(e.contains("not supported yet"), "{e}");
        let e = case(
            "missing",
            vec![("from", ids(vec![1])), ("to", ids(vec![2]))],
            "src,dst",
        );
        assert!(
            e.contains("no column \"src\"") && e.contains("--columns"),
            "{e}"
        );
        let junk = dir.path().join("junk.parquet");
        std::fs::write(&junk, "not parquet").unwrap();
        let e = convert_path(
            &junk,
            &dir.path().join("j.grotto"),
            &ConvertOptions::default(),
            &EdgeColumns::default(),
            &NoProgress,
        );
        assert!(e
            .unwrap_err()
            .to_string()
            .contains("not a readable Parquet file"));
    }
}

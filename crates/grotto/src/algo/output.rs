//! Per-vertex results as files: CSV with a header, raw little-endian
//! records, or a NumPy `.npy` structured array. The first column is always
//! the user's vertex id. Files go through [`Output`]: a temporary beside
//! the target, flushed to disk and renamed, so a failed run leaves no
//! partial output; standard output, FIFOs and devices are written through.

use crate::error::{Error, Result};
use crate::io::output::{Output, Streams};
use crate::store::names::Names;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

/// One column of values.
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
}

impl Values {
    /// Moves value `i` to row `to[i]` (`to` a permutation of the rows).
    pub fn scatter(&mut self, to: &[u32]) {
        fn go<T: Copy + Default>(v: &mut Vec<T>, to: &[u32]) {
            let mut out = vec![T::default(); v.len()];
            for (x, &r) in v.iter().zip(to) {
                out[r as usize] = *x;
            }
            *v = out;
        }
        match self {
            Values::U64(v) => go(v, to),
            Values::I64(v) => go(v, to),
            Values::F64(v) => go(v, to),
            Values::Name(_, v) => go(v, to),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::U64(v) => v.len(),
            Values::I64(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::Name(_, v) => v.len(),
        }
    }
    fn npy_type(&self) -> &'static str {
        match self {
            Values::U64(_) => "<u8",
            Values::I64(_) => "<i8",
            Values::F64(_) => "<f8",
            Values::Name(..) => "str",
        }
    }
    fn bytes_at(&self, i: usize) -> [u8; 8] {
        match self {
            Values::U64(v) => v[i].to_le_bytes(),
            Values::I64(v) => v[i].to_le_bytes(),
            Values::F64(v) => v[i].to_le_bytes(),
            // Refused by `write_to` before records are written.
            Values::Name(_, v) => (v[i] as u64).to_le_bytes(),
        }
    }
    fn text_at(&self, i: usize, out: &mut Vec<u8>) {
        match self {
            Values::U64(v) => out.extend_from_slice(itoa::Buffer::new().format(v[i]).as_bytes()),
            Values::I64(v) => out.extend_from_slice(itoa::Buffer::new().format(v[i]).as_bytes()),
            Values::F64(v) => {
                // Shortest text that reads back as the same double.
                let _ = write!(out, "{:?}", v[i]);
            }
            Values::Name(names, v) => {
                if v[i] != super::NONE {
                    csv_field(names.get(v[i]), out)
                }
            }
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
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// The columns.
    pub columns: Vec<Column>,
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
            _ => Err(format!("format \"{s}\": expected csv, bin, npy or parquet")),
        }
    }
}

impl Table {
    /// Adds a column.
    pub fn push(&mut self, name: &'static str, values: Values) {
        self.columns.push(Column { name, values });
    }

    /// Rows.
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.values.len())
    }

    /// The record layout of the `bin` and `npy` formats, in words.
    pub fn layout(&self) -> String {
        self.columns
            .iter()
            .map(|c| match c.values {
                Values::Name(..) => format!("{}:name", c.name),
                _ => format!("{}:{}", c.name, &c.values.npy_type()[1..]),
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Writes the table to `path` in `format`, atomically (see
    /// [`Output::create`]; a stream is written through).
    pub fn write(&self, path: &Path, format: Format) -> Result<()> {
        self.write_to(Output::create(path, &[], Streams::Allowed)?, format)
    }

    /// Writes the table into `out`, an output opened before the run (so a
    /// bad destination failed before any work), and commits it.
    pub fn write_to(&self, out: Output, format: Format) -> Result<()> {
        if self.columns.iter().any(|c| c.values.len() != self.rows()) {
            return Err(Error::Invalid("result columns differ in length".into()));
        }
        let path = out.path().to_path_buf();
        if matches!(format, Format::Bin | Format::Npy)
            && self
                .columns
                .iter()
                .any(|c| matches!(c.values, Values::Name(..)))
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
            Format::Csv => self.write_csv(&mut w).map_err(werr)?,
            Format::Bin => self.write_records(&mut w).map_err(werr)?,
            Format::Npy => {
                w.write_all(&self.npy_header()).map_err(werr)?;
                self.write_records(&mut w).map_err(werr)?;
            }
            Format::Parquet => unreachable!("written above"),
        }
        w.flush().map_err(werr)?;
        drop(w);
        out.commit()
    }

    /// The table as Parquet, in row groups of [`PARQUET_GROUP_ROWS`].
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
        let mut lo = 0;
        while lo < rows || (rows == 0 && writer.is_none()) {
            let hi = (lo + PARQUET_GROUP_ROWS).min(rows);
            let cols: Vec<(&str, ArrayRef)> = self
                .columns
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let name = if k == 0 && c.name == "vertex" {
                        "id"
                    } else {
                        c.name
                    };
                    let a: ArrayRef = match &c.values {
                        Values::U64(v) => Arc::new(UInt64Array::from(v[lo..hi].to_vec())),
                        Values::I64(v) => Arc::new(Int64Array::from(v[lo..hi].to_vec())),
                        Values::F64(v) => Arc::new(Float64Array::from(v[lo..hi].to_vec())),
                        Values::Name(names, v) => Arc::new(
                            v[lo..hi]
                                .iter()
                                .map(|&x| (x != super::NONE).then(|| names.get(x)))
                                .collect::<StringArray>(),
                        ),
                    };
                    (name, a)
                })
                .collect();
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

    fn write_csv(&self, w: &mut impl Write) -> std::io::Result<()> {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        writeln!(w, "{}", names.join(","))?;
        let mut line = Vec::with_capacity(128);
        for i in 0..self.rows() {
            line.clear();
            for (k, c) in self.columns.iter().enumerate() {
                if k > 0 {
                    line.push(b',');
                }
                c.values.text_at(i, &mut line);
            }
            line.push(b'\n');
            w.write_all(&line)?;
        }
        Ok(())
    }

    fn write_records(&self, w: &mut impl Write) -> std::io::Result<()> {
        let mut rec = Vec::with_capacity(8 * self.columns.len());
        for i in 0..self.rows() {
            rec.clear();
            for c in &self.columns {
                rec.extend_from_slice(&c.values.bytes_at(i));
            }
            w.write_all(&rec)?;
        }
        Ok(())
    }

    fn npy_header(&self) -> Vec<u8> {
        let descr: Vec<String> = self
            .columns
            .iter()
            .map(|c| format!("('{}', '{}')", c.name, c.values.npy_type()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        let mut t = Table::default();
        t.push("vertex", Values::U64(vec![7, 9]));
        t.push("parent", Values::I64(vec![-1, 7]));
        t.push("score", Values::F64(vec![0.25, 0.75]));
        t
    }

    #[test]
    fn csv_and_records() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.csv");
        table().write(&p, Format::Csv).unwrap();
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "vertex,parent,score\n7,-1,0.25\n9,7,0.75\n"
        );
        let b = d.path().join("r.bin");
        table().write(&b, Format::Bin).unwrap();
        let bytes = std::fs::read(&b).unwrap();
        assert_eq!(bytes.len(), 48);
        assert_eq!(&bytes[8..16], &(-1i64).to_le_bytes());
        let n = d.path().join("r.npy");
        table().write(&n, Format::Npy).unwrap();
        let bytes = std::fs::read(&n).unwrap();
        let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        assert_eq!((10 + hl) % 64, 0);
        assert_eq!(bytes.len(), 10 + hl + 48);
        assert!(std::str::from_utf8(&bytes[10..10 + hl])
            .unwrap()
            .contains("('score', '<f8')"));
    }
}

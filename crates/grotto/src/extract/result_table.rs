//! Reading back a result table (`grotto run ... -o FILE`, CSV or Parquet)
//! a row at a time: the two columns a filter asks for, as [`Cell`]s.

use super::Cell;
use crate::error::{quote_bytes, Error, Result};
use std::io::BufRead;
use std::path::Path;

/// Picks the vertex column and the tested one from the column names.
pub(crate) type Pick<'a> = dyn Fn(&[String]) -> Result<(usize, usize)> + 'a;
/// Called with each row's number (from 1), vertex and tested value.
pub(crate) type Each<'a> = dyn FnMut(u64, Cell, Cell) -> Result<()> + 'a;

/// Rows of a CSV result: a header line of column names, then fields
/// separated by commas, quoted as RFC 4180 quotes them.
pub(crate) fn csv(path: &Path, pick: &Pick<'_>, each: &mut Each<'_>) -> Result<()> {
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, f);
    let mut line = Vec::new();
    let mut read = |line: &mut Vec<u8>| -> Result<bool> {
        line.clear();
        let n = r
            .read_until(b'\n', line)
            .map_err(|e| Error::io(path, "read", e))?;
        while line.last().is_some_and(|&c| c == b'\n' || c == b'\r') {
            line.pop();
        }
        Ok(n > 0)
    };
    if !read(&mut line)? {
        return Err(Error::Invalid(format!(
            "{}: empty; expected a result table with a header line",
            path.display()
        )));
    }
    let names = fields(path, 1, &line)?;
    let (vcol, col) = pick(&names)?;
    let mut no = 1u64;
    while read(&mut line)? {
        no += 1;
        if line.is_empty() {
            continue;
        }
        let mut cells = fields(path, no, &line)?;
        if cells.len() != names.len() {
            return Err(Error::Parse {
                path: path.to_path_buf(),
                line: no,
                column: 1,
                expected: format!("{} fields, as the header has", names.len()),
                found: quote_bytes(&line[..line.len().min(60)]),
                note: String::new(),
            });
        }
        let value = Cell::of_text(&std::mem::take(&mut cells[col]));
        // Vertex names stay text even when they look like numbers.
        let vertex = match Cell::of_text(&cells[vcol]) {
            Cell::Int(x) => Cell::Int(x),
            _ => Cell::Text(std::mem::take(&mut cells[vcol])),
        };
        each(no - 1, vertex, value)?;
    }
    Ok(())
}

/// The fields of one CSV line.
fn fields(path: &Path, no: u64, line: &[u8]) -> Result<Vec<String>> {
    let text = std::str::from_utf8(line).map_err(|e| Error::Parse {
        path: path.to_path_buf(),
        line: no,
        column: e.valid_up_to() as u64 + 1,
        expected: "UTF-8 text".into(),
        found: quote_bytes(&line[e.valid_up_to()..line.len().min(e.valid_up_to() + 20)]),
        note: String::new(),
    })?;
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if cur.is_empty() => quoted = true,
            (false, ',') => out.push(std::mem::take(&mut cur)),
            (_, c) => cur.push(c),
        }
    }
    if quoted {
        return Err(Error::Parse {
            path: path.to_path_buf(),
            line: no,
            column: line.len() as u64,
            expected: "a closing quote".into(),
            found: quote_bytes(&line[line.len().saturating_sub(20)..]),
            note: String::new(),
        });
    }
    out.push(cur);
    Ok(out)
}

/// Rows of a Parquet result.
pub(crate) fn parquet(path: &Path, pick: &Pick<'_>, each: &mut Each<'_>) -> Result<()> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let bad = |e: &dyn std::fmt::Display| {
        Error::Invalid(format!(
            "{}: not a readable Parquet file: {e}",
            path.display()
        ))
    };
    let f = std::fs::File::open(path).map_err(|e| Error::io(path, "open", e))?;
    let b = ParquetRecordBatchReaderBuilder::try_new(f).map_err(|e| bad(&e))?;
    let names: Vec<String> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let (vcol, col) = pick(&names)?;
    let mut row = 0u64;
    for batch in b.build().map_err(|e| bad(&e))? {
        let batch = batch.map_err(|e| bad(&e))?;
        let (vs, xs) = (batch.column(vcol), batch.column(col));
        for i in 0..batch.num_rows() {
            row += 1;
            each(row, cell(path, vs, i)?, cell(path, xs, i)?)?;
        }
    }
    Ok(())
}

/// Row `i` of an Arrow column.
fn cell(path: &Path, a: &arrow_array::ArrayRef, i: usize) -> Result<Cell> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::DataType as T;
    if a.is_null(i) {
        return Ok(Cell::Null);
    }
    Ok(match a.data_type() {
        T::Int8 => Cell::Int(a.as_primitive::<Int8Type>().value(i) as i128),
        T::Int16 => Cell::Int(a.as_primitive::<Int16Type>().value(i) as i128),
        T::Int32 => Cell::Int(a.as_primitive::<Int32Type>().value(i) as i128),
        T::Int64 => Cell::Int(a.as_primitive::<Int64Type>().value(i) as i128),
        T::UInt8 => Cell::Int(a.as_primitive::<UInt8Type>().value(i) as i128),
        T::UInt16 => Cell::Int(a.as_primitive::<UInt16Type>().value(i) as i128),
        T::UInt32 => Cell::Int(a.as_primitive::<UInt32Type>().value(i) as i128),
        T::UInt64 => Cell::Int(a.as_primitive::<UInt64Type>().value(i) as i128),
        T::Float32 => Cell::Float(a.as_primitive::<Float32Type>().value(i) as f64),
        T::Float64 => Cell::Float(a.as_primitive::<Float64Type>().value(i)),
        T::Boolean => Cell::Int(a.as_boolean().value(i) as i128),
        T::Utf8 => Cell::Text(a.as_string::<i32>().value(i).to_string()),
        T::LargeUtf8 => Cell::Text(a.as_string::<i64>().value(i).to_string()),
        t => {
            return Err(Error::Invalid(format!(
                "{}: a column of type {t} cannot be compared; integers, numbers, \
                 booleans and text can",
                path.display()
            )))
        }
    })
}

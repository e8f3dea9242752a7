//! CSV with a header line (`--format csv`): the header names the
//! columns, `--columns` picks the source, destination and weight among
//! them (GraphFrames' `src`, `dst`, `weight` by default), and every other
//! column is skipped.
//!
//! Fields are separated by commas, never by spaces; a field may be quoted
//! (RFC 4180: `"a,b"`, `"say ""hi"""`), but not across a line break, since
//! the parallel parser splits the input at line ends. A data line must
//! have as many fields as the header. `#` at the start of a line is a
//! comment, and blank lines are skipped, as in the other formats.

use super::options::EdgeColumns;
use super::parse::{EdgeSink, Ids};
use crate::error::{quote_bytes, Error, Result};
use std::path::Path;

/// Where the edge columns sit in each line (field indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CsvColumns {
    /// Fields per line (the header's).
    pub fields: usize,
    /// Source id field.
    pub src: usize,
    /// Destination id field.
    pub dst: usize,
    /// Weight field, when weights are read.
    pub weight: Option<usize>,
}

/// The header of a CSV input: where the columns are, the lines the parser
/// skips (the header's line number), and the evidence for the report.
pub struct CsvHeader {
    /// Column positions.
    pub columns: CsvColumns,
    /// Lines up to and including the header.
    pub skip_lines: u64,
    /// The header in words.
    pub evidence: String,
}

/// One field of a line: its bytes (quotes removed, doubled quotes kept
/// doubled) and whether it was quoted with doubled quotes inside.
struct Field<'a> {
    bytes: &'a [u8],
    escaped: bool,
}

/// Splits the field at `p` of `b`: returns it and the position after it
/// (at a comma, or at the line end), or the position of an error and
/// what was expected.
fn field(b: &[u8], p: usize) -> std::result::Result<(Field<'_>, usize), (usize, &'static str)> {
    let at_end = |q: usize| q >= b.len() || matches!(b[q], b',' | b'\n' | b'\r');
    if b.get(p) != Some(&b'"') {
        let mut q = p;
        while !at_end(q) {
            if b[q] == b'"' {
                return Err((q, "a comma or a line end (a quote may only open a field)"));
            }
            q += 1;
        }
        return Ok((
            Field {
                bytes: &b[p..q],
                escaped: false,
            },
            q,
        ));
    }
    let mut q = p + 1;
    let mut escaped = false;
    loop {
        match b.get(q) {
            None | Some(b'\n') => {
                return Err((
                    p,
                    "a closing quote on the same line (quoted fields cannot span lines)",
                ))
            }
            Some(b'"') if b.get(q + 1) == Some(&b'"') => {
                escaped = true;
                q += 2;
            }
            Some(b'"') => break,
            Some(_) => q += 1,
        }
    }
    if !at_end(q + 1) {
        return Err((q + 1, "a comma or a line end after the closing quote"));
    }
    Ok((
        Field {
            bytes: &b[p + 1..q],
            escaped,
        },
        q + 1,
    ))
}

/// The text of a field, doubled quotes undone (into `scratch` when needed).
fn unescape<'a>(f: &Field<'a>, scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if !f.escaped {
        return f.bytes;
    }
    scratch.clear();
    let mut i = 0;
    while i < f.bytes.len() {
        scratch.push(f.bytes[i]);
        i += if f.bytes[i] == b'"' { 2 } else { 1 };
    }
    scratch
}

/// Reads the header of `path` (the first line that is neither blank nor a
/// `#` comment) and finds `columns` in it. `weights`: `Some(true)`
/// requires the weight column, `Some(false)` ignores it, `None` uses it
/// when present.
pub fn header(
    path: &Path,
    sample: &[u8],
    columns: &EdgeColumns,
    weights: Option<bool>,
) -> Result<CsvHeader> {
    let bad = |line: u64, what: String| Error::BadInput {
        path: path.to_path_buf(),
        what: format!("line {line}: {what}"),
    };
    let mut no = 0u64;
    let mut lines = sample.split(|&c| c == b'\n');
    let line = loop {
        no += 1;
        match lines.next() {
            None => {
                return Err(Error::BadInput {
                    path: path.to_path_buf(),
                    what: "a CSV input needs a header line naming its columns, and there is none"
                        .into(),
                })
            }
            Some(l) => {
                let l = l.strip_suffix(b"\r").unwrap_or(l);
                if !(l.is_empty() || l.starts_with(b"#")) {
                    break l;
                }
            }
        }
    };
    let mut names: Vec<String> = Vec::new();
    let mut p = 0;
    let mut scratch = Vec::new();
    loop {
        let (f, q) = field(line, p).map_err(|(at, what)| {
            bad(
                no,
                format!("column {}: expected {what} in the header", at + 1),
            )
        })?;
        names.push(
            String::from_utf8_lossy(unescape(&f, &mut scratch))
                .trim()
                .to_string(),
        );
        if q >= line.len() {
            break;
        }
        p = q + 1;
    }
    let find = |name: &str| names.iter().position(|n| n == name);
    let shown = quote_bytes(line);
    let need = |name: &str| {
        find(name).ok_or_else(|| {
            bad(
                no,
                format!(
                    "the header \"{shown}\" has no column {name:?}; name the edge columns with --columns SRC,DST[,WEIGHT]"
                ),
            )
        })
    };
    let (src, dst) = (need(&columns.src)?, need(&columns.dst)?);
    if src == dst {
        return Err(bad(no, "source and destination are the same column".into()));
    }
    let weight = match (weights, find(&columns.weight)) {
        (Some(true), None) => {
            return Err(bad(
                no,
                format!(
                    "weights were asked for, and the header \"{shown}\" has no column {:?}",
                    columns.weight
                ),
            ))
        }
        (Some(false), _) => None,
        (_, w) => w,
    };
    let evidence = format!(
        "given with --format; header on line {no} with {} columns, edges from {:?}, {:?}{}",
        names.len(),
        names[src],
        names[dst],
        weight.map_or(String::new(), |w| format!(", weights from {:?}", names[w]))
    );
    Ok(CsvHeader {
        columns: CsvColumns {
            fields: names.len(),
            src,
            dst,
            weight,
        },
        skip_lines: no,
        evidence,
    })
}

/// A non-negative integer id that is the whole field (spaces around it
/// allowed).
fn integer(f: &[u8]) -> Option<u64> {
    let t = f.trim_ascii();
    if t.is_empty() || !t.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut acc = 0u64;
    for &d in t {
        acc = acc.checked_mul(10)?.checked_add((d - b'0') as u64)?;
    }
    Some(acc)
}

/// Parses one CSV data line starting at `p` of `b` (a line that is not
/// blank or a comment) into `sink`. Returns whether to go on and the start
/// of the line's end (`\n` or `\r\n`), or an error position and text.
pub(crate) fn line<S: EdgeSink>(
    b: &[u8],
    mut p: usize,
    cols: &CsvColumns,
    weighted: bool,
    ids: Ids,
    sink: &mut S,
) -> std::result::Result<(bool, usize), (usize, &'static str)> {
    let (mut u, mut v, mut w) = (0u64, 0u64, 1.0f32);
    let mut scratch = Vec::new();
    for k in 0..cols.fields {
        if k > 0 {
            if b[p] != b',' {
                return Err((p, "a comma and another field (the header has more columns)"));
            }
            p += 1;
        }
        let start = p;
        let (f, q) = field(b, p)?;
        p = q;
        if k == cols.src || k == cols.dst {
            let text = unescape(&f, &mut scratch);
            let id = match ids {
                Ids::Integer => integer(text).ok_or((
                    start,
                    "a vertex id (an integer; vertex names need --ids string)",
                ))?,
                Ids::Collect => {
                    if text.is_empty() {
                        return Err((start, "a vertex name"));
                    }
                    if std::str::from_utf8(text).is_err() {
                        return Err((start, "a vertex name in UTF-8"));
                    }
                    sink.name(text);
                    0
                }
                Ids::Resolve(names) => names.find(text).ok_or((
                    start,
                    "a vertex name read in the first pass (did the file change?)",
                ))? as u64,
                Ids::ResolveOrNew(names) => {
                    super::parse::new_or_known(names, text, sink).map_err(|w| (start, w))?
                }
            };
            if k == cols.src {
                u = id;
            } else {
                v = id;
            }
        } else if Some(k) == cols.weight && weighted {
            let x = std::str::from_utf8(f.bytes.trim_ascii())
                .ok()
                .and_then(|t| t.parse::<f64>().ok())
                .ok_or((start, "a number for the weight"))?;
            if !(x.is_finite() && (x as f32).is_finite()) {
                return Err((start, "a finite weight that fits f32"));
            }
            w = x as f32;
        }
    }
    if !(b[p] == b'\n' || (b[p] == b'\r' && b.get(p + 1) == Some(&b'\n'))) {
        return Err((p, "end of line (the header has fewer columns)"));
    }
    Ok((sink.edge(u, v, w), p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Default)]
    struct Edges(Vec<(u64, u64, f32)>, Vec<Vec<u8>>);
    impl EdgeSink for Edges {
        fn edge(&mut self, u: u64, v: u64, w: f32) -> bool {
            self.0.push((u, v, w));
            true
        }
        fn vertex(&mut self, _: u64) {}
        fn name(&mut self, t: &[u8]) {
            self.1.push(t.to_vec());
        }
    }

    fn cols() -> CsvColumns {
        let h = header(
            Path::new("e.csv"),
            b"# made by hand\n\nid,weight,\"dst\",src,note\n",
            &EdgeColumns::default(),
            None,
        )
        .unwrap();
        assert_eq!(h.skip_lines, 3);
        h.columns
    }

    #[test]
    fn header_finds_columns_by_name() {
        assert_eq!(
            cols(),
            CsvColumns {
                fields: 5,
                src: 3,
                dst: 2,
                weight: Some(1)
            }
        );
        let e = header(Path::new("e.csv"), b"a,b\n", &EdgeColumns::default(), None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("no column \"src\"") && e.contains("--columns"),
            "{e}"
        );
    }

    #[test]
    fn lines_pick_their_fields_and_report_positions() {
        let c = cols();
        let mut s = Edges::default();
        let b = b"7,2.5,9,3,\"x, \"\"y\"\"\"\n";
        assert_eq!(
            line(b, 0, &c, true, Ids::Integer, &mut s),
            Ok((true, b.len() - 1))
        );
        assert_eq!(s.0, vec![(3, 9, 2.5)]);
        for (text, col, what) in [
            (&b"7,1,9\n"[..], 5, "comma"),
            (b"7,1,9,3,x,y\n", 9, "end of line"),
            (b"7,1,nine,3,x\n", 4, "integer"),
            (b"7,w,9,3,x\n", 2, "weight"),
            (b"7,1,9,3,\"open\n", 8, "closing quote"),
            (b"7,1,9,3,a\"b\n", 9, "quote"),
        ] {
            let e = line(text, 0, &c, true, Ids::Integer, &mut s).unwrap_err();
            assert_eq!(e.0, col, "{}", String::from_utf8_lossy(text));
            assert!(
                e.1.contains(what),
                "{}: {}",
                String::from_utf8_lossy(text),
                e.1
            );
        }
    }

    #[test]
    fn quoted_names_are_unescaped() {
        let c = cols();
        let mut s = Edges::default();
        let b = b"1,1,\"say \"\"hi\"\"\",\"a,b\",x\r\n";
        line(b, 0, &c, false, Ids::Collect, &mut s).unwrap();
        assert_eq!(s.1, vec![b"say \"hi\"".to_vec(), b"a,b".to_vec()]);
    }

    proptest! {
        /// Any two names, quoted as a CSV writer quotes them, read back.
        #[test]
        fn quoting_round_trips(a in "[^\n\r]{1,12}", b in "[^\n\r]{1,12}") {
            let q = |t: &str| format!("\"{}\"", t.replace('"', "\"\""));
            let text = format!("{},{}\n", q(&a), q(&b));
            let c = CsvColumns { fields: 2, src: 0, dst: 1, weight: None };
            let mut s = Edges::default();
            line(text.as_bytes(), 0, &c, false, Ids::Collect, &mut s).unwrap();
            prop_assert_eq!(&s.1, &vec![a.into_bytes(), b.into_bytes()]);
        }
    }
}

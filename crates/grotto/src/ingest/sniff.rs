//! Deciding what a text input is before it is parsed: its format (unless
//! the user said), whether edge lines carry weights, the Matrix Market
//! header, and a vertex count declared in a leading `# vertices N`
//! comment (grotto writes one with every edge list it generates or
//! exports).
//!
//! Detection reads the first [`SNIFF_BYTES`] of text and decides only on
//! evidence, which it reports in words:
//!
//! | data lines of the sample | reading |
//! |---|---|
//! | all 2 columns | edge list |
//! | all 3 columns, some third column not an integer | edge list with weights |
//! | all 3 integer columns | refused: edge list with weights or adjacency list? (`--format`; `--weighted` also settles it) |
//! | all the same count of 4 or more | refused: a table with extra columns or an adjacency list? (`--format`) |
//! | all 1 column | adjacency list |
//! | mixed, with a third column that is not an integer | edge list with weights (other widths are errors) |
//! | 2 (or 3) columns but for fewer than 1% of at least 100 lines | edge list (the odd lines are errors with their location) |
//! | any other mix | adjacency list |
//!
//! A Matrix Market banner is matched without regard to case. A NUL byte
//! (binary input) or line ends of a carriage return alone are refused here,
//! at once, with their position.

use super::parse::{is_sep, Format, MtxField, MtxHeader};
use super::source::TextReader;
use crate::error::{quote_bytes, Error, Result};
use crate::store::format::MAX_VERTICES;
use std::path::Path;

/// Bytes of text detection looks at.
pub const SNIFF_BYTES: usize = 1 << 20;

/// What the first lines of an input say about it.
#[derive(Clone, Debug)]
pub struct Sniffed {
    /// Detected (or forced) format.
    pub format: Format,
    /// Edge lines have a weight column.
    pub has_weights: bool,
    /// Matrix Market header.
    pub mtx: Option<MtxHeader>,
    /// Lines before the first data line that the parser must skip (Matrix Market).
    pub skip_lines: u64,
    /// A vertex count declared by a `# vertices N` comment before the
    /// first data line, with the comment's line number.
    pub declared_vertices: Option<(u64, u64)>,
    /// Why this format, in words (for the report).
    pub evidence: String,
}

/// A UTF-8 byte-order mark, skipped at the start of a text input.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Reads up to [`SNIFF_BYTES`] of text (decompressed, without a
/// byte-order mark); the flag says whether that is the whole input.
pub(crate) fn sample(path: &Path) -> Result<(Vec<u8>, bool)> {
    let mut r = TextReader::open(path)?;
    let mut buf = vec![0u8; SNIFF_BYTES];
    let mut len = 0;
    let mut whole = false;
    while len < buf.len() {
        let n = r.read(&mut buf[len..])?;
        if n == 0 {
            whole = true;
            break;
        }
        len += n;
    }
    buf.truncate(len);
    if buf.starts_with(BOM) {
        buf.drain(..BOM.len());
    }
    Ok((buf, whole))
}

/// 1-based line and column of byte `at` in `text`.
fn position(text: &[u8], at: usize) -> (u64, u64) {
    let before = &text[..at];
    let line = before.iter().filter(|&&c| c == b'\n').count() as u64 + 1;
    let start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    (line, (at - start) as u64 + 1)
}

fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&c| is_sep(c) || c == b'\r')
        .filter(|t| !t.is_empty())
}

fn is_comment_or_blank(line: &[u8]) -> bool {
    let first = line.iter().copied().find(|&c| !is_sep(c) && c != b'\r');
    matches!(first, Some(b'#') | Some(b'%') | None)
}

/// `N` from a `# vertices N ...` comment.
fn declared_vertices(line: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(line).ok()?.trim();
    let rest = s.strip_prefix('#')?.trim_start();
    let mut words = rest.split_whitespace();
    if !words.next()?.eq_ignore_ascii_case("vertices") {
        return None;
    }
    words.next()?.parse().ok()
}

/// Looks at the start of `path` to detect the format (unless `forced`),
/// weights and the Matrix Market header. `weights_said` is true when the
/// user already said the third column is a weight (`--weighted`,
/// `--ignore-weights`), which settles a three-column file.
pub fn sniff(path: &Path, forced: Option<Format>, weights_said: bool) -> Result<Sniffed> {
    let (text, whole) = sample(path)?;
    if let Some(z) = text.iter().position(|&c| c == 0) {
        let (line, column) = position(&text, z);
        return Err(Error::Parse {
            path: path.to_path_buf(),
            line,
            column,
            expected: "text (a NUL byte: is this a binary file?)".into(),
            found: quote_bytes(&text[z..(z + 8).min(text.len())]),
            note: String::new(),
        });
    }
    let has_lf = text.contains(&b'\n');
    if !has_lf && text.contains(&b'\r') && (text.len() > 1 || whole) {
        return Err(Error::BadInput {
            path: path.to_path_buf(),
            what: "lines end with a carriage return alone (old Mac OS line ends); grotto reads \\n or \\r\\n line ends: convert them first, for example with tr '\\r' '\\n'".into(),
        });
    }
    let bad = |line: u64, what: String| Error::BadInput {
        path: path.to_path_buf(),
        what: format!("line {line}: {what}"),
    };
    let is_mtx = text.len() >= 14 && text[..14].eq_ignore_ascii_case(b"%%MatrixMarket");
    if forced == Some(Format::MatrixMarket) || (forced.is_none() && is_mtx) {
        return mtx_header(&text, bad, forced.is_some());
    }
    // Complete lines only, unless the sample is one unfinished line.
    let complete = match (whole, text.iter().rposition(|&c| c == b'\n')) {
        (true, _) => &text[..],
        (false, Some(nl)) => &text[..nl + 1],
        (false, None) => &text[..],
    };
    let unfinished = !whole && !has_lf;
    let mut declared = None;
    let mut data = 0u64;
    // Lines per column count (index 4 holds 4 or more), and the first line of each.
    let mut count = [0u64; 5];
    let mut first_at = [0u64; 5];
    let (mut lo, mut hi) = (usize::MAX, 0usize);
    let mut fractional: Option<(u64, String)> = None;
    let mut first_cols = None;
    for (i, line) in complete.split(|&c| c == b'\n').enumerate() {
        let no = i as u64 + 1;
        if is_comment_or_blank(line) {
            if data == 0 && declared.is_none() {
                declared = declared_vertices(line).map(|n| (n, no));
            }
            continue;
        }
        data += 1;
        let k = tokens(line).count();
        first_cols.get_or_insert(k);
        let slot = k.min(4);
        if count[slot] == 0 {
            first_at[slot] = no;
        }
        count[slot] += 1;
        lo = lo.min(k);
        hi = hi.max(k);
        if k == 3 && fractional.is_none() {
            if let Some(t) = tokens(line).nth(2) {
                if !t.iter().all(u8::is_ascii_digit) {
                    fractional = Some((no, quote_bytes(t)));
                }
            }
        }
    }
    let sampled = if whole {
        "the whole input".to_string()
    } else {
        format!("the first {} KiB", SNIFF_BYTES >> 10)
    };
    let sniffed = |format: Format, has_weights: bool, evidence: String| Sniffed {
        format,
        has_weights,
        mtx: None,
        skip_lines: 0,
        declared_vertices: declared,
        evidence,
    };
    if let Some(f) = forced {
        let has_weights = f == Format::EdgeList && first_cols.is_some_and(|k| k >= 3);
        return Ok(sniffed(f, has_weights, "given with --format".into()));
    }
    if data == 0 {
        return Ok(sniffed(
            Format::EdgeList,
            false,
            format!("no data lines in {sampled}"),
        ));
    }
    let only = |slot: usize| count[slot] == data;
    if unfinished {
        return Ok(sniffed(
            Format::AdjList,
            false,
            format!(
                "the first line is longer than {} KiB and holds at least {hi} ids",
                SNIFF_BYTES >> 10
            ),
        ));
    }
    if only(2) {
        return Ok(sniffed(
            Format::EdgeList,
            false,
            format!("all {data} data lines of {sampled} have 2 columns"),
        ));
    }
    if only(3) {
        if let Some((no, t)) = &fractional {
            return Ok(sniffed(
                Format::EdgeList,
                true,
                format!("all {data} data lines of {sampled} have 3 columns and the third is a weight (line {no}: \"{t}\")"),
            ));
        }
        if weights_said {
            return Ok(sniffed(
                Format::EdgeList,
                true,
                format!("all {data} data lines of {sampled} have 3 columns, the third a weight as --weighted or --ignore-weights says"),
            ));
        }
        return Err(Error::BadInput {
            path: path.to_path_buf(),
            what: format!("every data line of {sampled} has 3 integer columns: that reads as an edge list with weights or as an adjacency list (a vertex and two neighbours); say which with --format edgelist or --format adjacency"),
        });
    }
    if lo == hi && lo >= 4 {
        return Err(Error::BadInput {
            path: path.to_path_buf(),
            what: format!("every data line of {sampled} has {lo} columns, and an edge list has 2 or 3: if this is an adjacency list (each vertex with {} neighbours) pass --format adjacency; if it is a table, keep only the source and target columns (and a weight)", lo - 1),
        });
    }
    if only(1) {
        return Ok(sniffed(
            Format::AdjList,
            false,
            format!("all {data} data lines of {sampled} hold one id"),
        ));
    }
    if let Some((no, t)) = &fractional {
        return Ok(sniffed(
            Format::EdgeList,
            true,
            format!("line {no} has a third column \"{t}\" that is not an id, so only an edge list with weights fits (lines of other widths will be reported)"),
        ));
    }
    for dominant in [2usize, 3] {
        let odd = data - count[dominant];
        if data >= 100 && odd * 100 <= data {
            let other = (1..5)
                .filter(|&s| s != dominant && count[s] > 0)
                .map(|s| first_at[s])
                .min()
                .unwrap_or(0);
            return Ok(sniffed(
                Format::EdgeList,
                dominant == 3,
                format!("{} of {data} data lines of {sampled} have {dominant} columns; line {other} and {} other(s) do not, and will be reported as errors (pass --format adjacency if this is an adjacency list)", count[dominant], odd - 1),
            ));
        }
    }
    Ok(sniffed(
        Format::AdjList,
        false,
        format!(
            "data lines of {sampled} have from {lo} to {hi} columns (line {} has {}), which only an adjacency list allows",
            first_at[lo.min(4)].min(first_at[hi.min(4)]).max(1),
            if first_at[lo.min(4)] <= first_at[hi.min(4)] { lo } else { hi }
        ),
    ))
}

/// Parses the banner and size line of a Matrix Market file.
fn mtx_header(text: &[u8], bad: impl Fn(u64, String) -> Error, forced: bool) -> Result<Sniffed> {
    let mut lines = text.split(|&c| c == b'\n');
    let first = lines.next().unwrap_or_default();
    let shown = quote_bytes(first.strip_suffix(b"\r").unwrap_or(first));
    let first = String::from_utf8_lossy(first).trim().to_ascii_lowercase();
    let words: Vec<&str> = first.split_whitespace().collect();
    if words.len() != 5 || words[0] != "%%matrixmarket" || words[1] != "matrix" {
        return Err(bad(
            1,
            format!(
                "expected \"%%MatrixMarket matrix coordinate <field> <symmetry>\", found \"{shown}\""
            ),
        ));
    }
    if words[2] != "coordinate" {
        return Err(bad(
            1,
            format!(
                "only coordinate Matrix Market files hold graphs, found \"{}\"",
                quote_bytes(words[2].as_bytes())
            ),
        ));
    }
    let field = match words[3] {
        "pattern" => MtxField::Pattern,
        "integer" => MtxField::Integer,
        "real" | "double" => MtxField::Real,
        other => {
            return Err(bad(
                1,
                format!(
                    "field \"{}\" is not supported (pattern, integer or real)",
                    quote_bytes(other.as_bytes())
                ),
            ))
        }
    };
    let symmetric = match words[4] {
        "general" => false,
        "symmetric" => true,
        other => {
            return Err(bad(
                1,
                format!(
                    "symmetry \"{}\" is not supported (general or symmetric)",
                    quote_bytes(other.as_bytes())
                ),
            ))
        }
    };
    let mut no = 1u64;
    for line in lines {
        no += 1;
        let s = String::from_utf8_lossy(line);
        let s = s.trim();
        if s.is_empty() || s.starts_with('%') {
            continue;
        }
        let nums: Vec<&str> = s.split_whitespace().collect();
        let parsed: Vec<Option<u64>> = nums.iter().map(|x| x.parse().ok()).collect();
        let (r, c, nnz) = match parsed[..] {
            [Some(r), Some(c), Some(nnz)] => (r, c, nnz),
            _ => {
                return Err(bad(
                    no,
                    format!(
                        "expected the size line \"rows columns entries\", found \"{}\"",
                        quote_bytes(s.as_bytes())
                    ),
                ))
            }
        };
        if r != c {
            return Err(bad(
                no,
                format!("the matrix is {r} x {c}; a graph needs a square matrix"),
            ));
        }
        if r > MAX_VERTICES {
            return Err(bad(
                no,
                format!("the size line declares {r} rows, more than the {MAX_VERTICES} vertices a grotto file holds"),
            ));
        }
        return Ok(Sniffed {
            format: Format::MatrixMarket,
            has_weights: field != MtxField::Pattern,
            mtx: Some(MtxHeader {
                n: r,
                nnz,
                field,
                symmetric,
                size_line: no,
            }),
            skip_lines: no,
            declared_vertices: None,
            evidence: if forced {
                "given with --format".into()
            } else {
                "the %%MatrixMarket banner on line 1".into()
            },
        });
    }
    Err(bad(no, "the Matrix Market size line is missing".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect(text: &str) -> Result<Sniffed> {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("x.txt");
        std::fs::write(&p, text).expect("write");
        sniff(&p, None, false)
    }

    fn lines(n: usize, f: impl Fn(usize) -> String) -> String {
        (0..n).map(|i| f(i) + "\n").collect()
    }

    #[test]
    fn every_reading_is_decided_on_evidence_or_refused() {
        let s = detect("0 1\n1 2\n").expect("edge list");
        assert_eq!((s.format, s.has_weights), (Format::EdgeList, false));
        assert!(s.evidence.contains("2 columns"), "{}", s.evidence);
        let s = detect("0 1 0.5\n1 2 2\n").expect("weighted");
        assert_eq!((s.format, s.has_weights), (Format::EdgeList, true));
        let e = detect("0 1 2\n1 0 2\n2 0 1\n").expect_err("ambiguous");
        assert!(e.to_string().contains("--format"), "{e}");
        let e = detect(&lines(50, |i| format!("{i},1,5,1289241911"))).expect_err("a table");
        assert!(e.to_string().contains("4 columns"), "{e}");
        let s = detect("0 1 2 3\n1\n2 0\n").expect("adjacency");
        assert_eq!(s.format, Format::AdjList);
        assert!(s.evidence.contains("from 1 to 4"), "{}", s.evidence);
        // A stray line among many edge lines: an edge list whose odd line
        // the parser reports, wherever it is.
        let mut t = lines(500, |i| format!("{i} {}", i + 1));
        t.push_str("7\n");
        let s = detect(&t).expect("edge list");
        assert_eq!(s.format, Format::EdgeList);
        assert!(s.evidence.contains("line 501"), "{}", s.evidence);
    }

    #[test]
    fn banners_headers_and_bad_bytes() {
        let s =
            detect("%%matrixmarket MATRIX coordinate pattern general\n3 3 1\n1 2\n").expect("mtx");
        assert_eq!(s.format, Format::MatrixMarket);
        let s = detect("\u{feff}# rmat\n# vertices 10 edges 1\n0 1\n").expect("bom");
        assert_eq!(s.declared_vertices, Some((10, 2)));
        let e = detect("0 1\n2 3\x00\n").expect_err("nul");
        assert!(e.to_string().contains(":2:4:"), "{e}");
        let e = detect("0 1\r1 2\r").expect_err("cr");
        assert!(e.to_string().contains("carriage return"), "{e}");
        let e =
            detect("%%MatrixMarket matrix coordinate pattern general\n5000000000 5000000000 1\n")
                .expect_err("too many rows");
        assert!(e.to_string().contains("line 2"), "{e}");
    }
}

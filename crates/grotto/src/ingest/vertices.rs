//! Vertex files: the vertices a graph has besides those its edges name
//! (`convert --vertex-file V`, Graphalytics' `NAME.v`). One integer id a
//! line (or, for a graph of names, `--ids string`, one name a line: a
//! token as the edges' names are, without spaces), optionally gzip- or
//! zstd-compressed; blank lines and lines starting with `#` or `%` are
//! skipped; an entry may repeat. Every vertex listed becomes one,
//! isolated or not.

use super::source::TextReader;
use crate::error::{quote_bytes, Error, Result};
use std::path::Path;

/// Longest offending text a parse error quotes.
const QUOTE_MAX: usize = 40;

/// Reads the ids of a vertex file, sorted, each once.
pub fn read_vertex_file(path: &Path) -> Result<Vec<u64>> {
    let mut ids = Vec::new();
    for_each_line(path, |line, raw| parse_line(path, line, raw, &mut ids))?;
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// Reads the names of a vertex file of names, sorted, each once.
pub fn read_vertex_names(path: &Path) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for_each_line(path, |line, raw| {
        let Some((lead, token)) = entry(raw) else {
            return Ok(());
        };
        let bad = |at: usize, expected: &str| Error::Parse {
            path: path.to_path_buf(),
            line,
            column: (lead + at) as u64 + 1,
            expected: expected.into(),
            found: quote_bytes(&token[at..token.len().min(at + QUOTE_MAX)]),
            note: String::new(),
        };
        if let Some(p) = token.iter().position(|b| *b == b' ' || *b == b'\t') {
            return Err(bad(
                p,
                "one vertex name (a token without spaces) on the line",
            ));
        }
        if let Some(p) = token.iter().position(|b| b.is_ascii_control()) {
            return Err(bad(p, "a vertex name without control bytes"));
        }
        let name = std::str::from_utf8(token).map_err(|e| bad(e.valid_up_to(), "UTF-8 text"))?;
        names.push(name.to_string());
        Ok(())
    })?;
    names.sort_unstable();
    names.dedup();
    Ok(names)
}

/// Calls `f` with each line of `path` (numbered from 1, without its end).
fn for_each_line(path: &Path, mut f: impl FnMut(u64, &[u8]) -> Result<()>) -> Result<()> {
    let mut r = TextReader::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let mut carry: Vec<u8> = Vec::new();
    let mut line_no = 0u64;
    loop {
        let got = r.read(&mut buf)?;
        let chunk = &buf[..got];
        let mut start = 0;
        for (i, &b) in chunk.iter().enumerate() {
            if b == b'\n' {
                carry.extend_from_slice(&chunk[start..i]);
                line_no += 1;
                f(line_no, &carry)?;
                carry.clear();
                start = i + 1;
            }
        }
        carry.extend_from_slice(&chunk[start..]);
        if got == 0 {
            break;
        }
    }
    if !carry.is_empty() {
        line_no += 1;
        f(line_no, &carry)?;
    }
    Ok(())
}

/// A line's entry, trimmed, with the bytes before it: `None` for a blank
/// or comment line.
fn entry(raw: &[u8]) -> Option<(usize, &[u8])> {
    let text = raw.strip_suffix(b"\r").unwrap_or(raw);
    let lead = text
        .iter()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    let body = &text[lead..];
    let end = body
        .iter()
        .rposition(|b| *b != b' ' && *b != b'\t')
        .map_or(0, |p| p + 1);
    let token = &body[..end];
    if token.is_empty() || token[0] == b'#' || token[0] == b'%' {
        return None;
    }
    Some((lead, token))
}

fn parse_line(path: &Path, line: u64, raw: &[u8], ids: &mut Vec<u64>) -> Result<()> {
    let Some((lead, token)) = entry(raw) else {
        return Ok(());
    };
    let bad = |column: usize, found: &[u8]| Error::Parse {
        path: path.to_path_buf(),
        line,
        column: column as u64 + 1,
        expected: "one vertex id (an integer) on the line".into(),
        found: quote_bytes(&found[..found.len().min(QUOTE_MAX)]),
        note: String::new(),
    };
    if let Some(p) = token.iter().position(|b| !b.is_ascii_digit()) {
        return Err(bad(lead + p, &token[p..]));
    }
    let id = std::str::from_utf8(token)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| bad(lead, token))?;
    ids.push(id);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_comments_and_blank_lines() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("g.v");
        std::fs::write(&p, "# vertices\n5\n 3\t\n\n% c\n5\r\n18446744073709551615").expect("write");
        assert_eq!(read_vertex_file(&p).expect("read"), vec![3, 5, u64::MAX]);
    }

    #[test]
    fn a_bad_line_is_named_with_its_column_and_text() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("g.v");
        std::fs::write(&p, "1\n2\n  7 8\n").expect("write");
        let e = read_vertex_file(&p).expect_err("two ids on a line");
        let s = e.to_string();
        assert!(s.contains("g.v:3:4: expected one vertex id"), "{s}");
        assert!(s.contains("found \" 8\""), "{s}");
        std::fs::write(&p, "1\n\x01x\n").expect("write");
        let s = read_vertex_file(&p).expect_err("control byte").to_string();
        assert!(s.contains(":2:1:") && s.contains("\\x01"), "{s}");
        std::fs::write(&p, "99999999999999999999\n").expect("write");
        assert!(read_vertex_file(&p).is_err(), "too large for 64 bits");
    }

    #[test]
    fn names_one_a_line() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("g.v");
        std::fs::write(&p, "# names\nbob\n alice\t\n\nbob\r\nzoë\n").expect("write");
        assert_eq!(
            read_vertex_names(&p).expect("read"),
            vec!["alice", "bob", "zoë"]
        );
        std::fs::write(&p, "ann\nann lee\n").expect("write");
        let s = read_vertex_names(&p).expect_err("a space").to_string();
        assert!(s.contains("g.v:2:4: expected one vertex name"), "{s}");
        std::fs::write(&p, "ann\nb\x01b\n").expect("write");
        let s = read_vertex_names(&p).expect_err("control byte").to_string();
        assert!(s.contains(":2:2:") && s.contains("\\x01"), "{s}");
        std::fs::write(&p, b"ok\n\xffx\n").expect("write");
        let s = read_vertex_names(&p).expect_err("not UTF-8").to_string();
        assert!(s.contains(":2:1:") && s.contains("UTF-8"), "{s}");
    }
}

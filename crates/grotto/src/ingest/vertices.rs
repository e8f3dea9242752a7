//! Vertex files: the vertices a graph has besides those its edges name
//! (`convert --vertex-file V`, Graphalytics' `NAME.v`). One integer id a
//! line, optionally gzip- or zstd-compressed; blank lines and lines
//! starting with `#` or `%` are skipped; an id may repeat. Every id listed
//! becomes a vertex, isolated or not.

use super::source::TextReader;
use crate::error::{quote_bytes, Error, Result};
use std::path::Path;

/// Longest offending text a parse error quotes.
const QUOTE_MAX: usize = 40;

/// Reads the ids of a vertex file, sorted, each once.
pub fn read_vertex_file(path: &Path) -> Result<Vec<u64>> {
    let mut r = TextReader::open(path)?;
    let mut ids = Vec::new();
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
                parse_line(path, line_no, &carry, &mut ids)?;
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
        parse_line(path, line_no, &carry, &mut ids)?;
    }
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

fn parse_line(path: &Path, line: u64, raw: &[u8], ids: &mut Vec<u64>) -> Result<()> {
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
        return Ok(());
    }
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
}

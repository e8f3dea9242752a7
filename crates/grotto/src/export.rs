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
    let err = |e| Error::io(name, "write", e);
    let n = g.vertex_count();
    let weighted = g.weighted();
    if format == ExportFormat::EdgeList && !g.header().has_id_map() && g.header().id_base == 0 {
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
        writeln!(out, "{n} {n} {}", g.edge_count()).map_err(err)?;
    }
    let mut r = BlockReader::new(g, Direction::Out)?;
    let mut nb = Vec::new();
    let mut ws = Vec::new();
    let mut line = Vec::with_capacity(64);
    let mut ib = itoa::Buffer::new();
    let mut written = 0u64;
    for v in 0..n as u32 {
        r.neighbors(v, &mut nb, if weighted { Some(&mut ws) } else { None })?;
        for (i, &u) in nb.iter().enumerate() {
            if !g.directed() && u < v {
                continue;
            }
            line.clear();
            let (a, b) = match format {
                ExportFormat::EdgeList => (g.original_id(v), g.original_id(u)),
                // Symmetric Matrix Market stores the lower triangle (row >= column).
                ExportFormat::MatrixMarket if !g.directed() => (u as u64 + 1, v as u64 + 1),
                ExportFormat::MatrixMarket => (v as u64 + 1, u as u64 + 1),
            };
            line.extend_from_slice(ib.format(a).as_bytes());
            line.push(b' ');
            line.extend_from_slice(ib.format(b).as_bytes());
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

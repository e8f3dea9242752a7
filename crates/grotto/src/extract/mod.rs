//! From a huge graph to the piece a user looks at (`grotto extract`, the
//! Python package's `subgraph` and `ego_graph`): a vertex set chosen by a
//! list, an ego network, a k-core, a component or a column of an earlier
//! result, and the subgraph it induces written as a grotto file (the same
//! kind of graph, isolated vertices kept), an edge list or a Parquet edge
//! table, in the user's ids or names.
//!
//! Choosing runs the algorithm that answers the choice (ego, kcore, wcc)
//! through the engine; writing streams the kept vertices' lists once (a
//! grotto file through the same build as `convert`). Memory: a byte per
//! vertex for the set, plus what the choosing algorithm holds.

use crate::algo::ego::{self, EgoConfig, Towards};
use crate::algo::{kcore, user_vertex, wcc};
use crate::engine::{Engine, EngineConfig, EngineKind};
use crate::error::{Error, Result};
use crate::export::{export_kept, export_parquet_kept, ExportFormat};
use crate::ingest::{ConvertOptions, NoProgress, Progress};
use crate::io::output::{Output, Streams};
use crate::store::Graph;
use crate::VertexId;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which vertices a piece keeps.
#[derive(Clone, Debug)]
pub enum Selection {
    /// These vertices (internal ids).
    Vertices(Vec<VertexId>),
    /// An ego network: within `radius` hops of `source` along `towards`.
    Ego {
        /// The centre.
        source: VertexId,
        /// The most hops.
        radius: u32,
        /// The edges followed.
        towards: Towards,
    },
    /// The K-core (undirected graphs).
    Kcore(u32),
    /// The weakly connected component of a vertex, or the largest one.
    Component(Option<VertexId>),
    /// The vertices whose row of an earlier result passes a test.
    Filter(Filter),
}

/// A comparison of a result column with a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=` (or `==`)
    Eq,
    /// `!=`
    Ne,
}

/// Rows of a result file (CSV or Parquet, as `grotto run` writes them,
/// with an `id` or `vertex` column) whose `column` compares with `value` by `op`.
#[derive(Clone, Debug)]
pub struct Filter {
    /// The result file.
    pub path: PathBuf,
    /// The column tested (`None`: `community`, or the one column besides
    /// the vertex column).
    pub column: Option<String>,
    /// The comparison.
    pub op: Op,
    /// The value compared with: a number, or text for `=` and `!=`.
    pub value: String,
}

impl Filter {
    /// Parses `FILE:COLUMN OP VALUE` (`OP` one of `< <= > >= = == !=`),
    /// the form `--filter` takes.
    pub fn parse(spec: &str) -> Result<Filter> {
        let bad = || {
            Error::Invalid(format!(
                "--filter {spec:?}: expected RESULT:COLUMN OP VALUE, as \
                 ranks.parquet:rank>0.001 (OP one of < <= > >= = != )"
            ))
        };
        let (file, expr) = spec.rsplit_once(':').ok_or_else(bad)?;
        let at = expr.find(['<', '>', '=', '!']).ok_or_else(bad)?;
        let (column, rest) = expr.split_at(at);
        let (op, len) = [
            ("<=", Op::Le),
            (">=", Op::Ge),
            ("!=", Op::Ne),
            ("==", Op::Eq),
            ("<", Op::Lt),
            (">", Op::Gt),
            ("=", Op::Eq),
        ]
        .iter()
        .find(|(t, _)| rest.starts_with(t))
        .map(|&(t, op)| (op, t.len()))
        .ok_or_else(bad)?;
        let (column, value) = (column.trim(), rest[len..].trim());
        if file.is_empty() || column.is_empty() || value.is_empty() {
            return Err(bad());
        }
        Ok(Filter {
            path: PathBuf::from(file),
            column: Some(column.to_string()),
            op,
            value: value.to_string(),
        })
    }

    /// Parses `FILE:LABEL`, the form `--community` takes: the rows whose
    /// community column holds LABEL.
    pub fn community(spec: &str) -> Result<Filter> {
        let (file, label) = spec
            .rsplit_once(':')
            .filter(|(f, l)| !f.is_empty() && !l.is_empty())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "--community {spec:?}: expected RESULT:LABEL, as communities.parquet:17"
                ))
            })?;
        Ok(Filter {
            path: PathBuf::from(file),
            column: None,
            op: Op::Eq,
            value: label.to_string(),
        })
    }

    /// Whether `cell` passes.
    fn passes(&self, cell: &Cell) -> Result<bool> {
        use std::cmp::Ordering;
        let ord = match (cell, self.value.parse::<i128>(), self.value.parse::<f64>()) {
            (Cell::Null, _, _) => return Ok(false),
            (Cell::Int(x), Ok(y), _) => x.cmp(&y),
            (Cell::Int(x), Err(_), Ok(y)) => (*x as f64).partial_cmp(&y).unwrap_or(Ordering::Less),
            (Cell::Float(x), _, Ok(y)) => match x.partial_cmp(&y) {
                Some(o) => o,
                None => return Ok(self.op == Op::Ne),
            },
            (Cell::Text(t), _, _) => match self.op {
                Op::Eq => return Ok(*t == self.value),
                Op::Ne => return Ok(*t != self.value),
                _ => t.as_str().cmp(self.value.as_str()),
            },
            (_, _, Err(_)) => {
                return Err(Error::Invalid(format!(
                    "{}: the column holds numbers, and {:?} is not one",
                    self.path.display(),
                    self.value
                )))
            }
        };
        Ok(match self.op {
            Op::Lt => ord.is_lt(),
            Op::Le => ord.is_le(),
            Op::Gt => ord.is_gt(),
            Op::Ge => ord.is_ge(),
            Op::Eq => ord.is_eq(),
            Op::Ne => ord.is_ne(),
        })
    }
}

/// One value of a result column.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cell {
    Int(i128),
    Float(f64),
    Text(String),
    Null,
}

impl Cell {
    /// A CSV field: an integer, a number, else text (empty: none).
    fn of_text(t: &str) -> Cell {
        if t.is_empty() {
            Cell::Null
        } else if let Ok(i) = t.parse::<i128>() {
            Cell::Int(i)
        } else if let Ok(f) = t.parse::<f64>() {
            Cell::Float(f)
        } else {
            Cell::Text(t.to_string())
        }
    }
}

/// Which vertices `sel` keeps, per internal vertex, choosing on engines
/// opened with `cfg`.
pub fn select(g: &Arc<Graph>, sel: &Selection, cfg: &EngineConfig) -> Result<Vec<bool>> {
    let n = g.vertex_count() as usize;
    match sel {
        Selection::Vertices(vs) => {
            let mut keep = vec![false; n];
            for &v in vs {
                keep[v as usize] = true;
            }
            Ok(keep)
        }
        Selection::Ego {
            source,
            radius,
            towards,
        } => {
            let c = EgoConfig {
                source: *source,
                radius: *radius,
                towards: *towards,
            };
            let res = match Engine::open(EngineKind::Sync, g.clone(), cfg.clone())? {
                Engine::Sync(e) => e.run(|r| ego::run(r, &c))?.0,
                Engine::Async(_) => unreachable!("a sync engine was opened"),
            };
            Ok(res.keep())
        }
        Selection::Kcore(k) => {
            let c = kcore::KcoreConfig {
                k: *k,
                rounds: false,
            };
            match Engine::open(EngineKind::Async, g.clone(), cfg.clone())? {
                Engine::Async(e) => Ok(e.run(|r| kcore::run_async(r, &c))?.0.in_core),
                Engine::Sync(_) => unreachable!("an async engine was opened"),
            }
        }
        Selection::Component(of) => {
            let res = match Engine::open(EngineKind::Sync, g.clone(), cfg.clone())? {
                Engine::Sync(e) => e.run(wcc::run)?.0,
                Engine::Async(_) => unreachable!("a sync engine was opened"),
            };
            let want = match of {
                Some(v) => res.label[*v as usize],
                None => largest_label(&res.label),
            };
            Ok(res.label.iter().map(|&l| l == want).collect())
        }
        Selection::Filter(f) => filtered(g, f),
    }
}

/// The label most vertices carry (the smallest on a tie).
fn largest_label(label: &[u32]) -> u32 {
    let mut count = vec![0u32; label.len()];
    for &l in label {
        count[l as usize] += 1;
    }
    (0..count.len())
        .max_by_key(|&i| (count[i], std::cmp::Reverse(i)))
        .unwrap_or(0) as u32
}

/// The vertices whose row of `f`'s result passes `f`.
fn filtered(g: &Graph, f: &Filter) -> Result<Vec<bool>> {
    let shown = f.path.display().to_string();
    let pick = |names: &[String]| -> Result<(usize, usize)> {
        let listed = || names.join(", ");
        // Per-vertex results name their vertex column id; tables of other
        // rows (a path, an ego network) name it vertex.
        let vcol = names
            .iter()
            .position(|c| c == "id")
            .or_else(|| names.iter().position(|c| c == "vertex"))
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{shown}: no column named id or vertex (columns: {}); give a result of \
                     grotto run",
                    listed()
                ))
            })?;
        let col = match &f.column {
            Some(c) => names.iter().position(|x| x == c),
            None => names
                .iter()
                .position(|x| x == "community")
                .or_else(|| (names.len() == 2).then_some(1 - vcol)),
        };
        let col = col.ok_or_else(|| {
            Error::Invalid(format!(
                "{shown}: no column {} (columns: {})",
                f.column.as_deref().unwrap_or("community"),
                listed()
            ))
        })?;
        Ok((vcol, col))
    };
    let mut keep = vec![false; g.vertex_count() as usize];
    let mut each = |row: u64, vertex: Cell, value: Cell| -> Result<()> {
        if !f.passes(&value)? {
            return Ok(());
        }
        let token = match vertex {
            Cell::Int(x) => x.to_string(),
            Cell::Text(t) => t,
            other => {
                return Err(Error::Invalid(format!(
                    "{shown}: row {row} has vertex {other:?}, not an id or a name"
                )))
            }
        };
        let v = user_vertex(g, &token, &format!("{shown} row {row}"))?;
        keep[v as usize] = true;
        Ok(())
    };
    if crate::ingest::parquet::is_parquet(&f.path) {
        result_table::parquet(&f.path, &pick, &mut each)?;
    } else {
        result_table::csv(&f.path, &pick, &mut each)?;
    }
    Ok(keep)
}

mod result_table;

/// What a piece is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PieceFormat {
    /// A grotto file of the same kind as the graph.
    Grotto,
    /// An edge list, `u v` or `u v w` a line.
    EdgeList,
    /// A Parquet edge table (`src`, `dst`, `weight`).
    Parquet,
}

impl PieceFormat {
    /// By the output's extension: `.parquet`, `.grotto`, else an edge list.
    pub fn for_path(p: &Path) -> PieceFormat {
        match p.extension().and_then(|e| e.to_str()) {
            Some("parquet") => PieceFormat::Parquet,
            Some("grotto") => PieceFormat::Grotto,
            _ => PieceFormat::EdgeList,
        }
    }
}

/// What [`write`] wrote.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Piece {
    /// Where.
    pub output: PathBuf,
    /// Vertices kept.
    pub vertices: u64,
    /// Edges written (an undirected edge once).
    pub edges: u64,
}

/// Writes the subgraph of `g` induced by the vertices with `keep[v]` set
/// to `out` as `format` (`extra` are more files the output may not
/// replace, such as a result a filter read). A grotto file is built with
/// `opts`' settings (threads, memory), as the same kind of graph as `g`.
pub fn write(
    g: &Graph,
    keep: &[bool],
    out: &Path,
    format: PieceFormat,
    extra: &[&Path],
    opts: &ConvertOptions,
    progress: &dyn Progress,
) -> Result<Piece> {
    if keep.len() as u64 != g.vertex_count() {
        return Err(Error::Invalid(format!(
            "a vertex set of {} entries for a graph of {} vertices",
            keep.len(),
            g.vertex_count()
        )));
    }
    let vertices = keep.iter().filter(|&&k| k).count() as u64;
    let edges = match format {
        PieceFormat::Grotto => {
            crate::ingest::subgraph::extract_graph(g, keep, out, extra, opts, progress)?.edges
        }
        PieceFormat::EdgeList | PieceFormat::Parquet => {
            let mut inputs = vec![g.path()];
            inputs.extend_from_slice(extra);
            let o = Output::create(out, &inputs, Streams::Allowed)?;
            let shown = o.path().to_path_buf();
            let mut w = std::io::BufWriter::with_capacity(1 << 20, o.file());
            let n = if format == PieceFormat::Parquet {
                export_parquet_kept(g, Some(keep), &mut w, &shown)?
            } else {
                export_kept(g, Some(keep), ExportFormat::EdgeList, &mut w, &shown)?
            };
            w.flush().map_err(|e| Error::io(&shown, "write", e))?;
            drop(w);
            o.commit()?;
            n
        }
    };
    Ok(Piece {
        output: out.to_path_buf(),
        vertices,
        edges,
    })
}

/// [`select`] then [`write`] without progress.
pub fn extract(
    g: &Arc<Graph>,
    sel: &Selection,
    out: &Path,
    format: PieceFormat,
    cfg: &EngineConfig,
    opts: &ConvertOptions,
) -> Result<Piece> {
    let keep = select(g, sel, cfg)?;
    let extra: Vec<&Path> = match sel {
        Selection::Filter(f) => vec![f.path.as_path()],
        _ => Vec::new(),
    };
    write(g, &keep, out, format, &extra, opts, &NoProgress)
}

#[cfg(test)]
mod tests;

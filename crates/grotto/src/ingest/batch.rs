//! Reading the edge files of an update (`grotto update --insert FILE
//! --delete FILE`): any text format `convert` reads, parsed in parallel
//! with the same located errors, or a Parquet file with integer ids; the
//! ids come back as the user wrote them, ready for
//! [`crate::store::update::GraphUpdate`]. A file that fails to parse
//! fails the whole update before anything is written.

use super::options::{ConvertOptions, EdgeColumns, EdgeGenerator};
use super::parse::{self, EdgeSink, Ids};
use super::Format;
use crate::error::{Error, Result};
use crate::store::names::Names;
use rayon::prelude::*;
use std::path::Path;

/// The edges of one update file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchEdges {
    /// `(u, v)` per edge: user ids, or, for a graph with names, the ranks
    /// of the names in the graph's table.
    pub edges: Vec<(u64, u64)>,
    /// Whether `edges` holds name ranks.
    pub ranks: bool,
    /// The weight of each edge, when weights were asked for
    /// (`opts.weighted == Some(true)`: the graph is weighted).
    pub weights: Vec<f32>,
    /// Names the graph's table lacks, sorted and distinct: in `edges`,
    /// rank `t + k` (where `t` is the table's length) stands for
    /// `new_names[k]`.
    pub new_names: Vec<String>,
    /// Lines read.
    pub lines: u64,
}

struct Collect {
    base: u64,
    edges: Vec<(u64, u64)>,
    weighted: bool,
    weights: Vec<f32>,
    /// This sink's number, and the new names it met, by first meeting.
    sink: u64,
    new: Vec<Vec<u8>>,
    new_of: std::collections::HashMap<Vec<u8>, u32>,
}

/// The mark of an id that stands for a new name: the sink's number above
/// bit 32, the name's index in the sink below.
const NEW_NAME: u64 = 1 << 63;

impl EdgeSink for Collect {
    fn edge(&mut self, u: u64, v: u64, w: f32) -> bool {
        self.edges.push((u + self.base, v + self.base));
        if self.weighted {
            self.weights.push(w);
        }
        true
    }
    fn vertex(&mut self, _u: u64) {}
    fn new_name(&mut self, token: &[u8]) -> u64 {
        let new = &mut self.new;
        let k = *self.new_of.entry(token.to_vec()).or_insert_with(|| {
            new.push(token.to_vec());
            (new.len() - 1) as u32
        });
        NEW_NAME | self.sink << 32 | k as u64
    }
}

/// A line number and two tokens of that line.
type LineTokens = (u64, Vec<u8>, Vec<u8>);

/// The first two tokens of the first data line of the text file `path`
/// (comments and blank lines skipped), with its line number; `None` when
/// that line holds fewer than two.
fn first_tokens(path: &Path) -> Result<Option<LineTokens>> {
    let (text, _) = super::sniff::sample(path)?;
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let line = line.trim_ascii();
        if line.is_empty() || line[0] == b'#' || line[0] == b'%' {
            continue;
        }
        let mut tokens = line
            .split(|&b| b == b' ' || b == b'\t' || b == b',')
            .filter(|t| !t.is_empty());
        return Ok(match (tokens.next(), tokens.next()) {
            (Some(a), Some(b)) => Some((i as u64 + 1, a.to_vec(), b.to_vec())),
            _ => None,
        });
    }
    Ok(None)
}

/// The refusal of a batch for a graph of names whose first line names two
/// vertices the graph does not have: most often a header row, which
/// `convert` refuses too (its ids are no names then); inserting that line
/// would add two vertices called by the column names.
fn header_row(path: &Path, line: u64, a: &[u8], b: &[u8]) -> Error {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    Error::Parse {
        path: path.to_path_buf(),
        line,
        column: 1,
        expected: "an edge whose ends include a vertex the graph has (the first line names two \
                   new ones)"
            .into(),
        found: crate::error::quote_bytes(format!("{a} {b}").as_bytes()),
        note: format!(
            "\n  (if line {line} is a header row, read the file as CSV: --format csv --columns \
             {a},{b}; to insert an edge between two new vertices there, say --format edgelist)"
        ),
    }
}

/// Reads the edges of `path`: text in any format `convert` reads (format
/// and header options from `opts`), or Parquet, a file or a directory of
/// files (edge columns `columns`). `parquet` says which, as `convert
/// --format` does: `Some(true)` reads Parquet whatever the name (a text
/// file is refused as unreadable Parquet), `Some(false)` reads text, and
/// `None` takes Parquet for a `.parquet` name or a directory holding such
/// files.
/// With `names`, vertex tokens are names resolved in that table; a name
/// the table lacks is an error that names the line. A text file whose
/// format is detected, not given, and whose first line names two vertices
/// the table lacks is read as CSV when they are `columns`' names (a
/// header), else refused: a header row would otherwise be inserted as an
/// edge. With
/// `opts.weighted == Some(true)` (a weighted graph) every edge must carry
/// a weight; otherwise a weight column is refused unless
/// `opts.ignore_weights`.
pub fn read_batch(
    path: &Path,
    opts: &ConvertOptions,
    columns: &EdgeColumns,
    names: Option<&Names>,
    parquet: Option<bool>,
) -> Result<BatchEdges> {
    let want_w = opts.weighted == Some(true) && !opts.ignore_weights;
    if parquet.unwrap_or_else(|| super::parquet::is_parquet(path)) {
        if names.is_some() {
            return Err(Error::Invalid(format!(
                "{}: Parquet update files for a graph with vertex names are not supported yet; \
                 use a text edge list",
                path.display()
            )));
        }
        let pq = super::parquet::ParquetEdges::for_options(path, columns, opts)?;
        if pq.names().is_some() {
            return Err(Error::Invalid(format!(
                "{}: its vertex ids are strings, and the graph's are integers",
                path.display()
            )));
        }
        if want_w && !pq.weighted() {
            return Err(no_weights(path));
        }
        let mut sink = Collect {
            base: 0,
            edges: Vec::with_capacity(pq.edges() as usize),
            weighted: want_w,
            weights: Vec::new(),
            sink: 0,
            new: Vec::new(),
            new_of: Default::default(),
        };
        for c in 0..pq.chunks() {
            crate::interrupt::check()?;
            pq.emit(c, &mut sink)?;
        }
        return Ok(BatchEdges {
            edges: sink.edges,
            ranks: false,
            lines: 0,
            weights: sink.weights,
            new_names: Vec::new(),
        });
    }
    super::checks::check_input(path)?;
    let (spec, sn, _) = super::text_spec(path, opts)?;
    // A weighted graph's batch without weights is refused with the
    // reason, not at its first line.
    let has_w = spec.weighted && (sn.has_weights || sn.format == Format::Csv);
    if want_w && !has_w {
        return Err(no_weights(path));
    }
    if spec.weighted && !want_w {
        return Err(Error::Invalid(format!(
            "{}: weights are given, and the graph is unweighted; leave the weight column \
             out or pass --ignore-weights",
            path.display()
        )));
    }
    if let (Some(t), None, Format::EdgeList) = (names, opts.format, sn.format) {
        if let Some((line, a, b)) = first_tokens(path)? {
            if t.find(&a).is_none() && t.find(&b).is_none() {
                if a == columns.src.as_bytes() && b == columns.dst.as_bytes() {
                    // A header naming the edge columns: a CSV file.
                    let csv = ConvertOptions {
                        format: Some(Format::Csv),
                        ..opts.clone()
                    };
                    return read_batch(path, &csv, columns, names, Some(false));
                }
                return Err(header_row(path, line, &a, &b));
            }
        }
    }
    if names.is_some() && sn.format == Format::MatrixMarket {
        return Err(Error::Invalid(
            "Matrix Market entries are row and column numbers, and this graph's vertices have names"
                .into(),
        ));
    }
    let base = if sn.format == Format::MatrixMarket {
        1
    } else {
        0
    };
    let ids = match names {
        Some(t) => Ids::ResolveOrNew(t),
        None => Ids::Integer,
    };
    let sinks_made = std::sync::atomic::AtomicU64::new(0);
    let threads = super::plan::default_threads(opts.threads);
    let (sinks, counts) = parse::parse_file(
        path,
        &spec,
        ids,
        sn.skip_lines,
        threads,
        &|| Collect {
            base: if names.is_some() { 0 } else { base },
            edges: Vec::new(),
            weighted: want_w,
            weights: Vec::new(),
            sink: sinks_made.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            new: Vec::new(),
            new_of: Default::default(),
        },
        &|_| {},
    )?;
    // A Matrix Market file holds the entries its size line declares, as
    // `convert` requires (the parser refuses rows past the size line).
    if let Some(h) = &spec.mtx {
        super::checks::check_mtx_entries(path, h, &counts)?;
    }
    // New names, numbered after the table's in their sorted order.
    let mut new_names: Vec<&[u8]> = sinks
        .iter()
        .flat_map(|s| s.new.iter().map(|n| &n[..]))
        .collect();
    new_names.sort_unstable();
    new_names.dedup();
    let table = names.map_or(0, |t| t.len());
    // By sink number: the rank each of its new names has now.
    let made = sinks.iter().map(|s| s.sink + 1).max().unwrap_or(0) as usize;
    let mut global: Vec<Vec<u64>> = vec![Vec::new(); made];
    for s in &sinks {
        global[s.sink as usize] = s
            .new
            .iter()
            .map(|n| table + new_names.binary_search(&&n[..]).unwrap_or(0) as u64)
            .collect();
    }
    let new_names: Vec<String> = new_names
        .iter()
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .collect();
    // The sinks' edges joined on all threads, each into its own part of
    // zeroed pages (a batch of millions of edges is hundreds of MB, and a
    // copy on one thread cost a tenth of a second per 200 MB).
    let mut edges = vec![(0u64, 0u64); sinks.iter().map(|s| s.edges.len()).sum()];
    crate::io::huge::advise(&edges);
    let mut parts = Vec::with_capacity(sinks.len());
    let mut rest = &mut edges[..];
    for s in &sinks {
        let (here, after) = std::mem::take(&mut rest).split_at_mut(s.edges.len());
        parts.push(here);
        rest = after;
    }
    sinks.par_iter().zip(parts).for_each(|(s, out)| {
        let at = |x: u64| {
            if x & NEW_NAME == 0 {
                x
            } else {
                global[((x & !NEW_NAME) >> 32) as usize][(x & 0xffff_ffff) as usize]
            }
        };
        if s.new.is_empty() {
            out.copy_from_slice(&s.edges);
        } else {
            for (o, &(u, v)) in out.iter_mut().zip(&s.edges) {
                *o = (at(u), at(v));
            }
        }
    });
    let mut weights = Vec::new();
    for s in sinks {
        weights.extend(s.weights);
    }
    Ok(BatchEdges {
        edges,
        ranks: names.is_some(),
        lines: counts.lines,
        weights,
        new_names,
    })
}

/// A file without weights for a weighted graph.
fn no_weights(path: &Path) -> Error {
    Error::Invalid(format!(
        "{}: the graph is weighted, and this file gives no weights: give each edge a \
         weight (a third column)",
        path.display()
    ))
}

//! Hand-written parsers for the text formats grotto reads, and the
//! parallel driver that feeds parsed edges to per-thread sinks.
//!
//! Lines are parsed in chunks by worker threads. A worker does not know
//! the line number its chunk starts at; it records errors by line within
//! the chunk, and the driver turns them into file line numbers once every
//! earlier chunk has been counted. The first error in file order wins.

use super::source::{Chunker, TextReader};
use crate::error::{quote_bytes, Error, Result};
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

/// A text format grotto reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// `u v` or `u v w` per line; `#` or `%` comments; spaces, tabs or commas.
    EdgeList,
    /// `u v1 v2 ...` per line.
    AdjList,
    /// Matrix Market coordinate format.
    MatrixMarket,
    /// Comma-separated values with a header line naming the columns
    /// (only when asked for with `--format csv`).
    Csv,
}

impl Format {
    /// Name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::EdgeList => "edgelist",
            Format::AdjList => "adjlist",
            Format::MatrixMarket => "mtx",
            Format::Csv => "csv",
        }
    }
}

/// Value type of a Matrix Market file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MtxField {
    /// No values.
    Pattern,
    /// Integer values (kept as f32 weights).
    Integer,
    /// Real values (kept as f32 weights).
    Real,
}

/// What the header of a Matrix Market file declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MtxHeader {
    /// Rows (= columns; non-square matrices are refused).
    pub n: u64,
    /// Entries that must follow.
    pub nnz: u64,
    /// Value type.
    pub field: MtxField,
    /// Only one triangle is stored; the graph is undirected.
    pub symmetric: bool,
    /// 1-based line number of the size line.
    pub size_line: u64,
}

/// Everything a worker needs to parse data lines.
#[derive(Clone, Copy, Debug)]
pub struct ParseSpec {
    /// The format.
    pub format: Format,
    /// Lines carry a weight column that is read.
    pub weighted: bool,
    /// Lines carry a weight column that is ignored.
    pub ignore_weights: bool,
    /// The Matrix Market header, for that format.
    pub mtx: Option<MtxHeader>,
    /// Turn malformed lines into counted warnings.
    pub skip_invalid: bool,
    /// Where the edge columns are, for CSV.
    pub csv: Option<super::csv::CsvColumns>,
}

/// How the parser turns a vertex token into an id.
#[derive(Clone, Copy, Debug)]
pub enum Ids<'a> {
    /// Tokens are unsigned integers.
    Integer,
    /// Tokens are names, handed to [`EdgeSink::name`] (the first pass of
    /// a conversion with names, which learns them; ids given to
    /// [`EdgeSink::edge`] are then 0).
    Collect,
    /// Tokens are names, each resolved to its rank in the table.
    Resolve(&'a crate::store::names::Names),
    /// Tokens are names resolved in the table; a name it lacks goes to
    /// [`EdgeSink::new_name`], whose id stands for it (update batches).
    ResolveOrNew(&'a crate::store::names::Names),
}

/// Receives parsed edges; one sink per worker thread.
pub trait EdgeSink: Send {
    /// An edge `u -> v` with weight `w` (1.0 when unweighted). Ids are the
    /// user's, minus the format's id base. Returning false stops parsing
    /// (the sink has hit a limit it reports itself).
    fn edge(&mut self, u: u64, v: u64, w: f32) -> bool;
    /// A vertex named on a line without edges (adjacency lists).
    fn vertex(&mut self, u: u64);
    /// A vertex name read in [`Ids::Collect`] mode (default: ignored).
    fn name(&mut self, _token: &[u8]) {}
    /// A name the table lacks, read in [`Ids::ResolveOrNew`] mode: the id
    /// that stands for it in this sink's edges (default: `u64::MAX`).
    fn new_name(&mut self, _token: &[u8]) -> u64 {
        u64::MAX
    }
    /// The edges `u[i] -> v[i]` with weights `w[i]` (1.0 when `None`), in
    /// order; stops early as [`EdgeSink::edge`] does. One call per batch,
    /// so a source behind `dyn EdgeSink` pays one dynamic call per batch
    /// rather than per edge.
    fn edges(&mut self, u: &[u64], v: &[u64], w: Option<&[f32]>) -> bool {
        match w {
            Some(w) => (0..u.len()).all(|i| self.edge(u[i], v[i], w[i])),
            None => (0..u.len()).all(|i| self.edge(u[i], v[i], 1.0)),
        }
    }
}

/// A parse error inside a chunk, before line numbers are known.
#[derive(Clone, Debug)]
pub struct LineError {
    /// 0-based line within the chunk.
    pub line: u64,
    /// 1-based byte column.
    pub column: u64,
    /// What was expected.
    pub expected: String,
    /// The offending text.
    pub found: String,
}

/// Counts from one chunk.
#[derive(Default, Debug)]
struct ChunkOutcome {
    lines: u64,
    data_lines: u64,
    skipped: u64,
    first_error: Option<LineError>,
    /// The error cannot be skipped (a NUL byte: binary input).
    fatal: bool,
}

/// True for the bytes that separate columns: space, tab, comma.
#[inline]
pub(crate) fn is_sep(c: u8) -> bool {
    c == b' ' || c == b'\t' || c == b','
}

/// Shows at most 40 bytes of the token starting at `p`, control bytes
/// escaped.
fn token_at(b: &[u8], p: usize) -> String {
    if p >= b.len() || b[p] == b'\n' || (b[p] == b'\r' && b.get(p + 1) == Some(&b'\n')) {
        return "end of line".into();
    }
    let mut e = p;
    while e < b.len() && !is_sep(b[e]) && b[e] != b'\n' && b[e] != b'\r' && e - p < 40 {
        e += 1;
    }
    if e == p {
        e = p + 1;
    }
    quote_bytes(&b[p..e])
}

struct Cursor<'a> {
    b: &'a [u8],
    p: usize,
    line_start: usize,
}

type LineResult<T> = std::result::Result<T, (usize, &'static str)>;

impl Cursor<'_> {
    #[inline]
    fn skip_sep(&mut self) -> bool {
        let s = self.p;
        while is_sep(self.b[self.p]) {
            self.p += 1;
        }
        self.p > s
    }
    #[inline]
    fn at_eol(&self) -> bool {
        let c = self.b[self.p];
        c == b'\n' || (c == b'\r' && self.b[self.p + 1] == b'\n')
    }
    /// Parses an unsigned integer id.
    #[inline]
    fn id(&mut self, what: &'static str) -> LineResult<u64> {
        let start = self.p;
        let mut acc: u64 = 0;
        loop {
            let d = self.b[self.p].wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            acc = match acc.checked_mul(10).and_then(|x| x.checked_add(d as u64)) {
                Some(x) => x,
                None => return Err((start, "a vertex id of at most 18446744073709551615")),
            };
            self.p += 1;
        }
        let c = self.b[self.p];
        let token_ends = is_sep(c) || c == b'\n' || c == b'\r';
        if self.p == start && self.b[start] == b'-' {
            return Err((start, "a non-negative vertex id"));
        }
        if self.p == start || !token_ends {
            // A word where an id belongs: say how names are read.
            let word = self.p > start || !token_ends;
            return Err((
                start,
                if word && what == "a vertex id" {
                    "a vertex id (an integer; vertex names need --ids string)"
                } else {
                    what
                },
            ));
        }
        Ok(acc)
    }
    /// Reads a vertex: an integer id, or a name collected or resolved.
    #[inline]
    fn vertex<S: EdgeSink>(
        &mut self,
        ids: Ids,
        sink: &mut S,
        what: &'static str,
    ) -> LineResult<u64> {
        let start = self.p;
        let token = |c: &mut Self| {
            while !(is_sep(c.b[c.p]) || c.b[c.p] == b'\n' || c.b[c.p] == b'\r') {
                c.p += 1;
            }
            &c.b[start..c.p]
        };
        match ids {
            Ids::Integer => self.id(what),
            Ids::Collect => {
                let t = token(self);
                if t.is_empty() {
                    return Err((start, "a vertex name"));
                }
                if std::str::from_utf8(t).is_err() {
                    return Err((start, "a vertex name in UTF-8"));
                }
                sink.name(t);
                Ok(0)
            }
            Ids::Resolve(names) => {
                let t = token(self);
                match names.find(t) {
                    Some(v) => Ok(v as u64),
                    None => Err((
                        start,
                        "a vertex name read in the first pass (did the file change?)",
                    )),
                }
            }
            Ids::ResolveOrNew(names) => {
                let t = token(self);
                new_or_known(names, t, sink).map_err(|what| (start, what))
            }
        }
    }
    /// Parses a finite floating-point weight.
    fn weight(&mut self) -> LineResult<f32> {
        let start = self.p;
        while !(is_sep(self.b[self.p]) || self.b[self.p] == b'\n' || self.b[self.p] == b'\r') {
            self.p += 1;
        }
        let tok = std::str::from_utf8(&self.b[start..self.p])
            .map_err(|_| (start, "a number for the weight"))?;
        match tok.parse::<f64>() {
            Ok(x) if x.is_finite() && (x as f32).is_finite() => Ok(x as f32),
            Ok(_) => Err((start, "a finite weight that fits f32")),
            Err(_) => Err((
                start,
                if start == self.p {
                    "a weight (third column)"
                } else {
                    "a number for the weight"
                },
            )),
        }
    }
    fn end_of_line(&mut self) -> LineResult<()> {
        self.skip_sep();
        if self.at_eol() {
            Ok(())
        } else {
            Err((self.p, "end of line"))
        }
    }
    fn next_line(&mut self) {
        while self.b[self.p] != b'\n' {
            self.p += 1;
        }
        self.p += 1;
        self.line_start = self.p;
    }
}

/// Bytes the fast path may look at past a line's start (two ids of up to
/// 16 digits, a separator and a line end, read 8 bytes at a time).
const FAST_LOOKAHEAD: usize = 48;

/// The number of leading ASCII digits in `w` (8 bytes, first byte
/// lowest) and their value: eight bytes tested and converted at once.
#[inline]
fn swar_digits(w: u64) -> (usize, u64) {
    const LO: u64 = 0x0F0F_0F0F_0F0F_0F0F;
    const HI: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    // A byte is a digit when its high nibble is 3 and its low nibble is at
    // most 9 (adding 6 to it then stays below 16): no carry crosses bytes.
    let bad = ((w & HI) ^ 0x3030_3030_3030_3030) | (((w & LO) + 0x0606_0606_0606_0606) & HI);
    let k = (bad.trailing_zeros() / 8) as usize;
    if k == 0 {
        return (0, 0);
    }
    // Keep the k digits, moved up so that the leading bytes read as zeros,
    // then combine neighbours: pairs, quads, the whole eight.
    let mut v = (w & LO) << (8 * (8 - k));
    v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    v = (v.wrapping_mul(10000) + (v >> 32)) & 0xFFFF_FFFF;
    (k, v)
}

#[inline]
fn load8(b: &[u8], p: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[p..p + 8]);
    u64::from_le_bytes(a)
}

/// An id of 1 to 16 digits at `p` followed by a non-digit; None for
/// anything else (the general parser then decides).
#[inline]
fn fast_id(b: &[u8], p: usize) -> Option<(u64, usize)> {
    let (k, v) = swar_digits(load8(b, p));
    match k {
        0 => None,
        1..=7 => Some((v, p + k)),
        _ => {
            let (k2, v2) = swar_digits(load8(b, p + 8));
            if k2 == 8 {
                return None;
            }
            Some((v * 10u64.pow(k2 as u32) + v2, p + 8 + k2))
        }
    }
}

/// The common edge-list line `U SEP V EOL` (one space or tab, `\n` or
/// `\r\n`) parsed without branching per digit. Returns the ids and the
/// start of the next line, or None to let the general parser take the
/// line (comments, other separators, long ids, errors). Needs
/// [`FAST_LOOKAHEAD`] bytes after `p`.
#[inline]
fn fast_edge_line(b: &[u8], p: usize) -> Option<(u64, u64, usize)> {
    let (u, q) = fast_id(b, p)?;
    if b[q] != b' ' && b[q] != b'\t' {
        return None;
    }
    let (v, q) = fast_id(b, q + 1)?;
    match b[q] {
        b'\n' => Some((u, v, q + 1)),
        b'\r' if b[q + 1] == b'\n' => Some((u, v, q + 2)),
        _ => None,
    }
}

/// Line classification shared by all formats.
#[inline]
fn data_line(c: &mut Cursor) -> bool {
    c.skip_sep();
    let x = c.b[c.p];
    !(c.at_eol() || x == b'#' || x == b'%')
}

fn parse_edge_line<S: EdgeSink>(
    c: &mut Cursor,
    spec: &ParseSpec,
    ids: Ids,
    sink: &mut S,
) -> LineResult<bool> {
    let u = c.vertex(ids, sink, "a vertex id")?;
    if !c.skip_sep() {
        return Err((c.p, "a separator and a second vertex id"));
    }
    if c.at_eol() {
        return Err((c.p, "a second vertex id"));
    }
    let v = c.vertex(ids, sink, "a vertex id")?;
    let mut w = 1.0f32;
    if spec.weighted || spec.ignore_weights {
        let had_sep = c.skip_sep();
        if c.at_eol() || !had_sep {
            return Err((c.p, "a weight (third column), as on the first edge line"));
        }
        let x = c.weight()?;
        if spec.weighted {
            w = x;
        }
    } else {
        c.skip_sep();
        if !c.at_eol() {
            return Err((c.p, "end of line (the first edge line had two columns; a third is a weight: pass --weighted)"));
        }
    }
    c.end_of_line()?;
    Ok(sink.edge(u, v, w))
}

fn parse_adj_line<S: EdgeSink>(c: &mut Cursor, ids: Ids, sink: &mut S) -> LineResult<bool> {
    let u = c.vertex(ids, sink, "a vertex id")?;
    sink.vertex(u);
    loop {
        c.skip_sep();
        if c.at_eol() {
            return Ok(true);
        }
        let v = c.vertex(ids, sink, "a vertex id")?;
        if !sink.edge(u, v, 1.0) {
            return Ok(false);
        }
    }
}

fn parse_mtx_line<S: EdgeSink>(
    c: &mut Cursor,
    h: &MtxHeader,
    weighted: bool,
    sink: &mut S,
) -> LineResult<bool> {
    let ps = c.p;
    let i = c.id("a row index")?;
    if i == 0 || i > h.n {
        return Err((ps, "a row index between 1 and the size line's row count"));
    }
    if !c.skip_sep() || c.at_eol() {
        return Err((c.p, "a column index"));
    }
    let pc = c.p;
    let j = c.id("a column index")?;
    if j == 0 || j > h.n {
        return Err((
            pc,
            "a column index between 1 and the size line's column count",
        ));
    }
    let mut w = 1.0;
    if h.field != MtxField::Pattern {
        let had = c.skip_sep();
        if !had || c.at_eol() {
            return Err((c.p, "a value (the header declares integer or real entries)"));
        }
        let x = c.weight()?;
        if weighted {
            w = x;
        }
    }
    c.end_of_line()?;
    Ok(sink.edge(i - 1, j - 1, w))
}

/// Parses every line of `data` (which ends with `\n`) into `sink`.
fn parse_chunk<S: EdgeSink>(
    data: &[u8],
    spec: &ParseSpec,
    ids: Ids,
    sink: &mut S,
    stop: &AtomicU64,
) -> ChunkOutcome {
    let mut out = ChunkOutcome::default();
    let mut c = Cursor {
        b: data,
        p: 0,
        line_start: 0,
    };
    let fast = spec.format == Format::EdgeList
        && !spec.weighted
        && !spec.ignore_weights
        && matches!(ids, Ids::Integer);
    let fast_end = data.len().saturating_sub(FAST_LOOKAHEAD);
    while c.p < data.len() {
        if fast && c.p < fast_end {
            if let Some((u, v, next)) = fast_edge_line(data, c.p) {
                out.data_lines += 1;
                out.lines += 1;
                c.p = next;
                c.line_start = next;
                if !sink.edge(u, v, 1.0) {
                    stop.store(0, Ordering::Relaxed);
                    return out;
                }
                continue;
            }
        }
        let is_data = if spec.format == Format::Csv {
            // Commas and spaces are data in CSV: only `#` lines and blank
            // lines are not.
            !matches!(data[c.p], b'\n' | b'#') && !data[c.p..].starts_with(b"\r\n")
        } else {
            data_line(&mut c)
        };
        if is_data {
            out.data_lines += 1;
            let r = match spec.format {
                Format::EdgeList => parse_edge_line(&mut c, spec, ids, sink),
                Format::AdjList => parse_adj_line(&mut c, ids, sink),
                Format::MatrixMarket => match &spec.mtx {
                    Some(h) => parse_mtx_line(&mut c, h, spec.weighted, sink),
                    None => Err((c.p, "a Matrix Market header")),
                },
                Format::Csv => match &spec.csv {
                    Some(cols) => super::csv::line(data, c.p, cols, spec.weighted, ids, sink).map(
                        |(go, end)| {
                            c.p = end;
                            go
                        },
                    ),
                    None => Err((c.p, "a CSV header")),
                },
            };
            match r {
                Ok(true) => {}
                Ok(false) => {
                    stop.store(0, Ordering::Relaxed);
                    return out;
                }
                Err((at, expected)) => {
                    // A NUL byte means binary input: never skipped.
                    let nul = data.get(at) == Some(&0);
                    if out.first_error.is_none() || nul {
                        out.first_error = Some(LineError {
                            line: out.lines,
                            column: (at - c.line_start + 1) as u64,
                            expected: if nul {
                                "text (a NUL byte: is this a binary file?)".into()
                            } else {
                                expected.into()
                            },
                            found: token_at(data, at),
                        });
                    }
                    if nul {
                        out.fatal = true;
                    }
                    if !spec.skip_invalid || nul {
                        return out;
                    }
                    out.skipped += 1;
                    out.data_lines -= 1;
                }
            }
        }
        c.next_line();
        out.lines += 1;
    }
    out
}

/// What a whole parse produced besides the sinks.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ParseCounts {
    /// Lines read, comments and blanks included.
    pub lines: u64,
    /// Lines that held data.
    pub data_lines: u64,
    /// Malformed lines skipped with `--skip-invalid`.
    pub skipped: u64,
    /// Uncompressed bytes read.
    pub bytes: u64,
    /// First skipped line, as "FILE:LINE:COL: message".
    pub first_skipped: Option<String>,
}

/// A callback told how many uncompressed bytes have been read.
pub type ProgressFn<'a> = &'a (dyn Fn(u64) + Sync);

/// The size of the text pieces handed to workers.
pub const CHUNK_BYTES: usize = 2 << 20;

/// Parses the data lines of `path` (after skipping `skip_lines` header
/// lines) with `threads` workers, each owning a sink made by `make_sink`.
/// Returns the sinks and the counts, or the first error in file order.
#[allow(clippy::too_many_arguments)]
pub fn parse_file<S: EdgeSink>(
    path: &Path,
    spec: &ParseSpec,
    ids: Ids,
    skip_lines: u64,
    threads: usize,
    make_sink: &(dyn Fn() -> S + Sync),
    progress: ProgressFn,
) -> Result<(Vec<S>, ParseCounts)> {
    let threads = threads.max(1);
    let mut chunker = Chunker::new(TextReader::open(path)?, CHUNK_BYTES);
    let (tx, rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(threads * 2);
    let rx = Mutex::new(rx);
    let free: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let outcomes: Mutex<Vec<(usize, ChunkOutcome)>> = Mutex::new(Vec::new());
    // Smallest chunk index with an error (u64::MAX: none); 0 also means a
    // sink asked to stop.
    let stop = AtomicU64::new(u64::MAX);
    let mut bytes = 0u64;
    let mut read_error = None;
    let mut skipped_header = 0u64;

    let sinks = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut sink = make_sink();
                    loop {
                        let msg = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => break,
                        };
                        let Ok((seq, buf)) = msg else { break };
                        let o = if (seq as u64) < stop.load(Ordering::Relaxed) {
                            parse_chunk(&buf, spec, ids, &mut sink, &stop)
                        } else {
                            ChunkOutcome::default()
                        };
                        if o.first_error.is_some() && (!spec.skip_invalid || o.fatal) {
                            stop.fetch_min(seq as u64, Ordering::Relaxed);
                        }
                        if let Ok(mut f) = free.lock() {
                            f.push(buf);
                        }
                        if let Ok(mut all) = outcomes.lock() {
                            all.push((seq, o));
                        }
                    }
                    sink
                })
            })
            .collect();
        let mut seq = 0usize;
        loop {
            if stop.load(Ordering::Relaxed) != u64::MAX {
                break;
            }
            if crate::interrupt::requested() {
                read_error = Some(crate::Error::Interrupted);
                break;
            }
            let mut buf = free
                .lock()
                .ok()
                .and_then(|mut f| f.pop())
                .unwrap_or_default();
            match chunker.next_into(&mut buf) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    read_error = Some(e);
                    break;
                }
            }
            bytes += buf.len() as u64;
            if skipped_header < skip_lines {
                let mut p = 0;
                while skipped_header < skip_lines && p < buf.len() {
                    match buf[p..].iter().position(|&c| c == b'\n') {
                        Some(i) => {
                            p += i + 1;
                            skipped_header += 1;
                        }
                        None => break,
                    }
                }
                buf.drain(..p);
            }
            progress(bytes);
            if tx.send((seq, buf)).is_err() {
                break;
            }
            seq += 1;
        }
        drop(tx);
        workers.into_iter().map(|w| w.join()).collect::<Vec<_>>()
    });
    let mut out = Vec::with_capacity(threads);
    for s in sinks {
        match s {
            Ok(s) => out.push(s),
            Err(p) => std::panic::resume_unwind(p),
        }
    }
    if let Some(e) = read_error {
        return Err(e);
    }
    let mut outcomes = outcomes.into_inner().unwrap_or_default();
    outcomes.sort_by_key(|(s, _)| *s);
    let mut counts = ParseCounts {
        bytes,
        ..ParseCounts::default()
    };
    let mut line_base = skip_lines;
    for (_, o) in &outcomes {
        if let Some(e) = &o.first_error {
            let at = format!("{}:{}:{}", path.display(), line_base + e.line + 1, e.column);
            if !spec.skip_invalid || o.fatal {
                return Err(Error::Parse {
                    path: path.to_path_buf(),
                    line: line_base + e.line + 1,
                    column: e.column,
                    expected: e.expected.clone(),
                    found: e.found.clone(),
                    note: String::new(),
                });
            }
            if counts.first_skipped.is_none() {
                counts.first_skipped = Some(format!(
                    "{at}: expected {}, found \"{}\"",
                    e.expected, e.found
                ));
            }
        }
        line_base += o.lines;
        counts.lines += o.lines;
        counts.data_lines += o.data_lines;
        counts.skipped += o.skipped;
    }
    counts.lines += skip_lines;
    Ok((out, counts))
}

#[cfg(test)]
mod tests;

/// The rank of the name `t` in `names`, or, for a name the table lacks,
/// the id `sink` gives it ([`Ids::ResolveOrNew`]).
pub(crate) fn new_or_known<S: EdgeSink + ?Sized>(
    names: &crate::store::names::Names,
    t: &[u8],
    sink: &mut S,
) -> std::result::Result<u64, &'static str> {
    if t.is_empty() {
        return Err("a vertex name");
    }
    match names.find(t) {
        Some(v) => Ok(v as u64),
        None if std::str::from_utf8(t).is_err() => Err("a vertex name in UTF-8"),
        None => Ok(sink.new_name(t)),
    }
}

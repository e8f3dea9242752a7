//! The pass between two levels: the graph of the groups of a level's
//! vertices, within a memory budget.
//!
//! Each vertex's neighbours are summed by group (one record a vertex and
//! distinct neighbouring group, towards larger groups only, 16 bytes
//! each); the records are sorted by their groups and weight and equal
//! pairs summed, so every sum is taken in an order the records fix,
//! whatever the threads did. When the records of all groups would pass
//! half the budget, the groups are cut into ranges and each range is a
//! pass of its own over the lists of its members only: the pairs come out
//! in order, range after range. A group whose members alone have more
//! entries than a pass may hold (a giant community) is cut into pieces
//! of its members by id, one pass each, and its sums are added piece
//! after piece (a fixed order again). The records of a pass are gathered
//! into one vector of their bound, so a pass never holds more than half
//! the budget. The groups' graph is then built in memory
//! ([`Coarse`], 12 bytes an entry) when it fits the budget; otherwise its
//! edges go through the ingest's bounded build into a scratch graph file
//! ([`ScratchGraph`]: an unnamed temporary in the temporary directory,
//! gone when dropped or when the process dies) that the next level reads
//! through an engine of its own.

use super::sums::GroupSums;
use super::{Coarse, Lists};
use crate::engine::{AtomicBitmap, Frontier};
use crate::error::{Error, Result};
use crate::ingest::parse::EdgeSink;
use crate::ingest::EdgeGenerator;
use crate::io::output::Output;
use crate::store::Graph;
use crate::VertexId;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How a contraction may use memory and disk.
#[derive(Clone, Debug)]
pub struct ContractOptions {
    /// Bytes the pass may hold: records, the pairs they sum to, and a
    /// next level in memory (default: unbounded).
    pub memory_bytes: u64,
    /// Where a next level that does not fit is written (default: the
    /// system's temporary directory).
    pub temp_dir: Option<PathBuf>,
}

impl Default for ContractOptions {
    fn default() -> ContractOptions {
        ContractOptions {
            memory_bytes: u64::MAX,
            temp_dir: None,
        }
    }
}

/// The next level's graph.
#[derive(Debug)]
pub enum NextGraph {
    /// Held in memory.
    Memory(Coarse),
    /// Written as a scratch graph file.
    File(ScratchGraph),
}

impl NextGraph {
    /// The graph in memory, when it is there.
    pub fn memory(&self) -> Option<&Coarse> {
        match self {
            NextGraph::Memory(c) => Some(c),
            NextGraph::File(_) => None,
        }
    }
}

/// A graph file written for this process alone: an uncommitted
/// temporary, open while this value lives, gone when it is dropped.
#[derive(Debug)]
pub struct ScratchGraph {
    /// The graph, opened from the temporary.
    pub graph: Arc<Graph>,
    _file: Output,
}

/// The next level: the graph of the groups, and the weight inside each.
#[derive(Debug)]
pub struct Contracted {
    /// The groups' graph: vertex `g` is group `g`; its list holds an entry
    /// for every other group it has edges to, and one for itself when
    /// edges lie inside it (the weight inside, [`Contracted::inside`]).
    pub graph: NextGraph,
    /// Per group, the weight of the edges inside it, each once (a member's
    /// self loop included), summed in `f64`. (The weight between a group
    /// and the others is its degree sum less twice this.)
    pub inside: Vec<f64>,
    /// With a coarser grouping of the groups given: the weight inside each
    /// of its parts.
    pub outer_inside: Option<Vec<f64>>,
    /// Records the passes gathered before they were summed.
    pub records: u64,
    /// Pairs of groups with edges between them.
    pub pairs: u64,
    /// Passes over the level (more than one when the records did not fit).
    pub passes: u32,
}

/// One record of a contraction: two groups and a weight between them (a
/// pair with `lo == hi`: weight inside the group).
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Zeroable, bytemuck::Pod)]
#[repr(C)]
struct Record {
    lo: u32,
    hi: u32,
    w: f64,
}

/// Bytes a record or a pair takes.
const RECORD_BYTES: u64 = std::mem::size_of::<Record>() as u64;

/// Bytes an entry of a [`Coarse`] graph takes (a target and a weight).
const ENTRY_BYTES: u64 = 12;

/// [`contract_within`] with no memory bound and no coarser grouping.
pub fn contract(level: &mut dyn Lists, group: &[u32], groups: u32) -> Result<Contracted> {
    contract_within(level, group, groups, None, &ContractOptions::default())
}

/// The graph of `groups` groups of `level`'s vertices, vertex `v` in group
/// `group[v]`, within `opts`' memory. An undirected level's edge between
/// members of two groups is in both members' lists; it is counted once,
/// from the side of the smaller group (inside a group, halved), as a loop
/// is. With `outer` (a part for each group), the weight inside each part
/// is summed too. A vertex whose group is `groups` or more is left out:
/// it must have an empty list (an isolated vertex, which no later level
/// needs to hold).
pub fn contract_within(
    level: &mut dyn Lists,
    group: &[u32],
    groups: u32,
    outer: Option<&[u32]>,
    opts: &ContractOptions,
) -> Result<Contracted> {
    let n = level.vertex_count();
    if group.len() as u64 != n {
        return Err(Error::Invalid(format!(
            "a contraction needs a group for each of the {n} vertices"
        )));
    }
    if let Some(v) =
        (0..n as VertexId).find(|&v| group[v as usize] >= groups && level.degree(v) > 0)
    {
        return Err(Error::Invalid(format!(
            "vertex {v} has edges but no group below {groups}: only a vertex without edges is left out"
        )));
    }
    if outer.is_some_and(|o| o.len() != groups as usize) {
        return Err(Error::Invalid(
            "a contraction's coarser grouping needs a part for each group".into(),
        ));
    }
    // At most one record a list entry: ranges of groups whose members'
    // entries fit half the budget as records.
    let mut entries = vec![0u64; groups as usize];
    for v in 0..n as VertexId {
        if let Some(e) = entries.get_mut(group[v as usize] as usize) {
            *e += level.degree(v);
        }
    }
    let half = (opts.memory_bytes / 2).max(RECORD_BYTES);
    let passes = plan_passes(level, group, &entries, half / RECORD_BYTES);
    drop(entries);
    let mut out = Emit {
        inside: vec![0.0f64; groups as usize],
        outer,
        outer_inside: outer.map(|o| vec![0.0f64; o.iter().max().map_or(0, |&x| x as usize + 1)]),
        pairs: Vec::new(),
        spilled: None,
        half,
        opts,
    };
    let mut records = 0u64;
    // A split group's sums so far (sorted by pair).
    let mut pending: Vec<Record> = Vec::new();
    for (i, p) in passes.iter().enumerate() {
        let mut got = gather(level, group, p, passes.len() > 1)?;
        records += got.len() as u64;
        // Sorted by pair, then weight: each pair's sum is taken in one
        // order whatever the threads did.
        got.par_sort_unstable_by(|a, b| (a.lo, a.hi).cmp(&(b.lo, b.hi)).then(a.w.total_cmp(&b.w)));
        sum_sorted(&mut got);
        if p.split {
            // The pieces of one group's members are summed piece after
            // piece, in vertex order.
            pending = merge_sums(std::mem::take(&mut pending), got);
            if passes
                .get(i + 1)
                .is_some_and(|q| q.split && q.groups.0 == p.groups.0)
            {
                continue;
            }
            got = std::mem::take(&mut pending);
        }
        for r in got {
            out.push(r)?;
        }
    }
    let Emit {
        inside,
        outer_inside,
        pairs,
        spilled,
        ..
    } = out;
    let pair_count = spilled.as_ref().map_or(pairs.len() as u64, |f| f.count);
    let loops = inside.iter().filter(|&&w| w != 0.0).count() as u64;
    let csr_bytes = (2 * pair_count + loops) * ENTRY_BYTES + (groups as u64 + 1) * 8;
    let threads = level.threads();
    let graph = match spilled {
        None if csr_bytes + pair_count * RECORD_BYTES <= opts.memory_bytes => {
            NextGraph::Memory(in_memory(&pairs, &inside, groups, threads)?)
        }
        spilled => {
            let source = match spilled {
                Some(f) => PairSource::File(f.finish()?),
                None => PairSource::Memory(pairs),
            };
            NextGraph::File(to_file(source, &inside, groups, threads, opts)?)
        }
    };
    Ok(Contracted {
        graph,
        inside,
        outer_inside,
        records,
        pairs: pair_count,
        passes: passes.len() as u32,
    })
}

/// One pass of a contraction: the members of groups `groups.0..groups.1`
/// whose ids lie in `vertices.0..vertices.1`, with at most `bound`
/// records (their lists' entries). `split`: a piece of one group too
/// large for a pass.
struct Pass {
    groups: (u32, u32),
    vertices: (VertexId, VertexId),
    bound: u64,
    split: bool,
}

/// Cuts the groups into passes of at most `cap` records each: ranges of
/// groups by their entries, and a group whose entries alone pass `cap`
/// into pieces of its members by id (a vertex is never cut).
fn plan_passes(level: &dyn Lists, group: &[u32], entries: &[u64], cap: u64) -> Vec<Pass> {
    let n = group.len() as VertexId;
    let all = (0, n);
    let mut passes = Vec::new();
    let (mut lo, mut acc) = (0u32, 0u64);
    for (g, &e) in entries.iter().enumerate() {
        let g = g as u32;
        if e > cap {
            if g > lo {
                passes.push(Pass {
                    groups: (lo, g),
                    vertices: all,
                    bound: acc,
                    split: false,
                });
            }
            let (mut vlo, mut got) = (0, 0u64);
            for v in (0..n).filter(|&v| group[v as usize] == g) {
                let d = level.degree(v);
                if got > 0 && got + d > cap {
                    passes.push(Pass {
                        groups: (g, g + 1),
                        vertices: (vlo, v),
                        bound: got,
                        split: true,
                    });
                    (vlo, got) = (v, 0);
                }
                got += d;
            }
            passes.push(Pass {
                groups: (g, g + 1),
                vertices: (vlo, n),
                bound: got,
                split: true,
            });
            (lo, acc) = (g + 1, 0);
            continue;
        }
        if g > lo && acc + e > cap {
            passes.push(Pass {
                groups: (lo, g),
                vertices: all,
                bound: acc,
                split: false,
            });
            (lo, acc) = (g, 0);
        }
        acc += e;
    }
    if (lo as usize) < entries.len() || passes.is_empty() {
        passes.push(Pass {
            groups: (lo, entries.len() as u32),
            vertices: all,
            bound: acc,
            split: false,
        });
    }
    passes
}

/// Sums the records of each pair in place (`got` sorted by pair).
fn sum_sorted(got: &mut Vec<Record>) {
    let (mut i, mut k) = (0, 0);
    while i < got.len() {
        let (a, b) = (got[i].lo, got[i].hi);
        let mut w = 0.0;
        while i < got.len() && got[i].lo == a && got[i].hi == b {
            w += got[i].w;
            i += 1;
        }
        got[k] = Record { lo: a, hi: b, w };
        k += 1;
    }
    got.truncate(k);
}

/// Two lists of pair sums (each sorted, each pair once) as one: a pair
/// in both gets `a`'s sum plus `b`'s.
fn merge_sums(a: Vec<Record>, b: Vec<Record>) -> Vec<Record> {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        let take_a = j == b.len() || (i < a.len() && (a[i].lo, a[i].hi) <= (b[j].lo, b[j].hi));
        let take_b = i == a.len() || (j < b.len() && (b[j].lo, b[j].hi) <= (a[i].lo, a[i].hi));
        match (take_a, take_b) {
            (true, true) => {
                out.push(Record {
                    w: a[i].w + b[j].w,
                    ..a[i]
                });
                (i, j) = (i + 1, j + 1);
            }
            (true, false) => {
                out.push(a[i]);
                i += 1;
            }
            _ => {
                out.push(b[j]);
                j += 1;
            }
        }
    }
    out
}

/// Where a contraction's summed pairs go: a group's weight inside, a
/// coarser part's, and the pairs between groups (held while they fit
/// half the budget, else spilled to a file in order).
struct Emit<'a> {
    inside: Vec<f64>,
    outer: Option<&'a [u32]>,
    outer_inside: Option<Vec<f64>>,
    pairs: Vec<Record>,
    spilled: Option<PairFile>,
    half: u64,
    opts: &'a ContractOptions,
}

impl Emit<'_> {
    fn push(&mut self, r: Record) -> Result<()> {
        let (a, b) = (r.lo, r.hi);
        if let (Some(o), Some(oi)) = (self.outer, self.outer_inside.as_mut()) {
            if o[a as usize] == o[b as usize] {
                oi[o[a as usize] as usize] += r.w;
            }
        }
        if a == b {
            self.inside[a as usize] += r.w;
            return Ok(());
        }
        if self.spilled.is_none() && self.pairs.len() == self.pairs.capacity() {
            // Grown by hand, so that the pairs never hold more than half
            // the budget (a doubling could take all of it).
            let cap = (self.pairs.capacity() * 2)
                .max(1024)
                .min((self.half / RECORD_BYTES) as usize);
            if cap > self.pairs.len() {
                self.pairs.reserve_exact(cap - self.pairs.len());
            } else {
                let mut f = PairFile::new(self.opts)?;
                for p in self.pairs.drain(..) {
                    f.push(p)?;
                }
                self.pairs = Vec::new();
                self.spilled = Some(f);
            }
        }
        match &mut self.spilled {
            Some(f) => f.push(r),
            None => {
                self.pairs.push(r);
                Ok(())
            }
        }
    }
}

/// Records a thread gathers before it adds them to the range's.
const RECORDS_PER_BATCH: usize = 4096;

/// The records of the pass's vertices (all of them when not `partial`):
/// one pass over their lists, into one vector of the pass's bound (the
/// members' entries, which their records never pass).
fn gather(level: &mut dyn Lists, group: &[u32], pass: &Pass, partial: bool) -> Result<Vec<Record>> {
    let ((glo, ghi), (vlo, vhi), bound) = (pass.groups, pass.vertices, pass.bound);
    let n = level.vertex_count();
    let frontier = if partial {
        let bits = AtomicBitmap::new(n);
        let mut count = 0;
        for (v, &g) in group.iter().enumerate() {
            if g >= glo && g < ghi && (vlo..vhi).contains(&(v as VertexId)) {
                bits.insert(v as u64);
                count += 1;
            }
        }
        Frontier::Dense(bits, count)
    } else {
        Frontier::all(n)
    };
    let out: Mutex<Vec<Record>> = Mutex::new(Vec::with_capacity(bound as usize));
    let overflow = AtomicBool::new(false);
    // Each thread adds its records to a batch of a slot of its own, which
    // goes into the range's records when full (the rest after the pass):
    // the records are never held twice.
    let threads = level.threads();
    let slots: Vec<Mutex<Vec<Record>>> = (0..threads * 4).map(|_| Mutex::new(Vec::new())).collect();
    let next = AtomicUsize::new(0);
    let flush = |batch: &mut Vec<Record>| {
        let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
        if o.len() + batch.len() > o.capacity() {
            overflow.store(true, Ordering::Relaxed);
        } else {
            o.extend_from_slice(batch);
        }
        batch.clear();
    };
    thread_local! {
        static SUMS: std::cell::RefCell<GroupSums> = std::cell::RefCell::new(GroupSums::default());
        static SLOT: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
    }
    level.visit_whole(&frontier, &|v, ids, ws| {
        let g = group[v as usize];
        if ids.is_empty() {
            // Nothing to record (and a vertex left out has no group).
            return;
        }
        SUMS.with_borrow_mut(|t| {
            let mut own = 0.0;
            for (i, &u) in ids.iter().enumerate() {
                if u == v {
                    own += ws.get(i);
                }
            }
            t.add_list(ids, ws, |u| group[u as usize], v);
            // Inside the group each edge is in two members' lists; a pair
            // with a smaller group comes from that group's side.
            own += t.get(g) / 2.0;
            let s = match SLOT.get() {
                usize::MAX => {
                    let s = next.fetch_add(1, Ordering::Relaxed) % slots.len();
                    SLOT.set(s);
                    s
                }
                s => s,
            };
            let mut batch = slots[s].lock().unwrap_or_else(|p| p.into_inner());
            batch.extend(
                t.iter()
                    .filter(|&(h, _)| h > g)
                    .map(|(h, w)| Record { lo: g, hi: h, w }),
            );
            if own != 0.0 {
                batch.push(Record {
                    lo: g,
                    hi: g,
                    w: own,
                });
            }
            if batch.len() >= RECORDS_PER_BATCH {
                flush(&mut batch);
            }
            drop(batch);
            t.clear();
        });
    })?;
    for slot in &slots {
        flush(&mut slot.lock().unwrap_or_else(|p| p.into_inner()));
    }
    if overflow.load(Ordering::Relaxed) {
        return Err(Error::Invalid(format!(
            "a contraction gathered more records than the {bound} entries of its vertices"
        )));
    }
    Ok(out.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// The groups' graph in memory from the pairs (sorted by `(lo, hi)`):
/// each pair in both lists, a group's weight inside as its loop, every
/// list sorted.
fn in_memory(pairs: &[Record], inside: &[f64], groups: u32, threads: usize) -> Result<Coarse> {
    let mut count = vec![0u64; groups as usize + 1];
    for p in pairs {
        count[p.lo as usize + 1] += 1;
        count[p.hi as usize + 1] += 1;
    }
    for (g, &w) in inside.iter().enumerate() {
        if w != 0.0 {
            count[g + 1] += 1;
        }
    }
    for g in 0..groups as usize {
        count[g + 1] += count[g];
    }
    let total = count[groups as usize] as usize;
    let mut targets = vec![0 as VertexId; total];
    let mut weights = vec![0f64; total];
    let mut at: Vec<u64> = count[..groups as usize].to_vec();
    let mut put = |g: u32, h: u32, w: f64| {
        let p = at[g as usize] as usize;
        targets[p] = h;
        weights[p] = w;
        at[g as usize] += 1;
    };
    // A group's entries towards smaller groups come from pairs where it
    // is `hi`, in increasing `lo`; then its loop; then the larger groups.
    for p in pairs {
        put(p.hi, p.lo, p.w);
    }
    for (g, &w) in inside.iter().enumerate() {
        if w != 0.0 {
            put(g as u32, g as u32, w);
        }
    }
    for p in pairs {
        put(p.lo, p.hi, p.w);
    }
    Coarse::new(count, targets, weights, threads)
}

/// Pairs written to an unnamed temporary file, in order.
struct PairFile {
    out: std::io::BufWriter<std::fs::File>,
    count: u64,
}

impl PairFile {
    fn new(opts: &ContractOptions) -> Result<PairFile> {
        let dir = opts.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
        let f =
            tempfile::tempfile_in(&dir).map_err(|e| Error::io(&dir, "create a spill file", e))?;
        Ok(PairFile {
            out: std::io::BufWriter::with_capacity(1 << 20, f),
            count: 0,
        })
    }

    fn push(&mut self, r: Record) -> Result<()> {
        use std::io::Write;
        self.count += 1;
        self.out
            .write_all(bytemuck::bytes_of(&r))
            .map_err(|e| Error::io(std::path::Path::new("(pair spill)"), "write", e))
    }

    fn finish(self) -> Result<(std::fs::File, u64)> {
        let count = self.count;
        let f = self.out.into_inner().map_err(|e| {
            Error::io(
                std::path::Path::new("(pair spill)"),
                "write",
                e.into_error(),
            )
        })?;
        Ok((f, count))
    }
}

/// Where a scratch build reads the pairs from.
enum PairSource {
    Memory(Vec<Record>),
    File((std::fs::File, u64)),
}

/// Pairs handed to a build at a time.
const PAIRS_PER_CHUNK: u64 = 1 << 20;

/// The groups' edges for the ingest: every pair once (the build stores
/// both directions of an undirected graph) with its weight as `f32`, and
/// each group's weight inside as its loop.
struct PairEdges<'a> {
    source: &'a PairSource,
    inside: &'a [f64],
    groups: u32,
}

impl PairEdges<'_> {
    fn pairs(&self) -> u64 {
        match self.source {
            PairSource::Memory(p) => p.len() as u64,
            PairSource::File((_, c)) => *c,
        }
    }
}

impl EdgeGenerator for PairEdges<'_> {
    fn chunks(&self) -> usize {
        self.pairs().div_ceil(PAIRS_PER_CHUNK) as usize + 1
    }

    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> Result<bool> {
        let (mut src, mut dst, mut w) = (Vec::new(), Vec::new(), Vec::new());
        let pairs_chunks = self.chunks() - 1;
        if chunk == pairs_chunks {
            for (g, &x) in self.inside.iter().enumerate() {
                if x != 0.0 {
                    src.push(g as u64);
                    dst.push(g as u64);
                    w.push(x as f32);
                }
            }
        } else {
            let lo = chunk as u64 * PAIRS_PER_CHUNK;
            let hi = (lo + PAIRS_PER_CHUNK).min(self.pairs());
            let mut push = |r: &Record| {
                src.push(r.lo as u64);
                dst.push(r.hi as u64);
                w.push(r.w as f32);
            };
            match self.source {
                PairSource::Memory(p) => p[lo as usize..hi as usize].iter().for_each(&mut push),
                PairSource::File((f, _)) => {
                    use std::os::unix::fs::FileExt;
                    let mut buf = vec![Record::zeroed(); (hi - lo) as usize];
                    f.read_exact_at(bytemuck::cast_slice_mut(&mut buf), lo * RECORD_BYTES)
                        .map_err(|e| Error::io(std::path::Path::new("(pair spill)"), "read", e))?;
                    buf.iter().for_each(&mut push);
                }
            }
        }
        Ok(sink.edges(&src, &dst, Some(&w)))
    }

    fn edges(&self) -> u64 {
        self.pairs() + self.inside.iter().filter(|&&w| w != 0.0).count() as u64
    }

    fn vertex_count(&self) -> Option<u64> {
        Some(self.groups as u64)
    }

    fn weighted(&self) -> bool {
        true
    }

    fn describe(&self) -> String {
        format!("the graph of {} groups", self.groups)
    }

    fn replayable(&self) -> bool {
        true
    }
}

use bytemuck::Zeroable;

/// The groups' graph built as a scratch graph file within the budget
/// (less what pairs held in memory take while it is built).
fn to_file(
    source: PairSource,
    inside: &[f64],
    groups: u32,
    threads: usize,
    opts: &ContractOptions,
) -> Result<ScratchGraph> {
    let dir = opts.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let edges = PairEdges {
        source: &source,
        inside,
        groups,
    };
    let slot = Arc::new(Mutex::new(None));
    let copts = crate::ingest::ConvertOptions {
        undirected: true,
        weighted: Some(true),
        keep_self_loops: true,
        // Group g is vertex g: no renumbering to undo.
        order: crate::ingest::VertexOrder::None,
        memory_bytes: (opts.memory_bytes != u64::MAX).then(|| {
            let held = match &source {
                PairSource::Memory(p) => p.len() as u64 * RECORD_BYTES,
                PairSource::File(_) => 0,
            };
            opts.memory_bytes.saturating_sub(held).max(64 << 20)
        }),
        threads,
        temp_dir: Some(dir.clone()),
        scratch: Some(Arc::clone(&slot)),
        allow_empty: true,
        ..crate::ingest::ConvertOptions::default()
    };
    crate::ingest::convert_from(
        &crate::ingest::Source::Generated(&edges),
        &dir.join(".grotto-level.scratch"),
        &copts,
        &crate::ingest::NoProgress,
    )?;
    let file = slot
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take()
        .ok_or_else(|| Error::Invalid("the scratch build left no file".into()))?;
    let graph = Arc::new(Graph::open(&file.reopen_path())?);
    if graph.vertex_count() != groups as u64 {
        return Err(Error::Invalid(format!(
            "the scratch graph of {groups} groups has {} vertices",
            graph.vertex_count()
        )));
    }
    Ok(ScratchGraph { graph, _file: file })
}

//! Committing a batch by *merging*: the graph's lists as they are now
//! (base blocks plus the committed delta), changed by the batch, are
//! written into fresh blocks in one pass, and the new file is renamed over
//! the old one. No delta is left, so reads pay nothing afterwards.
//!
//! A delta commit ([`GraphUpdate::commit`]) writes only the batch, but
//! every read of a changed list merges it, and a batch of a few percent
//! of the edges changes most blocks' lists (docs/updates.md). A merge
//! reads and writes the edge sections once: no parsing, no sorting (the
//! lists are read sorted, in the file's vertex order, and stay so), the
//! same layout code as `convert`. [`commit`] picks one or the other by
//! [`MergePolicy`].
//!
//! Crash safety is the conversion's: the new file is written beside the
//! old one (unnamed where the file system allows) and renamed over it
//! only when complete and synced; a crash or Ctrl-C before leaves the old
//! file and no litter. The update lock is held throughout, and a reader
//! that opened the old file keeps reading it.

use super::build::{AdjBuilder, AdjSummary};
use super::cell::LocalCsr;
use crate::error::{Error, Result};
use crate::store::delta::{key, unkey};
use crate::store::format::*;
use crate::store::layout::LayoutConfig;
use crate::store::update::{GraphUpdate, UpdateReport};
use crate::store::writer::GraphWriter;
use crate::store::{BlockReader, Direction, Graph};
use crate::VertexId;
use rayon::prelude::*;
use std::path::Path;
use std::time::Instant;

/// When a commit merges instead of appending a delta run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MergePolicy {
    /// Merge when the delta after the batch would change more than this
    /// fraction of the adjacency entries (counted in arcs: the delta's
    /// net inserts and deletes against the entries).
    Above(f64),
    /// Always merge (also folds the pending delta of an empty batch).
    Always,
    /// Never merge: append a delta run (`grotto compact` folds it later).
    Never,
}

/// Default fraction for [`MergePolicy::Above`]: 5% (docs/updates.md has
/// the measurements behind it).
pub const DEFAULT_MERGE_ABOVE: f64 = 0.05;

impl Default for MergePolicy {
    fn default() -> Self {
        MergePolicy::Above(DEFAULT_MERGE_ABOVE)
    }
}

/// Most entries of one chunk of lists built at once.
const CHUNK_ENTRIES: u64 = 1 << 22;
/// Most vertices of one chunk.
const CHUNK_VERTICES: u64 = 1 << 16;

/// Commits the staged batch of `up`: as a merge when `policy` says so,
/// else as a delta run ([`GraphUpdate::commit`]).
pub fn commit(up: GraphUpdate, policy: MergePolicy) -> Result<UpdateReport> {
    if should_merge(&up, policy) {
        merge(up)
    } else {
        up.commit()
    }
}

/// Whether `policy` merges `up`'s batch.
fn should_merge(up: &GraphUpdate, policy: MergePolicy) -> bool {
    let g = up.graph();
    let frac = match policy {
        MergePolicy::Always => return true,
        MergePolicy::Never => return false,
        MergePolicy::Above(f) => f,
    };
    let (ins, del) = up.staged();
    let sides = if g.header().has_reverse() { 2 } else { 1 };
    let per_edge = if g.directed() { 1 } else { 2 };
    let pending = g.updates().map_or(0, |u| u.inserted + u.deleted);
    let batch = (ins + del) * per_edge * sides;
    let entries = g.header().out_entries.max(1) * sides;
    (pending + batch) as f64 > frac * entries as f64
}

/// Which arcs a merge counts: `(v, u)` of the out-adjacency (an
/// undirected edge counts once).
type Counts<'a> = &'a (dyn Fn(VertexId, VertexId) -> bool + Sync);

/// Counts of one merge, as [`UpdateReport`] wants them.
#[derive(Default)]
struct Tally {
    inserted: u64,
    deleted: u64,
    present: u64,
    absent: u64,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.inserted += o.inserted;
        self.deleted += o.deleted;
        self.present += o.present;
        self.absent += o.absent;
    }
}

/// The batch's real changes, as arc keys, for the in-adjacency.
#[derive(Default)]
struct Changes {
    ins: Vec<u64>,
    del: Vec<u64>,
}

/// Merges `up`'s batch and the graph's delta into a new file (see the
/// module comment).
pub fn merge(up: GraphUpdate) -> Result<UpdateReport> {
    let t0 = Instant::now();
    let b = up.batch();
    let (lock, g, n) = up.into_parts();
    let h = g.header().clone();
    let undirected = !h.directed();
    let mut report = UpdateReport {
        graph: g.path().to_path_buf(),
        self_loops_dropped: b.loops_dropped,
        new_vertices: n - g.vertex_count(),
        vertices: n,
        merged: true,
        resolve_s: t0.elapsed().as_secs_f64(),
        ..UpdateReport::default()
    };
    let t1 = Instant::now();
    let layout = LayoutConfig {
        packed: h.packed(),
        inline_small: h.flags & FLAG_INLINE_SMALL != 0,
        ..LayoutConfig::default()
    };
    let dir = match g.path().parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let mut w = GraphWriter::create(g.path())?;
    let once = |v: VertexId, u: VertexId| !undirected || v <= u;
    let (out, tally, changes) = rewrite(
        &mut w,
        &g,
        Direction::Out,
        n,
        (&b.ins, &b.del),
        &layout,
        &dir,
        Some(&once),
    )?;
    if h.has_reverse() {
        let flip = |ks: Vec<u64>| {
            let mut r: Vec<u64> = ks
                .into_iter()
                .map(|k| {
                    let (a, b) = unkey(k);
                    key(b, a)
                })
                .collect();
            r.par_sort_unstable();
            r
        };
        let (ins, del) = (flip(changes.ins), flip(changes.del));
        let (s, _, _) = rewrite(
            &mut w,
            &g,
            Direction::In,
            n,
            (&ins, &del),
            &layout,
            &dir,
            None,
        )?;
        if s.entries != out.entries {
            return Err(g.corrupt_here(format!(
                "the merged in-adjacency holds {} entries, the out-adjacency {}",
                s.entries, out.entries
            )));
        }
    }
    write_tables(&mut w, &g, n)?;
    let edges = if undirected {
        (out.entries - out.loops) / 2 + out.loops
    } else {
        out.entries
    };
    let expected = g.edge_count() + tally.inserted - tally.deleted;
    if edges != expected {
        return Err(g.corrupt_here(format!(
            "the merge wrote {edges} edges, {expected} were expected"
        )));
    }
    let header = Header {
        version: DELTA_VERSION,
        flags: h.flags | FLAG_DELTA,
        vertex_count: n,
        edge_count: edges,
        out_entries: out.entries,
        id_base: h.id_base,
        self_loops_dropped: h.self_loops_dropped,
        duplicates_dropped: h.duplicates_dropped,
        lines_skipped: h.lines_skipped,
        sections: Vec::new(),
    };
    w.finish(header)?;
    drop(lock);
    report.inserted = tally.inserted;
    report.deleted = tally.deleted;
    report.already_present = tally.present;
    report.not_present = tally.absent + b.missing_loops + b.missing_unknown;
    report.edges = edges;
    report.written = true;
    report.bytes_written = std::fs::metadata(g.path()).map_or(0, |m| m.len());
    report.commit = 0;
    report.runs = 0;
    report.write_s = t1.elapsed().as_secs_f64();
    Ok(report)
}

/// The id map, names and vertex order (extended for new vertices, whose
/// ranks are their ids), and two empty manifest slots.
fn write_tables(w: &mut GraphWriter, g: &Graph, n: u64) -> Result<()> {
    if let Some(t) = g.names() {
        w.section(SectionKind::Names, &t.encode(), t.len())?;
    }
    if let Some(m) = g.id_map() {
        w.section(SectionKind::IdMap, bytemuck::cast_slice(m), m.len() as u64)?;
    }
    if let Some(o) = g.order() {
        let mut o = o.to_vec();
        o.extend(o.len() as u32..n as u32);
        w.section(SectionKind::Order, bytemuck::cast_slice(&o), n)?;
    }
    w.section(
        SectionKind::Manifest,
        &vec![0u8; crate::store::manifest::MANIFEST_BYTES as usize],
        2,
    )
}

/// Rewrites the `dir` adjacency of `g` with the arcs `ops` (inserts,
/// deletes; sorted keys) applied, for `n` vertices. With `count`, the
/// changes are counted (an arc counts when `count(v, u)` says so) and the
/// real ones returned.
#[allow(clippy::too_many_arguments)]
fn rewrite(
    w: &mut GraphWriter,
    g: &Graph,
    dir: Direction,
    n: u64,
    ops: (&[u64], &[u64]),
    layout: &LayoutConfig,
    spill_dir: &Path,
    count: Option<Counts<'_>>,
) -> Result<(AdjSummary, Tally, Changes)> {
    let adj = g.adjacency(dir)?;
    let [kb, kw, ki, kc, kt, kh, _] = SectionKind::adjacency(dir == Direction::In);
    let mut b = AdjBuilder::new(w, n, layout, false, [kb, kw, ki, kc, kt, kh], spill_dir)?;
    let chunks = plan_chunks(g, adj, n, ops.0)?;
    let group = (rayon::current_num_threads() * 2).max(2);
    let mut tally = Tally::default();
    let mut changes = Changes::default();
    // Two sets of cells: the builder lays out and writes one group while
    // the workers read and merge the next (its placement is sequential).
    // The buffers are refilled group after group: fresh ones would cost
    // a page fault per 4 KiB.
    let mut ready: Vec<LocalCsr> = Vec::new();
    let mut next: Vec<LocalCsr> = Vec::new();
    let build = |cells: &mut Vec<LocalCsr>, part: &[(u64, u64)]| -> Result<Vec<(Tally, Changes)>> {
        cells.resize_with(part.len(), LocalCsr::default);
        cells.truncate(part.len());
        cells
            .par_iter_mut()
            .zip(part.par_iter())
            .map(|(c, &(lo, hi))| build_chunk(g, dir, lo, hi, ops, count, c))
            .collect()
    };
    let mut parts = chunks.chunks(group);
    let mut pending = match parts.next() {
        Some(p) => build(&mut ready, p)?,
        None => Vec::new(),
    };
    loop {
        crate::interrupt::check()?;
        for (t, ch) in pending.drain(..) {
            tally.add(&t);
            changes.ins.extend(ch.ins);
            changes.del.extend(ch.del);
        }
        let part = parts.next();
        let (added, built) = rayon::join(
            || b.add(w, &ready),
            || part.map(|p| build(&mut next, p)).transpose(),
        );
        added?;
        match built? {
            Some(p) => pending = p,
            None => break,
        }
        std::mem::swap(&mut ready, &mut next);
    }
    let f = b.finish(w)?;
    Ok((f, tally, changes))
}

/// Vertex ranges of at most [`CHUNK_VERTICES`] vertices and, where it
/// can, [`CHUNK_ENTRIES`] entries (current degrees plus inserts).
fn plan_chunks(
    g: &Graph,
    adj: &crate::store::Adjacency,
    n: u64,
    ins: &[u64],
) -> Result<Vec<(u64, u64)>> {
    let have = g.vertex_count();
    let mut out = Vec::new();
    let mut lo = 0u64;
    while lo < n {
        let mut hi = lo;
        let mut entries = 0u64;
        while hi < n && hi - lo < CHUNK_VERTICES && (hi == lo || entries < CHUNK_ENTRIES) {
            if hi < have {
                entries += adj.degree(hi as VertexId);
            }
            hi += 1;
        }
        let added = ins.partition_point(|&k| k < hi << 32) - ins.partition_point(|&k| k < lo << 32);
        if entries + added as u64 >= u32::MAX as u64 {
            return Err(Error::Limit {
                what: format!(
                    "vertex {lo}'s list would hold {} entries, more than a merge builds at once",
                    entries + added as u64
                ),
            });
        }
        out.push((lo, hi));
        lo = hi;
    }
    Ok(out)
}

/// The lists of vertices `lo..hi` of the `dir` adjacency with `ops`
/// applied (see [`merge_list`]).
fn build_chunk(
    g: &Graph,
    dir: Direction,
    lo: u64,
    hi: u64,
    ops: (&[u64], &[u64]),
    count: Option<Counts<'_>>,
    c: &mut LocalCsr,
) -> Result<(Tally, Changes)> {
    let mut r = BlockReader::new(g, dir)?.read_ahead();
    let have = g.vertex_count();
    let (ins, del) = ops;
    let start = key(lo as VertexId, 0);
    let (mut i, mut j) = (
        ins.partition_point(|&k| k < start),
        del.partition_point(|&k| k < start),
    );
    c.lo = lo;
    c.hi = hi;
    c.offsets.clear();
    c.targets.clear();
    c.loops = 0;
    c.offsets.push(0);
    let mut tally = Tally::default();
    let mut changes = Changes::default();
    let mut list = Vec::new();
    for v in lo..hi {
        let v = v as VertexId;
        if (v as u64) < have {
            r.neighbors(v, &mut list, None)?;
        } else {
            list.clear();
        }
        let i2 = i + ins[i..].iter().take_while(|&&k| unkey(k).0 == v).count();
        let j2 = j + del[j..].iter().take_while(|&&k| unkey(k).0 == v).count();
        if i2 == i && j2 == j {
            c.targets.extend_from_slice(&list);
        } else {
            merge_list(
                v,
                &list,
                (&ins[i..i2], &del[j..j2]),
                &mut c.targets,
                count.map(|f| (f, &mut tally, &mut changes)),
            );
        }
        // Self loops (kept by the graph) count in the summary's `loops`.
        let from = c.offsets.last().copied().unwrap_or(0) as usize;
        c.loops += c.targets[from..].binary_search(&v).is_ok() as u64;
        c.offsets.push(c.targets.len() as u32);
        i = i2;
        j = j2;
    }
    Ok((tally, changes))
}

/// Appends to `out` the sorted list `l` of `v` with the arcs `vi`
/// inserted and `vd` deleted (keys of `v`'s arcs). Deletes apply before
/// inserts. With `count`, tallies what changed as a delta commit's
/// resolve would, and records the real changes.
fn merge_list(
    v: VertexId,
    l: &[VertexId],
    (vi, vd): (&[u64], &[u64]),
    out: &mut Vec<VertexId>,
    mut count: Option<(Counts<'_>, &mut Tally, &mut Changes)>,
) {
    let tgt = |k: &u64| unkey(*k).1;
    let (mut i, mut a, mut d) = (0, 0, 0);
    loop {
        // The next id a change names; the ids of `l` before it are copied
        // as they are.
        let x = match (vi.get(a).map(tgt), vd.get(d).map(tgt)) {
            (None, None) => break,
            (Some(x), None) | (None, Some(x)) => x,
            (Some(x), Some(y)) => x.min(y),
        };
        let k = i + l[i..].partition_point(|&y| y < x);
        out.extend_from_slice(&l[i..k]);
        i = k;
        let in_l = l.get(i) == Some(&x);
        let in_i = vi.get(a).map(tgt) == Some(x);
        let in_d = vd.get(d).map(tgt) == Some(x);
        i += in_l as usize;
        a += in_i as usize;
        d += in_d as usize;
        // Kept unless a delete finds it and no insert brings it back.
        let keep = in_i || (in_l && !in_d);
        if keep {
            out.push(x);
        }
        if let Some((f, t, ch)) = count.as_mut() {
            let counted = f(v, x);
            match (in_l, in_i, in_d) {
                (true, true, false) if counted => t.present += 1,
                (true, false, true) => {
                    t.deleted += counted as u64;
                    ch.del.push(key(v, x));
                }
                (false, true, _) => {
                    t.inserted += counted as u64;
                    t.absent += (in_d && counted) as u64;
                    ch.ins.push(key(v, x));
                }
                (false, false, true) if counted => t.absent += 1,
                _ => {}
            }
        }
    }
    out.extend_from_slice(&l[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(l: &[u32], ins: &[u32], del: &[u32]) -> (Vec<u32>, [u64; 4]) {
        let k = |xs: &[u32]| xs.iter().map(|&x| key(7, x)).collect::<Vec<_>>();
        let (ki, kd) = (k(ins), k(del));
        let mut out = Vec::new();
        let mut t = Tally::default();
        let mut ch = Changes::default();
        let all = |_: VertexId, _: VertexId| true;
        merge_list(7, l, (&ki, &kd), &mut out, Some((&all, &mut t, &mut ch)));
        (out, [t.inserted, t.deleted, t.present, t.absent])
    }

    #[test]
    fn deletes_apply_before_inserts() {
        // 1 stays, 2 is deleted, 3 deleted and inserted again (stays,
        // counts as neither), 4 inserted, 5 inserted though present,
        // 6 deleted though absent, 8 deleted and inserted though absent.
        let (out, t) = run(&[1, 2, 3, 5], &[3, 4, 5, 8], &[2, 3, 6, 8]);
        assert_eq!(out, vec![1, 3, 4, 5, 8]);
        assert_eq!(t, [2, 1, 1, 2]);
    }

    #[test]
    fn untouched_and_empty_lists() {
        assert_eq!(run(&[1, 2], &[], &[]).0, vec![1, 2]);
        assert_eq!(run(&[], &[9], &[]).0, vec![9]);
        assert_eq!(run(&[9], &[], &[9]).0, Vec::<u32>::new());
    }
}

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

mod list;
use list::*;

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

/// Commits the staged batch of `up`: as a merge when `policy` says so
/// and the disk has room for one, else as a delta run
/// ([`GraphUpdate::commit`]). Refused before anything is written: a
/// batch that grows the graph to more vertices than this machine could
/// build ([`super::checks::check_growth`]), and a merge that nothing but
/// a merge will do without the room for it. The report carries
/// [`GraphUpdate::weight_warnings`].
pub fn commit(mut up: GraphUpdate, policy: MergePolicy) -> Result<UpdateReport> {
    up.settle_new_ids();
    if let Some(grows) = up.growth() {
        let g = up.graph();
        super::checks::check_growth(
            g.path(),
            up.vertices_after(),
            g.header().has_reverse(),
            &grows,
        )?;
    }
    let warnings = up.weight_warnings();
    let mut r = commit_checked(up, policy)?;
    r.warnings = warnings;
    Ok(r)
}

/// [`commit`] once the batch's size is checked.
fn commit_checked(up: GraphUpdate, policy: MergePolicy) -> Result<UpdateReport> {
    // A delta run holds distinct arcs: a graph that keeps duplicate edges
    // commits every batch by merging.
    let multi = up.graph().header().flags & FLAG_MULTI != 0;
    if multi && policy == MergePolicy::Never {
        return Err(Error::Invalid(format!(
            "{} keeps duplicate edges (--keep-duplicates): its batches commit by merging \
             into fresh blocks, since a delta run holds distinct edges; leave out \
             --merge never",
            up.graph().path().display()
        )));
    }
    if !multi && !should_merge(&up, policy) {
        return up.commit();
    }
    // A merge writes a second copy of the graph beside it: checked before
    // the work, not found out by a full disk at the end of it.
    let need = merge_bytes(&up)?;
    let dir = spill_dir(up.graph().path());
    let free = crate::io::system::free_disk_bytes(&dir);
    let required = if multi {
        Some("a graph that keeps duplicate edges commits only by merging")
    } else if policy == MergePolicy::Always {
        Some("or leave out --merge always: a delta run needs only the batch's bytes")
    } else {
        None
    };
    match room(need, free, required, up.graph().path()) {
        Room::Enough => merge(up),
        Room::DeltaInstead(note) => {
            let mut r = up.commit()?;
            r.note = note;
            Ok(r)
        }
        Room::Refuse(e) => Err(e),
    }
}

/// About how many bytes a merge of `up` writes: the base file (without
/// its delta runs), grown by the edges the pending delta and the batch
/// insert, at the file's bytes per entry (at most twice a raw entry's),
/// and by the vertices they add (see [`vertex_bytes`]), with a block of
/// alignment per section.
fn merge_bytes(up: &GraphUpdate) -> Result<u64> {
    let g = up.graph();
    let len = up.file_len()?;
    let runs = g
        .updates()
        .map_or(0, |u| u.run_bytes + u.dead_bytes + u.unreferenced_tail);
    let base = len.saturating_sub(runs);
    let sides = if g.header().has_reverse() { 2 } else { 1 };
    let per_edge = if g.directed() { 1 } else { 2 };
    let entries = g.header().out_entries.max(1);
    let (ins, _) = up.staged();
    // In out-entries: the base's bytes per out-entry cover its
    // in-entries too.
    let pending = g.updates().map_or(0, |u| u.inserted / sides);
    let grown = pending + ins * per_edge;
    // The file's bytes per entry, but no more than twice a raw entry's
    // (id and weight in each adjacency): in a small file the fixed
    // sections outweigh the edges, and a large batch is not charged for
    // them again.
    let raw: u64 = if g.weighted() { 8 } else { 4 } * sides;
    let measured = base as u128 * grown as u128 / entries as u128;
    let edges = measured.min(2 * raw as u128 * grown as u128) as u64;
    let base_vertices = g.updates().map_or(g.vertex_count(), |u| u.base_vertices);
    let added = up.vertices_after().saturating_sub(base_vertices);
    let slack = (SectionKind::ALL.len() * BLOCK_BYTES) as u64;
    let keyed = up.keys_dense_ids();
    Ok(base + edges + vertex_bytes(g, added, up.vertices_after(), keyed) + slack)
}

/// The bytes a merged file of `g` spends on `added` vertices more than
/// its base holds (`n` after them): an index entry in each adjacency,
/// and their part of the id map, names and vertex order where the file
/// has them (`keys_dense`: a graph with dense ids that gains ids past
/// them, which takes an id map of all its vertices). A graph with an id map or names that gains vertices gains
/// a vertex order of all `n` (see [`write_tables`]). A batch adding
/// millions of vertices writes mostly these: 1.8M new vertices of a
/// graph with an order are 21 MB of index and order.
fn vertex_bytes(g: &Graph, added: u64, n: u64, keys_dense: bool) -> u64 {
    if added == 0 {
        return 0;
    }
    let h = g.header();
    let sides = if h.has_reverse() { 2 } else { 1 };
    let mut per = 8 * sides;
    if h.has_id_map() || keys_dense {
        per += 8;
    }
    if let Some(t) = g.names() {
        // An offset and a name of the table's mean length each.
        per += t.bytes().div_ceil(t.len().max(1));
    }
    let ordered = h.flags & FLAG_ORDER != 0;
    let order = if ordered {
        4 * added
    } else if h.has_id_map() || keys_dense || g.names().is_some() {
        4 * n
    } else {
        0
    };
    // The id map a dense graph takes: 8 bytes for each of its vertices.
    let map = if keys_dense { 8 * (n - added) } else { 0 };
    added.saturating_mul(per) + order + map
}

/// What a commit does about the space a merge needs.
#[derive(Debug)]
enum Room {
    /// Merge.
    Enough,
    /// Append a delta run instead, saying why.
    DeltaInstead(String),
    /// Refuse before writing anything.
    Refuse(Error),
}

/// Decides between merging, a delta run and a refusal when a merge needs
/// `need` bytes and the file system has `free` (unknown: merge, and let a
/// full disk fail the write as `convert`'s would). `required`: nothing
/// but a merge will do, and what a refusal adds to say why or what else
/// to do.
fn room(need: u64, free: Option<u64>, required: Option<&str>, path: &Path) -> Room {
    let Some(free) = free.filter(|&f| f < need) else {
        return Room::Enough;
    };
    let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
    let what = format!(
        "a merge writes a new copy of {} beside it, about {:.1} MiB, and {:.1} MiB are free there",
        path.display(),
        mib(need),
        mib(free)
    );
    match required {
        Some(why) => Room::Refuse(Error::Invalid(format!(
            "{what}; nothing was written: free some space and try again ({why})"
        ))),
        None => Room::DeltaInstead(format!("appended as a delta run instead of merged: {what}")),
    }
}

/// The directory of the graph at `path`: where the merged file and the
/// builder's spill files go.
fn spill_dir(path: &Path) -> std::path::PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
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
    // A new weight is a delete and an insert of the arc.
    let set = 2 * up.staged_weights();
    let sides = if g.header().has_reverse() { 2 } else { 1 };
    let per_edge = if g.directed() { 1 } else { 2 };
    let pending = g.updates().map_or(0, |u| u.inserted + u.deleted);
    let batch = (ins + del + set) * per_edge * sides;
    let entries = g.header().out_entries.max(1) * sides;
    (pending + batch) as f64 > frac * entries as f64
}

/// Merges `up`'s batch and the graph's delta into a new file (see the
/// module comment).
pub fn merge(mut up: GraphUpdate) -> Result<UpdateReport> {
    let t0 = Instant::now();
    up.settle_new_ids();
    // Ids given past a graph's dense range give the merged file an id map.
    let keyed = up.keys_dense_ids();
    let b = up.batch();
    let (lock, g, n, added) = up.into_parts();
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
    let dir = spill_dir(g.path());
    let mut w = GraphWriter::create(g.path())?;
    let once = |v: VertexId, u: VertexId| !undirected || v <= u;
    let ops = Ops {
        ins: &b.ins,
        ins_w: &b.ins_w,
        del: &b.del,
        set: &b.set,
        set_w: &b.set_w,
    };
    let (out, tally, changes) = rewrite(
        &mut w,
        &g,
        Direction::Out,
        n,
        ops,
        &layout,
        &dir,
        Some(Counts {
            once: &once,
            record: h.has_reverse(),
        }),
    )?;
    if h.has_reverse() {
        let flipped = changes.flipped();
        let ops = flipped.ops();
        let (s, _, _) = rewrite(&mut w, &g, Direction::In, n, ops, &layout, &dir, None)?;
        if s.entries != out.entries {
            return Err(g.corrupt_here(format!(
                "the merged in-adjacency holds {} entries, the out-adjacency {}",
                s.entries, out.entries
            )));
        }
    }
    let ordered = write_tables(&mut w, &g, n, &added)?;
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
        version: FORMAT_VERSION,
        flags: h.flags
            | FLAG_DELTA
            | if ordered { FLAG_ORDER } else { 0 }
            | if keyed { FLAG_ID_MAP } else { 0 },
        vertex_count: n,
        edge_count: edges,
        out_entries: out.entries,
        id_base: if keyed { 0 } else { h.id_base },
        self_loops_dropped: h.self_loops_dropped,
        duplicates_dropped: h.duplicates_dropped,
        lines_skipped: h.lines_skipped,
        sections: Vec::new(),
    };
    let written = w.bytes_written();
    w.finish(header)?;
    drop(lock);
    report.inserted = tally.inserted;
    report.deleted = tally.deleted;
    report.already_present = tally.present;
    report.not_present = tally.absent + b.missing_loops + b.missing_unknown;
    report.weights_set = tally.weights_set;
    report.weights_not_present = tally.weights_absent + b.set_missing;
    report.edges = edges;
    report.written = true;
    report.bytes_written = written;
    report.commit = 0;
    report.runs = 0;
    report.write_s = t1.elapsed().as_secs_f64();
    Ok(report)
}

/// The id map, names and vertex order, and two empty manifest slots.
/// New vertices keep the internal ids the batch gave them (after the
/// others): without an id map or names their rank is their id; with one,
/// the new ids or names (`added`, by internal id) join the table in
/// order, and the file gets a vertex order, the rank of each internal
/// vertex in the grown table, so no list is renumbered. Returns whether
/// an order was written.
fn write_tables(
    w: &mut GraphWriter,
    g: &Graph,
    n: u64,
    added: &crate::store::update::Added,
) -> Result<bool> {
    let n0 = g.vertex_count();
    g.load_order()?;
    let rank = |v: VertexId| g.rank(v);
    let mut order = None;
    if let Some(t) = g.names() {
        if added.names.is_empty() {
            w.section(SectionKind::Names, &t.encode(), t.len())?;
        } else {
            let old: Vec<&[u8]> = (0..t.len() as u32).map(|r| t.get(r).as_bytes()).collect();
            let new: Vec<&[u8]> = added.names.iter().map(|s| s.as_bytes()).collect();
            let (all, o) = grown_table(&old, n0, &new, rank);
            let grown = crate::store::names::Names::from_sorted(&all)?;
            w.section(SectionKind::Names, &grown.encode(), grown.len())?;
            order = Some(o);
        }
    }
    // A graph with dense ids that gains ids past them gets an id map:
    // its ids, by rank, joined by the new ones.
    let dense: Option<Vec<u64>> =
        (g.id_map().is_none() && g.names().is_none() && !added.ids.is_empty())
            .then(|| (0..n0).map(|r| g.header().id_base + r).collect());
    match g.id_map().or(dense.as_deref()) {
        Some(m) if !added.ids.is_empty() => {
            let (map, o) = grown_table(m, n0, &added.ids, rank);
            w.section(
                SectionKind::IdMap,
                bytemuck::cast_slice(&map),
                map.len() as u64,
            )?;
            order = Some(o);
        }
        Some(m) => w.section(SectionKind::IdMap, bytemuck::cast_slice(m), m.len() as u64)?,
        None => {}
    }
    let order = match order {
        Some(o) => Some(o),
        None => g.order()?.map(|o| {
            let mut o = o.to_vec();
            o.extend(o.len() as u32..n as u32);
            o
        }),
    };
    if let Some(o) = &order {
        w.section(SectionKind::Order, bytemuck::cast_slice(o), o.len() as u64)?;
    }
    w.empty_manifest()?;
    Ok(order.is_some())
}

/// The table `m` (user ids or names, by rank) with `new` (new vertices
/// `n0, n0 + 1, ...`, keys not in `m`) merged in, and the rank of every
/// internal vertex in it (`rank(v)`: `v`'s rank in `m`).
fn grown_table<K: Ord + Copy>(
    m: &[K],
    n0: u64,
    new: &[K],
    rank: impl Fn(VertexId) -> u32,
) -> (Vec<K>, Vec<u32>) {
    let mut add: Vec<(K, u32)> = new
        .iter()
        .enumerate()
        .map(|(k, &id)| (id, (n0 + k as u64) as u32))
        .collect();
    add.sort_unstable();
    let total = m.len() + add.len();
    let mut map = Vec::with_capacity(total);
    let mut order = vec![0u32; total];
    // The new rank of each old rank.
    let mut moved = vec![0u32; m.len()];
    let (mut i, mut j) = (0, 0);
    while i < m.len() || j < add.len() {
        let r = map.len() as u32;
        if j == add.len() || (i < m.len() && m[i] < add[j].0) {
            moved[i] = r;
            map.push(m[i]);
            i += 1;
        } else {
            order[add[j].1 as usize] = r;
            map.push(add[j].0);
            j += 1;
        }
    }
    for v in 0..n0 as usize {
        order[v] = moved[rank(v as VertexId) as usize];
    }
    (map, order)
}

/// Rewrites the `dir` adjacency of `g` with `ops` applied, for `n`
/// vertices. With `count`, the
/// changes are counted (an arc counts when `count(v, u)` says so) and the
/// real ones returned.
#[allow(clippy::too_many_arguments)]
fn rewrite(
    w: &mut GraphWriter,
    g: &Graph,
    dir: Direction,
    n: u64,
    ops: Ops<'_>,
    layout: &LayoutConfig,
    spill_dir: &Path,
    count: Option<Counts<'_>>,
) -> Result<(AdjSummary, Tally, Changes)> {
    let adj = g.adjacency(dir)?;
    let [kb, kw, ki, kc, kt, kh, _] = SectionKind::adjacency(dir == Direction::In);
    let kinds = [kb, kw, ki, kc, kt, kh];
    let mut b = AdjBuilder::new(w, n, layout, g.weighted(), kinds, spill_dir)?;
    let chunks = plan_chunks(g, adj, n, ops.ins)?;
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
            changes.set.extend(ch.set);
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
    ops: Ops<'_>,
    count: Option<Counts<'_>>,
    c: &mut LocalCsr,
) -> Result<(Tally, Changes)> {
    let mut r = BlockReader::new(g, dir)?.read_ahead();
    let have = g.vertex_count();
    let weighted = g.weighted();
    // Only unweighted graphs with duplicates are updated
    // ([`GraphUpdate::open`] refuses the others).
    let multi = g.header().flags & FLAG_MULTI != 0;
    let start = key(lo as VertexId, 0);
    let from = |ks: &[u64]| ks.partition_point(|&k| k < start);
    let (mut i, mut j, mut e) = (from(ops.ins), from(ops.del), from(ops.set));
    c.lo = lo;
    c.hi = hi;
    c.offsets.clear();
    c.targets.clear();
    c.weights.clear();
    c.loops = 0;
    c.offsets.push(0);
    let mut tally = Tally::default();
    let mut changes = Changes::default();
    let (mut list, mut lw) = (Vec::new(), Vec::new());
    // The end of `v`'s keys in `ks` from `at`: a vertex's keys are few
    // and next to each other.
    let upto = |ks: &[u64], at: usize, v: VertexId| {
        at + ks[at..].iter().take_while(|&&k| unkey(k).0 == v).count()
    };
    for v in lo..hi {
        let v = v as VertexId;
        if (v as u64) >= have {
            list.clear();
            lw.clear();
        } else if weighted {
            r.neighbors(v, &mut list, Some(&mut lw))?;
        } else {
            r.neighbors(v, &mut list, None)?;
        }
        let (i2, j2, e2) = (
            upto(ops.ins, i, v),
            upto(ops.del, j, v),
            upto(ops.set, e, v),
        );
        if i2 == i && j2 == j && e2 == e {
            c.targets.extend_from_slice(&list);
            c.weights.extend_from_slice(&lw);
        } else {
            let mine = Ops {
                ins: &ops.ins[i..i2],
                ins_w: if weighted { &ops.ins_w[i..i2] } else { &[] },
                del: &ops.del[j..j2],
                set: &ops.set[e..e2],
                set_w: &ops.set_w[e..e2],
            };
            let count = count.map(|f| (f, &mut tally, &mut changes));
            if multi {
                merge_multi(v, &list, mine.ins, mine.del, &mut c.targets, count);
            } else if !weighted && mine.set.is_empty() {
                merge_plain(v, &list, mine.ins, mine.del, &mut c.targets, count);
            } else {
                let out = (&mut c.targets, &mut c.weights);
                merge_list(v, (&list, &lw), mine, out, count);
            }
        }
        // Self loops (kept by the graph) count in the summary's `loops`.
        let from = c.offsets.last().copied().unwrap_or(0) as usize;
        // (a graph that keeps duplicates may hold a loop several times).
        let t = &c.targets[from..];
        c.loops += (t.partition_point(|&x| x <= v) - t.partition_point(|&x| x < v)) as u64;
        c.offsets.push(c.targets.len() as u32);
        (i, j, e) = (i2, j2, e2);
    }
    Ok((tally, changes))
}

#[cfg(test)]
mod tests;

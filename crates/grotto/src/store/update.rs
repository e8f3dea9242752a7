//! Committing a batch of edge changes to a graph file without rebuilding
//! it (docs/updates.md has the design and its costs).
//!
//! A [`GraphUpdate`] locks the file, stages inserts and deletes in the
//! user's ids, and [`GraphUpdate::commit`]s them:
//! 1. **resolve**: the current lists of the touched vertices are read, so
//!    that only real changes are kept (an insert of an edge already
//!    there, or a delete of one that is not, is counted and dropped) and
//!    every degree after the commit is known exactly;
//! 2. **write** the batch's net changes as one delta run after the last
//!    one, and sync;
//! 3. **switch**: write the other manifest slot, naming the runs and the
//!    counts after them, and sync.
//!
//! A crash before step 3's write is durable leaves the old slot in force
//! (the bytes after it are reused by the next commit); after, the new.
//! Base blocks are never written, so a reader that opened the old version
//! keeps reading it. Deletes apply before inserts: an edge in both ends up
//! present.
//!
//! Staging lives in `store/staging.rs`. A batch can also be *merged* into
//! fresh blocks instead of appended as a run ([`crate::ingest::merge`],
//! what `grotto update` does for large batches).
//!
//! New user ids in a graph with an id map, and new names in a graph with
//! names, are added vertices after the others, and the run carries their
//! keys; opening the graph merges them into the id map or name table and
//! ranks every vertex by the grown table (`super::order`).
//!
//! In a weighted graph the run carries the weight of every insert, and a
//! weight change of an arc that stays is a delete and an insert of it in
//! the same run (deletes apply first): readers patch the weights with the
//! ids ([`super::delta`]).
//!
//! Example (a Rust user adding and removing edges):
//! ```no_run
//! use grotto::store::update::GraphUpdate;
//! # fn main() -> grotto::Result<()> {
//! let mut up = GraphUpdate::open(std::path::Path::new("g.grotto"))?;
//! up.insert(1, 42)?; // user ids; a new id adds a vertex
//! up.delete(7, 9)?;
//! let report = up.commit()?;
//! println!("{} inserted, {} deleted", report.inserted, report.deleted);
//! # Ok(())
//! # }
//! ```

use super::delta::{key, unkey, NetOps};
use super::format::*;
use super::graph::Graph;
use super::manifest::{Fences, Manifest, NewKeys, Run, RunRef, MAX_RUNS};
use super::staging::Batch;
pub use super::staging::Ranked;
use super::{BlockReader, Direction};
use crate::error::{Error, Result};
use crate::io::inplace::{InPlace, PowerCut};
use crate::VertexId;
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a commit did. Edge counts are edges as the user counts them (an
/// undirected edge once).
#[derive(Clone, Debug, Default, Serialize)]
pub struct UpdateReport {
    /// The graph file.
    pub graph: PathBuf,
    /// Edges inserted (they were absent).
    pub inserted: u64,
    /// Edges deleted (they were present).
    pub deleted: u64,
    /// Inserts of edges already present, dropped.
    pub already_present: u64,
    /// Deletes of edges not present, dropped.
    pub not_present: u64,
    /// Self loops dropped (the graph was converted without them).
    pub self_loops_dropped: u64,
    /// Vertices added.
    pub new_vertices: u64,
    /// Vertices after the commit.
    pub vertices: u64,
    /// Edges after the commit.
    pub edges: u64,
    /// The commit's sequence number (commits since conversion); the
    /// current one when nothing changed.
    pub commit: u64,
    /// Whether anything was written.
    pub written: bool,
    /// Bytes written to the file (run and manifest slot).
    pub bytes_written: u64,
    /// Delta runs in force after the commit.
    pub runs: u64,
    /// Whether the earlier runs were folded into this commit's run (the
    /// manifest had no room for another).
    pub folded: bool,
    /// Weights changed (weighted graphs; an undirected edge once).
    pub weights_set: u64,
    /// Weight changes of edges that were not there (after the batch's
    /// deletes and inserts), dropped.
    pub weights_not_present: u64,
    /// Whether the commit merged the delta and the batch into fresh blocks
    /// (a new file renamed over the old, no delta left) instead of
    /// appending a run ([`crate::ingest::merge`]).
    pub merged: bool,
    /// Why the commit is not what was asked, when it is not (a merge
    /// without the disk space for it appends a delta run); empty
    /// otherwise.
    pub note: String,
    /// What the batch will break, said before it is used: weights that
    /// `grotto run sssp` refuses (negative or NaN ones), as
    /// "N inserted edges have negative or NaN weights (the first: ...)".
    pub warnings: Vec<String>,
    /// Seconds reading the touched lists and working out the net change.
    pub resolve_s: f64,
    /// Seconds writing and syncing the run and the manifest (for a merge:
    /// reading, merging and writing the blocks, and the rename).
    pub write_s: f64,
}

/// A batch of edge changes being staged for one graph file, which stays
/// locked against other updates until the batch is committed or dropped.
pub struct GraphUpdate {
    pub(super) file: InPlace,
    pub(super) graph: Graph,
    pub(super) ins: Vec<(VertexId, VertexId)>,
    pub(super) del: Vec<(VertexId, VertexId)>,
    pub(super) vertices: u64,
    /// The user id that set `vertices`, when a new id past the last of
    /// dense ids grew the graph to it (for messages).
    pub(super) widest_id: Option<u64>,
    /// Ids new to a graph with an id map, by internal id from the vertex
    /// count on.
    pub(super) new_ids: Vec<u64>,
    /// The internal vertex of each of `new_ids`.
    pub(super) new_id_of: std::collections::HashMap<u64, VertexId>,
    /// Names new to a graph with names, by internal id from the vertex
    /// count on.
    pub(super) new_names: Vec<String>,
    /// The internal vertex of each of `new_names`.
    pub(super) new_name_of: std::collections::HashMap<String, VertexId>,
    /// The weight of each of `ins` (weighted graphs).
    pub(super) ins_w: Vec<f32>,
    /// Weight changes of existing edges (weighted graphs), and the weights.
    pub(super) set: Vec<(VertexId, VertexId)>,
    pub(super) set_w: Vec<f32>,
    /// Weights staged that shortest paths refuse, by kind: inserted
    /// edges, new weights.
    pub(super) bad_weights: [BadWeights; 2],
}

/// Staged weights that shortest paths refuse (negative or NaN): how
/// many, and the first as the user gave it (its ends and weight).
pub(super) type BadWeights = (u64, Option<(String, String, f32)>);

impl GraphUpdate {
    /// Opens `path` for an update: takes the update lock, then opens and
    /// checks the graph. Refuses files this build cannot update.
    pub fn open(path: &Path) -> Result<GraphUpdate> {
        Self::open_inner(path, None)
    }

    /// [`GraphUpdate::open`] with a simulated power cut (crash tests).
    pub fn open_with_power_cut(path: &Path, cut: PowerCut) -> Result<GraphUpdate> {
        Self::open_inner(path, Some(cut))
    }

    /// [`GraphUpdate::open`] with faults injected into the commit's
    /// direct writes (tests: a failed write must leave the old graph).
    pub fn open_with_faults(path: &Path, plan: crate::io::FaultPlan) -> Result<GraphUpdate> {
        let mut up = Self::open_inner(path, None)?;
        up.file = up.file.with_faults(plan)?;
        Ok(up)
    }

    fn open_inner(path: &Path, cut: Option<PowerCut>) -> Result<GraphUpdate> {
        let mut file = InPlace::open(path)?;
        if let Some(c) = cut {
            file = file.with_power_cut(c);
        }
        let graph = Graph::open(path)?;
        let h = graph.header();
        let refuse = |why: String| {
            Err(Error::Invalid(format!(
                "cannot update {}: {why}",
                path.display()
            )))
        };
        if !h.has_delta() {
            return refuse(format!(
                "it was written by an older grotto (format version {}) without room for \
                 updates; convert it again to update it",
                h.version
            ));
        }
        if h.flags & FLAG_MULTI != 0 && graph.weighted() {
            return refuse(
                "it is weighted and keeps duplicate edges (--keep-duplicates): a delete \
                 or a new weight cannot tell parallel edges apart. Convert the updated \
                 edge list instead"
                    .into(),
            );
        }
        Ok(GraphUpdate {
            vertices: graph.vertex_count(),
            widest_id: None,
            file,
            graph,
            ins: Vec::new(),
            del: Vec::new(),
            new_ids: Vec::new(),
            new_id_of: std::collections::HashMap::new(),
            new_names: Vec::new(),
            new_name_of: std::collections::HashMap::new(),
            ins_w: Vec::new(),
            set: Vec::new(),
            set_w: Vec::new(),
            bad_weights: Default::default(),
        })
    }

    /// Sets how many writes a delta commit keeps in flight (n_w: the
    /// device profile's k_w is the natural choice; default
    /// [`crate::io::inplace::DEFAULT_WRITE_DEPTH`], at most
    /// [`crate::io::inplace::MAX_WRITE_DEPTH`]). A commit writes its run
    /// in requests of [`crate::io::inplace::WRITE_REQUEST`] bytes.
    pub fn set_write_depth(&mut self, n_w: usize) -> Result<()> {
        self.file.set_write_depth(n_w)
    }

    /// The graph as it is before this batch.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The lock, the graph as before the batch, the vertex count after it,
    /// and the user ids of the vertices it adds to a graph with an id map
    /// (for a merge, which writes a new file instead of a run).
    pub(crate) fn into_parts(self) -> (InPlace, Graph, u64, Added) {
        let added = Added {
            ids: self.new_ids,
            names: self.new_names,
        };
        (self.file, self.graph, self.vertices, added)
    }

    /// The length of the graph file, read through the update's own
    /// descriptor.
    pub fn file_len(&self) -> Result<u64> {
        self.file.file_len()
    }

    /// Vertices after the staged batch (new ids add vertices).
    pub fn vertices_after(&self) -> u64 {
        self.vertices
    }

    /// What the staged weights will break, in words: negative and NaN
    /// weights, which `grotto run sssp` refuses (the other algorithms
    /// ignore weights). Front ends show these as warnings; the batch is
    /// committed all the same, as `convert` writes such a graph.
    pub fn weight_warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, (count, first)) in self.bad_weights.iter().enumerate() {
            let Some((u, v, w)) = first else { continue };
            let plural = *count != 1;
            let what = match (k, plural) {
                (0, false) => "inserted edge has a negative or NaN weight",
                (0, true) => "inserted edges have negative or NaN weights",
                (_, false) => "new weight is negative or NaN",
                (_, true) => "new weights are negative or NaN",
            };
            out.push(format!(
                "{count} {what} (the first: {u} -> {v}, weight {w}); `grotto run sssp` will \
                 refuse this graph (shortest paths need non-negative weights) until {} changed",
                if plural { "they are" } else { "it is" },
            ));
        }
        out
    }

    /// What grows the graph, in words, when the staged batch adds
    /// vertices: the id past the last of dense ids that sets the new
    /// count, or the number of new ids or names. `None` when it adds none.
    pub fn growth(&self) -> Option<String> {
        let added = self.vertices.checked_sub(self.graph.vertex_count())?;
        if added == 0 {
            return None;
        }
        Some(match self.widest_id {
            Some(id) => format!("vertex id {id}"),
            None if !self.new_names.is_empty() => format!("{added} new vertex names"),
            None => format!("{added} new vertex ids"),
        })
    }

    /// Resolves, writes and switches to the staged batch (see the module
    /// comment). Nothing is written when the batch changes nothing. A
    /// graph that keeps duplicate edges is refused: its batches commit by
    /// merging ([`crate::ingest::merge::commit`]).
    pub fn commit(mut self) -> Result<UpdateReport> {
        self.settle_new_ids();
        if self.graph.header().flags & FLAG_MULTI != 0 {
            return Err(Error::Invalid(format!(
                "{} keeps duplicate edges (--keep-duplicates), and a delta run holds \
                 distinct edges: commit its batches by merging \
                 (grotto::ingest::merge::commit)",
                self.graph.path().display()
            )));
        }
        let t0 = Instant::now();
        let b = self.batch();
        let g = &self.graph;
        let undirected = !g.directed();
        let mut report = UpdateReport {
            graph: g.path().to_path_buf(),
            ..UpdateReport::default()
        };
        report.self_loops_dropped = b.loops_dropped;
        let (missing_loops, missing_unknown) = (b.missing_loops, b.missing_unknown);
        // An undirected edge counts once: as its arc from the smaller end.
        let once = |k: u64| {
            let (a, b) = unkey(k);
            !undirected || a <= b
        };
        let resolved = resolve(g, &b, &once)?;
        let count = |ks: &[u64]| ks.iter().filter(|&&k| once(k)).count() as u64;
        report.inserted = count(&resolved.ops.ins) - resolved.renewed;
        report.deleted = count(&resolved.ops.del) - resolved.renewed;
        report.already_present = resolved.present;
        report.not_present = resolved.absent + missing_loops + missing_unknown;
        report.weights_set = resolved.weights_set;
        report.weights_not_present = resolved.weights_absent + b.set_missing;
        report.new_vertices = self.vertices - g.vertex_count();
        report.vertices = self.vertices;
        report.edges = g.edge_count() + report.inserted - report.deleted;
        report.resolve_s = t0.elapsed().as_secs_f64();
        let point = g
            .commit_point
            .clone()
            .ok_or_else(|| Error::Invalid(format!("{} has no manifest", g.path().display())))?;
        report.commit = point.manifest.seq;
        report.runs = point.manifest.runs.len() as u64;
        if resolved.ops.ins.is_empty() && resolved.ops.del.is_empty() && report.new_vertices == 0 {
            return Ok(report);
        }
        let t1 = Instant::now();
        let inn = if g.header().has_reverse() {
            flipped(&resolved.ops)
        } else {
            NetOps::default()
        };
        let keys = if !self.new_names.is_empty() {
            NewKeys::Names(std::mem::take(&mut self.new_names))
        } else if !self.new_ids.is_empty() {
            NewKeys::Ids(std::mem::take(&mut self.new_ids))
        } else {
            NewKeys::None
        };
        let mut run = Run {
            vertices: self.vertices,
            out: resolved.ops,
            inn,
            fences: resolved.fences,
            keys,
        };
        let entries = (g.header().out_entries as i64 + run.out.entry_change()) as u64;
        let mut runs = point.manifest.runs.clone();
        let mut at = point.end;
        if runs.len() >= MAX_RUNS {
            // No room for another run: fold the runs in force and this
            // batch into one, written after them.
            let c = committed(&self.file, g, &point)?;
            run.out = c
                .out
                .into_net_ops()
                .fold(&run.out)
                .map_err(|w| g.corrupt_here(w))?;
            run.inn = c
                .inn
                .into_net_ops()
                .fold(&run.inn)
                .map_err(|w| g.corrupt_here(w))?;
            run.fences.extend(c.fences);
            run.fences.sort_by_key(|f| (f.0, f.1));
            run.fences.dedup_by_key(|f| (f.0, f.1));
            let mut keys = c.keys;
            keys.extend(std::mem::take(&mut run.keys))
                .map_err(|w| g.corrupt_here(w))?;
            run.keys = keys;
            runs.clear();
            report.folded = true;
        }
        let mut bytes = run.encode();
        let length = bytes.len() as u64;
        let crc = crc32c::crc32c(&bytes);
        bytes.resize(padded(length) as usize, 0);
        runs.push(RunRef {
            offset: at,
            length,
            crc,
        });
        let manifest = Manifest {
            seq: point.manifest.seq + 1,
            header_crc: point.header_crc,
            vertices: self.vertices,
            edges: report.edges,
            out_entries: entries,
            runs,
        };
        let slot_bytes = manifest.encode();
        let original_len = self.file.file_len()?;
        let staged = (|| -> Result<crate::interrupt::Committing> {
            self.file.write_at(&bytes, at, "a delta run")?;
            self.file.sync()?;
            // A stop requested until here applies nothing; from here on
            // it waits for the commit to finish.
            crate::interrupt::commit_point()
        })();
        let _committing = match staged {
            Ok(c) => c,
            Err(e) => {
                // The old slot is in force; drop what this commit appended
                // (best effort: the next commit writes over it anyway).
                if !self.file.was_cut() {
                    let _ = self.file.truncate(original_len.max(point.end));
                }
                return Err(e);
            }
        };
        // The slot not in force first: the commit lands when that write is
        // synced. Then its mirror into the other slot, so that a finished
        // commit is named twice and one damaged slot hides nothing. A
        // failure from here on leaves the run where it is: a slot may
        // already name it.
        let first = 1 - point.slot.min(1);
        for (slot, what) in [
            (first, "a manifest slot"),
            (1 - first, "the manifest slot's mirror"),
        ] {
            self.file.write_at(
                &slot_bytes,
                point.manifest_at + (slot * BLOCK_BYTES) as u64,
                what,
            )?;
            self.file.sync()?;
        }
        at += bytes.len() as u64;
        // Bytes past the new end are left from an interrupted commit.
        if original_len > at {
            self.file.truncate(at)?;
            self.file.sync()?;
        }
        report.written = true;
        report.bytes_written = bytes.len() as u64 + 2 * BLOCK_BYTES as u64;
        report.commit = manifest.seq;
        report.runs = manifest.runs.len() as u64;
        report.write_s = t1.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// The same changes seen from the other end of each arc, sorted.
fn flipped(ops: &NetOps) -> NetOps {
    let flip = |k: u64| {
        let (a, b) = unkey(k);
        key(b, a)
    };
    let mut del: Vec<u64> = ops.del.iter().map(|&k| flip(k)).collect();
    del.par_sort_unstable();
    if ops.ins_w.is_empty() {
        let mut ins: Vec<u64> = ops.ins.iter().map(|&k| flip(k)).collect();
        ins.par_sort_unstable();
        return NetOps {
            ins,
            del,
            ins_w: Vec::new(),
        };
    }
    let mut pairs: Vec<(u64, f32)> = ops
        .ins
        .iter()
        .zip(&ops.ins_w)
        .map(|(&k, &w)| (flip(k), w))
        .collect();
    pairs.par_sort_unstable_by_key(|p| p.0);
    let (ins, ins_w) = pairs.into_iter().unzip();
    NetOps { ins, del, ins_w }
}

/// The committed changes in force, read again (for a fold).
fn committed(
    file: &InPlace,
    g: &Graph,
    point: &super::graph::CommitPoint,
) -> Result<super::history::Committed> {
    use std::os::unix::fs::FileExt;
    let mut hb = vec![0u8; BLOCK_BYTES];
    file.file()
        .read_exact_at(&mut hb, 0)
        .map_err(|e| Error::io(g.path(), "read header", e))?;
    let len = file.file_len()?;
    let base = Header::decode(&hb, g.path(), len)?;
    let c = super::history::read_committed(file.file(), g.path(), &base, point.header_crc, len)?;
    Ok(c)
}

/// The user ids and names a batch adds to a graph with an id map or
/// names, by internal id from the graph's vertex count on.
pub(crate) struct Added {
    /// New ids (an id map).
    pub ids: Vec<u64>,
    /// New names.
    pub names: Vec<String>,
}

/// A batch resolved against the current lists. The counts count an
/// undirected edge once.
#[derive(Default)]
struct Resolved {
    /// The net change.
    ops: NetOps,
    /// Fences of the spanning base lists it changes.
    fences: Fences,
    /// Inserted arcs already present.
    present: u64,
    /// Deleted arcs not present.
    absent: u64,
    /// Arcs of the graph given a new weight: in both `ops.del` and
    /// `ops.ins`, neither inserted nor deleted.
    renewed: u64,
    /// Weight changes of arcs there after the batch.
    weights_set: u64,
    /// Weight changes of arcs not there after the batch.
    weights_absent: u64,
}

impl Resolved {
    fn add(&mut self, o: Resolved) {
        self.ops.ins.extend(o.ops.ins);
        self.ops.del.extend(o.ops.del);
        self.ops.ins_w.extend(o.ops.ins_w);
        self.fences.extend(o.fences);
        self.present += o.present;
        self.absent += o.absent;
        self.renewed += o.renewed;
        self.weights_set += o.weights_set;
        self.weights_absent += o.weights_absent;
    }
}

/// Reads the current out-list of every vertex the batch touches (in
/// parallel, vertex ranges per thread) and keeps the real changes, as a
/// merge would make them (`ingest::merge`): deletes apply first, then
/// inserts, then weight changes. Inserts of absent arcs and deletes of
/// present arcs not inserted again are kept; in a weighted graph, a
/// present arc that keeps its place but takes a new weight (a weight
/// change, or a delete and insert) is deleted and inserted with it.
/// `once` says whether an arc counts (an undirected edge counts once).
fn resolve(g: &Graph, b: &Batch, once: &(dyn Fn(u64) -> bool + Sync)) -> Result<Resolved> {
    let (ins, ins_w, del) = (&b.ins[..], &b.ins_w[..], &b.del[..]);
    let (set, set_w) = (&b.set[..], &b.set_w[..]);
    let n = g.vertex_count();
    let weighted = g.weighted();
    let mut touched: Vec<VertexId> = [ins, del, set]
        .iter()
        .flat_map(|ks| ks.iter().map(|&k| unkey(k).0))
        .collect();
    touched.par_sort_unstable();
    touched.dedup();
    let parts = (rayon::current_num_threads() * 8).max(1);
    let per = touched.len().div_ceil(parts).max(1);
    let chunks: Vec<Result<Resolved>> = touched
        .par_chunks(per)
        .map(|vs| {
            let mut r = BlockReader::new(g, Direction::Out)?.read_ahead();
            let mut out = Resolved::default();
            let mut list = Vec::new();
            let lo = key(vs[0], 0);
            let from = |ks: &[u64]| ks.partition_point(|&k| k < lo);
            let (mut i, mut j, mut e) = (from(ins), from(del), from(set));
            for &v in vs {
                if (v as u64) < n {
                    r.neighbors(v, &mut list, None)?;
                } else {
                    list.clear();
                }
                // A vertex's keys are few and next to each other.
                let upto = |ks: &[u64], at: usize| {
                    at + ks[at..].iter().take_while(|&&k| unkey(k).0 == v).count()
                };
                let (i2, j2, e2) = (upto(ins, i), upto(del, j), upto(set, e));
                let before = (out.ops.ins.len(), out.ops.del.len());
                // Every arc a change names, in order.
                while let Some(k) = [ins[i..i2].first(), del[j..j2].first(), set[e..e2].first()]
                    .into_iter()
                    .flatten()
                    .min()
                    .copied()
                {
                    let in_i = ins[i..i2].first() == Some(&k);
                    let in_d = del[j..j2].first() == Some(&k);
                    let in_s = set[e..e2].first() == Some(&k);
                    let in_l = list.binary_search(&unkey(k).1).is_ok();
                    let keep = in_i || (in_l && !in_d);
                    let renew = weighted && keep && in_l && (in_s || (in_i && in_d));
                    if renew || (in_l && !keep) {
                        out.ops.del.push(k);
                    }
                    if renew || (keep && !in_l) {
                        out.ops.ins.push(k);
                        if weighted {
                            out.ops.ins_w.push(if in_s { set_w[e] } else { ins_w[i] });
                        }
                    }
                    let c = once(k) as u64;
                    out.renewed += renew as u64 * c;
                    out.present += (in_l && in_i && !in_d) as u64 * c;
                    out.absent += (!in_l && in_d) as u64 * c;
                    if in_s {
                        if keep {
                            out.weights_set += c;
                        } else {
                            out.weights_absent += c;
                        }
                    }
                    i += in_i as usize;
                    j += in_d as usize;
                    e += in_s as usize;
                }
                let changed = (out.ops.ins.len(), out.ops.del.len()) != before;
                if changed && (v as u64) < n {
                    if let Some(f) = fences_of(g.out(), &mut r, v)? {
                        out.fences.push((0, v, f));
                    }
                }
            }
            Ok(out)
        })
        .collect();
    // The chunks are in vertex order, and each keeps its keys in order.
    let mut all = Resolved::default();
    for c in chunks {
        all.add(c?);
    }
    // Fences of the in-adjacency: the reversed arcs' spanning lists.
    if let Some(inn) = g.inn() {
        let mut r = BlockReader::new(g, Direction::In)?;
        let mut heads: Vec<VertexId> = all
            .ops
            .ins
            .iter()
            .chain(all.ops.del.iter())
            .map(|&k| unkey(k).1)
            .filter(|&u| (u as u64) < n)
            .collect();
        heads.sort_unstable();
        heads.dedup();
        for u in heads {
            if let Some(f) = fences_of(inn, &mut r, u)? {
                all.fences.push((1, u, f));
            }
        }
    }
    Ok(all)
}

/// The fences of `v`'s base list in `adj` when it spans blocks: the
/// delta's when it has them, else read (`r` reads `adj`).
fn fences_of(
    adj: &super::Adjacency,
    r: &mut BlockReader<'_>,
    v: VertexId,
) -> Result<Option<Vec<VertexId>>> {
    if adj.block_range(v).is_none_or(|(a, b)| b <= a) {
        return Ok(None);
    }
    let known = adj.delta().map_or(&[][..], |d| d.fences(v));
    Ok(Some(if known.is_empty() {
        r.base_fences(v)?
    } else {
        known.to_vec()
    }))
}

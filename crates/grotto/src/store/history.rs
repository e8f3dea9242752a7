//! Reading what updates committed to a file (format version 6): the
//! manifest slot in force, its delta runs checked and decoded, and their
//! changes folded into one net change per adjacency, which
//! [`super::graph::Graph::open`] turns into each adjacency's
//! [`super::delta::Delta`].

use super::delta::NetOps;
use super::format::*;
use super::load::{corrupt, required};
use super::manifest::{Fences, Manifest, NewKeys, RunView, MANIFEST_BYTES};
use crate::error::{Error, Result};
use std::fs::File;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;

/// The committed state of a file, read and folded.
#[derive(Clone, Debug)]
pub struct Committed {
    /// The manifest in force.
    pub manifest: Manifest,
    /// Which slot holds it (0 or 1; 1 when neither is valid, so that the
    /// first commit writes slot 0).
    pub slot: usize,
    /// Where the manifest section starts.
    pub manifest_at: u64,
    /// Net out-adjacency changes since the base.
    pub out: Ops,
    /// Net in-adjacency changes since the base.
    pub inn: Ops,
    /// The fences of every spanning list a run touched, sorted by
    /// (dir, vertex).
    pub fences: Fences,
    /// The first byte after the base sections, the manifest and the runs:
    /// where the next run goes.
    pub end: u64,
    /// The keys of the vertices the runs add to a graph with an id map
    /// or names, by internal id from the base's vertex count on; on a
    /// graph with dense ids, those of the last vertices added (ids past
    /// the dense range that a batch gave), the ones before them dense.
    pub keys: NewKeys,
    /// Manifest slots found damaged, and what that means.
    pub findings: Vec<SlotFinding>,
}

/// A manifest slot that is neither valid nor unwritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlotFinding {
    /// Which slot (0 or 1).
    pub slot: usize,
    /// Whether a commit newer than the one in force may be hidden by it
    /// (else the slot in force is provably the latest commit).
    pub may_hide_a_commit: bool,
    /// What was found, for the user.
    pub text: String,
}

/// One adjacency's net changes since the base, as read: the keys of the
/// one run in force where they were read (opening a graph copies none of
/// them), or the runs folded into one.
#[derive(Clone, Debug)]
pub enum Ops {
    /// Keys of the one run: inserts and deletes at these word ranges.
    InRun {
        /// The run's bytes, as words.
        words: Arc<Vec<u64>>,
        /// Where the inserted keys lie.
        ins: Range<usize>,
        /// Where the deleted keys lie.
        del: Range<usize>,
        /// Where the inserts' weights lie in the words read as `f32`
        /// (a weighted run's; else empty).
        ins_w: Range<usize>,
    },
    /// Several runs folded (or none).
    Folded(NetOps),
}

impl Default for Ops {
    fn default() -> Self {
        Ops::Folded(NetOps::default())
    }
}

impl Ops {
    /// Inserted keys, sorted.
    pub fn ins(&self) -> &[u64] {
        match self {
            Ops::InRun { words, ins, .. } => &words[ins.clone()],
            Ops::Folded(o) => &o.ins,
        }
    }
    /// Deleted keys, sorted.
    pub fn del(&self) -> &[u64] {
        match self {
            Ops::InRun { words, del, .. } => &words[del.clone()],
            Ops::Folded(o) => &o.del,
        }
    }
    /// The weight of each insert (a weighted graph's; else empty).
    pub fn ins_w(&self) -> &[f32] {
        match self {
            Ops::InRun { words, ins_w, .. } => {
                &bytemuck::cast_slice::<u64, f32>(words)[ins_w.clone()]
            }
            Ops::Folded(o) => &o.ins_w,
        }
    }
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.ins().is_empty() && self.del().is_empty()
    }
    /// Inserted minus deleted arcs.
    pub fn entry_change(&self) -> i64 {
        self.ins().len() as i64 - self.del().len() as i64
    }
    /// The keys, owned.
    pub fn into_net_ops(self) -> NetOps {
        match self {
            Ops::Folded(o) => o,
            r => NetOps {
                ins: r.ins().to_vec(),
                del: r.del().to_vec(),
                ins_w: r.ins_w().to_vec(),
            },
        }
    }
}

/// The end of the last section of `h`, padded.
pub fn sections_end(h: &Header) -> u64 {
    h.sections
        .iter()
        .map(|s| s.offset + padded(s.length))
        .max()
        .unwrap_or(BLOCK_BYTES as u64)
}

fn read_at(file: &File, path: &Path, at: u64, len: usize, what: &str) -> Result<Vec<u8>> {
    let mut b = vec![0u8; len];
    read_into(file, path, at, &mut b, what)?;
    Ok(b)
}

/// Reads `len` bytes at `at` into words (the last one padded with zeros),
/// so that the arc keys in them can be used where they lie.
fn read_words(file: &File, path: &Path, at: u64, len: usize, what: &str) -> Result<Vec<u64>> {
    use rayon::prelude::*;
    let mut w = vec![0u64; len.div_ceil(8)];
    // In pieces on all threads: most of the time goes to the kernel's
    // handing out fresh pages, which the threads do side by side.
    const PIECE: usize = 1 << 22;
    bytemuck::cast_slice_mut::<u64, u8>(&mut w)[..len]
        .par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, b)| read_into(file, path, at + (i * PIECE) as u64, b, what))?;
    Ok(w)
}

fn read_into(file: &File, path: &Path, at: u64, b: &mut [u8], what: &str) -> Result<()> {
    file.read_exact_at(b, at).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            Error::Truncated {
                path: path.into(),
                what: format!("{what} is past the end of the file"),
            }
        } else {
            Error::io(path, format!("read {what}"), e)
        }
    })?;
    Ok(())
}

/// Reads the manifest slot in force and its runs. `header_crc` is the
/// checksum of the header block (a slot names the header it belongs to);
/// `file_len` bounds the runs.
pub fn read_committed(
    file: &File,
    path: &Path,
    h: &Header,
    header_crc: u32,
    file_len: u64,
) -> Result<Committed> {
    let s = required(h, SectionKind::Manifest, path)?;
    let bytes = read_at(
        file,
        path,
        s.offset,
        MANIFEST_BYTES as usize,
        "the manifest",
    )?;
    let mut best: Option<(Manifest, usize)> = None;
    // Slots that are neither valid nor never written: (slot, the commit
    // number its bytes name where its magic survived).
    let mut damaged: Vec<(usize, Option<u64>)> = Vec::new();
    for (i, slot) in bytes.chunks(BLOCK_BYTES).enumerate() {
        let m = Manifest::decode(slot)
            .map_err(|why| corrupt(path, format!("manifest slot {i}: {why}")))?;
        match m.filter(|m| m.header_crc == header_crc) {
            Some(m) if best.as_ref().is_none_or(|b| m.seq > b.0.seq) => best = Some((m, i)),
            Some(_) => {}
            None if slot.iter().any(|&b| b != 0) => {
                // One byte off the other slot: a damaged mirror, which
                // names what the other slot names (a torn slot differs
                // from the old one in its commit number and run count
                // at least).
                let other = &bytes[(1 - i) * BLOCK_BYTES..(2 - i) * BLOCK_BYTES];
                let off = slot.iter().zip(other).filter(|(a, b)| a != b).count();
                let named = if off == 1 {
                    super::manifest::raw_seq(other)
                } else {
                    super::manifest::raw_seq(slot)
                };
                damaged.push((i, named));
            }
            None => {}
        }
    }
    if best.is_none() && damaged.len() == 2 {
        return Err(corrupt(
            path,
            "both manifest slots fail their checksums: the updates committed to this file cannot be found (a copy made before the damage, or the edge list converted again, restores the graph)"
                .into(),
        ));
    }
    // Neither slot valid: no update was committed (a file as convert
    // wrote it, or one whose first commit was cut short).
    let (manifest, slot) = best.unwrap_or((
        Manifest {
            seq: 0,
            header_crc,
            vertices: h.vertex_count,
            edges: h.edge_count,
            out_entries: h.out_entries,
            runs: Vec::new(),
        },
        1,
    ));
    // A commit appends and syncs its run before it writes the slot that
    // names it, so the file's length now covers every run of the slot
    // just read; `file_len`, taken before, may predate that commit.
    let file_len = file.metadata().map_or(file_len, |m| m.len().max(file_len));
    let mut end = sections_end(h);
    let mut out = Ops::default();
    let mut inn = Ops::default();
    let mut fences: Fences = Vec::new();
    let mut vertices = h.vertex_count;
    let mut keys = NewKeys::None;
    for (i, r) in manifest.runs.iter().enumerate() {
        let what = format!("delta run {i}");
        let stop = r.offset.checked_add(r.length);
        if !r.offset.is_multiple_of(BLOCK_BYTES as u64) || r.offset < end || stop.is_none() {
            return Err(corrupt(
                path,
                format!("{what} at byte {} overlaps what comes before it", r.offset),
            ));
        }
        if stop.is_some_and(|e| e > file_len) {
            return Err(Error::Truncated {
                path: path.into(),
                what: format!("{what} ends past the end of the file"),
            });
        }
        let len = r.length as usize;
        let words = Arc::new(read_words(file, path, r.offset, len, &what)?);
        if crc32c::crc32c(&bytemuck::cast_slice::<u64, u8>(&words)[..len]) != r.crc {
            return Err(corrupt(path, format!("{what} fails its checksum")));
        }
        let run =
            RunView::parse(&words, len).map_err(|why| corrupt(path, format!("{what}: {why}")))?;
        if run.vertices < vertices {
            return Err(corrupt(path, format!("{what} removes vertices")));
        }
        // A graph whose vertices have keys gets one for each vertex a run
        // adds, of its kind. One with dense ids grows densely (no keys)
        // until a run adds ids past them: that run's last vertices are
        // the ids it gives (the dense ones come first, when runs were
        // folded), and every later run keys all it adds.
        let added = run.vertices - vertices;
        let dense = !h.has_id_map() && !h.has_names();
        let keyed = !dense || !keys.is_empty();
        let fits = match &run.new_keys {
            NewKeys::None => !keyed,
            NewKeys::Ids(k) if dense && !keyed => k.len() as u64 <= added,
            NewKeys::Ids(k) => !h.has_names() && k.len() as u64 == added,
            NewKeys::Names(k) => h.has_names() && k.len() as u64 == added,
        };
        if !fits && (added > 0 || !run.new_keys.is_empty()) {
            return Err(corrupt(
                path,
                format!(
                    "{what} adds {added} vertices with {} keys, which do not fit the graph",
                    run.new_keys.len()
                ),
            ));
        }
        vertices = run.vertices;
        // A weighted graph's inserts carry weights, an unweighted one's
        // none (a run without inserts has none either way).
        for (k, dir) in [(0, 0), (2, 1)] {
            let (ins, ws) = (run.keys[k].len(), run.w_at[dir].len());
            if ws != if h.weighted() { ins } else { 0 } {
                return Err(corrupt(
                    path,
                    format!("{what} gives {ws} weights for {ins} inserts"),
                ));
            }
        }
        // The first run's keys stay where they were read; later ones are
        // folded in.
        let fold = |a: Ops, k: usize| -> Result<Ops> {
            if a.is_empty() {
                return Ok(Ops::InRun {
                    words: words.clone(),
                    ins: run.at[k].clone(),
                    del: run.at[k + 1].clone(),
                    ins_w: run.w_at[k / 2].clone(),
                });
            }
            let later = NetOps {
                ins: run.keys[k].to_vec(),
                del: run.keys[k + 1].to_vec(),
                ins_w: run.weights(&words, k / 2).to_vec(),
            };
            let folded = a.into_net_ops().fold(&later).map_err(|why| {
                corrupt(
                    path,
                    format!("{what} contradicts the runs before it: {why}"),
                )
            })?;
            Ok(Ops::Folded(folded))
        };
        out = fold(out, 0)?;
        inn = fold(inn, 2)?;
        fences.extend(run.fences);
        keys.extend(run.new_keys)
            .map_err(|why| corrupt(path, format!("{what}: {why}")))?;
        end = r.offset + padded(r.length);
    }
    // A damaged slot: harmless when it names no newer commit than the one
    // in force and no run lies past the runs in force (slots are
    // mirrored: a finished commit writes the same manifest into both);
    // else the last commit was cut short while its manifest was written,
    // or a slot was damaged after it finished and now hides it.
    let tail = next_run_at(file, end.max(s.offset + MANIFEST_BYTES), file_len);
    let findings = damaged
        .iter()
        .map(|&(i, named)| {
            let newer = named.filter(|&n| n > manifest.seq);
            let hidden = newer.is_some() || tail.is_some();
            let mut text = format!("manifest slot {i} fails its checksum");
            if let Some(n) = named {
                text += &format!(" (it names commit {n})");
            }
            if hidden {
                text += &format!(
                    "; in force is commit {} from slot {}{}: either the last commit was interrupted while its manifest was written, and the graph is as it was before that commit, or the slot was damaged after the commit finished, which hides it",
                    manifest.seq,
                    1 - i,
                    tail.map(|at| format!(", and an uncommitted delta run lies at byte {at}"))
                        .unwrap_or_default(),
                );
            } else if manifest.seq == 0 {
                text += &format!(
                    "; slot {} was never written and no delta run follows: no commit is lost, the graph is as converted",
                    1 - i
                );
            } else {
                text += &format!(
                    "; slot {} holds commit {}, the latest, so nothing is lost (the next update rewrites both slots)",
                    1 - i,
                    manifest.seq
                );
            }
            SlotFinding {
                slot: i,
                may_hide_a_commit: hidden,
                text,
            }
        })
        .collect();
    if vertices != manifest.vertices {
        return Err(corrupt(
            path,
            format!(
                "the manifest says {} vertices, its runs {vertices}",
                manifest.vertices
            ),
        ));
    }
    // The latest fences of each list win (a base list's fences never
    // change, so they agree anyway).
    fences.sort_by_key(|f| (f.0, f.1));
    fences.dedup_by_key(|f| (f.0, f.1));
    Ok(Committed {
        manifest,
        slot,
        manifest_at: s.offset,
        out,
        inn,
        fences,
        end: end.max(s.offset + MANIFEST_BYTES),
        keys,
        findings,
    })
}

/// The offset of a delta run's head at `at`, if one is there (left by a
/// commit that no valid slot names).
fn next_run_at(file: &File, at: u64, file_len: u64) -> Option<u64> {
    if at.checked_add(8).is_none_or(|e| e > file_len) {
        return None;
    }
    let mut m = [0u8; 8];
    file.read_exact_at(&mut m, at).ok()?;
    (m[..7] == super::manifest::RUN_MAGIC[..7]).then_some(at)
}

/// What the committed updates of a file amount to (`grotto info`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Updates {
    /// Commits since the base, counted by the manifest's sequence number.
    pub commits: u64,
    /// Delta runs in force.
    pub runs: u64,
    /// Bytes of those runs.
    pub run_bytes: u64,
    /// Net inserted and deleted arcs, all adjacencies.
    pub inserted: u64,
    /// See `inserted`.
    pub deleted: u64,
    /// Vertices whose lists differ from the base's, all adjacencies.
    pub changed_lists: u64,
    /// Vertices and edges of the base, before updates.
    pub base_vertices: u64,
    /// See `base_vertices`.
    pub base_edges: u64,
    /// Bytes after the last run that no manifest names (left by an
    /// interrupted commit; the next commit writes over them).
    pub unreferenced_tail: u64,
    /// Bytes of runs no longer in force (before a fold).
    pub dead_bytes: u64,
}

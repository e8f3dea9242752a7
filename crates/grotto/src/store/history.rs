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
    /// or names, by internal id from the base's vertex count on.
    pub keys: NewKeys,
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
    for (i, slot) in bytes.chunks(BLOCK_BYTES).enumerate() {
        let m = Manifest::decode(slot)
            .map_err(|why| corrupt(path, format!("manifest slot {i}: {why}")))?;
        if let Some(m) = m.filter(|m| m.header_crc == header_crc) {
            if best.as_ref().is_none_or(|b| m.seq > b.0.seq) {
                best = Some((m, i));
            }
        }
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
        // adds, of its kind; one with dense ids none.
        let added = run.vertices - vertices;
        let fits = match &run.new_keys {
            NewKeys::None => !h.has_id_map() && !h.has_names(),
            NewKeys::Ids(k) => h.has_id_map() && k.len() as u64 == added,
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
    })
}

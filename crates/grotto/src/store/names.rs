//! Vertex names: the strings a user's vertices are called by when their
//! ids are not integers (`--ids string`, Arrow string columns).
//!
//! Names are kept sorted by their bytes and distinct, and a vertex's
//! internal id is the rank of its name. So the name order is the id
//! order (the smallest name of a component is its smallest internal id),
//! a name is found by binary search with no hash table in memory, and the
//! file's bytes do not depend on the order edges were read in.
//!
//! In memory and in the names section alike the table is `n + 1` u64
//! offsets followed by the concatenated UTF-8 bytes.

use super::graph::Graph;
use crate::error::{Error, Result};
use crate::VertexId;
use rayon::prelude::*;
use std::path::Path;
use std::sync::Arc;

/// A sorted, duplicate-free table of vertex names; the name of internal
/// vertex `v` is entry `v`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    offsets: Vec<u64>,
    bytes: Vec<u8>,
}

impl Names {
    /// The table of `names`, which are sorted and deduplicated here.
    pub fn from_unsorted<S: AsRef<[u8]>>(names: Vec<S>) -> Result<Names> {
        let mut refs: Vec<&[u8]> = names.iter().map(|s| s.as_ref()).collect();
        refs.sort_unstable();
        refs.dedup();
        Names::from_sorted(&refs)
    }

    /// The table of names already sorted and distinct.
    pub fn from_sorted(names: &[&[u8]]) -> Result<Names> {
        let total: usize = names.iter().map(|n| n.len()).sum();
        let mut t = Names {
            offsets: Vec::with_capacity(names.len() + 1),
            bytes: Vec::with_capacity(total),
        };
        t.offsets.push(0);
        for (i, n) in names.iter().enumerate() {
            if i > 0 && names[i - 1] >= *n {
                return Err(Error::Invalid(
                    "vertex names must be sorted and distinct".into(),
                ));
            }
            if std::str::from_utf8(n).is_err() {
                return Err(Error::Invalid(format!(
                    "vertex name {} is not UTF-8 text",
                    crate::error::quote_bytes(n)
                )));
            }
            t.bytes.extend_from_slice(n);
            t.offsets.push(t.bytes.len() as u64);
        }
        Ok(t)
    }

    /// Number of names.
    pub fn len(&self) -> u64 {
        self.offsets.len().saturating_sub(1) as u64
    }

    /// True when the table holds no name.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The name of vertex `v` (`v` below [`Names::len`]).
    pub fn get(&self, v: VertexId) -> &str {
        let (a, b) = (
            self.offsets[v as usize] as usize,
            self.offsets[v as usize + 1] as usize,
        );
        // Checked to be UTF-8 when built or read.
        std::str::from_utf8(&self.bytes[a..b]).unwrap_or("")
    }

    /// The bytes of the name of vertex `v`.
    fn raw(&self, v: usize) -> &[u8] {
        &self.bytes[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// The vertex called `name`, if any.
    pub fn find(&self, name: &[u8]) -> Option<VertexId> {
        let (mut lo, mut hi) = (0usize, self.len() as usize);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.raw(mid).cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid as VertexId),
            }
        }
        None
    }

    /// Bytes of memory held.
    pub fn bytes(&self) -> u64 {
        self.offsets.len() as u64 * 8 + self.bytes.len() as u64
    }

    /// The section's bytes: offsets, then names.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.offsets.len() * 8 + self.bytes.len());
        for o in &self.offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend_from_slice(&self.bytes);
        out
    }

    /// Reads a names section of `n` names from `b`, checking that the
    /// offsets are in order and end where the bytes do, that every name
    /// is UTF-8, and that the names increase strictly.
    pub fn decode(b: &[u8], n: u64, path: &Path) -> Result<Names> {
        let corrupt = |what: String| Error::Corrupt {
            path: path.to_path_buf(),
            what: format!("names section: {what}"),
        };
        let head = (n as usize)
            .checked_add(1)
            .and_then(|c| c.checked_mul(8))
            .filter(|&h| h <= b.len())
            .ok_or_else(|| corrupt(format!("{} bytes cannot hold {n} offsets", b.len())))?;
        let offsets: Vec<u64> = b[..head]
            .chunks_exact(8)
            .map(|c| {
                let mut a = [0u8; 8];
                a.copy_from_slice(c);
                u64::from_le_bytes(a)
            })
            .collect();
        let bytes = b[head..].to_vec();
        if offsets[0] != 0 || offsets[n as usize] != bytes.len() as u64 {
            return Err(corrupt(format!(
                "offsets run from {} to {}, the names take {} bytes",
                offsets[0],
                offsets[n as usize],
                bytes.len()
            )));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[0] > w[1]) {
            return Err(corrupt(format!("offset {} decreases", i + 1)));
        }
        let t = Names { offsets, bytes };
        for v in 0..t.len() as usize {
            if std::str::from_utf8(t.raw(v)).is_err() {
                return Err(corrupt(format!("name {v} is not UTF-8")));
            }
            if v > 0 && t.raw(v - 1) >= t.raw(v) {
                return Err(corrupt(format!(
                    "names {} and {v} are not in increasing order",
                    v - 1
                )));
            }
        }
        Ok(t)
    }
}

/// Where keys added to a sorted table go: the table with them merged in,
/// the insertion point of each added key among the old ones (how many
/// are smaller), sorted, and the rank of each added key in the grown
/// table, in the order given. Err(i): added key `i` is in the table
/// already, or given twice.
type Grown<T> = std::result::Result<(T, Vec<u32>, Vec<u32>), usize>;

/// The places of `new` keys among `old` ones (both distinct, `old`
/// sorted): the added keys' indices sorted by key, and each one's
/// insertion point, or Err(i) for a key that is not new.
fn places<'a, K: Ord + Sync + ?Sized + 'a>(
    old_len: usize,
    old: impl Fn(usize) -> &'a K,
    mut pairs: Vec<(&K, u32)>,
) -> std::result::Result<(Vec<u32>, Vec<u32>), usize> {
    pairs.par_sort_unstable();
    if let Some(w) = pairs.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(w[1].1 as usize);
    }
    let by_key: Vec<u32> = pairs.iter().map(|p| p.1).collect();
    // The keys in order, each found by galloping forward from the last
    // one's place: the old table is read once, in order.
    let mut at = Vec::with_capacity(pairs.len());
    let mut lo = 0usize;
    for (j, &i) in by_key.iter().enumerate() {
        let k = pairs[j].0;
        let mut step = 1;
        while lo + step < old_len && old(lo + step) < k {
            step *= 2;
        }
        let mut hi = (lo + step + 1).min(old_len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match old(mid).cmp(k) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Err(i as usize),
            }
        }
        at.push(lo as u32);
    }
    Ok((by_key, at))
}

/// The rank of each added key in the grown table, in the order given.
fn added_ranks(by_key: &[u32], at: &[u32]) -> Vec<u32> {
    let mut ranks = vec![0u32; by_key.len()];
    for (j, (&i, &p)) in by_key.iter().zip(at).enumerate() {
        ranks[i as usize] = p + j as u32;
    }
    ranks
}

/// Each of `ids` with its place in `ids`, sorted by id (on all threads).
fn sorted_with_places(ids: &[u64]) -> Vec<(u64, u32)> {
    let mut q: Vec<(u64, u32)> = ids
        .par_iter()
        .enumerate()
        .map(|(i, &id)| (id, i as u32))
        .collect();
    q.par_sort_unstable();
    q
}

/// The sorted id map `old` grown by the ids `new` ([`Grown`]).
pub(super) fn grown_ids(old: &[u64], new: &[u64]) -> Grown<Vec<u64>> {
    // Sorted by value first, so that [`places`] finds its pairs in order
    // and reads the ids they point to in order.
    let sorted = sorted_with_places(new);
    let (by_key, at) = places(
        old.len(),
        |i| &old[i],
        sorted.iter().map(|p| (&p.0, p.1)).collect(),
    )?;
    let mut map = Vec::with_capacity(old.len() + new.len());
    let mut from = 0;
    for (&i, &p) in by_key.iter().zip(&at) {
        map.extend_from_slice(&old[from..p as usize]);
        map.push(new[i as usize]);
        from = p as usize;
    }
    map.extend_from_slice(&old[from..]);
    let ranks = added_ranks(&by_key, &at);
    Ok((map, at, ranks))
}

impl Names {
    /// This table grown by the names `new` ([`Grown`]).
    pub(super) fn grown(&self, new: &[String]) -> Grown<Names> {
        let refs: Vec<&[u8]> = new.iter().map(|s| s.as_bytes()).collect();
        let pairs = refs
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u32))
            .collect();
        let (by_key, at) = places(self.len() as usize, |i| self.raw(i), pairs)?;
        let extra: usize = new.iter().map(String::len).sum();
        let mut t = Names {
            offsets: Vec::with_capacity(self.offsets.len() + new.len()),
            bytes: Vec::with_capacity(self.bytes.len() + extra),
        };
        t.offsets.push(0);
        let copy = |t: &mut Names, from: usize, to: usize| {
            let (a, b) = (self.offsets[from] as usize, self.offsets[to] as usize);
            let shift = t.bytes.len() as u64 - a as u64;
            t.bytes.extend_from_slice(&self.bytes[a..b]);
            t.offsets
                .extend(self.offsets[from + 1..=to].iter().map(|&o| o + shift));
        };
        let mut from = 0;
        for (&i, &p) in by_key.iter().zip(&at) {
            copy(&mut t, from, p as usize);
            t.bytes.extend_from_slice(refs[i as usize]);
            t.offsets.push(t.bytes.len() as u64);
            from = p as usize;
        }
        copy(&mut t, from, self.len() as usize);
        let ranks = added_ranks(&by_key, &at);
        Ok((t, at, ranks))
    }
}

/// Ids looked up at once from which [`Graph::vertices_of_ids`] sorts them
/// and walks the id map.
const SORTED_LOOKUP: usize = 1 << 14;

/// Replaces each id of `q` (sorted by id) by its rank in the sorted map
/// `m`, or `VertexId::MAX` when `m` lacks it: a galloping walk forward
/// from the last id found, so the map is read once, in order.
fn ranks_by_walking(m: &[u64], q: &mut [(u64, u32)]) {
    let Some(first) = q.first() else { return };
    let mut at = m.partition_point(|&x| x < first.0);
    for e in q {
        // Double the step until past the id, then search the last step.
        let mut step = 1;
        while at + step < m.len() && m[at + step] < e.0 {
            step *= 2;
        }
        let hi = (at + step + 1).min(m.len());
        at += m[at..hi].partition_point(|&x| x < e.0);
        e.0 = if m.get(at) == Some(&e.0) {
            at as u64
        } else {
            VertexId::MAX as u64
        };
    }
}

/// Ids of the id map per sample of its lookup index
/// ([`Graph::rank_in_map`]).
const ID_SAMPLE: usize = 64;

/// The inverse of a permutation.
pub fn invert(perm: &[u32]) -> Vec<u32> {
    let mut inv = vec![0u32; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p as usize] = i as u32;
    }
    inv
}

/// How an open graph speaks the user's ids: integers (through the id
/// map or the id base) or names, and the vertex order.
///
/// A vertex's *rank* is its place in the user's order: the id it would
/// have inside without a vertex order (`convert --order none`). Files
/// converted with an order number vertices differently inside; every
/// id a user sees or types goes through the rank.
impl Graph {
    /// The rank in the user's order of internal vertex `v` (`v` itself
    /// unless the file has a vertex order): a lookup when the order is
    /// loaded ([`Graph::load_order`], which every caller that looks up
    /// many calls first), else one 4-byte read of the file. The order was
    /// checked at open; a disk that fails to read it again ends the
    /// process with the file's name and the error ([`Graph::try_rank`]
    /// returns it instead).
    #[inline]
    pub fn rank(&self, v: VertexId) -> u32 {
        match self.try_rank(v) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    }

    /// [`Graph::rank`], with a failed read of the order as an error.
    #[inline]
    pub fn try_rank(&self, v: VertexId) -> Result<u32> {
        let Some(o) = &self.order else { return Ok(v) };
        if let Some(t) = o.loaded() {
            return Ok(t[v as usize]);
        }
        let mut r = [0u32];
        o.ranks_of(v, &mut r)?;
        Ok(r[0])
    }

    /// Loads the vertex order into memory (4 bytes a vertex), for
    /// callers about to look ranks up at random ([`Graph::rank`] many
    /// times). Nothing to do for a file without one.
    pub fn load_order(&self) -> Result<()> {
        match &self.order {
            Some(o) => o.load().map(|_| ()),
            None => Ok(()),
        }
    }

    /// The ranks of internal vertices `lo..lo + out.len()` into `out`:
    /// from memory when the order is loaded, else read from the file.
    pub fn ranks_of(&self, lo: VertexId, out: &mut [u32]) -> Result<()> {
        match &self.order {
            Some(o) => o.ranks_of(lo, out),
            None => {
                for (i, x) in out.iter_mut().enumerate() {
                    *x = lo + i as u32;
                }
                Ok(())
            }
        }
    }

    /// Replaces each internal vertex in `xs` by its rank, leaving `none`
    /// alone, without loading the order: passes over `xs`, one per
    /// sixteenth of the order read from the file (a quarter byte a
    /// vertex held, plus an eighth of a byte an entry of `xs`).
    pub fn ranks_in_place(&self, xs: &mut [u32], none: u32) -> Result<()> {
        match &self.order {
            Some(o) => o.ranks_in_place(xs, none),
            None => Ok(()),
        }
    }

    /// The internal vertex of rank `r` (below the vertex count), through
    /// the rank-to-vertex table, built on first use (with the order: 8
    /// bytes a vertex). For one lookup, [`Graph::vertices_at_ranks`]
    /// builds nothing.
    pub fn vertex_at_rank(&self, r: u32) -> VertexId {
        match &self.order {
            Some(o) => o.inverse()[r as usize],
            None => r,
        }
    }

    /// The internal vertices of ranks `lo`, `lo + 1`, ... into `out`
    /// (one per slot; ranks past the vertex count are left alone). Without
    /// the rank-to-vertex table already built, this takes one pass over
    /// the order (from the file, when it is not loaded) and builds
    /// nothing, so writing results in the user's order a chunk at a time
    /// costs no memory per vertex.
    pub fn vertices_at_ranks(&self, lo: u32, out: &mut [VertexId]) -> Result<()> {
        match &self.order {
            Some(o) => o.vertices_at_ranks(lo, out),
            None => {
                for (i, x) in out.iter_mut().enumerate() {
                    *x = lo + i as u32;
                }
                Ok(())
            }
        }
    }

    /// Whether internal vertex numbers differ from ranks: the file has a
    /// vertex order, or committed updates made one (new ids in the
    /// middle of the old ones).
    pub fn has_vertex_order(&self) -> bool {
        self.order.is_some()
    }

    /// Whether finding a vertex by rank is a table lookup (no order, or
    /// the rank-to-vertex table is built) rather than a pass over the
    /// order.
    pub fn rank_lookup_is_cheap(&self) -> bool {
        self.order.as_ref().is_none_or(|o| o.has_inverse())
    }

    /// Sorts a neighbour list (and its weights, when `ws` holds them) into
    /// the user's order; lists are stored sorted by internal id, which
    /// differs from it in a file with a vertex order. Call
    /// [`Graph::load_order`] first when sorting many lists.
    pub fn sort_by_rank(&self, nb: &mut Vec<u32>, ws: &mut Vec<f32>) {
        if self.order.is_none() {
            return;
        }
        let mut pairs: Vec<(u32, u32, f32)> = nb
            .iter()
            .enumerate()
            .map(|(i, &u)| (self.rank(u), u, ws.get(i).copied().unwrap_or(0.0)))
            .collect();
        pairs.sort_unstable_by_key(|p| p.0);
        nb.clear();
        nb.extend(pairs.iter().map(|p| p.1));
        if !ws.is_empty() {
            ws.clear();
            ws.extend(pairs.iter().map(|p| p.2));
        }
    }

    /// The rank of each internal vertex, when the file has a vertex
    /// order: loaded into memory on first use (4 bytes a vertex).
    pub fn order(&self) -> Result<Option<&[u32]>> {
        self.order.as_ref().map(|o| o.load()).transpose()
    }

    /// The user's integer id of internal vertex `v`; for a graph with
    /// names, the rank of its name (which orders vertices as the names do;
    /// [`Graph::label`] gives the name).
    pub fn original_id(&self, v: VertexId) -> u64 {
        self.original_id_of_rank(self.rank(v))
    }

    /// The user's integer id of the vertex of rank `r` (below the
    /// vertex count): [`Graph::original_id`] without the rank lookup.
    pub fn original_id_of_rank(&self, r: u32) -> u64 {
        match (&self.id_map, &self.names) {
            (Some(m), _) => m[r as usize],
            (None, Some(_)) => r as u64,
            (None, None) => r as u64 + self.header().id_base,
        }
    }

    /// Whether every user integer id fits a signed 64-bit integer, the
    /// type Spark, Java and SQL tables have (ranks follow the ids, so the
    /// last rank holds the largest; a graph with names has ranks as ids).
    pub fn ids_fit_i64(&self) -> bool {
        match self.vertex_count() {
            0 => true,
            n => self.original_id_of_rank((n - 1) as u32) <= i64::MAX as u64,
        }
    }

    /// The user's ids by rank, when ids were compacted (an id map).
    pub fn id_map(&self) -> Option<&[u64]> {
        self.id_map.as_deref()
    }

    /// The vertex names, when the graph has them.
    pub fn names(&self) -> Option<&Arc<Names>> {
        self.names.as_ref()
    }

    /// The internal vertices of the user's integer ids `ids` into `out`
    /// (one per slot), `VertexId::MAX` for an id the graph does not have;
    /// for many ids at once (a graph without names). The ranks are found
    /// first and the rank table is read after, in a loop of independent
    /// loads, so the cache misses of scattered ids overlap (staging 26.8M
    /// ids of rmat scale 22 took 0.29-0.33 s this way, 0.60-0.72 s
    /// through [`Graph::vertex_of`] one id at a time). Many ids in an id
    /// map are sorted and found in one forward walk over the map, on all
    /// threads (2.7M ids in a map of 2.9M: 0.15 s, against 1.7 s of
    /// searches).
    pub fn vertices_of_ids(&self, ids: &[u64], out: &mut [VertexId]) -> Result<()> {
        if self.names.is_some() {
            return Err(Error::Invalid(
                "this graph's vertices have names; look them up by name".into(),
            ));
        }
        let (base, n) = (self.header().id_base, self.vertex_count());
        match &self.id_map {
            Some(m) if ids.len() >= SORTED_LOOKUP => {
                let mut q = sorted_with_places(ids);
                q.par_chunks_mut(SORTED_LOOKUP)
                    .for_each(|c| ranks_by_walking(m, c));
                for &(r, i) in &q {
                    out[i as usize] = r as VertexId;
                }
            }
            _ => {
                for (o, &id) in out.iter_mut().zip(ids) {
                    let r = match &self.id_map {
                        Some(m) => self.rank_in_map(m, id),
                        None => id.checked_sub(base).filter(|&v| v < n),
                    };
                    *o = r.map_or(VertexId::MAX, |r| r as VertexId);
                }
            }
        }
        if let Some(o) = &self.order {
            let inverse = o.inverse();
            for x in out.iter_mut().filter(|x| **x != VertexId::MAX) {
                *x = inverse[*x as usize];
            }
        }
        Ok(())
    }

    /// The internal vertex of the user's integer id `id` (on a graph with
    /// names, the vertex named by the id's digits).
    pub fn vertex_of(&self, id: u64) -> Result<VertexId> {
        self.rank_of(id).and_then(|r| self.vertex_of_rank(r))
    }

    /// The rank of the user's integer id `id`: the row results list it in
    /// (ids in order; on a graph with names, the vertex named by the id's
    /// digits). Reads no vertex order.
    pub fn rank_of(&self, id: u64) -> Result<u32> {
        if self.names.is_some() {
            return self.rank_named(&id.to_string());
        }
        let r = match &self.id_map {
            Some(m) => self.rank_in_map(m, id),
            None => id
                .checked_sub(self.header().id_base)
                .filter(|&v| v < self.vertex_count()),
        };
        r.map(|r| r as u32)
            .ok_or_else(|| Error::NoSuchVertex { id: id.to_string() })
    }

    /// The rank of the user's id `id` in the id map `m` (this graph's): a
    /// search over every [`ID_SAMPLE`]th id (built on first use: an eighth
    /// of a byte a vertex, which stays in the processor's cache), then
    /// over the ids between two samples. A search over the whole map
    /// misses the cache at most of its steps; this one at two or three
    /// (staging the 1.3M edges of a 1% batch of rmat scale 22 with an id
    /// map took 2.4 s of binary searches before).
    fn rank_in_map(&self, m: &[u64], id: u64) -> Option<u64> {
        let s = self
            .id_samples
            .get_or_init(|| m.iter().step_by(ID_SAMPLE).copied().collect());
        let j = s.partition_point(|&x| x <= id);
        let lo = j.checked_sub(1)? * ID_SAMPLE;
        let hi = (lo + ID_SAMPLE).min(m.len());
        m[lo..hi].binary_search(&id).ok().map(|i| (lo + i) as u64)
    }

    /// The internal vertex a user typed: a name when the graph has names,
    /// else an integer id.
    pub fn vertex_named(&self, text: &str) -> Result<VertexId> {
        self.rank_named(text).and_then(|r| self.vertex_of_rank(r))
    }

    /// The rank (row in results) of the vertex a user typed, as
    /// [`Graph::vertex_named`] reads it. Reads no vertex order.
    pub fn rank_named(&self, text: &str) -> Result<u32> {
        match &self.names {
            Some(t) => t.find(text.as_bytes()).ok_or_else(|| Error::NoSuchVertex {
                id: format!("{text:?}"),
            }),
            None => match text.trim().parse::<u64>() {
                Ok(id) => self.rank_of(id),
                Err(_) => Err(Error::Invalid(format!(
                    "vertex {text:?}: this graph's vertex ids are integers"
                ))),
            },
        }
    }

    /// The internal vertex of rank `r`, for a single lookup: the table
    /// when built (or the order is loaded: a caller that loaded it looks
    /// up many), else one pass over the order that builds nothing.
    fn vertex_of_rank(&self, r: u32) -> Result<VertexId> {
        if self.rank_lookup_is_cheap() || self.order.as_ref().is_some_and(|o| o.loaded().is_some())
        {
            return Ok(self.vertex_at_rank(r));
        }
        let mut one = [0];
        self.vertices_at_ranks(r, &mut one)?;
        Ok(one[0])
    }

    /// The user's id of `v` as a JSON value: its name, or its integer id
    /// (text saying so when the order cannot be read: summaries and
    /// messages name vertices this way, and do not fail for it).
    pub fn label(&self, v: VertexId) -> serde_json::Value {
        match (self.try_rank(v), &self.names) {
            (Ok(r), Some(t)) => t.get(r).into(),
            (Ok(r), None) => self.original_id_of_rank(r).into(),
            (Err(e), _) => format!("internal vertex {v} ({e})").into(),
        }
    }

    /// The user's id of `v` as text ([`Graph::label`]).
    pub fn label_text(&self, v: VertexId) -> String {
        match self.label(v) {
            serde_json::Value::String(s) => s,
            x => x.to_string(),
        }
    }
}

#[cfg(test)]
mod tests;

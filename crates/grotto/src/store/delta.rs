//! The changes committed to a graph since it was converted, held in memory
//! next to the index and applied where block bytes become lists
//! ([`super::adjacency::Adjacency::list_in_block`]), so that engines and
//! algorithms read the updated graph without knowing there was an update.
//!
//! A vertex whose list changed has its bit set. Its entry holds sorted
//! inserted ids then sorted deleted ids when its base list is on disk (a
//! *patch*, applied to each piece as it is read), or its whole new list
//! when the base list was kept in the index, was empty, or the vertex is
//! new (a *replacement*, served from memory like an inline list).
//!
//! A base list spanning several blocks is patched piece by piece: piece
//! `k` takes the inserted and deleted ids between the first base id of
//! block `k` and that of block `k + 1` (its *fences*, saved with the
//! change when it was committed), so the pieces still partition the
//! sorted merged list and each piece's position in it is known without
//! reading the others.

use crate::VertexId;

/// The net changes of one adjacency: for a key `(v << 32) | u`, an id `u`
/// inserted into or deleted from `v`'s list.
///
/// In a weighted graph every insert carries its weight, and an arc both
/// deleted and inserted is an arc of the base list given a new weight
/// (deletes apply first). In an unweighted graph no key is in both.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetOps {
    /// Inserted keys, sorted, no repeats.
    pub ins: Vec<u64>,
    /// Deleted keys, sorted, no repeats.
    pub del: Vec<u64>,
    /// The weight of each of `ins` in a weighted graph; empty otherwise.
    pub ins_w: Vec<f32>,
}

/// The key of the arc `v -> u`.
#[inline]
pub fn key(v: VertexId, u: VertexId) -> u64 {
    ((v as u64) << 32) | u as u64
}

/// The arc of a key.
#[inline]
pub fn unkey(k: u64) -> (VertexId, VertexId) {
    ((k >> 32) as VertexId, k as VertexId)
}

impl NetOps {
    /// Folds `later` (committed after `self`, and effective against the
    /// graph `self` describes: it inserts only absent arcs and deletes
    /// only present ones) into the net change since the base. An arc
    /// deleted then inserted again, or inserted then deleted, nets out,
    /// except that a base arc deleted and inserted again in a weighted
    /// graph stays both, with the last weight. Fails with the arc when
    /// `later` contradicts `self` (inserts an arc `self` already inserted,
    /// or deletes one `self` already deleted).
    pub fn fold(&self, later: &NetOps) -> Result<NetOps, String> {
        // Weights are either on every insert of both or on none.
        let weighted = !self.ins_w.is_empty() || !later.ins_w.is_empty();
        for o in [self, later] {
            if o.ins_w.len() != if weighted { o.ins.len() } else { 0 } {
                return Err(format!(
                    "{} inserts carry {} weights",
                    o.ins.len(),
                    o.ins_w.len()
                ));
            }
        }
        if self.ins.is_empty() && self.del.is_empty() {
            return Ok(later.clone());
        }
        let mut out = NetOps {
            ins: Vec::with_capacity(self.ins.len() + later.ins.len()),
            del: Vec::with_capacity(self.del.len() + later.del.len()),
            ins_w: Vec::new(),
        };
        // The four sorted arrays in the order their changes happened (a
        // run's deletes apply before its inserts); `true` marks inserts.
        let arrays: [(&[u64], bool, &[f32]); 4] = [
            (&self.del, false, &[]),
            (&self.ins, true, &self.ins_w),
            (&later.del, false, &[]),
            (&later.ins, true, &later.ins_w),
        ];
        let mut at = [0usize; 4];
        while let Some(k) = (0..4).filter_map(|i| arrays[i].0.get(at[i]).copied()).min() {
            // The first change says whether the base holds the arc, the
            // last whether it is there now (and its weight, if any).
            let (mut first, mut last, mut w) = (None, None, None);
            for (i, &(keys, is_ins, ws)) in arrays.iter().enumerate() {
                if keys.get(at[i]) != Some(&k) {
                    continue;
                }
                if last == Some(is_ins) {
                    let (v, u) = unkey(k);
                    return Err(format!(
                        "the arc {v} -> {u} is {} twice",
                        if is_ins { "inserted" } else { "deleted" }
                    ));
                }
                first.get_or_insert(is_ins);
                last = Some(is_ins);
                w = ws.get(at[i]).copied();
                at[i] += 1;
            }
            let in_base = first == Some(false);
            match (in_base, last == Some(true), w) {
                (false, true, w) => {
                    out.ins.push(k);
                    out.ins_w.extend(w);
                }
                (true, false, _) => out.del.push(k),
                (true, true, Some(w)) => {
                    out.del.push(k);
                    out.ins.push(k);
                    out.ins_w.push(w);
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Inserted minus deleted arcs.
    pub fn entry_change(&self) -> i64 {
        self.ins.len() as i64 - self.del.len() as i64
    }
}

/// What the delta holds for one vertex.
#[derive(Clone, Copy, Debug)]
pub enum Change<'d> {
    /// The base list is on disk: ids to merge into it and ids to drop.
    Patch {
        /// Inserted ids, sorted.
        ins: &'d [VertexId],
        /// Deleted ids, sorted (an id also inserted gets a new weight).
        del: &'d [VertexId],
        /// The weight of each of `ins` (a weighted graph; else empty).
        ins_w: &'d [f32],
    },
    /// The whole list, sorted, and its weights (a weighted graph; else
    /// empty): the base list was not on disk.
    Replace(&'d [VertexId], &'d [f32]),
}

/// The in-memory delta of one adjacency (see the module comment).
///
/// The vertices are cut into parts of [`PART_WORDS`] bit words, each
/// holding the changes of its vertices: the parts are built on all
/// threads when the graph is opened, and a lookup finds its part by
/// shifting the vertex id.
#[derive(Debug, Default)]
pub struct Delta {
    bits: Vec<u64>,
    /// Set bits in the words before each word, counted from the start of
    /// its part.
    before: Vec<u32>,
    parts: Vec<Part>,
}

/// Bit words (of 64 vertices) per part of a [`Delta`].
pub const PART_WORDS: usize = 1 << 12;

const REPLACE: u32 = u32::MAX;

/// The changes of the vertices of one part (bit words `w0..w1`).
#[derive(Debug, Default)]
struct Part {
    /// Per changed vertex, in vertex order: where its ids start in `ids`
    /// (one more entry, the end).
    off: Vec<u64>,
    /// Per changed vertex: ids that are inserts (patch), or `u32::MAX`
    /// for a replacement.
    nins: Vec<u32>,
    ids: Vec<VertexId>,
    /// A weighted graph's weights, one for each of `ids` (a deleted id's
    /// is unused); empty for an unweighted graph.
    ws: Vec<f32>,
    /// Changed vertices whose base list spans several blocks, sorted, with
    /// where their fences start in `fences`.
    fence_at: Vec<(VertexId, u64)>,
    fences: Vec<VertexId>,
}

impl Part {
    /// See [`Delta::build`]: the part whose first bit word is `w0`, with
    /// the keys `ins` and `del` of its vertices and the inserts' weights
    /// `ins_w`; sets their bits in `words`, the part's words.
    fn build(
        w0: usize,
        words: &mut [u64],
        (ins, del, ins_w): (&[u64], &[u64], &[f32]),
        on_disk: &impl Fn(VertexId) -> Option<(u64, u64)>,
        base_small: &impl Fn(VertexId) -> ([VertexId; 2], usize),
        fences: &[(VertexId, Vec<VertexId>)],
    ) -> Result<Part, String> {
        let mut d = Part {
            off: vec![0],
            ids: Vec::with_capacity(ins.len() + del.len()),
            ..Part::default()
        };
        let weighted = !ins_w.is_empty();
        let (mut i, mut j) = (0, 0);
        let mut merged = Vec::new();
        while i < ins.len() || j < del.len() {
            let vi = ins.get(i).map_or(u64::MAX, |&k| k >> 32);
            let vd = del.get(j).map_or(u64::MAX, |&k| k >> 32);
            let v = vi.min(vd);
            // A vertex's keys are few and next to each other.
            let i2 = i + ins[i..].iter().take_while(|&&k| k >> 32 == v).count();
            let j2 = j + del[j..].iter().take_while(|&&k| k >> 32 == v).count();
            let vins = ins[i..i2].iter().map(|&k| k as VertexId);
            let v = v as VertexId;
            words[(v / 64) as usize - w0] |= 1 << (v % 64);
            match on_disk(v) {
                Some((blocks, degree)) => {
                    if (j2 - j) as u64 > degree {
                        return Err(format!(
                            "vertex {v} loses {} ids of a list of {degree}",
                            j2 - j
                        ));
                    }
                    d.ids.extend(vins);
                    d.ids.extend(del[j..j2].iter().map(|&k| k as VertexId));
                    if weighted {
                        d.ws.extend_from_slice(&ins_w[i..i2]);
                        d.ws.resize(d.ids.len(), 0.0);
                    }
                    d.nins.push((i2 - i) as u32);
                    if blocks > 1 {
                        let f = fences
                            .binary_search_by_key(&v, |x| x.0)
                            .map(|p| &fences[p].1)
                            .map_err(|_| {
                                format!("vertex {v}'s list spans blocks but has no fences")
                            })?;
                        if f.len() as u64 != blocks - 1 {
                            return Err(format!(
                                "vertex {v}'s list spans {blocks} blocks but has {} fences",
                                f.len()
                            ));
                        }
                        d.fence_at.push((v, d.fences.len() as u64));
                        d.fences.extend_from_slice(f);
                    }
                }
                None => {
                    let (b, len) = base_small(v);
                    if weighted && len > 0 {
                        return Err(format!("weighted vertex {v}'s list is in the index"));
                    }
                    let dels = &del[j..j2];
                    merged.clear();
                    merged.extend(
                        b[..len]
                            .iter()
                            .filter(|&&x| !dels.iter().any(|&k| k as VertexId == x)),
                    );
                    if merged.len() + dels.len() != len {
                        return Err(format!("a delete from vertex {v} is not in its list"));
                    }
                    let before = merged.len();
                    merged.extend(vins);
                    merged.sort_unstable();
                    merged.dedup();
                    if merged.len() != before + (i2 - i) {
                        return Err(format!("an insert into vertex {v} is already in its list"));
                    }
                    d.ids.extend_from_slice(&merged);
                    if weighted {
                        // The base list is empty: the list is the inserts.
                        d.ws.extend_from_slice(&ins_w[i..i2]);
                    }
                    d.nins.push(REPLACE);
                }
            }
            d.off.push(d.ids.len() as u64);
            i = i2;
            j = j2;
        }
        Ok(d)
    }
}

impl Delta {
    /// Builds the delta of the sorted keys `ins` and `del` over `n`
    /// vertices, with `ins_w` the weight of each insert (empty for an
    /// unweighted graph). `on_disk(v)` gives,
    /// when `v`'s base list is in edge blocks, the blocks it spans and its
    /// length; `base_small(v)` gives
    /// the base list of any other vertex (held in the index, at most two
    /// ids, or empty); `fences` maps each changed vertex whose base list
    /// spans `k > 1` blocks to its `k - 1` fences. Fails when an insert
    /// is already in a small base list or a delete is not in it, or a
    /// spanning list has no fences.
    ///
    /// Every open of an updated graph builds its deltas, so the vertices
    /// are cut into ranges of whole bit words, built on all threads, and
    /// the ranges' arrays joined.
    pub fn build(
        n: u64,
        ins: &[u64],
        del: &[u64],
        ins_w: &[f32],
        on_disk: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
        base_small: impl Fn(VertexId) -> ([VertexId; 2], usize) + Sync,
        fences: &[(VertexId, Vec<VertexId>)],
    ) -> Result<Delta, String> {
        use rayon::prelude::*;
        let words = n.div_ceil(64) as usize;
        // Keys are sorted: the last names the highest vertex.
        if let Some(v) = [ins.last(), del.last()]
            .into_iter()
            .flatten()
            .map(|&k| k >> 32)
            .find(|&v| v >= n)
        {
            return Err(format!("a change names vertex {v} of {n}"));
        }
        if !ins_w.is_empty() && ins_w.len() != ins.len() {
            return Err(format!("{} inserts but {} weights", ins.len(), ins_w.len()));
        }
        let mut bits = vec![0u64; words];
        let split = |keys: &[u64], w: usize| keys.partition_point(|&k| (k >> 32) < (w as u64) * 64);
        let parts: Vec<Part> = bits
            .par_chunks_mut(PART_WORDS)
            .enumerate()
            .map(|(p, chunk)| {
                let (w0, w1) = (p * PART_WORDS, p * PART_WORDS + chunk.len());
                let (i0, i1) = (split(ins, w0), split(ins, w1));
                let (d0, d1) = (split(del, w0), split(del, w1));
                let ws = if ins_w.is_empty() {
                    ins_w
                } else {
                    &ins_w[i0..i1]
                };
                Part::build(
                    w0,
                    chunk,
                    (&ins[i0..i1], &del[d0..d1], ws),
                    &on_disk,
                    &base_small,
                    fences,
                )
            })
            .collect::<Result<_, String>>()?;
        let mut before = vec![0u32; words];
        before
            .par_chunks_mut(PART_WORDS)
            .zip(bits.par_chunks(PART_WORDS))
            .for_each(|(b, w)| {
                let mut c = 0u32;
                for (b, w) in b.iter_mut().zip(w) {
                    *b = c;
                    c += w.count_ones();
                }
            });
        Ok(Delta {
            bits,
            before,
            parts,
        })
    }

    /// Vertices whose list changed.
    pub fn changed(&self) -> u64 {
        self.parts.iter().map(|p| p.nins.len() as u64).sum()
    }

    /// Bytes of memory the delta takes.
    pub fn bytes(&self) -> u64 {
        let parts: usize = self
            .parts
            .iter()
            .map(|p| {
                p.off.len() * 8
                    + p.nins.len() * 4
                    + p.ids.len() * 4
                    + p.ws.len() * 4
                    + p.fence_at.len() * 16
                    + p.fences.len() * 4
            })
            .sum();
        (self.bits.len() * 8 + self.before.len() * 4 + parts) as u64
    }

    /// `v`'s change, if its list changed.
    #[inline]
    pub fn get(&self, v: VertexId) -> Option<Change<'_>> {
        let w = (v / 64) as usize;
        let word = *self.bits.get(w)?;
        let bit = 1u64 << (v % 64);
        if word & bit == 0 {
            return None;
        }
        let p = &self.parts[w / PART_WORDS];
        let c = self.before[w] as usize + (word & (bit - 1)).count_ones() as usize;
        let range = p.off[c] as usize..p.off[c + 1] as usize;
        let ids = &p.ids[range.clone()];
        let ws = p.ws.get(range).unwrap_or(&[]);
        Some(match p.nins[c] {
            REPLACE => Change::Replace(ids, ws),
            n => {
                let (ins, del) = ids.split_at(n as usize);
                let ins_w = ws.get(..n as usize).unwrap_or(&[]);
                Change::Patch { ins, del, ins_w }
            }
        })
    }

    /// The fences of `v`'s spanning base list (empty when it fits a block).
    pub fn fences(&self, v: VertexId) -> &[VertexId] {
        let Some(p) = self.parts.get(v as usize / 64 / PART_WORDS) else {
            return &[];
        };
        match p.fence_at.binary_search_by_key(&v, |x| x.0) {
            Ok(i) => {
                let s = p.fence_at[i].1 as usize;
                let e = p
                    .fence_at
                    .get(i + 1)
                    .map_or(p.fences.len(), |x| x.1 as usize);
                &p.fences[s..e]
            }
            Err(_) => &[],
        }
    }
}

/// The weights [`patch_piece`] patches along with a piece's ids.
pub struct PieceWeights<'a> {
    /// The base piece's weights on entry, the merged piece's on return.
    pub buf: &'a mut Vec<f32>,
    /// The weight of each of the vertex's inserted ids.
    pub ins: &'a [f32],
}

/// Ids of sorted `xs` below `x`.
#[inline]
fn below(xs: &[VertexId], x: u64) -> usize {
    xs.partition_point(|&y| (y as u64) < x)
}

/// Patches piece `k` of a spanning (or whole, `k = 0` and no fences) base
/// list in place. The base piece is `buf[at..at + len]`, starting at
/// position `first` of the base list; `ins` and `del` are the vertex's
/// sorted changes, `fences` its fences. On return `buf[at..]` holds the
/// merged piece; the result is its position in the merged list. Fails
/// when a delete that falls in this piece is not in it, or an insert
/// already is (after the deletes: an id both deleted and inserted gets
/// its new weight). With `weights`, the piece's weights (in
/// `weights.buf[..len]`) are moved with their ids and the inserts'
/// (`weights.ins`, one for each of `ins`) put in.
#[allow(clippy::too_many_arguments)]
pub fn patch_piece(
    buf: &mut Vec<VertexId>,
    at: usize,
    len: usize,
    first: u64,
    k: usize,
    fences: &[VertexId],
    ins: &[VertexId],
    del: &[VertexId],
    mut weights: Option<PieceWeights<'_>>,
) -> Result<u64, &'static str> {
    if weights
        .as_ref()
        .is_some_and(|w| w.ins.len() != ins.len() || w.buf.len() < len)
    {
        return Err("has inserts without weights");
    }
    let (ins_k, del_k, pos) = if fences.is_empty() && k == 0 {
        (ins, del, first)
    } else {
        let lo = if k == 0 { 0 } else { fences[k - 1] as u64 };
        let hi = fences.get(k).map_or(u64::MAX, |&f| f as u64);
        let (i0, i1) = (below(ins, lo), below(ins, hi));
        let (d0, d1) = (below(del, lo), below(del, hi));
        // Deletes before this piece are ids of earlier pieces: at most `first`.
        let pos = (first + i0 as u64)
            .checked_sub(d0 as u64)
            .ok_or("deletes ids its list does not hold")?;
        if let Some(w) = weights.as_mut() {
            w.ins = &w.ins[i0..i1];
        }
        (&ins[i0..i1], &del[d0..d1], pos)
    };
    let mut len = len;
    buf.truncate(at + len);
    if let Some(w) = weights.as_mut() {
        w.buf.truncate(len);
    }
    // Changes are few against the list: each is found by a binary search
    // and the runs between them move with one copy each, with no buffer
    // of positions (this runs for every changed list a traversal reads).
    if !del_k.is_empty() {
        let b = &mut buf[at..];
        // Forward: the run before each deleted id closes up to `o`.
        let (mut o, mut from) = (0, 0);
        for (j, &d) in del_k.iter().enumerate() {
            let i = match b[from..].binary_search(&d) {
                Ok(i) => from + i,
                Err(_) => return Err("deletes an id its list does not hold"),
            };
            if j == 0 {
                o = i;
            } else {
                b.copy_within(from..i, o);
                if let Some(w) = weights.as_mut() {
                    w.buf.copy_within(from..i, o);
                }
                o += i - from;
            }
            from = i + 1;
        }
        b.copy_within(from..len, o);
        if let Some(w) = weights.as_mut() {
            w.buf.copy_within(from..len, o);
        }
        len = o + len - from;
        buf.truncate(at + len);
        if let Some(w) = weights.as_mut() {
            w.buf.truncate(len);
        }
    }
    if !ins_k.is_empty() {
        buf.resize(at + len + ins_k.len(), 0);
        if let Some(w) = weights.as_mut() {
            w.buf.resize(len + ins_k.len(), 0.0);
        }
        let b = &mut buf[at..];
        // From the back: the ids from insert `j`'s place up to the next
        // insert's move up by j + 1 (the inserts at or before them).
        let mut hi = len;
        for (j, &x) in ins_k.iter().enumerate().rev() {
            let i = match b[..hi].binary_search(&x) {
                Ok(_) => return Err("inserts an id its list already holds"),
                Err(i) => i,
            };
            b.copy_within(i..hi, i + j + 1);
            b[i + j] = x;
            if let Some(w) = weights.as_mut() {
                w.buf.copy_within(i..hi, i + j + 1);
                w.buf[i + j] = w.ins[j];
            }
            hi = i;
        }
    }
    Ok(pos)
}

#[cfg(test)]
mod tests;

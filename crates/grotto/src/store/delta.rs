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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NetOps {
    /// Inserted keys, sorted, no repeats.
    pub ins: Vec<u64>,
    /// Deleted keys, sorted, no repeats.
    pub del: Vec<u64>,
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
    /// deleted then inserted again, or inserted then deleted, nets out.
    /// Fails with the arc when `later` contradicts `self` (inserts an arc
    /// `self` already inserted, or deletes one `self` already deleted).
    pub fn fold(&self, later: &NetOps) -> Result<NetOps, String> {
        if self.ins.is_empty() && self.del.is_empty() {
            return Ok(later.clone());
        }
        let mut ins = Vec::with_capacity(self.ins.len() + later.ins.len());
        let mut del = Vec::with_capacity(self.del.len() + later.del.len());
        // One pass over the four sorted arrays: per key, +1 for each
        // insert and -1 for each delete.
        let arrays: [(&[u64], i32); 4] = [
            (&self.ins, 1),
            (&self.del, -1),
            (&later.ins, 1),
            (&later.del, -1),
        ];
        let mut at = [0usize; 4];
        while let Some(k) = (0..4).filter_map(|i| arrays[i].0.get(at[i]).copied()).min() {
            let mut net = 0i32;
            for i in 0..4 {
                if arrays[i].0.get(at[i]) == Some(&k) {
                    net += arrays[i].1;
                    at[i] += 1;
                }
            }
            match net {
                0 => {}
                1 => ins.push(k),
                -1 => del.push(k),
                _ => {
                    let (v, u) = unkey(k);
                    return Err(format!(
                        "the arc {v} -> {u} is {} twice",
                        if net > 0 { "inserted" } else { "deleted" }
                    ));
                }
            }
        }
        Ok(NetOps { ins, del })
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
        /// Deleted ids, sorted.
        del: &'d [VertexId],
    },
    /// The whole list, sorted: the base list was not on disk.
    Replace(&'d [VertexId]),
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
    /// Changed vertices whose base list spans several blocks, sorted, with
    /// where their fences start in `fences`.
    fence_at: Vec<(VertexId, u64)>,
    fences: Vec<VertexId>,
}

impl Part {
    /// See [`Delta::build`]: the part whose first bit word is `w0`, with
    /// the keys `ins` and `del` of its vertices; sets their bits in
    /// `words`, the part's words.
    fn build(
        w0: usize,
        words: &mut [u64],
        ins: &[u64],
        del: &[u64],
        on_disk: &impl Fn(VertexId) -> Option<(u64, u64)>,
        base_small: &impl Fn(VertexId) -> ([VertexId; 2], usize),
        fences: &[(VertexId, Vec<VertexId>)],
    ) -> Result<Part, String> {
        let mut d = Part {
            off: vec![0],
            ids: Vec::with_capacity(ins.len() + del.len()),
            ..Part::default()
        };
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
    /// Builds the delta of the sorted keys `ins` and `del` over `n` vertices. `on_disk(v)` gives,
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
        let mut bits = vec![0u64; words];
        let split = |keys: &[u64], w: usize| keys.partition_point(|&k| (k >> 32) < (w as u64) * 64);
        let parts: Vec<Part> = bits
            .par_chunks_mut(PART_WORDS)
            .enumerate()
            .map(|(p, chunk)| {
                let (w0, w1) = (p * PART_WORDS, p * PART_WORDS + chunk.len());
                let (i0, i1) = (split(ins, w0), split(ins, w1));
                let (d0, d1) = (split(del, w0), split(del, w1));
                Part::build(
                    w0,
                    chunk,
                    &ins[i0..i1],
                    &del[d0..d1],
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
        let ids = &p.ids[p.off[c] as usize..p.off[c + 1] as usize];
        Some(match p.nins[c] {
            REPLACE => Change::Replace(ids),
            n => {
                let (ins, del) = ids.split_at(n as usize);
                Change::Patch { ins, del }
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
/// already is.
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
) -> Result<u64, &'static str> {
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
        (&ins[i0..i1], &del[d0..d1], pos)
    };
    let mut len = len;
    buf.truncate(at + len);
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
                o += i - from;
            }
            from = i + 1;
        }
        b.copy_within(from..len, o);
        len = o + len - from;
        buf.truncate(at + len);
    }
    if !ins_k.is_empty() {
        buf.resize(at + len + ins_k.len(), 0);
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
            hi = i;
        }
    }
    Ok(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The merged list, by sets.
    fn naive(base: &[u32], ins: &[u32], del: &[u32]) -> Vec<u32> {
        let mut s: std::collections::BTreeSet<u32> = base.iter().copied().collect();
        for d in del {
            assert!(s.remove(d));
        }
        for i in ins {
            assert!(s.insert(*i));
        }
        s.into_iter().collect()
    }

    proptest! {
        #[test]
        fn pieces_partition_the_merged_list(
            set in proptest::collection::btree_set(0u32..2000, 1..300),
            pieces in 1usize..6,
            ops in proptest::collection::vec((0u32..2100, any::<bool>()), 0..200),
            at in 0usize..9,
        ) {
            let base: Vec<u32> = set.iter().copied().collect();
            // Split the base into `pieces` runs; fences are their first ids.
            let step = base.len().div_ceil(pieces).max(1);
            let runs: Vec<&[u32]> = base.chunks(step).collect();
            let fences: Vec<u32> = runs[1..].iter().map(|r| r[0]).collect();
            let mut ins = Vec::new();
            let mut del = Vec::new();
            let mut seen = std::collections::BTreeSet::new();
            for (x, d) in ops {
                if !seen.insert(x) { continue; }
                if set.contains(&x) { if d { del.push(x) } } else { ins.push(x) }
            }
            ins.sort_unstable();
            del.sort_unstable();
            let want = naive(&base, &ins, &del);
            let mut got = Vec::new();
            let mut first = 0u64;
            for (k, r) in runs.iter().enumerate() {
                // The piece lies `at` ids into the buffer, after other ids
                // that must be left alone, and is followed by more.
                let mut buf = vec![u32::MAX; at];
                buf.extend_from_slice(r);
                buf.extend_from_slice(&[7, 7, 7]);
                let pos = patch_piece(&mut buf, at, r.len(), first, k, &fences, &ins, &del).unwrap();
                prop_assert_eq!(pos, got.len() as u64);
                prop_assert!(buf[..at].iter().all(|&x| x == u32::MAX));
                got.extend_from_slice(&buf[at..]);
                first += r.len() as u64;
            }
            prop_assert_eq!(got, want);
        }

        #[test]
        fn folding_nets_out(ops in proptest::collection::vec((0u64..40, any::<bool>()), 0..200)) {
            // Apply ops one batch at a time to a set, folding effective ops.
            let base: std::collections::BTreeSet<u64> = (0..40).filter(|k| k % 3 == 0).collect();
            let mut now = base.clone();
            let mut net = NetOps::default();
            for chunk in ops.chunks(7) {
                let mut b = NetOps::default();
                let mut seen = std::collections::BTreeSet::new();
                for &(k, ins) in chunk {
                    if !seen.insert(k) { continue; }
                    if ins && !now.contains(&k) { b.ins.push(k) }
                    if !ins && now.contains(&k) { b.del.push(k) }
                }
                b.ins.sort_unstable();
                b.del.sort_unstable();
                for k in &b.ins { now.insert(*k); }
                for k in &b.del { now.remove(k); }
                net = net.fold(&b).unwrap();
            }
            let want_ins: Vec<u64> = now.difference(&base).copied().collect();
            let want_del: Vec<u64> = base.difference(&now).copied().collect();
            prop_assert_eq!(net.ins, want_ins);
            prop_assert_eq!(net.del, want_del);
        }
    }

    #[test]
    fn patch_detects_contradictions() {
        let mut b = vec![1, 5, 9];
        assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[5], &[]).is_err());
        let mut b = vec![1, 5, 9];
        assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[], &[4]).is_err());
        let mut b = vec![1, 5, 9];
        assert!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[], &[10]).is_err());
        let mut b = vec![1, 5, 9];
        assert_eq!(patch_piece(&mut b, 0, 3, 0, 0, &[], &[0, 6], &[5]), Ok(0));
        assert_eq!(b, vec![0, 1, 6, 9]);
    }

    #[test]
    fn lookups_across_parts() {
        // Vertices over four parts; changes everywhere, the part edges
        // included; even vertices' lists are on disk (those divisible by
        // 6 span three blocks), odd ones empty.
        let n = 3 * PART_WORDS as u64 * 64 + 70;
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let edges = [
            0,
            63,
            64,
            PART_WORDS as u64 * 64 - 1,
            PART_WORDS as u64 * 64,
            n - 1,
        ];
        let mut touched: Vec<u64> = (0..20_000).map(|_| next() % n).chain(edges).collect();
        touched.sort_unstable();
        touched.dedup();
        let (mut ins, mut del) = (Vec::new(), Vec::new());
        for &v in &touched {
            ins.push(key(v as u32, 7));
            ins.push(key(v as u32, 9));
            if v % 2 == 0 {
                del.push(key(v as u32, 3));
            }
        }
        let fences: Vec<(u32, Vec<u32>)> = touched
            .iter()
            .filter(|&&v| v % 6 == 0)
            .map(|&v| (v as u32, vec![v as u32, v as u32 + 1]))
            .collect();
        let on_disk = |v: u32| {
            v.is_multiple_of(2)
                .then_some((if v.is_multiple_of(6) { 3 } else { 1 }, 10))
        };
        let d = Delta::build(n, &ins, &del, on_disk, |_| ([0, 0], 0), &fences).unwrap();
        assert_eq!(d.changed(), touched.len() as u64);
        let mut t = touched.iter().peekable();
        for v in 0..n as u32 {
            let hit = t.next_if(|&&x| x == v as u64).is_some();
            match (hit, d.get(v)) {
                (false, None) => {}
                (true, Some(Change::Patch { ins, del })) if v % 2 == 0 => {
                    assert_eq!((ins, del), (&[7, 9][..], &[3][..]), "{v}");
                    let f = if v % 6 == 0 { vec![v, v + 1] } else { vec![] };
                    assert_eq!(d.fences(v), &f[..], "{v}");
                }
                (true, Some(Change::Replace(l))) if v % 2 == 1 => assert_eq!(l, &[7, 9], "{v}"),
                (h, c) => panic!("vertex {v}: touched {h}, {c:?}"),
            }
        }
        // A key past the last vertex is refused, in any part.
        let bad = vec![key(n as u32, 1)];
        assert!(Delta::build(n, &bad, &[], on_disk, |_| ([0, 0], 0), &[]).is_err());
    }

    #[test]
    fn lookups_and_replacements() {
        let ops = NetOps {
            ins: vec![key(1, 7), key(3, 2), key(3, 4), key(70, 1)],
            del: vec![key(1, 2), key(3, 9)],
        };
        let d = Delta::build(
            100,
            &ops.ins,
            &ops.del,
            |v| (v == 1).then_some((1, 5)),
            |v| if v == 3 { ([9, 0], 1) } else { ([0, 0], 0) },
            &[],
        )
        .unwrap();
        assert_eq!(d.changed(), 3);
        assert!(d.get(0).is_none() && d.get(2).is_none() && d.get(99).is_none());
        match d.get(1) {
            Some(Change::Patch { ins, del }) => assert_eq!((ins, del), (&[7][..], &[2][..])),
            c => panic!("{c:?}"),
        }
        match d.get(3) {
            Some(Change::Replace(l)) => assert_eq!(l, &[2, 4]),
            c => panic!("{c:?}"),
        }
        match d.get(70) {
            Some(Change::Replace(l)) => assert_eq!(l, &[1]),
            c => panic!("{c:?}"),
        }
        // A delete of an id a small list lacks is refused.
        let bad = NetOps {
            ins: vec![],
            del: vec![key(3, 8)],
        };
        assert!(Delta::build(10, &bad.ins, &bad.del, |_| None, |_| ([9, 0], 1), &[]).is_err());
    }
}

//! The vertex order of a file converted with one (`convert --order`):
//! each internal vertex's rank in the user's order, 4 bytes a vertex on
//! disk.
//!
//! Opening checks the section (its checksum, and that it is a
//! permutation) in one streamed pass and keeps nothing. Most runs need
//! ranks only in passes: a chunk of vertices at a time (WCC's labels),
//! the vertices of a chunk of ranks (writing results in the user's
//! order), or a column of vertices turned into ranks (BFS parents).
//! Those read the section from the file a piece at a time, so a run
//! holds no order in memory. Callers that look ranks up at random load
//! the whole order ([`Order::table`], 4 bytes a vertex) or its inverse
//! as well (another 4).

use super::format::{padded, Section};
use crate::error::{Error, Result};
use crate::VertexId;
use rayon::prelude::*;
use std::fs::File;
use std::hash::BuildHasher;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Base ranks per entry of an order's shift index ([`Order::grow_keyed`]).
const SHIFT_SAMPLE: usize = 64;

/// Entries read from the file at a time in streamed passes (1 MiB).
const PIECE: usize = 1 << 18;

/// Entries read at a time by the check when a file is opened (8 MiB, 8
/// in flight: the rate of large reads on a cold file).
const OPEN_PIECE: usize = 1 << 21;

/// A keyed mix of a rank (murmur3's 32-bit finaliser of `x ^ key`, a
/// bijection of u32): the terms of the multiset sum, taken in a u64, that
/// checks an order is a permutation. 32-bit lanes keep the sum to a few
/// vector instructions a rank; two different sets of ranks then agree
/// with a chance of about 2^-32 for a key drawn at each open.
#[inline]
fn mix(x: u32, key: u32) -> u64 {
    let mut h = x ^ key;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    (h ^ (h >> 16)) as u64
}

/// A file's vertex order: where it lies, and what of it is loaded.
///
/// Vertices added by updates come after the base's. In a graph with
/// dense ids they rank as themselves, after every base vertex. In a graph
/// with an id map or names their keys fall anywhere among the base's:
/// each new key's *insertion point* (how many base keys are smaller) is
/// kept, sorted, and a base vertex's rank is its base rank plus the
/// number of insertion points at or below it ([`Order::grow_keyed`]).
#[derive(Debug)]
pub(super) struct Order {
    path: PathBuf,
    /// The order section, or `None` when the base has none (base ranks
    /// are the base ids; an order exists only for added keys).
    file: Option<File>,
    offset: u64,
    /// Vertices the section covers (the base's vertex count).
    base: u32,
    /// Vertices now (the base's plus those added by updates).
    count: u32,
    /// The added keys' insertion points among the base's, sorted (empty:
    /// the added vertices rank as themselves).
    inserted_at: Vec<u32>,
    /// The rank of each added vertex (empty: its own id).
    added_ranks: Vec<u32>,
    /// For every [`SHIFT_SAMPLE`]th base rank `b`, how many insertion
    /// points lie below it: a rank's shift is then a search of the few
    /// points in its window.
    shift_index: Vec<u32>,
    table: OnceLock<Vec<u32>>,
    inverse: OnceLock<Vec<u32>>,
    /// Entries read at a time in streamed passes ([`PIECE`]; smaller in
    /// tests, so that small graphs take many).
    piece: usize,
}

impl Order {
    /// Checks section `s` of `file` (checksum, a permutation of `0..n`)
    /// in one streamed pass on all cores, with a bitmap of an eighth of a
    /// byte a vertex, and returns the order unloaded.
    pub(super) fn open(file: &File, path: &Path, s: &Section, n: u64) -> Result<Order> {
        let bad = |what: String| Error::Corrupt {
            path: path.to_path_buf(),
            what: format!("order section: {what}"),
        };
        if s.length != n * 4 || n > u32::MAX as u64 {
            return Err(bad(format!("{} bytes for {n} vertices", s.length)));
        }
        let file = file
            .try_clone()
            .map_err(|e| Error::io(path, "open the order section", e))?;
        let o = Order {
            file: Some(file),
            offset: s.offset,
            ..Order::identity(path, n as u32)
        };
        // Pieces read and checked on all cores; their checksums are
        // combined in file order. That the ranks are a permutation is
        // checked by their largest and a keyed multiset sum, streamed (a
        // bitmap costs a random access a vertex); a mismatch is then
        // located with the bitmap to name the vertex.
        let key = std::collections::hash_map::RandomState::new().hash_one(path) as u32;
        let pieces = (n as usize).div_ceil(OPEN_PIECE);
        // Several reads in flight: a cold order section is read at the
        // device's rate, not two 1 MiB reads at a time.
        let crcs: Vec<Result<(u32, usize, u32, u64)>> =
            crate::io::section::in_flight_with(pieces, Vec::new, |buf: &mut Vec<u32>, k| {
                let at = k * OPEN_PIECE;
                let len = OPEN_PIECE.min(n as usize - at);
                buf.resize(len, 0);
                let buf = &mut buf[..len];
                o.read(at, buf)?;
                let max = buf.iter().copied().max().unwrap_or(0);
                let sum = buf.iter().fold(0u64, |a, &r| a.wrapping_add(mix(r, key)));
                Ok((crc32c::crc32c(bytemuck::cast_slice(buf)), len * 4, max, sum))
            });
        let mut crc = 0u32;
        let (mut max, mut sum) = (0u32, 0u64);
        for c in crcs {
            let (piece, len, m, s) = c?;
            crc = crc32c::crc32c_combine(crc, piece, len);
            max = max.max(m);
            sum = sum.wrapping_add(s);
        }
        let want = (0..n.div_ceil(PIECE as u64))
            .into_par_iter()
            .map(|k| {
                let at = k * PIECE as u64;
                (at..(at + PIECE as u64).min(n))
                    .fold(0u64, |a, i| a.wrapping_add(mix(i as u32, key)))
            })
            .reduce(|| 0, u64::wrapping_add);
        if n > 0 && ((max as u64) >= n || sum != want) {
            return Err(o.not_a_permutation(n, &bad));
        }
        let mut pad = vec![0u8; (padded(s.length) - s.length) as usize];
        o.file
            .as_ref()
            .map_or(Ok(()), |f| f.read_exact_at(&mut pad, s.offset + s.length))
            .map_err(|e| Error::io(path, "read section order", e))?;
        crc = crc32c::crc32c_append(crc, &pad);
        if crc != s.crc {
            return Err(bad("fails its checksum".into()));
        }
        Ok(o)
    }

    /// The error of an order section that is not a permutation of `0..n`:
    /// the first vertex whose rank is past the count or taken, found
    /// with a bitmap of an eighth of a byte a vertex.
    fn not_a_permutation(&self, n: u64, bad: &dyn Fn(String) -> Error) -> Error {
        let mut seen = vec![0u64; (n as usize).div_ceil(64)];
        let mut buf = vec![0u32; PIECE];
        for at in (0..n as usize).step_by(PIECE) {
            let len = PIECE.min(n as usize - at);
            if let Err(e) = self.read(at, &mut buf[..len]) {
                return e;
            }
            for (i, &r) in buf[..len].iter().enumerate() {
                let bit = 1u64 << (r % 64);
                if (r as u64) >= n || seen[r as usize / 64] & bit != 0 {
                    return bad(format!(
                        "vertex {} has rank {r}, {}",
                        at + i,
                        if (r as u64) < n {
                            "which another vertex has too"
                        } else {
                            "past the vertex count"
                        }
                    ));
                }
                seen[r as usize / 64] |= bit;
            }
        }
        bad("is not a permutation of the vertices".into())
    }

    /// The order of a base of `n` vertices without an order section (each
    /// ranks as itself), for a graph whose updates add keys among its
    /// own ([`Order::grow_keyed`]).
    pub(super) fn identity(path: &Path, n: u32) -> Order {
        Order {
            path: path.to_path_buf(),
            file: None,
            offset: 0,
            base: n,
            count: n,
            inserted_at: Vec::new(),
            added_ranks: Vec::new(),
            shift_index: Vec::new(),
            table: OnceLock::new(),
            inverse: OnceLock::new(),
            piece: PIECE,
        }
    }

    /// Vertices now; those past the base's count (added by updates to a
    /// graph with dense ids) have their own id as rank.
    pub(super) fn grow_to(&mut self, n: u32) {
        self.count = n;
        if let Some(t) = self.table.get_mut() {
            t.extend(t.len() as u32..n);
        }
        self.inverse = OnceLock::new();
    }

    /// Adds vertices whose keys fall among the base's: `inserted_at`, the
    /// insertion points of their keys (sorted), and `added_ranks`, the
    /// rank of each added vertex, in internal id order (the caller
    /// checked that together they make a permutation).
    pub(super) fn grow_keyed(&mut self, inserted_at: Vec<u32>, added_ranks: Vec<u32>) {
        debug_assert!(self.table.get().is_none() && self.count == self.base);
        self.count = self.base + added_ranks.len() as u32;
        let windows = self.base as usize / SHIFT_SAMPLE + 2;
        let mut j = 0;
        self.shift_index = (0..windows)
            .map(|b| {
                while j < inserted_at.len() && (inserted_at[j] as usize) < b * SHIFT_SAMPLE {
                    j += 1;
                }
                j as u32
            })
            .collect();
        self.inserted_at = inserted_at;
        self.added_ranks = added_ranks;
        self.inverse = OnceLock::new();
    }

    /// Shifts base ranks `rs` past the keys inserted before them, and
    /// fills the ranks of added vertices: `out` holds the ranks of
    /// vertices `lo..`, the first `base` of them base ranks.
    fn shift(&self, lo: usize, out: &mut [u32], base: usize) {
        if !self.inserted_at.is_empty() {
            let (at, idx) = (&self.inserted_at[..], &self.shift_index[..]);
            for r in &mut out[..base] {
                let b = *r as usize / SHIFT_SAMPLE;
                let (lo, hi) = (idx[b] as usize, idx[b + 1] as usize);
                *r += (lo + at[lo..hi].partition_point(|&p| p <= *r)) as u32;
            }
        }
        for (i, r) in out.iter_mut().enumerate().skip(base) {
            let v = lo + i;
            *r = match self.added_ranks.get(v - self.base as usize) {
                Some(&a) => a,
                None => v as u32,
            };
        }
    }

    /// Reads the base ranks of base vertices `at..at + out.len()` from
    /// the file (their ids, when the base has no order).
    fn read(&self, at: usize, out: &mut [u32]) -> Result<()> {
        let Some(file) = &self.file else {
            for (i, r) in out.iter_mut().enumerate() {
                *r = (at + i) as u32;
            }
            return Ok(());
        };
        file.read_exact_at(bytemuck::cast_slice_mut(out), self.offset + at as u64 * 4)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    Error::Truncated {
                        path: self.path.clone(),
                        what: "section order is cut short".into(),
                    }
                } else {
                    Error::io(&self.path, "read section order", e)
                }
            })
    }

    /// Whether the whole order is in memory.
    pub(super) fn loaded(&self) -> Option<&[u32]> {
        self.table.get().map(Vec::as_slice)
    }

    /// The rank of every vertex, loaded on first use (4 bytes a vertex).
    pub(super) fn load(&self) -> Result<&[u32]> {
        if let Some(t) = self.table.get() {
            return Ok(t);
        }
        let mut t = vec![0u32; self.count as usize];
        self.read(0, &mut t[..self.base as usize])?;
        self.shift(0, &mut t, self.base as usize);
        Ok(self.table.get_or_init(|| t))
    }

    /// [`Order::load`] for callers that cannot return an error: the
    /// section was checked at open, so only a disk that fails between
    /// then and now gets here, and that ends the process with the
    /// file's name and the error.
    pub(super) fn table(&self) -> &[u32] {
        match self.load() {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        }
    }

    /// Whether the rank-to-vertex table is built.
    pub(super) fn has_inverse(&self) -> bool {
        self.inverse.get().is_some()
    }

    /// The vertex of each rank, built on first use (the order too: 8
    /// bytes a vertex in all).
    pub(super) fn inverse(&self) -> &[u32] {
        self.inverse
            .get_or_init(|| super::names::invert(self.table()))
    }

    /// Bytes held in memory.
    pub(super) fn bytes(&self) -> u64 {
        (self.table.get().map_or(0, Vec::len)
            + self.inverse.get().map_or(0, Vec::len)
            + self.inserted_at.len()
            + self.added_ranks.len()
            + self.shift_index.len()) as u64
            * 4
    }

    /// Calls `f(first, ranks)` with the ranks of all vertices, a piece at
    /// a time, from memory when loaded, else from the file.
    fn pieces(&self, mut f: impl FnMut(usize, &[u32])) -> Result<()> {
        if let Some(t) = self.loaded() {
            f(0, t);
            return Ok(());
        }
        let mut buf = vec![0u32; self.piece.min(self.count as usize)];
        let mut at = 0usize;
        while at < self.count as usize {
            let len = self.piece.min(self.count as usize - at);
            self.ranks_of(at as VertexId, &mut buf[..len])?;
            f(at, &buf[..len]);
            at += len;
        }
        Ok(())
    }

    /// The ranks of vertices `lo..lo + out.len()` (all below the vertex
    /// count) into `out`.
    pub(super) fn ranks_of(&self, lo: VertexId, out: &mut [u32]) -> Result<()> {
        let lo = lo as usize;
        if let Some(t) = self.loaded() {
            out.copy_from_slice(&t[lo..lo + out.len()]);
            return Ok(());
        }
        let base = (self.base as usize).clamp(lo, lo + out.len()) - lo;
        self.read(lo, &mut out[..base])?;
        self.shift(lo, out, base);
        Ok(())
    }

    /// The vertices of ranks `lo..lo + out.len()` into `out` (ranks past
    /// the vertex count are left alone): a copy when the inverse is
    /// built, else one pass over the order.
    pub(super) fn vertices_at_ranks(&self, lo: u32, out: &mut [VertexId]) -> Result<()> {
        if let Some(inv) = self.inverse.get() {
            let from = (lo as usize).min(inv.len());
            let to = (from + out.len()).min(inv.len());
            out[..to - from].copy_from_slice(&inv[from..to]);
            return Ok(());
        }
        let len = out.len() as u64;
        self.pieces(|first, ranks| {
            for (i, &r) in ranks.iter().enumerate() {
                let k = (r as u64).wrapping_sub(lo as u64);
                if k < len {
                    out[k as usize] = (first + i) as VertexId;
                }
            }
        })
    }

    /// Replaces every vertex in `xs` by its rank (`none` stays): a lookup
    /// each when the order is loaded, else passes over `xs`, one per
    /// piece of the order read from the file, with a bitmap (an eighth
    /// of a byte an entry) marking the entries already replaced.
    pub(super) fn ranks_in_place(&self, xs: &mut [u32], none: u32) -> Result<()> {
        if let Some(t) = self.loaded() {
            for x in xs.iter_mut().filter(|x| **x != none) {
                *x = t[*x as usize];
            }
            return Ok(());
        }
        let mut done = vec![0u64; xs.len().div_ceil(64)];
        // Pieces of a sixteenth of the order, at least one read's worth:
        // a quarter byte a vertex, sixteen passes over `xs`.
        let piece = (self.count as usize / 16).max(self.piece).max(1);
        let mut buf = vec![0u32; piece.min(self.count as usize)];
        let mut lo = 0usize;
        while lo < self.count as usize {
            let len = piece.min(self.count as usize - lo);
            self.ranks_of(lo as VertexId, &mut buf[..len])?;
            for (i, x) in xs.iter_mut().enumerate() {
                let k = (*x as usize).wrapping_sub(lo);
                let bit = 1u64 << (i % 64);
                if *x != none && k < len && done[i / 64] & bit == 0 {
                    *x = buf[k];
                    done[i / 64] |= bit;
                }
            }
            lo += len;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::store::Graph;
    use crate::testkit;
    use crate::VertexId;

    /// The same file open twice: with the order loaded, and read in
    /// passes of `piece` entries.
    fn both(piece: usize) -> (Graph, Graph, testkit::TestGraph) {
        let tg = testkit::rmat_ordered(10, 8, 7);
        let path = tg.graph.path().to_path_buf();
        let loaded = Graph::open(&path).unwrap();
        loaded.load_order().unwrap();
        let mut streamed = Graph::open(&path).unwrap();
        streamed.order.as_mut().expect("an ordered file").piece = piece;
        (loaded, streamed, tg)
    }

    /// A copy of `tg`'s file whose order section holds `ranks`, its
    /// checksum made right: only the permutation check can refuse it.
    fn with_ranks(
        tg: &testkit::TestGraph,
        ranks: &[u32],
        dir: &std::path::Path,
    ) -> std::path::PathBuf {
        use crate::store::format::SectionKind;
        let mut bytes = std::fs::read(tg.graph.path()).unwrap();
        let mut h = tg.graph.header().clone();
        for sec in &mut h.sections {
            if sec.kind == SectionKind::Order {
                let at = sec.offset as usize;
                bytes[at..at + ranks.len() * 4].copy_from_slice(bytemuck::cast_slice(ranks));
                let end = at + super::padded(sec.length) as usize;
                sec.crc = crc32c::crc32c(&bytes[at..end]);
            }
        }
        bytes[..4096].copy_from_slice(&h.encode());
        let path = dir.join("tampered.grotto");
        std::fs::write(&path, &bytes).unwrap();
        path
    }

    #[test]
    fn an_order_that_is_not_a_permutation_is_named() {
        let tg = testkit::rmat_ordered(10, 8, 7);
        let dir = tempfile::tempdir().unwrap();
        let good = tg.graph.order().unwrap().unwrap().to_vec();
        assert!(Graph::open(&with_ranks(&tg, &good, dir.path())).is_ok());
        let n = good.len();
        // A rank given twice (and so one missing), far apart.
        let mut twice = good.clone();
        twice[n - 3] = twice[5];
        let e = Graph::open(&with_ranks(&tg, &twice, dir.path()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "vertex {} has rank {}, which another vertex has too",
                n - 3,
                good[5]
            )),
            "{e}"
        );
        // A rank past the count.
        let mut past = good.clone();
        past[17] = n as u32;
        let e = Graph::open(&with_ranks(&tg, &past, dir.path()))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("vertex 17 has rank {n}, past the vertex count")),
            "{e}"
        );
        // Two ranks swapped is still a permutation.
        let mut swapped = good.clone();
        swapped.swap(1, n - 1);
        assert!(Graph::open(&with_ranks(&tg, &swapped, dir.path())).is_ok());
    }

    #[test]
    fn streamed_passes_agree_with_the_loaded_order() {
        for piece in [1, 7, 64, 1 << 20] {
            let (a, b, _tg) = both(piece);
            let n = a.vertex_count() as usize;
            assert!(b.order.as_ref().unwrap().loaded().is_none());
            let order = a.order().unwrap().unwrap().to_vec();
            assert_ne!(order, (0..n as u32).collect::<Vec<_>>(), "renumbered");
            // Ranks of a range, and single ranks.
            for (lo, len) in [(0, n), (3, 100), (n - 5, 5)] {
                let mut x = vec![0; len];
                b.ranks_of(lo as VertexId, &mut x).unwrap();
                assert_eq!(x, order[lo..lo + len]);
            }
            assert_eq!(b.rank(17), order[17]);
            // Vertices of a range of ranks, past the end included.
            for lo in [0u32, 1, n as u32 - 3] {
                let mut want = vec![u32::MAX; 10];
                let mut got = want.clone();
                a.vertices_at_ranks(lo, &mut want).unwrap();
                b.vertices_at_ranks(lo, &mut got).unwrap();
                assert_eq!(got, want);
            }
            // A column of vertices with gaps, turned into ranks in place.
            let col: Vec<u32> = (0..3 * n as u32)
                .map(|i| {
                    if i % 5 == 0 {
                        u32::MAX
                    } else {
                        (i * 7919) % n as u32
                    }
                })
                .collect();
            let (mut x, mut y) = (col.clone(), col.clone());
            a.ranks_in_place(&mut x, u32::MAX).unwrap();
            b.ranks_in_place(&mut y, u32::MAX).unwrap();
            assert_eq!(x, y);
            for (c, r) in col.iter().zip(&x) {
                assert_eq!(
                    *r,
                    if *c == u32::MAX {
                        u32::MAX
                    } else {
                        order[*c as usize]
                    }
                );
            }
            // None of it loaded the order.
            assert!(b.order.as_ref().unwrap().loaded().is_none());
            assert!(!b.rank_lookup_is_cheap());
        }
    }

    #[test]
    fn vertices_added_by_updates_rank_as_themselves() {
        let (_, mut b, _tg) = both(3);
        let n = b.vertex_count() as u32;
        b.order.as_mut().unwrap().grow_to(n + 4);
        let mut x = vec![0; 6];
        b.ranks_of(n - 2, &mut x).unwrap();
        assert_eq!(&x[2..], &[n, n + 1, n + 2, n + 3]);
        let mut col = vec![n + 3, u32::MAX, n];
        b.ranks_in_place(&mut col, u32::MAX).unwrap();
        assert_eq!(col, [n + 3, u32::MAX, n]);
        let mut v = vec![0; 2];
        b.vertices_at_ranks(n + 1, &mut v).unwrap();
        assert_eq!(v, [n + 1, n + 2]);
        let t = b.order().unwrap().unwrap();
        assert_eq!(t.len(), n as usize + 4);
        assert_eq!(t[n as usize + 2], n + 2);
    }

    /// Reference ranks after keyed growth: each base rank shifted by the
    /// insertion points at or below it, then the added vertices' ranks.
    fn grown_ranks(base: &[u32], at: &[u32], added: &[u32]) -> Vec<u32> {
        let mut want: Vec<u32> = base
            .iter()
            .map(|&r| r + at.iter().filter(|&&p| p <= r).count() as u32)
            .chain(added.iter().copied())
            .collect();
        let mut sorted = want.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..want.len() as u32).collect::<Vec<_>>());
        want.shrink_to_fit();
        want
    }

    #[test]
    fn added_keys_shift_the_ranks_after_them() {
        for piece in [3, 1 << 20] {
            let (a, mut b, _tg) = both(piece);
            let n = a.vertex_count() as u32;
            let base = a.order().unwrap().unwrap().to_vec();
            // Vertex n's key falls between base ranks 9 and 10, n + 1's
            // after every base key, n + 2's before them all.
            let at = vec![0, 10, n];
            let added = vec![11, n + 2, 0];
            let want = grown_ranks(&base, &at, &added);
            b.order.as_mut().unwrap().grow_keyed(at, added);
            let o = b.order.as_ref().unwrap();
            let mut x = vec![0; want.len()];
            o.ranks_of(0, &mut x).unwrap();
            assert_eq!(x, want);
            let mut tail = vec![0; 5];
            o.ranks_of(n - 2, &mut tail).unwrap();
            assert_eq!(tail, want[n as usize - 2..]);
            let mut col = vec![n + 2, u32::MAX, 5, n];
            o.ranks_in_place(&mut col, u32::MAX).unwrap();
            assert_eq!(col, [0, u32::MAX, want[5], 11]);
            let mut v = vec![u32::MAX; 3];
            o.vertices_at_ranks(10, &mut v).unwrap();
            for (i, &u) in v.iter().enumerate() {
                assert_eq!(want[u as usize], 10 + i as u32);
            }
            assert!(o.loaded().is_none());
            assert_eq!(o.load().unwrap(), &want[..]);
            assert_eq!(o.inverse()[0], n + 2);
        }
    }

    #[test]
    fn a_base_without_an_order_grows_one_for_added_keys() {
        let mut o = super::Order::identity(std::path::Path::new("g.grotto"), 6);
        let (at, added) = (vec![2, 2, 6], vec![3, 8, 2]);
        let want = grown_ranks(&[0, 1, 2, 3, 4, 5], &at, &added);
        assert_eq!(want, [0, 1, 4, 5, 6, 7, 3, 8, 2]);
        o.grow_keyed(at, added);
        let mut x = vec![0; 9];
        o.ranks_of(0, &mut x).unwrap();
        assert_eq!(x, want);
        let mut v = vec![0; 9];
        o.vertices_at_ranks(0, &mut v).unwrap();
        assert_eq!(v, [0, 1, 8, 6, 2, 3, 4, 5, 7]);
    }
}

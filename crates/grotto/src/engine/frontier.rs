//! Frontiers: the set of active vertices of one level, in the form that
//! fits its size, and the atomic bitmap that deduplicates activations.
//!
//! A step builds the next frontier without a global lock: each worker
//! thread claims a vertex by setting its bit in a shared [`AtomicBitmap`]
//! (one `fetch_or`; only the thread that flips the bit keeps the vertex)
//! and appends it to a list of its own. When the step ends the engine
//! looks at the total: up to one vertex in [`DENSE_DIVISOR`] it
//! concatenates and sorts the lists ([`Frontier::Sparse`]); above that it
//! keeps the bitmap itself ([`Frontier::Dense`]), whose scan yields the
//! vertices in order for free.

use crate::VertexId;
use std::sync::atomic::{AtomicU64, Ordering};

/// A frontier holding more than one vertex in this many becomes dense.
pub const DENSE_DIVISOR: u64 = 32;

/// A fixed-size set of `u32` with lock-free insertion.
#[derive(Debug)]
pub struct AtomicBitmap {
    words: Vec<AtomicU64>,
    len: u64,
}

impl AtomicBitmap {
    /// An empty set over `0..len`.
    pub fn new(len: u64) -> AtomicBitmap {
        AtomicBitmap {
            words: (0..len.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            len,
        }
    }

    /// The set of the increasing members `v` over `0..len`, built a word
    /// at a time (no atomic operation per member).
    pub fn from_sorted(v: &[VertexId], len: u64) -> AtomicBitmap {
        let mut words = vec![0u64; len.div_ceil(64) as usize];
        for &x in v {
            words[(x / 64) as usize] |= 1u64 << (x % 64);
        }
        AtomicBitmap {
            words: words.into_iter().map(AtomicU64::new).collect(),
            len,
        }
    }

    /// The universe size.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the universe is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Inserts the members `word * 64 + j` for each bit `j` of `mask`, with
    /// one atomic operation.
    #[inline]
    pub fn insert_word(&self, word: usize, mask: u64) {
        if mask != 0 {
            self.words[word].fetch_or(mask, Ordering::Relaxed);
        }
    }

    /// Inserts `i`; true when this call inserted it (false: already there).
    #[inline]
    pub fn insert(&self, i: u64) -> bool {
        let bit = 1u64 << (i % 64);
        let w = &self.words[(i / 64) as usize];
        if w.load(Ordering::Relaxed) & bit != 0 {
            return false;
        }
        w.fetch_or(bit, Ordering::Relaxed) & bit == 0
    }

    /// Whether `i` is in the set.
    #[inline]
    pub fn contains(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Ordering::Relaxed) & (1u64 << (i % 64)) != 0
    }

    /// Removes `i`.
    #[inline]
    pub fn remove(&self, i: u64) {
        self.words[(i / 64) as usize].fetch_and(!(1u64 << (i % 64)), Ordering::Relaxed);
    }

    /// Removes `i`; true when it was there.
    #[inline]
    pub fn take(&self, i: u64) -> bool {
        let bit = 1u64 << (i % 64);
        let w = &self.words[(i / 64) as usize];
        if w.load(Ordering::Relaxed) & bit == 0 {
            return false;
        }
        w.fetch_and(!bit, Ordering::Relaxed) & bit != 0
    }

    /// Inserts every member of `0..len`.
    pub fn fill(&self) {
        let full = self.len / 64;
        for w in &self.words[..full as usize] {
            w.store(u64::MAX, Ordering::Relaxed);
        }
        if !self.len.is_multiple_of(64) {
            self.words[full as usize].store((1u64 << (self.len % 64)) - 1, Ordering::Relaxed);
        }
    }

    /// The members of `0..len` this set lacks, as a new set, and their
    /// number.
    pub fn complement(&self) -> (AtomicBitmap, u64) {
        let out = AtomicBitmap::new(self.len);
        out.fill();
        let mut count = 0u64;
        for (o, w) in out.words.iter().zip(&self.words) {
            let x = o.load(Ordering::Relaxed) & !w.load(Ordering::Relaxed);
            o.store(x, Ordering::Relaxed);
            count += x.count_ones() as u64;
        }
        (out, count)
    }

    /// Number of 64-bit words.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Appends the members held by words `lo..hi` to `out`, in order.
    pub fn members_in_words(&self, lo: usize, hi: usize, out: &mut Vec<u64>) {
        for (k, w) in self.words[lo..hi].iter().enumerate() {
            let mut x = w.load(Ordering::Relaxed);
            let base = ((lo + k) as u64) * 64;
            while x != 0 {
                out.push(base + x.trailing_zeros() as u64);
                x &= x - 1;
            }
        }
    }

    /// Takes the members held by words `lo..hi` out of the set, in order.
    pub fn drain_words(&self, lo: usize, hi: usize, out: &mut Vec<u64>) {
        for (k, w) in self.words[lo..hi].iter().enumerate() {
            let mut x = w.swap(0, Ordering::Relaxed);
            let base = ((lo + k) as u64) * 64;
            while x != 0 {
                out.push(base + x.trailing_zeros() as u64);
                x &= x - 1;
            }
        }
    }

    /// The members, in increasing order (tests).
    #[cfg(test)]
    pub(crate) fn to_vec_for_test(&self) -> Vec<u64> {
        let mut out = Vec::new();
        self.members_in_words(0, self.word_count(), &mut out);
        out
    }

    /// Number of members (a scan).
    pub fn count(&self) -> u64 {
        self.words
            .iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones() as u64)
            .sum()
    }
}

/// The active vertices of one level.
#[derive(Debug)]
pub enum Frontier {
    /// Every vertex `0..n` (a whole-graph sweep).
    All(u64),
    /// A sorted list of distinct vertices.
    Sparse(Vec<VertexId>),
    /// A bitmap over all vertices and its member count.
    Dense(AtomicBitmap, u64),
}

/// Vertices are handed to workers in runs of this many units (vertices of
/// a list or of a sweep, or 64-vertex words of a bitmap).
pub(crate) const GRAB_UNITS: usize = 64;

impl Frontier {
    /// No vertex active.
    pub fn empty() -> Frontier {
        Frontier::Sparse(Vec::new())
    }

    /// One vertex active.
    pub fn single(v: VertexId) -> Frontier {
        Frontier::Sparse(vec![v])
    }

    /// Every vertex of a graph of `n` vertices.
    pub fn all(n: u64) -> Frontier {
        Frontier::All(n)
    }

    /// The given vertices (sorted and deduplicated here).
    pub fn from_vertices(mut v: Vec<VertexId>) -> Frontier {
        v.sort_unstable();
        v.dedup();
        Frontier::Sparse(v)
    }

    /// The given sorted, distinct vertices of a graph of `n` vertices, as
    /// a list or, past one vertex in [`DENSE_DIVISOR`], a bitmap (the form
    /// the engine itself picks for a level's result).
    pub fn from_sorted(v: Vec<VertexId>, n: u64) -> Frontier {
        debug_assert!(v.windows(2).all(|w| w[0] < w[1]));
        if v.len() as u64 * DENSE_DIVISOR > n {
            Frontier::Dense(AtomicBitmap::from_sorted(&v, n), v.len() as u64)
        } else {
            Frontier::Sparse(v)
        }
    }

    /// This frontier of a graph of `n` vertices with the sorted vertices
    /// `more` (none of them members) added and the members of `drop`
    /// removed, in the form that fits the result's size. A bitmap is
    /// changed a word at a time, so a dense level costs n/64 word
    /// operations, not a list of its members.
    pub fn merge_without(self, more: &[VertexId], drop: &AtomicBitmap, n: u64) -> Frontier {
        debug_assert!(more.windows(2).all(|w| w[0] < w[1]));
        match self {
            Frontier::All(_) => {
                let bits = AtomicBitmap::new(n);
                bits.fill();
                Frontier::Dense(bits, n).merge_without(more, drop, n)
            }
            Frontier::Dense(bits, _) => {
                for &v in more {
                    bits.insert(v as u64);
                }
                let mut count = 0u64;
                for (w, d) in bits.words.iter().zip(&drop.words) {
                    let x = w.load(Ordering::Relaxed) & !d.load(Ordering::Relaxed);
                    w.store(x, Ordering::Relaxed);
                    count += x.count_ones() as u64;
                }
                if count * DENSE_DIVISOR > n {
                    return Frontier::Dense(bits, count);
                }
                let dense = Frontier::Dense(bits, count);
                let mut list = Vec::with_capacity(count as usize);
                dense.vertices(0, dense.units(), &mut list);
                Frontier::Sparse(list)
            }
            Frontier::Sparse(list) => {
                let mut all = merge_sorted(list, more);
                all.retain(|&v| !drop.contains(v as u64));
                Frontier::from_sorted(all, n)
            }
        }
    }

    /// Number of active vertices.
    pub fn len(&self) -> u64 {
        match self {
            Frontier::All(n) => *n,
            Frontier::Sparse(v) => v.len() as u64,
            Frontier::Dense(_, c) => *c,
        }
    }

    /// Whether no vertex is active.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the frontier is stored as a bitmap (or is a whole sweep).
    pub fn is_dense(&self) -> bool {
        !matches!(self, Frontier::Sparse(_))
    }

    /// The active vertices, in increasing order.
    pub fn to_vec(&self) -> Vec<VertexId> {
        let mut out = Vec::with_capacity(self.len() as usize);
        self.vertices(0, self.units(), &mut out);
        out
    }

    /// Calls `f` with each active vertex, in increasing order.
    pub fn for_each(&self, mut f: impl FnMut(VertexId)) {
        let mut buf = Vec::with_capacity(4096);
        let units = self.units();
        let step = match self {
            Frontier::Dense(..) => 64,
            _ => 4096,
        };
        for lo in (0..units).step_by(step) {
            buf.clear();
            self.vertices(lo, (lo + step).min(units), &mut buf);
            buf.iter().for_each(|&v| f(v));
        }
    }

    /// Units a worker can claim: vertices of a list or sweep, words of a
    /// bitmap.
    pub(crate) fn units(&self) -> usize {
        match self {
            Frontier::All(n) => *n as usize,
            Frontier::Sparse(v) => v.len(),
            Frontier::Dense(b, _) => b.word_count(),
        }
    }

    /// Appends the vertices of units `lo..hi` to `out`, in order.
    pub(crate) fn vertices(&self, lo: usize, hi: usize, out: &mut Vec<VertexId>) {
        match self {
            Frontier::All(_) => out.extend(lo as u32..hi as u32),
            Frontier::Sparse(v) => out.extend_from_slice(&v[lo..hi]),
            Frontier::Dense(b, _) => {
                for (k, w) in b.words[lo..hi].iter().enumerate() {
                    let mut x = w.load(Ordering::Relaxed);
                    let base = ((lo + k) as u64) * 64;
                    while x != 0 {
                        out.push((base + x.trailing_zeros() as u64) as VertexId);
                        x &= x - 1;
                    }
                }
            }
        }
    }
}

/// The sorted list `a` with the sorted list `b` (sharing no member with
/// it) merged in.
pub(crate) fn merge_sorted(a: Vec<VertexId>, b: &[VertexId]) -> Vec<VertexId> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_sorted_holds_exactly_the_members() {
        let v: Vec<VertexId> = vec![0, 1, 63, 64, 65, 127, 128, 200, 255];
        let b = AtomicBitmap::from_sorted(&v, 256);
        assert_eq!(
            b.to_vec_for_test(),
            v.iter().map(|&x| x as u64).collect::<Vec<_>>()
        );
        assert_eq!(b.count(), v.len() as u64);
        // Dense and sparse frontiers list the same vertices.
        let dense = Frontier::from_sorted(v.clone(), 256);
        assert!(dense.is_dense());
        assert_eq!(dense.to_vec(), v);
        let sparse = Frontier::from_sorted(v.clone(), 1 << 20);
        assert!(!sparse.is_dense());
        assert_eq!(sparse.to_vec(), v);
    }

    #[test]
    fn merge_without_adds_drops_and_picks_the_form_of_the_result() {
        let n = 1024u64;
        // A reference over plain sets, for each starting form and for
        // results on both sides of the dense threshold.
        let check = |start: Vec<VertexId>, more: Vec<VertexId>, drop: Vec<VertexId>| {
            let mut want: Vec<VertexId> = start.iter().chain(&more).copied().collect();
            want.sort_unstable();
            want.retain(|v| !drop.contains(v));
            let d = AtomicBitmap::from_sorted(&drop, n);
            for f in [
                Frontier::Sparse(start.clone()),
                Frontier::Dense(AtomicBitmap::from_sorted(&start, n), start.len() as u64),
            ] {
                let got = f.merge_without(&more, &d, n);
                assert_eq!(got.to_vec(), want);
                assert_eq!(got.len(), want.len() as u64);
                assert_eq!(got.is_dense(), want.len() as u64 * DENSE_DIVISOR > n);
            }
        };
        let evens: Vec<VertexId> = (0..400).step_by(2).collect();
        let odds: Vec<VertexId> = (1..100).step_by(2).collect();
        check(evens.clone(), odds.clone(), vec![0, 2, 3, 398, 1000]);
        // Dropping nearly everything leaves a short list.
        let many: Vec<VertexId> = (0..390).filter(|v| v % 2 == 0).collect();
        check(evens.clone(), vec![], many);
        check(vec![], vec![5, 700], vec![]);
        let all = Frontier::all(n).merge_without(&[], &AtomicBitmap::from_sorted(&[1, 2], n), n);
        assert_eq!(all.len(), n - 2);
        assert!(!all.to_vec().contains(&1));
    }

    #[test]
    fn bitmap_insert_is_claimed_once() {
        let b = AtomicBitmap::new(200);
        assert!(b.insert(5));
        assert!(!b.insert(5));
        assert!(b.insert(199));
        assert!(b.contains(5) && b.contains(199) && !b.contains(6));
        assert_eq!(b.count(), 2);
        let mut out = Vec::new();
        b.drain_words(0, b.word_count(), &mut out);
        assert_eq!(out, vec![5, 199]);
        assert_eq!(b.count(), 0);
    }

    #[test]
    fn frontier_forms_list_the_same_vertices() {
        let b = AtomicBitmap::new(300);
        for v in [3u64, 64, 65, 299] {
            b.insert(v);
        }
        let d = Frontier::Dense(b, 4);
        assert_eq!(d.to_vec(), vec![3, 64, 65, 299]);
        let s = Frontier::from_vertices(vec![299, 3, 65, 64, 3]);
        assert_eq!(s.to_vec(), d.to_vec());
        assert_eq!(Frontier::all(4).to_vec(), vec![0, 1, 2, 3]);
        assert!(Frontier::empty().is_empty());
    }
}

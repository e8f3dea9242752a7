//! Building a block map from the index: pairs counted per block, then
//! blocks mapped a window at a time (see [`BlockMap::build`]).

use super::{BlockMap, Encoder};
use crate::VertexId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// Vertices a worker takes at a time while building.
const CHUNK: usize = 4096;
/// Most (block, vertex) pairs a build sorts at once: blocks are mapped
/// in windows of at most this many pairs (16 MiB of ids), so that the
/// map costs its coded size and not four bytes a pair beside it.
const WINDOW_PAIRS: usize = 1 << 22;

/// The blocks a chunk of vertices' lists reach, as a few intervals that
/// cover them: a file's lists lie in two regions (long and short), each
/// in about id order, so a chunk's lists fall in two short stretches.
#[derive(Clone, Copy, Debug, Default)]
struct Reach {
    /// Increasing, disjoint, inclusive; the first `len` are used.
    spans: [(u64, u64); REACH_SPANS],
    len: usize,
}

/// Intervals a [`Reach`] keeps: past this, the two closest merge.
const REACH_SPANS: usize = 4;

impl Reach {
    /// Covers blocks `a..=b` (`a <= b`).
    #[inline]
    fn add(&mut self, a: u64, b: u64) {
        // Most lists start inside or just after an interval they extend.
        for i in 0..self.len {
            let s = &mut self.spans[i];
            if a >= s.0 && a <= s.1.saturating_add(1) {
                if b > s.1 {
                    s.1 = b;
                    if i + 1 < self.len && b.saturating_add(1) >= self.spans[i + 1].0 {
                        break;
                    }
                }
                return;
            }
        }
        let mut all = [(0u64, 0u64); REACH_SPANS + 1];
        let n = self.len;
        all[..n].copy_from_slice(&self.spans[..n]);
        all[n] = (a, b);
        let all = &mut all[..n + 1];
        all.sort_unstable();
        let mut m = 0;
        for i in 1..all.len() {
            if all[i].0 <= all[m].1.saturating_add(1) {
                all[m].1 = all[m].1.max(all[i].1);
            } else {
                m += 1;
                all[m] = all[i];
            }
        }
        let mut len = m + 1;
        if len > REACH_SPANS {
            // Merge the two intervals with the smallest gap between them.
            let i = (0..len - 1)
                .min_by_key(|&i| all[i + 1].0 - all[i].1)
                .unwrap_or(0);
            all[i].1 = all[i + 1].1;
            all.copy_within(i + 2..len, i + 1);
            len -= 1;
        }
        self.spans[..len].copy_from_slice(&all[..len]);
        self.len = len;
    }

    /// Whether any covered block is in `lo..=hi`.
    fn meets(&self, lo: u64, hi: u64) -> bool {
        self.spans[..self.len]
            .iter()
            .any(|&(a, b)| a <= hi && b >= lo)
    }
}

impl BlockMap {
    /// Builds the map of `blocks` edge blocks from `range(v)`, the first
    /// and last block of each of the `n` vertices' on-disk lists (`None`
    /// for lists in the index and empty ones), on all cores.
    ///
    /// Memory beyond the map itself is four bytes a block and at most
    /// [`WINDOW_PAIRS`] ids: pairs are counted per block, then blocks are
    /// mapped a window at a time, each visiting only the chunks of
    /// vertices whose lists reach into it (lists lie near their
    /// neighbours in id order, so a window visits few).
    pub fn build(
        n: u64,
        blocks: u64,
        range: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
    ) -> BlockMap {
        BlockMap::build_in_windows(n, blocks, range, WINDOW_PAIRS, CHUNK)
    }

    /// [`BlockMap::build`] in windows of at most `window_pairs` pairs,
    /// vertices taken `chunk_len` at a time.
    fn build_in_windows(
        n: u64,
        blocks: u64,
        range: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
        window_pairs: usize,
        chunk_len: usize,
    ) -> BlockMap {
        let nb = blocks as usize;
        let last = blocks.saturating_sub(1);
        let clip = |v: usize| {
            range(v as VertexId)
                .map(|(a, b)| (a, b.min(last)))
                .filter(|(a, b)| a <= b)
        };
        let chunks = (n as usize).div_ceil(chunk_len);
        let chunk = |c: usize| c * chunk_len..((c + 1) * chunk_len).min(n as usize);
        // Pairs per block, and the blocks each chunk of vertices reaches.
        let counts: Vec<AtomicU32> = (0..nb).map(|_| AtomicU32::new(0)).collect();
        let reach: Vec<Reach> = (0..chunks)
            .into_par_iter()
            .map(|c| {
                let mut r = Reach::default();
                for v in chunk(c) {
                    if let Some((a, b)) = clip(v) {
                        for k in a..=b {
                            counts[k as usize].fetch_add(1, Relaxed);
                        }
                        r.add(a, b);
                    }
                }
                r
            })
            .collect();
        let counts: Vec<u32> = counts.into_iter().map(AtomicU32::into_inner).collect();
        let mut e = Encoder::new(nb);
        let mut ids: Vec<AtomicU32> = Vec::new();
        let mut lo = 0;
        while lo < nb {
            // The window: blocks lo..hi, at most `window_pairs` pairs (or
            // one block).
            let mut hi = lo;
            let mut pairs = 0usize;
            while hi < nb && (hi == lo || pairs + counts[hi] as usize <= window_pairs) {
                pairs += counts[hi] as usize;
                hi += 1;
            }
            let mut starts = Vec::with_capacity(hi - lo + 1);
            starts.push(0usize);
            for k in lo..hi {
                starts.push(starts[k - lo] + counts[k] as usize);
            }
            let fill: Vec<AtomicU32> = starts[..hi - lo]
                .iter()
                .map(|&s| AtomicU32::new(s as u32))
                .collect();
            ids.resize_with(pairs, || AtomicU32::new(0));
            let (wlo, whi) = (lo as u64, hi as u64 - 1);
            (0..chunks)
                .into_par_iter()
                .filter(|&c| reach[c].meets(wlo, whi))
                .for_each(|c| {
                    for v in chunk(c) {
                        if let Some((a, b)) = clip(v) {
                            for k in a.max(wlo)..=b.min(whi) {
                                let at = fill[(k - wlo) as usize].fetch_add(1, Relaxed);
                                ids[at as usize].store(v as VertexId, Relaxed);
                            }
                        }
                    }
                });
            let mut run: Vec<VertexId> = ids.into_iter().map(AtomicU32::into_inner).collect();
            // Workers filled blocks in any order: sort each block's run.
            let mut runs = Vec::with_capacity(hi - lo);
            let mut rest = &mut run[..];
            for k in 0..hi - lo {
                let (r, tail) = rest.split_at_mut(starts[k + 1] - starts[k]);
                runs.push(r);
                rest = tail;
            }
            runs.par_iter_mut().for_each(|r| r.sort_unstable());
            for r in runs {
                r.iter().for_each(|&v| e.push(v));
                e.end_block();
            }
            ids = run.into_iter().map(AtomicU32::new).collect();
            ids.clear();
            lo = hi;
        }
        e.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Built a window at a time, in windows of any size, the map lists
        /// exactly each vertex under every block of its list, in
        /// increasing order: lists laid out in two regions in about id
        /// order (as files lay them), or anywhere.
        #[test]
        fn windows_of_any_size_build_the_same_map(
            lists in proptest::collection::vec(
                proptest::option::of((0u64..3, 0u64..4, any::<bool>(), 0u64..40)), 0..3000),
            window in 1usize..200,
            chunk_len in 1usize..300,
        ) {
            // Each vertex's list: none, or `len` blocks from about where
            // its region has reached (`back` blocks before it), or
            // anywhere (`far`).
            let mut at = [0u64, 60];
            let spans: Vec<Option<(u64, u64)>> = lists.iter().enumerate().map(|(v, l)| {
                l.map(|(back, len, short, far)| {
                    let r = &mut at[(short || v % 7 == 0) as usize];
                    let a = if far < 2 { far * 50 } else { r.saturating_sub(back) };
                    *r = (*r).max(a + len);
                    (a, a + len)
                })
            }).collect();
            let blocks = 120;
            let m = BlockMap::build_in_windows(spans.len() as u64, blocks, |v| spans[v as usize], window, chunk_len);
            let mut want = vec![Vec::new(); blocks as usize];
            for (v, s) in spans.iter().enumerate() {
                if let Some((a, b)) = *s {
                    for k in a..=b.min(blocks - 1) {
                        want[k as usize].push(v as VertexId);
                    }
                }
            }
            for (b, run) in want.iter().enumerate() {
                prop_assert_eq!(&m.vertices(b as u64).collect::<Vec<_>>(), run);
            }
            prop_assert_eq!(m.len(), want.iter().map(|r| r.len() as u64).sum::<u64>());
        }

    }
}

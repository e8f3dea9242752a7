//! Parallel loops over vertices shared by the engines: fixed chunks
//! claimed from an atomic cursor, one scoped thread per worker.

use crate::VertexId;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Vertices a worker claims at a time.
pub(super) const CHUNK: u64 = 4096;

/// Runs `f` once per item, each on its own thread (the first on the
/// calling thread), and returns the results in item order.
pub(crate) fn fan_out<W: Send, R: Send>(items: Vec<W>, f: impl Fn(W) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else {
        return Vec::new();
    };
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items.map(|w| s.spawn(move || f(w))).collect();
        let mut out = vec![f(first)];
        for h in handles {
            match h.join() {
                Ok(r) => out.push(r),
                Err(p) => std::panic::resume_unwind(p),
            }
        }
        out
    })
}

/// Runs `f` on every vertex of `0..n` with `threads` threads.
pub(crate) fn for_each_vertex(n: u64, threads: usize, f: impl Fn(VertexId) + Sync) {
    for_each_chunk(n, threads, |lo, hi| {
        for v in lo..hi {
            f(v as VertexId);
        }
    });
}

/// Runs `f(lo, hi)` on chunks of consecutive vertices covering `0..n`
/// with `threads` threads, for loops that keep something per chunk (a
/// local sum flushed once instead of a shared update per vertex).
pub(crate) fn for_each_chunk(n: u64, threads: usize, f: impl Fn(u64, u64) + Sync) {
    let cursor = AtomicUsize::new(0);
    fan_out((0..threads.max(1)).collect(), |_| loop {
        let lo = cursor.fetch_add(CHUNK as usize, Ordering::Relaxed) as u64;
        if lo >= n {
            break;
        }
        f(lo, (lo + CHUNK).min(n));
    });
}

/// The sum of `f` over `0..n`, computed in fixed chunks added in order, so
/// the result does not depend on the number of threads.
pub(crate) fn sum_f64(n: u64, threads: usize, f: impl Fn(VertexId) -> f64 + Sync) -> f64 {
    sum_f64s(n, threads, |v| [f(v)])[0]
}

/// `K` sums of `f` over `0..n` in one pass, each as [`sum_f64`] computes
/// it (fixed chunks added in order).
pub(crate) fn sum_f64s<const K: usize>(
    n: u64,
    threads: usize,
    f: impl Fn(VertexId) -> [f64; K] + Sync,
) -> [f64; K] {
    let cursor = AtomicUsize::new(0);
    let parts = fan_out((0..threads).collect(), |_| {
        let mut mine = Vec::new();
        loop {
            let lo = cursor.fetch_add(CHUNK as usize, Ordering::Relaxed) as u64;
            if lo >= n {
                break mine;
            }
            let mut acc = [0.0; K];
            for v in lo..(lo + CHUNK).min(n) {
                for (a, x) in acc.iter_mut().zip(f(v as VertexId)) {
                    *a += x;
                }
            }
            mine.push((lo, acc));
        }
    });
    let mut all: Vec<(u64, [f64; K])> = parts.into_iter().flatten().collect();
    all.sort_by_key(|p| p.0);
    all.into_iter().fold([0.0; K], |mut acc, (_, part)| {
        for (a, x) in acc.iter_mut().zip(part) {
            *a += x;
        }
        acc
    })
}

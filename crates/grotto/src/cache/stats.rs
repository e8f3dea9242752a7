//! Pool counters, striped across cache lines so the hit path of two
//! threads does not fight over one counter.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

const STRIPES: usize = 16;

#[repr(align(128))]
#[derive(Default)]
struct Cell(AtomicU64);

/// A counter made of per-thread stripes.
#[derive(Default)]
pub struct Striped {
    cells: [Cell; STRIPES],
}

fn stripe() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static MINE: usize = NEXT.fetch_add(1, Ordering::Relaxed) % STRIPES;
    }
    MINE.with(|m| *m)
}

impl Striped {
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.cells[stripe()].0.fetch_add(n, Ordering::Relaxed);
    }

    /// Current total.
    pub fn get(&self) -> u64 {
        self.cells.iter().map(|c| c.0.load(Ordering::Relaxed)).sum()
    }
}

/// The pool's live counters.
#[derive(Default)]
pub struct PoolStats {
    /// Lookups that found the block loaded.
    pub hits: Striped,
    /// Lookups that joined a read in flight.
    pub joins: Striped,
    /// Lookups that claimed a slot and must read.
    pub misses: Striped,
    /// Misses that displaced another block.
    pub evictions: Striped,
    /// Lookups that found every slot pinned or loading.
    pub full: Striped,
    /// Loads abandoned (read failed or handle dropped).
    pub failed_loads: Striped,
    /// Time spent waiting for the pool's lock, in nanoseconds.
    pub lock_wait_ns: Striped,
    /// Times the lock was taken.
    pub lock_acquisitions: Striped,
}

/// A copy of the counters.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PoolSnapshot {
    /// See [`PoolStats::hits`].
    pub hits: u64,
    /// See [`PoolStats::joins`].
    pub joins: u64,
    /// See [`PoolStats::misses`].
    pub misses: u64,
    /// See [`PoolStats::evictions`].
    pub evictions: u64,
    /// See [`PoolStats::full`].
    pub full: u64,
    /// See [`PoolStats::failed_loads`].
    pub failed_loads: u64,
    /// See [`PoolStats::lock_wait_ns`].
    pub lock_wait_ns: u64,
    /// See [`PoolStats::lock_acquisitions`].
    pub lock_acquisitions: u64,
}

impl PoolSnapshot {
    /// Hits (including joins) over all lookups.
    pub fn hit_ratio(&self) -> f64 {
        let all = self.hits + self.joins + self.misses;
        if all == 0 {
            0.0
        } else {
            (self.hits + self.joins) as f64 / all as f64
        }
    }
}

impl PoolStats {
    /// Copies the counters.
    pub fn snapshot(&self) -> PoolSnapshot {
        PoolSnapshot {
            hits: self.hits.get(),
            joins: self.joins.get(),
            misses: self.misses.get(),
            evictions: self.evictions.get(),
            full: self.full.get(),
            failed_loads: self.failed_loads.get(),
            lock_wait_ns: self.lock_wait_ns.get(),
            lock_acquisitions: self.lock_acquisitions.get(),
        }
    }
}

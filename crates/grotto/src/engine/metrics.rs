//! What every engine run reports.

use serde::Serialize;

/// Measurements of one run, filled in by the engine.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunMetrics {
    /// Engine name ("sync").
    pub engine: &'static str,
    /// Processing mode ("vertex" or "block").
    pub mode: &'static str,
    /// Reads the engine kept in flight (its concurrency).
    pub concurrency: usize,
    /// Largest merged read request, bytes.
    pub merge_bytes: usize,
    /// Worker threads.
    pub threads: usize,
    /// I/O backend ("io_uring" or "pread").
    pub backend: &'static str,
    /// Whether the buffer pool was registered with io_uring.
    pub registered_buffers: bool,
    /// Buffer pool size.
    pub cache_bytes: u64,
    /// Seconds from the start of the run (cache allocation included) to
    /// its end.
    pub wall_s: f64,
    /// Seconds inside the algorithm.
    pub algo_s: f64,
    /// Levels (steps) run.
    pub steps: u64,
    /// Vertices handed to `visit` (a list in several pieces counts once
    /// per piece).
    pub visits: u64,
    /// Neighbour entries handed to `visit`: edges traversed.
    pub traversed_edges: u64,
    /// Bytes read from the graph file.
    pub bytes_read: u64,
    /// Read requests (a merged request counts once).
    pub requests: u64,
    /// `bytes_read / traversed_edges`.
    pub bytes_per_edge: f64,
    /// Mean reads in flight from the first submission to the last
    /// completion (Little's law).
    pub mean_in_flight: f64,
    /// Seconds from the first read submitted to the last completed.
    pub io_span_s: f64,
    /// Bytes read per second over `io_span_s`.
    pub read_bytes_per_s: f64,
    /// Pool lookups served without a read (hits and joins) over all.
    pub cache_hit_ratio: f64,
    /// Pool lookups.
    pub cache_lookups: u64,
    /// Time threads waited for the pool's eviction lock, as a share of
    /// `threads x algo_s` (CAVE Fig. 6).
    pub lock_wait_share: f64,
    /// Peak resident memory of the process, bytes.
    pub peak_rss_bytes: u64,
    /// Blocks processed (async engine; a block processed again while in
    /// memory counts again).
    pub block_visits: u64,
    /// Times a block reactivated while in memory was processed again
    /// without a read (async engine).
    pub block_reuses: u64,
    /// Blocks read ahead of the wave (async engine, passes that ask for
    /// it).
    pub readahead_blocks: u64,
    /// Blocks read ahead and never activated in their pass: reads that
    /// bought nothing.
    pub readahead_wasted: u64,
    /// Width of a throughput window, milliseconds.
    pub window_ms: u64,
    /// Bytes read per window from the start of the run (the device's
    /// throughput over time).
    pub window_bytes: Vec<u64>,
    /// The request mix: `[smallest size of the class (a power of two),
    /// requests, bytes]` for every size class that was read.
    pub request_sizes: Vec<[u64; 3]>,
}

impl RunMetrics {
    /// The I/O, cache and memory fields of a run that read `io` through
    /// `cache` with `threads` threads for `algo_s` seconds.
    pub fn from_io(
        io: &crate::io::IoStats,
        cache: &crate::cache::BlockCache,
        threads: usize,
        algo_s: f64,
    ) -> RunMetrics {
        let pool = cache.pool().stats();
        let io_span_s = match (io.first_submit, io.last_complete) {
            (Some(a), Some(b)) if b > a => (b - a).as_secs_f64(),
            _ => 0.0,
        };
        RunMetrics {
            threads,
            cache_bytes: cache.pool().budget_bytes(),
            algo_s,
            bytes_read: io.bytes,
            requests: io.requests,
            mean_in_flight: io.mean_in_flight(),
            io_span_s,
            read_bytes_per_s: if io_span_s > 0.0 {
                io.bytes as f64 / io_span_s
            } else {
                0.0
            },
            cache_hit_ratio: pool.hit_ratio(),
            cache_lookups: pool.hits + pool.joins + pool.misses,
            lock_wait_share: if algo_s > 0.0 {
                pool.lock_wait_ns as f64 / 1e9 / (threads as f64 * algo_s)
            } else {
                0.0
            },
            peak_rss_bytes: crate::metrics::peak_rss_bytes().unwrap_or(0),
            window_ms: crate::io::WINDOW_MS,
            window_bytes: io.windows.clone(),
            request_sizes: io
                .sizes
                .iter()
                .enumerate()
                .filter(|(_, c)| c.0 > 0)
                .map(|(i, c)| [1u64 << i, c.0, c.1])
                .collect(),
            ..RunMetrics::default()
        }
    }
}

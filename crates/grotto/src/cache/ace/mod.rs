//! The write pool and ACE, the asymmetry- and concurrency-aware buffer
//! pool manager of the PIO/ACE thesis (`pio-ace-cave-thesis.txt`, §3-4).
//!
//! The engines' read pool ([`crate::cache::BufferPool`]) serves many
//! threads and never writes; this pool has one owner, keeps dirty pages,
//! and writes them back through the io layer. Its replacement policies
//! ([`order`]: clock, LRU, CFLRU, LRU-WSR) know which pages are dirty, and
//! ACE wraps any of them: when the page to evict is dirty, the writer
//! writes the next `n_w` dirty pages in the policy's order at once
//! (`n_w` = the device's write concurrency k_w, so the batch costs about
//! one write's latency), and the evictor evicts clean pages; with
//! prefetching it evicts `n_e` and reads up to `n_e - 1` pages along with
//! the one asked for ([`prefetch`]). See docs/ace.md.

pub mod order;
pub mod pool;
pub mod prefetch;
pub mod workload;

pub use order::{PolicyKind, WriteOrder};
pub use pool::{Ace, PoolConfig, Section, WritePool, WriteStats};
pub use workload::{Workload, WorkloadReport};

/// The PIO model's speedup of batching writes `k_w` at a time, for a mix
/// of I/Os of which a fraction `f_w` are writes, on a device where a write
/// costs `alpha` reads (the thesis's S_PIO, §3.1):
/// `(f_r + f_w * alpha) / (f_r + f_w * alpha / k_w)`.
pub fn pio_speedup(f_w: f64, alpha: f64, k_w: f64) -> f64 {
    let f_r = 1.0 - f_w;
    let k_w = k_w.max(1.0);
    (f_r + f_w * alpha) / (f_r + f_w * alpha / k_w)
}

#[cfg(test)]
mod tests {
    #[test]
    fn pio_matches_the_thesis_examples() {
        // f_r = 0.5, k_w = 8: 4.5x at alpha 8, 1.78x at alpha 1.
        assert!((super::pio_speedup(0.5, 8.0, 8.0) - 4.5).abs() < 0.01);
        assert!((super::pio_speedup(0.5, 1.0, 8.0) - 1.78).abs() < 0.01);
        assert!((super::pio_speedup(0.0, 3.0, 8.0) - 1.0).abs() < 1e-9);
    }
}

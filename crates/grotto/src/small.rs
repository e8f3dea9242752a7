//! Small work, run whole on one thread. The parallel loops inside
//! grotto hand their pieces to rayon's pool; called from a thread outside
//! it, each loop is a hand-off and a wait, which on a graph of ten
//! vertices costs more than the loop. [`one_thread`] runs such work on
//! the single worker of a pool of its own, where every loop inside runs
//! in place: one hand-off for the whole piece of work.

use std::sync::OnceLock;

/// Runs `work` on the one worker of a dedicated pool (started on first
/// use; where it cannot be started, `work` runs on the calling thread)
/// and returns what it returns. For work known to be small: nothing in
/// it runs in parallel.
pub fn one_thread<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "grotto-small".into())
            .build()
            .ok()
    });
    match pool {
        Some(p) => p.install(work),
        None => work(),
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn loops_inside_run_on_the_one_worker() {
        let (sum, threads) = super::one_thread(|| {
            let sum: u64 = (0..10_000u64).into_par_iter().sum();
            (sum, rayon::current_num_threads())
        });
        assert_eq!(sum, 49_995_000);
        assert_eq!(threads, 1);
    }
}

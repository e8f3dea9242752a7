//! The portable backend: dedicated threads doing `preadv`/`pwritev`.
//!
//! The threads are grotto's own, never rayon's, so a read that blocks in
//! the kernel never stalls compute work. One pool serves every reader of a
//! file; each reader gets its completions on its own queue.

use super::raw::{OpKind, RawBackend, RawDone, RawOp};
use std::collections::VecDeque;
use std::io;
use std::os::fd::RawFd;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

struct Job {
    fd: RawFd,
    op: RawOp,
    done: Arc<Completions>,
}

#[derive(Default)]
struct Completions {
    list: Mutex<Vec<RawDone>>,
    ready: Condvar,
}

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    shutdown: bool,
}

/// Threads shared by all pread readers of one file.
pub struct PreadPool {
    queue: Arc<(Mutex<Queue>, Condvar)>,
    threads: Mutex<Vec<std::thread::JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A worker never panics while holding these locks (it does nothing but
    // push and pop); recover the data if one somehow did.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl PreadPool {
    /// An empty pool; threads start as readers ask for depth.
    pub fn new() -> PreadPool {
        PreadPool {
            queue: Arc::new((Mutex::new(Queue::default()), Condvar::new())),
            threads: Mutex::new(Vec::new()),
        }
    }

    /// Makes sure at least `n` threads run (capped at 256).
    pub fn ensure_threads(&self, n: usize) -> io::Result<()> {
        let mut t = lock(&self.threads);
        while t.len() < n.min(256) {
            let q = Arc::clone(&self.queue);
            let h = std::thread::Builder::new()
                .name(format!("grotto-pread-{}", t.len()))
                .spawn(move || worker(&q))?;
            t.push(h);
        }
        Ok(())
    }

    /// Number of threads running.
    pub fn threads(&self) -> usize {
        lock(&self.threads).len()
    }
}

impl Default for PreadPool {
    fn default() -> Self {
        PreadPool::new()
    }
}

impl Drop for PreadPool {
    fn drop(&mut self) {
        lock(&self.queue.0).shutdown = true;
        self.queue.1.notify_all();
        for h in lock(&self.threads).drain(..) {
            let _ = h.join();
        }
    }
}

fn worker(q: &(Mutex<Queue>, Condvar)) {
    loop {
        let job = {
            let mut g = lock(&q.0);
            loop {
                if let Some(j) = g.jobs.pop_front() {
                    break j;
                }
                if g.shutdown {
                    return;
                }
                g = q.1.wait(g).unwrap_or_else(|p| p.into_inner());
            }
        };
        let op = job.op;
        let iovcnt = op.iovcnt.min(libc::c_int::MAX as u32) as libc::c_int;
        // SAFETY: the submitter lent the iovecs and their buffers until this
        // completion is delivered (RawBackend::push's contract).
        let r = unsafe {
            match op.kind {
                OpKind::Read => libc::preadv(job.fd, op.iov, iovcnt, op.offset as libc::off_t),
                OpKind::Write => libc::pwritev(job.fd, op.iov, iovcnt, op.offset as libc::off_t),
            }
        };
        let res = if r < 0 {
            -io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EIO)
        } else {
            r.min(i32::MAX as isize) as i32
        };
        lock(&job.done.list).push((op.user_data, res));
        job.done.ready.notify_one();
    }
}

/// One reader's handle on the pool.
pub struct PreadBackend {
    fd: RawFd,
    pool: Arc<PreadPool>,
    done: Arc<Completions>,
    staged: Vec<RawOp>,
}

impl PreadBackend {
    /// A handle submitting to `pool`, which gets at least `depth` threads.
    pub fn new(fd: RawFd, pool: Arc<PreadPool>, depth: usize) -> io::Result<PreadBackend> {
        pool.ensure_threads(depth)?;
        Ok(PreadBackend {
            fd,
            pool,
            done: Arc::new(Completions::default()),
            staged: Vec::new(),
        })
    }
}

impl RawBackend for PreadBackend {
    fn name(&self) -> &'static str {
        "pread"
    }

    unsafe fn push(&mut self, op: RawOp) -> io::Result<()> {
        self.staged.push(op);
        Ok(())
    }

    fn submit(&mut self) -> io::Result<()> {
        if self.staged.is_empty() {
            return Ok(());
        }
        let n = self.staged.len();
        let mut g = lock(&self.pool.queue.0);
        for op in self.staged.drain(..) {
            g.jobs.push_back(Job {
                fd: self.fd,
                op,
                done: Arc::clone(&self.done),
            });
        }
        drop(g);
        // Wake one thread per job: waking all of them for every request
        // (a thundering herd on few cores) cut 4 KiB IOPS fivefold.
        for _ in 0..n {
            self.pool.queue.1.notify_one();
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<RawDone>, min: usize) -> io::Result<()> {
        self.submit()?;
        let mut g = lock(&self.done.list);
        let mut got = 0;
        loop {
            got += g.len();
            out.append(&mut g);
            if got >= min {
                return Ok(());
            }
            g = self.done.ready.wait(g).unwrap_or_else(|p| p.into_inner());
        }
    }
}

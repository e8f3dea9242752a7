//! The reader the engines use: submit batches, reap without blocking, know
//! what is in flight. It owns the recovery logic every backend shares:
//! resubmitting after EINTR/EAGAIN, continuing short transfers, naming the
//! end of a truncated file, and turning errno values into errors that carry
//! the path and the byte range.

use super::aligned::AlignedBuf;
use super::raw::{OpKind, RawBackend, RawDone, RawOp};
use super::IoFile;
use crate::error::{Error, Result};
use std::sync::Arc;
use std::time::Instant;

/// A caller-owned buffer lent to the reader for one operation.
#[derive(Clone, Copy, Debug)]
pub struct IoBuf {
    /// Start of the buffer (aligned for direct I/O).
    pub ptr: *mut u8,
    /// Length in bytes (a multiple of the alignment for direct I/O).
    pub len: usize,
}

/// A finished operation.
#[derive(Debug)]
pub struct Done {
    /// The tag given at submission.
    pub tag: u64,
    /// File offset of the operation.
    pub offset: u64,
    /// Bytes requested.
    pub len: usize,
    /// `Ok` when every byte was transferred.
    pub result: Result<()>,
}

/// Counters of one reader.
#[derive(Clone, Debug, Default)]
pub struct IoStats {
    /// Operations submitted by the caller (retries not counted).
    pub requests: u64,
    /// Bytes transferred by operations that succeeded.
    pub bytes: u64,
    /// Resubmissions after EINTR/EAGAIN or a short transfer.
    pub retries: u64,
    /// Sum over operations of submit-to-completion time, in nanoseconds.
    pub latency_ns: u128,
    /// Largest number in flight at once.
    pub max_in_flight: usize,
    /// First submission.
    pub first_submit: Option<Instant>,
    /// Last completion.
    pub last_complete: Option<Instant>,
    /// Start of the throughput timeline (see [`Reader::set_epoch`]).
    pub epoch: Option<Instant>,
    /// Bytes completed in each [`WINDOW_MS`] window after `epoch`; empty
    /// when no epoch was set.
    pub windows: Vec<u64>,
    /// Successful operations by size: entry `i` counts those of
    /// `2^i <= bytes < 2^(i+1)` as (operations, bytes). With the device
    /// profile it gives the throughput to expect for the request mix.
    pub sizes: [(u64, u64); SIZE_CLASSES],
}

/// Size classes of [`IoStats::sizes`] (powers of two up to 2^31 bytes).
pub const SIZE_CLASSES: usize = 32;

/// Width of a throughput window, milliseconds (ACGraph's Fig. 3 uses 50).
pub const WINDOW_MS: u64 = 50;

impl IoStats {
    /// Mean operations in flight between the first submission and the last
    /// completion (Little's law: total latency over elapsed time).
    pub fn mean_in_flight(&self) -> f64 {
        match (self.first_submit, self.last_complete) {
            (Some(a), Some(b)) if b > a => self.latency_ns as f64 / (b - a).as_nanos() as f64,
            _ => 0.0,
        }
    }

    /// Adds another reader's counters.
    pub fn merge(&mut self, o: &IoStats) {
        self.requests += o.requests;
        self.bytes += o.bytes;
        self.retries += o.retries;
        self.latency_ns += o.latency_ns;
        self.max_in_flight = self.max_in_flight.max(o.max_in_flight);
        self.first_submit = match (self.first_submit, o.first_submit) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.last_complete = self.last_complete.max(o.last_complete);
        self.epoch = self.epoch.or(o.epoch);
        if self.windows.len() < o.windows.len() {
            self.windows.resize(o.windows.len(), 0);
        }
        for (a, b) in self.windows.iter_mut().zip(&o.windows) {
            *a += b;
        }
        for (a, b) in self.sizes.iter_mut().zip(&o.sizes) {
            a.0 += b.0;
            a.1 += b.1;
        }
    }
}

struct Pending {
    tag: u64,
    kind: OpKind,
    offset: u64,
    total: usize,
    done: usize,
    iov: Box<[libc::iovec]>,
    first: usize,
    fixed: Option<u16>,
    retries: u32,
    started: Instant,
}

/// Most resubmissions of one operation that make no progress before the
/// reader gives up on it.
const MAX_RETRIES: u32 = 1000;

/// Windows recorded at most (about 14 hours of 50 ms windows).
const MAX_WINDOWS: usize = 1 << 20;

/// A per-thread handle issuing reads (and writes) on one [`IoFile`].
pub struct Reader {
    file: Arc<IoFile>,
    backend: Box<dyn RawBackend>,
    ops: Vec<Option<Pending>>,
    free: Vec<usize>,
    depth: usize,
    in_flight: usize,
    raw: Vec<RawDone>,
    stats: IoStats,
    arena: Option<Arc<AlignedBuf>>,
    registered: bool,
    batch: usize,
    unflushed: usize,
}

/// Default for [`Reader::set_submit_batch`]: hand every request to the
/// device at once. Measured on a virtio SSD at depth 32, batching refills
/// until a whole group of completions is processed made requests arrive in
/// bursts and cost 10-20% of IOPS against fio, which submits each request
/// as soon as it is ready; one system call per request is cheaper than that.
pub const DEFAULT_SUBMIT_BATCH: usize = 1;

// SAFETY: the iovecs in `ops` point into buffers lent under `submit`'s
// contract; the reader moves between threads as a whole.
unsafe impl Send for Reader {}

impl Reader {
    pub(super) fn new(
        file: Arc<IoFile>,
        backend: Box<dyn RawBackend>,
        depth: usize,
        arena: Option<Arc<AlignedBuf>>,
        registered: bool,
    ) -> Reader {
        Reader {
            file,
            backend,
            ops: Vec::new(),
            free: Vec::new(),
            depth,
            in_flight: 0,
            raw: Vec::new(),
            stats: IoStats::default(),
            arena,
            registered,
            batch: DEFAULT_SUBMIT_BATCH,
            unflushed: 0,
        }
    }

    /// Requests queued before they are handed to the device without an
    /// explicit [`Reader::flush`] (default [`DEFAULT_SUBMIT_BATCH`]).
    /// Larger batches save system calls, smaller ones keep the device's
    /// queue steadier.
    pub fn set_submit_batch(&mut self, batch: usize) {
        self.batch = batch.max(1);
    }

    /// The backend in use ("io_uring" or "pread").
    pub fn backend(&self) -> &'static str {
        self.backend.name()
    }

    /// Whether the arena given at creation is registered with the kernel.
    pub fn registered_buffers(&self) -> bool {
        self.registered
    }

    /// Most operations in flight at once.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Operations submitted and not yet returned by `reap`/`wait`.
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// How many more operations can be submitted now.
    pub fn room(&self) -> usize {
        self.depth - self.in_flight
    }

    /// Starts recording completed bytes per [`WINDOW_MS`] window from
    /// `epoch` (shared by all readers of a run, so their timelines add up).
    pub fn set_epoch(&mut self, epoch: Instant) {
        self.stats.epoch = Some(epoch);
    }

    /// Counters so far.
    pub fn stats(&self) -> &IoStats {
        &self.stats
    }

    /// The file this reader works on.
    pub fn file(&self) -> &Arc<IoFile> {
        &self.file
    }

    /// Queues a read of `bufs` (filled in order) from byte `offset`. It
    /// reaches the device at the next [`Reader::flush`], `reap` or `wait`.
    ///
    /// # Safety
    /// Every buffer must stay valid, and must not be read or written by
    /// anyone, until the [`Done`] with this `tag` has been returned.
    pub unsafe fn read(&mut self, offset: u64, bufs: &[IoBuf], tag: u64) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.queue(OpKind::Read, offset, bufs, tag) }
    }

    /// Queues a write of `bufs` at byte `offset`; see [`Reader::read`].
    ///
    /// # Safety
    /// As for [`Reader::read`].
    pub unsafe fn write(&mut self, offset: u64, bufs: &[IoBuf], tag: u64) -> Result<()> {
        // SAFETY: forwarded contract.
        unsafe { self.queue(OpKind::Write, offset, bufs, tag) }
    }

    unsafe fn queue(&mut self, kind: OpKind, offset: u64, bufs: &[IoBuf], tag: u64) -> Result<()> {
        if self.in_flight >= self.depth {
            return Err(Error::Invalid(format!(
                "{}: {} operations already in flight (depth {})",
                self.file.path().display(),
                self.in_flight,
                self.depth
            )));
        }
        if bufs.is_empty() || bufs.len() > 1024 {
            return Err(Error::Invalid(format!(
                "an I/O request needs 1 to 1024 buffers, got {}",
                bufs.len()
            )));
        }
        let align = if self.file.direct() {
            self.file.align()
        } else {
            1
        };
        let total: usize = bufs.iter().map(|b| b.len).sum();
        let misaligned = !offset.is_multiple_of(align as u64)
            || bufs.iter().any(|b| {
                !(b.ptr as usize).is_multiple_of(align) || b.len % align != 0 || b.len == 0
            });
        if misaligned || total > i32::MAX as usize {
            return Err(Error::Invalid(format!(
                "{}: request of {total} bytes at byte {offset} is not aligned to {align} bytes for direct I/O",
                self.file.path().display()
            )));
        }
        let fixed = match (&self.arena, bufs) {
            (Some(a), [one]) if self.registered => {
                let base = a.as_ptr() as usize;
                let p = one.ptr as usize;
                let chunk = super::uring::REGISTER_CHUNK;
                if p >= base
                    && p + one.len <= base + a.len()
                    && (p - base) / chunk == (p + one.len - 1 - base) / chunk
                {
                    Some(((p - base) / chunk) as u16)
                } else {
                    None
                }
            }
            _ => None,
        };
        let iov: Box<[libc::iovec]> = bufs
            .iter()
            .map(|b| libc::iovec {
                iov_base: b.ptr.cast(),
                iov_len: b.len,
            })
            .collect();
        let p = Pending {
            tag,
            kind,
            offset,
            total,
            done: 0,
            iov,
            first: 0,
            fixed,
            retries: 0,
            started: Instant::now(),
        };
        let idx = match self.free.pop() {
            Some(i) => {
                self.ops[i] = Some(p);
                i
            }
            None => {
                self.ops.push(Some(p));
                self.ops.len() - 1
            }
        };
        if let Err(e) = self.push_op(idx) {
            // The backend never saw it: take it back.
            self.ops[idx] = None;
            self.free.push(idx);
            return Err(e);
        }
        self.in_flight += 1;
        self.stats.requests += 1;
        self.stats.max_in_flight = self.stats.max_in_flight.max(self.in_flight);
        if self.stats.first_submit.is_none() {
            self.stats.first_submit = Some(Instant::now());
        }
        self.unflushed += 1;
        if self.unflushed >= self.batch {
            self.flush()?;
        }
        Ok(())
    }

    fn push_op(&mut self, idx: usize) -> Result<()> {
        let Some(p) = self.ops[idx].as_ref() else {
            return Ok(());
        };
        let n = p.iov.len() - p.first;
        let op = RawOp {
            kind: p.kind,
            offset: p.offset + p.done as u64,
            iov: p.iov[p.first..].as_ptr(),
            iovcnt: n as u32,
            fixed: if n == 1 { p.fixed } else { None },
            user_data: idx as u64,
        };
        // SAFETY: the iovec array lives in `self.ops[idx]` (a Box, stable)
        // until the completion is handled, and its buffers are lent under
        // the contract of `read`/`write`.
        unsafe { self.backend.push(op) }
            .map_err(|e| Error::io(self.file.path(), "submit an I/O request", e))
    }

    /// Hands queued operations to the device.
    pub fn flush(&mut self) -> Result<()> {
        self.unflushed = 0;
        self.backend
            .submit()
            .map_err(|e| Error::io(self.file.path(), "submit I/O requests", e))
    }

    /// Appends finished operations to `out` without blocking; returns how
    /// many were appended.
    pub fn reap(&mut self, out: &mut Vec<Done>) -> Result<usize> {
        self.collect(out, 0)
    }

    /// Appends finished operations to `out`, blocking until at least `min`
    /// (capped at the number in flight) are there; returns how many.
    pub fn wait(&mut self, out: &mut Vec<Done>, min: usize) -> Result<usize> {
        self.collect(out, min)
    }

    fn collect(&mut self, out: &mut Vec<Done>, min: usize) -> Result<usize> {
        let min = min.min(self.in_flight);
        self.unflushed = 0; // the backend submits queued requests when reaping
        let mut got = 0;
        loop {
            let want = usize::from(got < min);
            self.raw.clear();
            let mut raw = std::mem::take(&mut self.raw);
            let r = self.backend.reap(&mut raw, want);
            let mut resubmitted = false;
            for &(ud, res) in &raw {
                match self.complete(ud as usize, res) {
                    Some(d) => {
                        out.push(d);
                        got += 1;
                    }
                    None => resubmitted = true,
                }
            }
            self.raw = raw;
            r.map_err(|e| Error::io(self.file.path(), "reap I/O completions", e))?;
            if resubmitted {
                self.flush()?;
            }
            if got >= min || self.in_flight == 0 {
                return Ok(got);
            }
        }
    }

    /// Handles one raw completion; `None` when the operation went back to
    /// the device.
    fn complete(&mut self, idx: usize, res: i32) -> Option<Done> {
        let align = if self.file.direct() {
            self.file.align()
        } else {
            1
        };
        let p = self.ops.get_mut(idx)?.as_mut()?;
        let verb = match p.kind {
            OpKind::Read => "read",
            OpKind::Write => "write",
        };
        let outcome: Option<Result<()>> = if res > 0 {
            let n = res as usize;
            if p.done + n >= p.total {
                Some(Ok(()))
            } else {
                let adv = n - n % align;
                if adv == 0 {
                    p.retries += 1;
                } else {
                    p.retries = 0;
                    advance(p, adv);
                }
                (p.retries > MAX_RETRIES).then(|| {
                    Err(Error::io(
                        self.file.path(),
                        format!("{verb} {} bytes at byte {}", p.total, p.offset),
                        std::io::Error::other("no progress after repeated short transfers"),
                    ))
                })
            }
        } else if res == 0 {
            Some(Err(if p.kind == OpKind::Read {
                Error::Truncated {
                    path: self.file.path().to_path_buf(),
                    what: format!(
                        "read of {} bytes at byte {} reaches past the end of the file, which ends at byte {}",
                        p.total,
                        p.offset,
                        p.offset + p.done as u64
                    ),
                }
            } else {
                Error::io(
                    self.file.path(),
                    format!("write {} bytes at byte {}", p.total, p.offset),
                    std::io::Error::other("device accepted no bytes"),
                )
            }))
        } else if matches!(-res, libc::EINTR | libc::EAGAIN) && p.retries < MAX_RETRIES {
            p.retries += 1;
            None
        } else {
            Some(Err(Error::io(
                self.file.path(),
                format!("{verb} {} bytes at byte {}", p.total, p.offset),
                std::io::Error::from_raw_os_error(-res),
            )))
        };
        match outcome {
            None => {
                self.stats.retries += 1;
                if let Err(e) = self.push_op(idx) {
                    return self.finish(idx, Err(e));
                }
                None
            }
            Some(r) => self.finish(idx, r),
        }
    }

    fn finish(&mut self, idx: usize, result: Result<()>) -> Option<Done> {
        let p = self.ops.get_mut(idx)?.take()?;
        self.free.push(idx);
        self.in_flight -= 1;
        let now = Instant::now();
        self.stats.latency_ns += (now - p.started).as_nanos();
        self.stats.last_complete = Some(now);
        if result.is_ok() {
            self.stats.bytes += p.total as u64;
            let class = (usize::BITS - 1 - p.total.max(1).leading_zeros()) as usize;
            let c = &mut self.stats.sizes[class.min(SIZE_CLASSES - 1)];
            c.0 += 1;
            c.1 += p.total as u64;
            if let Some(e) = self.stats.epoch {
                let w = (now.saturating_duration_since(e).as_millis() as u64 / WINDOW_MS) as usize;
                if w < MAX_WINDOWS {
                    if self.stats.windows.len() <= w {
                        self.stats.windows.resize(w + 1, 0);
                    }
                    self.stats.windows[w] += p.total as u64;
                }
            }
        }
        Some(Done {
            tag: p.tag,
            offset: p.offset,
            len: p.total,
            result,
        })
    }
}

/// Moves the pending operation's window forward by `n` transferred bytes.
fn advance(p: &mut Pending, mut n: usize) {
    p.done += n;
    while n > 0 && p.first < p.iov.len() {
        let v = &mut p.iov[p.first];
        if n >= v.iov_len {
            n -= v.iov_len;
            p.first += 1;
        } else {
            // SAFETY: n < iov_len, so the new base stays inside the buffer.
            v.iov_base = unsafe { v.iov_base.cast::<u8>().add(n) }.cast();
            v.iov_len -= n;
            n = 0;
        }
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // Buffers lent to the kernel must not be freed under it: wait for
        // every operation still in flight.
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            sink.clear();
            if self.wait(&mut sink, 1).is_err() {
                // The backend broke; the kernel may still own the memory, so
                // leak it rather than risk a write into freed memory.
                if let Some(a) = self.arena.take() {
                    std::mem::forget(a);
                }
                break;
            }
        }
    }
}

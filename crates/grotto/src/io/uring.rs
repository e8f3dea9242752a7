//! The io_uring backend: one ring per reader (rings are not shared between
//! threads), the file registered as a fixed file, the caller's buffer
//! arena registered when the locked-memory limit allows.

use super::raw::{OpKind, RawBackend, RawDone, RawOp};
use io_uring::{opcode, squeue, types, IoUring};
use std::io;
use std::os::fd::RawFd;

/// Largest single registered buffer the kernel accepts.
pub(crate) const REGISTER_CHUNK: usize = 1 << 30;

/// An io_uring instance bound to one file.
pub struct UringBackend {
    ring: IoUring,
    queued: usize,
    /// Whether `register_buffers` succeeded (ReadFixed may be used).
    pub registered: bool,
}

impl UringBackend {
    /// A ring with room for `depth` operations in flight. The completion
    /// queue is twice the submission queue and the reader never has more
    /// than `depth` in flight, so it cannot overflow.
    pub fn new(
        fd: RawFd,
        depth: usize,
        arena: Option<(*mut u8, usize)>,
    ) -> io::Result<UringBackend> {
        let entries = depth.clamp(1, 4096).next_power_of_two() as u32;
        let ring = IoUring::builder()
            .setup_cqsize(entries * 2)
            .build(entries)?;
        ring.submitter().register_files(&[fd])?;
        let mut registered = false;
        if let Some((base, len)) = arena {
            let iovs: Vec<libc::iovec> = (0..len.div_ceil(REGISTER_CHUNK))
                .map(|i| libc::iovec {
                    // SAFETY: stays inside the arena of `len` bytes.
                    iov_base: unsafe { base.add(i * REGISTER_CHUNK) }.cast(),
                    iov_len: (len - i * REGISTER_CHUNK).min(REGISTER_CHUNK),
                })
                .collect();
            // SAFETY: the arena outlives the reader that owns this ring (the
            // reader holds it alive), and registration only pins its pages.
            // Failure (ENOMEM from RLIMIT_MEMLOCK) leaves the ring usable
            // with unregistered buffers.
            registered = iovs.len() <= u16::MAX as usize
                && unsafe { ring.submitter().register_buffers(&iovs) }.is_ok();
        }
        Ok(UringBackend {
            ring,
            queued: 0,
            registered,
        })
    }

    /// The submission entry for `op`.
    ///
    /// # Safety
    ///
    /// `op.iov` must point to `op.iovcnt` valid iovecs (what
    /// [`RawBackend::push`]'s contract guarantees); single-iovec ops are
    /// read through that pointer here.
    unsafe fn entry(op: &RawOp) -> squeue::Entry {
        let fd = types::Fixed(0);
        let e = match (op.kind, op.iovcnt, op.fixed) {
            (OpKind::Read, 1, Some(idx)) => {
                // SAFETY: in this arm iovcnt is 1, and the caller
                // guarantees `op.iov` points to that one valid iovec.
                let v = unsafe { *op.iov };
                opcode::ReadFixed::new(fd, v.iov_base.cast(), v.iov_len as u32, idx)
                    .offset(op.offset)
                    .build()
            }
            (OpKind::Read, 1, None) => {
                // SAFETY: in this arm iovcnt is 1, and the caller
                // guarantees `op.iov` points to that one valid iovec.
                let v = unsafe { *op.iov };
                opcode::Read::new(fd, v.iov_base.cast(), v.iov_len as u32)
                    .offset(op.offset)
                    .build()
            }
            (OpKind::Read, n, _) => opcode::Readv::new(fd, op.iov, n).offset(op.offset).build(),
            (OpKind::Write, 1, Some(idx)) => {
                // SAFETY: in this arm iovcnt is 1, and the caller
                // guarantees `op.iov` points to that one valid iovec.
                let v = unsafe { *op.iov };
                opcode::WriteFixed::new(fd, v.iov_base.cast(), v.iov_len as u32, idx)
                    .offset(op.offset)
                    .build()
            }
            (OpKind::Write, 1, None) => {
                // SAFETY: in this arm iovcnt is 1, and the caller
                // guarantees `op.iov` points to that one valid iovec.
                let v = unsafe { *op.iov };
                opcode::Write::new(fd, v.iov_base.cast(), v.iov_len as u32)
                    .offset(op.offset)
                    .build()
            }
            (OpKind::Write, n, _) => opcode::Writev::new(fd, op.iov, n).offset(op.offset).build(),
        };
        e.user_data(op.user_data)
    }

    fn submit_retrying(&mut self, want: usize) -> io::Result<()> {
        loop {
            let r = if want > 0 {
                self.ring.submit_and_wait(want)
            } else {
                self.ring.submit()
            };
            match r {
                Ok(_) => {
                    self.queued = self.ring.submission().len();
                    return Ok(());
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                // EAGAIN / EBUSY: the kernel wants completions reaped first;
                // the caller reaps and the entries stay queued (their
                // buffers stay lent) until a later submit takes them.
                Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN) | Some(libc::EBUSY)) => {
                    self.queued = self.ring.submission().len();
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl RawBackend for UringBackend {
    fn name(&self) -> &'static str {
        "io_uring"
    }

    unsafe fn push(&mut self, op: RawOp) -> io::Result<()> {
        // SAFETY: push's own contract is entry's: the op's iovecs are valid.
        let e = unsafe { Self::entry(&op) };
        loop {
            // SAFETY: the caller keeps the op's memory valid until its
            // completion is reaped (the trait's contract).
            if unsafe { self.ring.submission().push(&e) }.is_ok() {
                self.queued += 1;
                return Ok(());
            }
            self.submit_retrying(0)?;
        }
    }

    fn submit(&mut self) -> io::Result<()> {
        if self.queued > 0 {
            self.submit_retrying(0)?;
        }
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<RawDone>, min: usize) -> io::Result<()> {
        let mut got = 0;
        loop {
            for cqe in self.ring.completion() {
                out.push((cqe.user_data(), cqe.result()));
                got += 1;
            }
            if got >= min {
                if self.queued > 0 {
                    self.submit_retrying(0)?;
                }
                return Ok(());
            }
            self.submit_retrying(1)?;
        }
    }
}

/// Why io_uring cannot be used here, or `Ok` when it can.
pub fn probe() -> Result<(), (i32, String)> {
    if let Ok(v) = std::env::var("GROTTO_SIMULATE_NO_URING") {
        let errno = match v.as_str() {
            "EPERM" => libc::EPERM,
            "ENOMEM" => libc::ENOMEM,
            _ => libc::ENOSYS,
        };
        return Err((
            errno,
            explain(errno, " (simulated by GROTTO_SIMULATE_NO_URING)"),
        ));
    }
    match IoUring::new(2) {
        Ok(ring) => {
            let mut p = io_uring::Probe::new();
            if ring.submitter().register_probe(&mut p).is_ok()
                && !(p.is_supported(opcode::Read::CODE) && p.is_supported(opcode::Readv::CODE))
            {
                return Err((
                    libc::EINVAL,
                    "the kernel's io_uring lacks the READ/READV operations (kernel older than 5.6)"
                        .into(),
                ));
            }
            Ok(())
        }
        Err(e) => {
            let errno = e.raw_os_error().unwrap_or(0);
            Err((errno, explain(errno, "")))
        }
    }
}

fn explain(errno: i32, suffix: &str) -> String {
    let why = match errno {
        libc::ENOSYS => "io_uring_setup returned ENOSYS: the kernel lacks io_uring or a seccomp filter (container runtime) blocks it",
        libc::EPERM => "io_uring_setup returned EPERM: io_uring is disabled by the sysctl kernel.io_uring_disabled or by policy",
        libc::ENOMEM => "io_uring_setup returned ENOMEM: the locked-memory limit (ulimit -l) is too small for a ring",
        _ => "io_uring_setup failed",
    };
    if matches!(errno, libc::ENOSYS | libc::EPERM | libc::ENOMEM) {
        format!("{why}{suffix}")
    } else {
        format!("{why}: {}{suffix}", io::Error::from_raw_os_error(errno))
    }
}

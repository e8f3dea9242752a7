//! The system-call side of the io layer: backends that move bytes between
//! a file and caller-owned buffers, and report raw kernel-style results.
//!
//! Backends know nothing of retries, short reads or graph blocks; the
//! [`Reader`](super::Reader) above them does. That split lets the fault
//! injector sit between the two and exercise the same recovery code for
//! every backend.

use std::io;

/// Read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// Fill the buffers from the file.
    Read,
    /// Write the buffers to the file.
    Write,
}

/// One operation as a backend sees it. The iovec array and the memory it
/// points to stay valid, and untouched by anyone else, until the backend
/// reports the completion carrying `user_data`.
#[derive(Clone, Copy, Debug)]
pub struct RawOp {
    /// Read or write.
    pub kind: OpKind,
    /// Byte offset in the file.
    pub offset: u64,
    /// Start of the iovec array.
    pub iov: *const libc::iovec,
    /// Number of iovecs (at least 1).
    pub iovcnt: u32,
    /// Index of the registered buffer holding the single iovec, if any.
    pub fixed: Option<u16>,
    /// Returned with the completion.
    pub user_data: u64,
}

// SAFETY: RawOp only carries addresses; the contract on `submit` (memory
// valid and exclusively lent until completion) is what makes using them on
// another thread sound.
unsafe impl Send for RawOp {}

/// A completion: `user_data` and the result as the kernel gives it (bytes
/// transferred, or a negated errno).
pub type RawDone = (u64, i32);

/// A way of performing reads and writes on one open file.
pub trait RawBackend: Send {
    /// Short name for reports ("io_uring", "pread").
    fn name(&self) -> &'static str;

    /// Queues `op`; it reaches the device at the latest at the next
    /// [`RawBackend::submit`] or [`RawBackend::reap`].
    ///
    /// # Safety
    /// The iovec array and every buffer it names must stay valid and not be
    /// accessed by anyone else until the completion for `op.user_data` has
    /// been returned by `reap`.
    unsafe fn push(&mut self, op: RawOp) -> io::Result<()>;

    /// Hands queued operations to the device.
    fn submit(&mut self) -> io::Result<()>;

    /// Appends completed operations to `out`, waiting until at least
    /// `min` have completed in this call (0: never wait).
    fn reap(&mut self, out: &mut Vec<RawDone>, min: usize) -> io::Result<()>;
}

//! The no-I/O backend: the whole file is read into memory when it is
//! opened and every request is served by copying from that image.
//!
//! It exists to measure what the device costs: a run with `--io memory`
//! goes through the same readers, buffer pool, checksums and engine code
//! as one on the device, minus the device (the issue's "in-memory CSR run
//! of the same code path"). Read-only.

use super::raw::{OpKind, RawBackend, RawDone, RawOp};
use std::io;
use std::sync::Arc;

/// A reader's view of the file image.
pub struct MemoryBackend {
    image: Arc<Vec<u8>>,
    done: Vec<RawDone>,
}

impl MemoryBackend {
    /// A backend serving reads from `image`.
    pub fn new(image: Arc<Vec<u8>>) -> MemoryBackend {
        MemoryBackend {
            image,
            done: Vec::new(),
        }
    }
}

impl RawBackend for MemoryBackend {
    fn name(&self) -> &'static str {
        "memory"
    }

    unsafe fn push(&mut self, op: RawOp) -> io::Result<()> {
        if op.kind == OpKind::Write {
            self.done.push((op.user_data, -libc::EROFS));
            return Ok(());
        }
        // SAFETY: the caller lends `op.iovcnt` iovecs at `op.iov`, valid
        // and untouched by anyone else until the completion is reaped.
        let iov = unsafe { std::slice::from_raw_parts(op.iov, op.iovcnt as usize) };
        let mut at = usize::try_from(op.offset).unwrap_or(usize::MAX);
        let mut moved = 0usize;
        for v in iov {
            let from = at.min(self.image.len());
            let n = v.iov_len.min(self.image.len() - from);
            // SAFETY: `v` names `iov_len` writable bytes lent to this
            // operation (the contract of `push`); `n <= iov_len`, and the
            // source range lies inside the image, which cannot overlap
            // a caller's buffer.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.image.as_ptr().add(from),
                    v.iov_base.cast::<u8>(),
                    n,
                )
            };
            moved += n;
            at = at.saturating_add(n);
            if n < v.iov_len {
                break; // end of file: a short read, as pread gives
            }
        }
        self.done
            .push((op.user_data, i32::try_from(moved).unwrap_or(i32::MAX)));
        Ok(())
    }

    fn submit(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn reap(&mut self, out: &mut Vec<RawDone>, _min: usize) -> io::Result<()> {
        // Every pushed operation has completed already.
        out.append(&mut self.done);
        Ok(())
    }
}

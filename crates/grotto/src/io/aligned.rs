//! Heap memory aligned for direct I/O.
//!
//! O_DIRECT needs buffers whose address and length are multiples of the
//! device's direct-I/O alignment; `Vec<u8>` gives no such promise, so the
//! buffers that reach the kernel are allocated here.

use crate::error::{Error, Result};
use std::alloc::{alloc, dealloc, Layout};
use std::ptr::NonNull;

/// A zero-initialised, fixed-size byte buffer aligned to `align` bytes.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: the buffer is plain owned memory with no thread affinity.
unsafe impl Send for AlignedBuf {}
// SAFETY: shared references only give `&[u8]`; mutation needs `&mut self`
// or goes through raw pointers whose users carry their own contracts.
unsafe impl Sync for AlignedBuf {}

impl AlignedBuf {
    /// Allocates `len` zeroed bytes aligned to `align` (a power of two).
    /// `len` is rounded up to a multiple of `align`. Every page is
    /// backed with memory now, with huge pages requested where the buffer
    /// spans them ([`super::huge`]), so a run pays no page fault at the
    /// first touch of each buffer (a pool as large as the graph would
    /// take one per 4 KiB inside the algorithm's time): MADV_POPULATE_WRITE
    /// backs them in one call where the kernel has it, and the zeroing
    /// writes every page in any case. (Zeroing first, as an allocator's
    /// zeroed allocation of this alignment does, would fault each 4 KiB
    /// page in before the huge pages were asked for.)
    pub fn new(len: usize, align: usize) -> Result<AlignedBuf> {
        let align = align.max(1);
        let len = len.max(1).div_ceil(align) * align;
        let layout = Layout::from_size_align(len, align).map_err(|e| {
            Error::Invalid(format!("buffer of {len} bytes aligned to {align}: {e}"))
        })?;
        // SAFETY: the layout has a non-zero size (len >= align >= 1).
        let raw = unsafe { alloc(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| Error::Limit {
            what: format!("cannot allocate {len} bytes of I/O buffers"),
        })?;
        super::huge::advise_range(raw, len);
        // SAFETY: the range is exactly this allocation, owned here; a
        // failure (an older kernel) only leaves the pages to the writes
        // below.
        unsafe {
            libc::madvise(raw.cast(), len, libc::MADV_POPULATE_WRITE);
        }
        // SAFETY: `raw` is valid for `len` bytes and nothing else refers
        // to it yet.
        unsafe { std::ptr::write_bytes(raw, 0, len) };
        Ok(AlignedBuf { ptr, layout })
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.layout.size()
    }

    /// Always false: buffers have at least one alignment unit.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Start of the buffer, for handing to the kernel.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes, initialised (zeroed), and
        // borrowed immutably for the life of &self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len()) }
    }

    /// The bytes, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, with exclusive access through &mut self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len()) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_and_zeroed() {
        let mut b = AlignedBuf::new(5000, 4096).unwrap();
        assert_eq!(b.len(), 8192);
        assert_eq!(b.as_ptr() as usize % 4096, 0);
        assert!(b.as_slice().iter().all(|&x| x == 0));
        b.as_mut_slice()[8191] = 7;
        assert_eq!(b.as_slice()[8191], 7);
    }
}

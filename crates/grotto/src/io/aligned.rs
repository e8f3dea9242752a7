//! Heap memory aligned for direct I/O.
//!
//! O_DIRECT needs buffers whose address and length are multiples of the
//! device's direct-I/O alignment; `Vec<u8>` gives no such promise, so the
//! buffers that reach the kernel are allocated here.

use crate::error::{Error, Result};
use std::alloc::{alloc_zeroed, dealloc, Layout};
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
    /// `len` is rounded up to a multiple of `align`.
    pub fn new(len: usize, align: usize) -> Result<AlignedBuf> {
        let align = align.max(1);
        let len = len.max(1).div_ceil(align) * align;
        let layout = Layout::from_size_align(len, align).map_err(|e| {
            Error::Invalid(format!("buffer of {len} bytes aligned to {align}: {e}"))
        })?;
        // SAFETY: the layout has a non-zero size (len >= align >= 1).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or_else(|| Error::Limit {
            what: format!("cannot allocate {len} bytes of I/O buffers"),
        })?;
        Ok(AlignedBuf { ptr, layout })
    }

    /// Backs every page with memory now, so a run does not pay a page
    /// fault at the first touch of each buffer (a pool as large as the
    /// graph would take one per 4 KiB inside the algorithm's time).
    /// Uses MADV_POPULATE_WRITE, or a write per page where the kernel
    /// lacks it. Call before any buffer is lent out.
    pub fn populate(&mut self) {
        // SAFETY: the range is exactly this allocation, owned by `self`.
        let r = unsafe {
            libc::madvise(
                self.ptr.as_ptr().cast(),
                self.len(),
                libc::MADV_POPULATE_WRITE,
            )
        };
        if r != 0 {
            for b in self.as_mut_slice().iter_mut().step_by(4096) {
                // The buffer is zeroed: writing a zero only maps the page.
                // SAFETY: `b` is a valid exclusive reference.
                unsafe { std::ptr::write_volatile(b, 0) };
            }
        }
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

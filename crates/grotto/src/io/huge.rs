//! Transparent huge pages for the large arrays grotto fills itself: the
//! buffer pool and the engines' per-vertex state.
//!
//! The first touch of each 4 KiB page costs a page fault; on the virtual
//! machines this was measured on, about 2 us each, so 100 MB of fresh
//! state took 50 ms of faults (and a page first read, mapping the shared
//! zero page, and then written costs a second fault and a TLB shootdown
//! across threads). A 2 MiB page takes one fault for 512 of them: about
//! 0.3 us per 4 KiB, zeroing included. Where the kernel offers
//! transparent huge pages only on request (`madvise` mode, the usual
//! default), these helpers request them for the 2 MiB-aligned part of an
//! allocation. Where it offers none, or always, nothing changes: the
//! advice is a hint and its failure is ignored.
//!
//! Where free memory is fragmented, a huge page fault may first compact
//! memory (the kernel's `defrag` setting decides), which an earlier
//! experiment saw cost 50-150 ms. `GROTTO_HUGE_PAGES=off` in the
//! environment turns the requests off.

use bytemuck::Zeroable;

/// The huge page size asked for.
pub const HUGE_PAGE: usize = 2 << 20;

/// Allocations smaller than this are left alone: they cover at most one
/// huge page, and a small array touched sparsely would pay for 2 MiB.
const MIN_ADVISED: usize = 2 * HUGE_PAGE;

/// Whether huge pages are requested: unless `GROTTO_HUGE_PAGES` is `off`
/// (or `0`, `false`, `no`), read once.
pub fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        !std::env::var("GROTTO_HUGE_PAGES").is_ok_and(|v| {
            matches!(
                v.to_ascii_lowercase().as_str(),
                "off" | "0" | "false" | "no"
            )
        })
    })
}

/// Asks the kernel to back the whole 2 MiB pages inside `len` bytes from
/// `ptr` (an allocation of this process) with huge pages.
pub(crate) fn advise_range(ptr: *const u8, len: usize) {
    if len < MIN_ADVISED || !enabled() {
        return;
    }
    let start = (ptr as usize).next_multiple_of(HUGE_PAGE);
    let end = (ptr as usize + len) / HUGE_PAGE * HUGE_PAGE;
    if end <= start {
        return;
    }
    // SAFETY: [start, end) lies inside an allocation the caller owns;
    // MADV_HUGEPAGE changes only how the kernel backs those pages, never
    // their contents, so no reference into them is invalidated.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
    }
}

/// Requests huge pages for `v`'s allocation (its capacity, so a vector
/// about to be filled can be advised while empty).
pub fn advise<T>(v: &Vec<T>) {
    advise_range(
        v.as_ptr().cast(),
        v.capacity().saturating_mul(std::mem::size_of::<T>()),
    );
}

/// `n` values of all zero bits, with huge pages requested. At these
/// sizes the allocator maps fresh zero pages without touching them (it
/// zeroes by hand only memory it reuses), so only the huge pages a run
/// touches are ever backed. `None` when it cannot be allocated.
pub fn zeroed_vec<T: Zeroable>(n: usize) -> Option<Vec<T>> {
    let v = bytemuck::try_zeroed_vec(n).ok()?;
    advise(&v);
    Some(v)
}

/// An empty vector with room for `n` values, with huge pages requested,
/// for a collect to fill.
pub fn with_capacity<T>(n: usize) -> Vec<T> {
    let v = Vec::with_capacity(n);
    advise(&v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_vectors_hold_what_is_written() {
        let mut z: Vec<u64> = zeroed_vec(3 * MIN_ADVISED / 8).unwrap();
        assert!(z.iter().all(|&x| x == 0));
        z[12345] = 7;
        assert_eq!(z.iter().sum::<u64>(), 7);
        let mut c: Vec<u32> = with_capacity(MIN_ADVISED);
        c.extend(0..1000);
        assert_eq!(c[999], 999);
        // Small ones are left alone and work the same.
        let s: Vec<u8> = zeroed_vec(10).unwrap();
        assert_eq!(s, vec![0; 10]);
    }
}

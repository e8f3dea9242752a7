//! Dense sequential reads of a byte range in large requests, keeping a
//! fixed number in flight: how whole-graph sweeps read their blocks.

use super::{AlignedBuf, Done, IoBuf, IoFile, IoStats};
use crate::error::{Error, Result};
use std::ops::Range;
use std::sync::Arc;

/// Reads `range` of `file` in requests of `request` bytes (the last one
/// shorter), `depth` in flight, and calls `f(offset, bytes)` for each as
/// it completes (not necessarily in file order). Returns the reader's
/// counters.
pub fn scan(
    file: &Arc<IoFile>,
    range: Range<u64>,
    request: usize,
    depth: usize,
    mut f: impl FnMut(u64, &[u8]) -> Result<()>,
) -> Result<IoStats> {
    let align = file.align().max(4096);
    if !range.start.is_multiple_of(align as u64)
        || !range.end.is_multiple_of(align as u64)
        || !request.is_multiple_of(align)
        || request == 0
    {
        return Err(Error::Invalid(format!(
            "scan of bytes {}..{} in {request}-byte requests is not aligned to {align}",
            range.start, range.end
        )));
    }
    let depth = depth.max(1);
    let bufs: Vec<AlignedBuf> = (0..depth)
        .map(|_| AlignedBuf::new(request, align))
        .collect::<Result<_>>()?;
    let mut reader = file.reader(depth, None)?;
    let mut free: Vec<usize> = (0..depth).rev().collect();
    let mut next = range.start;
    let mut done: Vec<Done> = Vec::with_capacity(depth);
    let mut lens = vec![0usize; depth];
    loop {
        while next < range.end {
            let Some(i) = free.pop() else { break };
            let len = ((range.end - next) as usize).min(request);
            lens[i] = len;
            // SAFETY: buffer `i` is not touched again until its Done (tag i)
            // is returned below; `bufs` outlives the reader (dropped after).
            unsafe {
                reader.read(
                    next,
                    &[IoBuf {
                        ptr: bufs[i].as_ptr(),
                        len,
                    }],
                    i as u64,
                )?
            };
            next += len as u64;
        }
        if reader.in_flight() == 0 {
            break;
        }
        reader.flush()?;
        done.clear();
        reader.wait(&mut done, 1)?;
        for d in done.drain(..) {
            d.result?;
            let i = d.tag as usize;
            f(d.offset, &bufs[i].as_slice()[..lens[i]])?;
            free.push(i);
        }
    }
    let stats = reader.stats().clone();
    drop(reader);
    Ok(stats)
}

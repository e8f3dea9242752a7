//! The list encoding of packed edge blocks (`convert --compress`).
//!
//! A sorted list is stored as gaps, bit-packed in runs of [`RUN`] values
//! with one width per run (4 KiB blocks hold 1.5 to 3 times as many ids as
//! raw u32 blocks on the graphs we measured; `docs/format.md`, "Packed
//! blocks", has the figures).
//!
//! **A list in a packed block** (tag [`TAG_PACKED`]) is coded around its
//! own vertex `v`, the pivot: with `k` ids below `v`, the gaps are
//! `v - 1 - ids[k-1]`, `ids[k-1] - ids[k-2]`, ... down to `ids[0]`, then
//! `ids[k] - v`, `ids[k+1] - ids[k]`, ... up to the last id. Graphs with
//! locality (grids, meshes, crawls in id order) have neighbours near `v`,
//! so even the first gap is small; a random id costs what a gap of the
//! same list would. Bytes:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | bits 7..5: `k` (0 to 6; 7 = 7 plus a varint that follows), bits 4..0: width code of run 0 |
//! | 0 to 5 | LEB128 `k - 7`, only when the field said 7 |
//! | ceil(n0 w0 / 8) | run 0: the first `n0 = min(n, 32)` gaps, `w0` bits each, least significant bit first |
//! | 1 + ceil(n_r w_r / 8) | every later run: a width byte (bits 7..5 zero), then its gaps |
//!
//! Width codes 0 to 30 are that many bits; 31 means 32 bits. The number
//! of ids comes from the index, so a list needs no length.
//!
//! **A block of a long list** (tag [`TAG_SPAN`]) holds one piece of one
//! list: a 16-byte head (ids in the piece: u32; the piece's first id: u32;
//! the piece's position in the whole list: u64), then the gaps of the
//! other ids from their predecessor, in runs that each start with a width
//! byte. A reader can decode any block of a long list on its own.
//!
//! Decoding never reads outside the slice it is given and fails (returns
//! `None`) on bytes no encoder writes: a run past the end, a width byte
//! with high bits set, an id below 0 or above `u32::MAX`.

/// Values per bit-packed run.
pub const RUN: usize = 32;
/// Block tag: lists coded around their vertex, at byte positions the index gives.
pub const TAG_PACKED: u8 = 1;
/// Block tag: one piece of a long list, with its own head.
pub const TAG_SPAN: u8 = 2;
/// Bytes of a span block's head.
pub const SPAN_HEAD: usize = 16;
/// Bytes of an edge block.
const BLOCK: usize = super::format::BLOCK_BYTES;
/// Most ids a packed block can hold (runs of width 0 cost one byte each),
/// so a larger degree in the index of a packed list is refused.
pub const MAX_IDS_PER_BLOCK: usize = 1 + RUN * BLOCK;

#[inline]
fn code_of(w: u32) -> u8 {
    w.min(31) as u8
}

#[inline]
fn width_of(code: u8) -> u32 {
    if code == 31 {
        32
    } else {
        code as u32
    }
}

#[inline]
fn width(vals: &[u32]) -> u32 {
    let m = vals.iter().fold(0, |a, &x| a | x);
    width_of(code_of(32 - m.leading_zeros()))
}

fn put_varint(mut x: u32, out: &mut Vec<u8>) {
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

fn get_varint(src: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut x = 0u64;
    for shift in (0..35).step_by(7) {
        let b = *src.get(at)?;
        at += 1;
        x |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return u32::try_from(x).ok().map(|x| (x, at));
        }
    }
    None
}

/// Bytes `n` values of width `w` take.
#[inline]
fn packed_len(n: usize, w: u32) -> usize {
    (n * w as usize).div_ceil(8)
}

/// Appends `vals` (at most [`RUN`]) packed at `w` bits each, least
/// significant bit first. Whole 32-bit words are gathered in a stack
/// buffer and appended at once: a byte at a time, the vector's length
/// and capacity checks cost more than the packing.
fn pack(vals: &[u32], w: u32, out: &mut Vec<u8>) {
    debug_assert!(vals.len() <= RUN);
    if w == 0 {
        return;
    }
    let mut buf = [0u8; 4 * RUN + 4];
    let (mut acc, mut n, mut at) = (0u64, 0u32, 0usize);
    for &v in vals {
        // n < 32 before the shift and w <= 32, so nothing is lost.
        acc |= (v as u64) << n;
        n += w;
        if n >= 32 {
            buf[at..at + 4].copy_from_slice(&(acc as u32).to_le_bytes());
            at += 4;
            acc >>= 32;
            n -= 32;
        }
    }
    buf[at..at + 4].copy_from_slice(&(acc as u32).to_le_bytes());
    out.extend_from_slice(&buf[..packed_len(vals.len(), w)]);
}

/// The width a later run's width byte gives, or `None` for a byte no
/// encoder writes (high bits set).
#[inline]
fn width_byte(src: &[u8], at: usize) -> Option<u32> {
    let c = *src.get(at)?;
    (c >> 5 == 0).then(|| width_of(c))
}

/// Appends runs of `gaps` to `out`, the first run's width byte left out
/// when `first_in_head` (the caller put its code in a head byte);
/// returns the first run's width.
fn put_runs(gaps: &[u32], first_in_head: bool, out: &mut Vec<u8>) -> u32 {
    let mut w0 = 0;
    for (i, run) in gaps.chunks(RUN).enumerate() {
        let w = width(run);
        if i == 0 {
            w0 = w;
            if !first_in_head {
                out.push(code_of(w));
            }
        } else {
            out.push(code_of(w));
        }
        pack(run, w, out);
    }
    w0
}

/// Appends the packed-block coding of the sorted list `ids` of vertex
/// `pivot` to `out`; `gaps` is scratch.
pub fn encode_list(ids: &[u32], pivot: u32, gaps: &mut Vec<u32>, out: &mut Vec<u8>) {
    debug_assert!(ids.windows(2).all(|w| w[0] <= w[1]));
    let k = ids.partition_point(|&x| x < pivot);
    gaps.clear();
    if k > 0 {
        let mut prev = pivot - 1;
        for &x in ids[..k].iter().rev() {
            gaps.push(prev - x);
            prev = x;
        }
    }
    let mut prev = pivot;
    for &x in &ids[k..] {
        gaps.push(x - prev);
        prev = x;
    }
    let head = out.len();
    out.push(0);
    let kc = k.min(7) as u8;
    if kc == 7 {
        put_varint((k - 7) as u32, out);
    }
    let w0 = put_runs(gaps, true, out);
    out[head] = (kc << 5) | code_of(w0);
}

/// Slots a padded output ([`decode_list_padded`]) keeps free on each
/// side of the ids: a kernel may write whole groups of eight over them.
pub const PAD: usize = 8;

/// Decodes the list of `n` ids of vertex `pivot` that starts at `src[0]`
/// into `out[PAD..PAD + n]` (`out` holds at least `n + 2 PAD` slots; the
/// others are scratch and are left undefined); returns the bytes it
/// took, or `None` if the bytes are not a list of that length.
///
/// Runs on the AVX2 kernel where the CPU has it (see [`kernel`]), else on
/// the portable one; both give the same ids and refuse the same bytes.
/// The padding lets a kernel store every group of eight whole, with no
/// branches on how many ids are left.
#[inline]
pub fn decode_list_padded(src: &[u8], pivot: u32, n: usize, out: &mut [u32]) -> Option<usize> {
    if out.len() < n.checked_add(2 * PAD)? {
        return None;
    }
    if n <= 8 {
        return decode_short(src, pivot, &mut out[PAD..PAD + n]);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = avx2::Avx2::get() {
        return k.list(src, pivot, n, out);
    }
    decode_list_with(Scalar, src, pivot, n, out)
}

/// [`decode_list_padded`] on a given kernel (`out` long enough).
///
/// One pass: each run is unpacked and summed straight into its slots
/// (ids below the pivot from the top down). Sums in 64 bits cannot wrap
/// (at most 2^17 gaps of 2^32) and the ids are monotone, so checking the
/// last sum each way checks them all.
#[inline(always)]
pub(crate) fn decode_list_with<K: Kernel>(
    kernel: K,
    src: &[u8],
    pivot: u32,
    n: usize,
    out: &mut [u32],
) -> Option<usize> {
    if n <= 8 {
        return decode_short(src, pivot, &mut out[PAD..PAD + n]);
    }
    let h = *src.first()?;
    let mut at = 1;
    let k = match h >> 5 {
        7 => {
            let (x, a) = get_varint(src, at)?;
            at = a;
            (x as usize).checked_add(7)?
        }
        kc => kc as usize,
    };
    if k > n {
        return None;
    }
    let mut down = pivot as i64 - 1;
    let mut up = pivot as u64;
    let mut w = width_of(h & 31);
    let mut t = 0;
    while t < n {
        if t > 0 {
            w = width_byte(src, at)?;
            at += 1;
        }
        let m = (n - t).min(RUN);
        let end = at.checked_add(packed_len(m, w))?;
        if end > src.len() {
            return None;
        }
        let run = Run { src, at, w };
        if t >= k {
            kernel.up(run, &mut up, out, PAD + t, m)?;
        } else if t + m <= k {
            kernel.down(run, &mut down, out, PAD + k - t - m, m)?;
        } else {
            // The run that crosses the pivot: its first `k - t` gaps go down.
            let split = Split {
                lo: PAD,
                nd: k - t,
                hi: PAD + k,
                nu: t + m - k,
            };
            kernel.cross(run, split, &mut down, &mut up, out)?;
        }
        at = end;
        t += m;
    }
    ((k == 0 || down >= 0) && up <= u32::MAX as u64).then_some(at)
}

/// [`decode_list_padded`] for a list of at most eight ids (most lists of sparse
/// graphs): one group, its width a variable rather than a dispatch, no
/// buffer, on every CPU (entering the AVX2 kernel costs more than such
/// a list's decode).
#[inline]
fn decode_short(src: &[u8], pivot: u32, out: &mut [u32]) -> Option<usize> {
    let h = *src.first()?;
    let (mut k, w, mut at) = ((h >> 5) as usize, width_of(h & 31), 1);
    if k == 7 {
        let (x, a) = get_varint(src, 1)?;
        k = (x as usize).checked_add(7)?;
        at = a;
    }
    let n = out.len();
    let end = at + packed_len(n, w);
    if k > n || end > src.len() {
        return None;
    }
    let mut gaps = [0u32; 8];
    if at + w as usize + 8 <= src.len() {
        let src = &src[at..at + w as usize + 8];
        let mask = (1u64 << w) - 1;
        for (i, g) in gaps[..n].iter_mut().enumerate() {
            let bit = i * w as usize;
            let mut a = [0u8; 8];
            a.copy_from_slice(&src[bit >> 3..(bit >> 3) + 8]);
            *g = ((u64::from_le_bytes(a) >> (bit & 7)) & mask) as u32;
        }
    } else {
        let mut buf = [0u32; RUN];
        unpack_run(src, at, w, n, &mut buf)?;
        gaps[..n].copy_from_slice(&buf[..n]);
    }
    let mut down = pivot as i64 - 1;
    for (slot, &g) in out[..k].iter_mut().rev().zip(&gaps) {
        down -= g as i64;
        *slot = down as u32;
    }
    let mut up = pivot as u64;
    for (slot, &g) in out[k..].iter_mut().zip(&gaps[k..]) {
        up += g as u64;
        *slot = up as u32;
    }
    ((k == 0 || down >= 0) && up <= u32::MAX as u64).then_some(end)
}

/// Appends `ids`, a sorted list too long for one packed block, as whole
/// span blocks (4 KiB each, zero-padded) to `out`; returns how many.
pub fn encode_span(ids: &[u32], gaps: &mut Vec<u32>, out: &mut Vec<u8>) -> u64 {
    let mut pos = 0usize;
    let mut blocks = 0;
    while pos < ids.len() {
        let start = out.len();
        out.resize(start + SPAN_HEAD, 0);
        // Take whole runs while they fit, then as much of the next as fits.
        let mut room = BLOCK - SPAN_HEAD;
        let mut end = pos + 1;
        gaps.clear();
        while end < ids.len() && room > 1 {
            let take = (ids.len() - end).min(RUN);
            let mut run = [0u32; RUN];
            for (j, g) in run[..take].iter_mut().enumerate() {
                *g = ids[end + j] - ids[end + j - 1];
            }
            let mut n = take;
            let fits = loop {
                let need = 1 + packed_len(n, width(&run[..n]));
                if need <= room {
                    room -= need;
                    gaps.extend_from_slice(&run[..n]);
                    break n;
                }
                n -= 1;
                if n == 0 {
                    break 0;
                }
            };
            end += fits;
            if fits < take {
                break;
            }
        }
        let count = (end - pos) as u32;
        out[start..start + 4].copy_from_slice(&count.to_le_bytes());
        out[start + 4..start + 8].copy_from_slice(&ids[pos].to_le_bytes());
        out[start + 8..start + 16].copy_from_slice(&(pos as u64).to_le_bytes());
        put_runs(gaps, false, out);
        debug_assert!(out.len() - start <= BLOCK);
        out.resize(start + BLOCK, 0);
        pos = end;
        blocks += 1;
    }
    blocks
}

/// Decodes the piece a span block holds into `out` (replacing it);
/// returns the piece's position in its list, or `None` if the block is
/// not a span block any encoder writes.
#[inline]
pub fn decode_span(block: &[u8], out: &mut Vec<u32>) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = avx2::Avx2::get() {
        return k.span(block, out);
    }
    decode_span_with(Scalar, block, out)
}

/// [`decode_span`] on a given kernel.
#[inline(always)]
pub(crate) fn decode_span_with<K: Kernel>(
    kernel: K,
    block: &[u8],
    out: &mut Vec<u32>,
) -> Option<u64> {
    let head = block.get(..SPAN_HEAD)?;
    let u32_at = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]);
    let count = u32_at(0) as usize;
    let first = u32_at(4);
    let mut p = [0u8; 8];
    p.copy_from_slice(&head[8..16]);
    let position = u64::from_le_bytes(p);
    if count == 0 || count > MAX_IDS_PER_BLOCK {
        return None;
    }
    // Room for the kernels' whole last group.
    out.resize(count + PAD, 0);
    out[0] = first;
    let mut x = first as u64;
    let mut at = SPAN_HEAD;
    let mut t = 1;
    while t < count {
        let w = width_byte(block, at)?;
        let m = (count - t).min(RUN);
        let end = (at + 1).checked_add(packed_len(m, w))?;
        if end > block.len() {
            return None;
        }
        kernel.up(
            Run {
                src: block,
                at: at + 1,
                w,
            },
            &mut x,
            out,
            t,
            m,
        )?;
        at = end;
        t += m;
    }
    out.truncate(count);
    (x <= u32::MAX as u64).then_some(position)
}

/// One run of gaps: `packed_len(m, w)` bytes at `src[at..]`, inside
/// `src` (the caller checked); a kernel reads no further.
#[derive(Clone, Copy)]
pub(crate) struct Run<'a> {
    src: &'a [u8],
    at: usize,
    w: u32,
}

/// Where the run that crosses the pivot goes: its first `nd` gaps down
/// into `out[lo..lo + nd]` (from the top), the other `nu` up into
/// `out[hi..hi + nu]`. Both at least 1, at most [`RUN`] together.
#[derive(Clone, Copy)]
pub(crate) struct Split {
    lo: usize,
    nd: usize,
    hi: usize,
    nu: usize,
}

/// How a run of gaps becomes ids: [`Scalar`] on every CPU, or the AVX2
/// kernel where the CPU has it. A run fills `m` slots of `out` from
/// `from`; a kernel may also write up to [`PAD`] slots either side of
/// them, which hold nothing yet or are filled later.
pub(crate) trait Kernel: Copy {
    /// Sums the `m` gaps onto `*last` into `out[from..from + m]`, in
    /// order. `None` if an id passes `u32::MAX`, which a kernel may also
    /// leave to the caller's final check of `*last`.
    fn up(self, run: Run, last: &mut u64, out: &mut [u32], from: usize, m: usize) -> Option<()>;
    /// As `up`, for gaps below the pivot: each id is the previous one
    /// less its gap, and the slots are filled from the top down. `None`
    /// if an id falls below 0, which a kernel may also leave to the
    /// final check.
    fn down(self, run: Run, last: &mut i64, out: &mut [u32], from: usize, m: usize) -> Option<()>;
    /// The run that crosses the pivot, placed as `split` says: its first
    /// gaps go down from `*down`, the others up from `*up`.
    fn cross(
        self,
        run: Run,
        split: Split,
        down: &mut i64,
        up: &mut u64,
        out: &mut [u32],
    ) -> Option<()>;
}

#[cfg(target_arch = "x86_64")]
mod avx2;
mod scalar;
#[cfg(test)]
mod tests;

#[cfg(target_arch = "x86_64")]
pub use avx2::kernel;
#[cfg(not(target_arch = "x86_64"))]
/// The decoding kernel this process uses: always "scalar" off x86-64.
pub fn kernel() -> &'static str {
    "scalar"
}
use scalar::{unpack_run, Scalar};

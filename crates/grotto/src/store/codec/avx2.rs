//! The AVX2 decoding kernel, chosen at run time where the CPU has AVX2
//! (`GROTTO_SIMD=off` keeps the portable one).
//!
//! Eight values of width `w` take `w` whole bytes, so a group of eight
//! starts on a byte. Value `i` starts at bit `i w`: byte `i w / 8`, bit
//! `i w % 8` (at most 7). For `w` up to [`MAX_WIDTH`] it therefore lies
//! inside the four bytes from its first byte. One group is two 16-byte
//! loads (from the group's start, and from byte `w / 2` for values 4 to
//! 7), a byte shuffle that puts each value's four bytes in its lane, a
//! shift per lane and a mask: five instructions for eight values, with
//! the width a run-time value (one table row per width, no dispatch).
//! The ids are then a prefix sum across the eight lanes.
//!
//! The intrinsics come through `pulp`, whose token proves the CPU has
//! the features and makes them safe to call: this file has no `unsafe`.

use core::arch::x86_64::__m256i;
use std::sync::OnceLock;

use bytemuck::cast;
use pulp::x86::V3;

use super::{decode_list_with, decode_span_with, Kernel, Run, Scalar, Split, RUN};

/// Widest gaps the kernel takes; wider runs go to [`Scalar`]. Up to 25
/// bits a value fits in the four bytes from its first byte, and a run of
/// [`RUN`] gaps sums to under 2^30, so a sum can wrap past 2^32 at most
/// once per run and wrapping shows as an id below the run's start.
pub const MAX_WIDTH: u32 = 25;

/// One width's shuffle (the first byte of each value to the bottom of
/// its lane, numbered within each 16-byte half) and shifts.
#[derive(Clone, Copy)]
struct Row {
    shuf: [u8; 32],
    shift: [u32; 8],
    /// The same with the lanes reversed (value `i` in lane `7 - i`), for
    /// gaps below the pivot, whose ids fill slots from the top down; the
    /// two loads trade halves.
    rshuf: [u8; 32],
    rshift: [u32; 8],
}

const fn row(w: usize) -> Row {
    let mut r = Row {
        shuf: [0; 32],
        shift: [0; 8],
        rshuf: [0; 32],
        rshift: [0; 8],
    };
    let mut i = 0;
    while i < 8 {
        let bit = i * w;
        // Values 4 to 7 are taken from the second load, at byte w / 2.
        let base = if i < 4 { 0 } else { w / 2 };
        let lane = 7 - i;
        let mut j = 0;
        while j < 4 {
            r.shuf[i * 4 + j] = ((bit >> 3) - base + j) as u8;
            r.rshuf[lane * 4 + j] = ((bit >> 3) - base + j) as u8;
            j += 1;
        }
        r.shift[i] = (bit & 7) as u32;
        r.rshift[lane] = (bit & 7) as u32;
        i += 1;
    }
    r
}

const fn table() -> [Row; MAX_WIDTH as usize + 1] {
    let mut t = [row(0); MAX_WIDTH as usize + 1];
    let mut w = 1;
    while w <= MAX_WIDTH as usize {
        t[w] = row(w);
        w += 1;
    }
    t
}

static TABLE: [Row; MAX_WIDTH as usize + 1] = table();

/// The AVX2 kernel: a token that the CPU has AVX2 (and the rest of
/// x86-64-v3).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2(V3);

/// The kernel the decoder uses in this process: "avx2" or "scalar".
pub fn kernel() -> &'static str {
    if Avx2::get().is_some() {
        "avx2"
    } else {
        "scalar"
    }
}

impl Avx2 {
    /// The kernel, if the CPU has AVX2 and `GROTTO_SIMD` is not `off`
    /// (both looked at once per process).
    #[inline]
    pub(crate) fn get() -> Option<Self> {
        static KERNEL: OnceLock<Option<Avx2>> = OnceLock::new();
        *KERNEL.get_or_init(|| {
            let off = std::env::var_os("GROTTO_SIMD").is_some_and(|v| v == "off");
            if off {
                None
            } else {
                V3::try_new().map(Avx2)
            }
        })
    }

    /// [`super::decode_list_padded`] on this kernel, compiled with the CPU
    /// features enabled.
    #[inline]
    pub(crate) fn list(self, src: &[u8], pivot: u32, n: usize, out: &mut [u32]) -> Option<usize> {
        self.0.vectorize(List {
            k: self,
            src,
            pivot,
            n,
            out,
        })
    }

    /// [`super::decode_span`] on this kernel, compiled with the CPU
    /// features enabled.
    #[inline]
    pub(crate) fn span(self, block: &[u8], out: &mut Vec<u32>) -> Option<u64> {
        self.0.vectorize(Span {
            k: self,
            block,
            out,
        })
    }

    /// The shuffle, shifts and mask of width `w` (1 to [`MAX_WIDTH`]).
    #[inline(always)]
    fn consts(self, w: u32) -> [__m256i; 3] {
        let r = &TABLE[w as usize];
        let mask = self.0.avx._mm256_set1_epi32(((1u32 << w) - 1) as i32);
        [cast(r.shuf), cast(r.shift), mask]
    }

    /// As [`Self::consts`], for groups read with their lanes reversed.
    #[inline(always)]
    fn consts_rev(self, w: u32) -> [__m256i; 3] {
        let r = &TABLE[w as usize];
        let mask = self.0.avx._mm256_set1_epi32(((1u32 << w) - 1) as i32);
        [cast(r.rshuf), cast(r.rshift), mask]
    }

    /// The eight values of the group that starts at `src[p]`, which must
    /// hold `p + 32` bytes (one bounds check; both loads lie inside);
    /// with `REV`, in reversed lanes (and `c` from [`Self::consts_rev`]).
    #[inline(always)]
    fn group<const REV: bool>(self, src: &[u8], p: usize, w: usize, c: &[__m256i; 3]) -> __m256i {
        let a = self.0.avx2;
        let win = &src[p..p + 32];
        let h = (w / 2).min(16);
        let mut lo = [0u8; 16];
        lo.copy_from_slice(&win[..16]);
        let mut hi = [0u8; 16];
        hi.copy_from_slice(&win[h..h + 16]);
        let v: __m256i = if REV { cast([hi, lo]) } else { cast([lo, hi]) };
        let v = a._mm256_shuffle_epi8(v, c[0]);
        let v = a._mm256_srlv_epi32(v, c[1]);
        a._mm256_and_si256(v, c[2])
    }

    /// Inclusive prefix sums of the eight lanes (wrapping).
    #[inline(always)]
    fn scan(self, x: __m256i) -> __m256i {
        let a = self.0.avx2;
        let x = a._mm256_add_epi32(x, a._mm256_slli_si256::<4>(x));
        let x = a._mm256_add_epi32(x, a._mm256_slli_si256::<8>(x));
        // Lane 3's sum, added to the upper four lanes.
        let t = a._mm256_shuffle_epi32::<0xFF>(x);
        a._mm256_add_epi32(x, a._mm256_permute2x128_si256::<0x08>(t, t))
    }

    /// Lane 7 of `x` in every lane.
    #[inline(always)]
    fn last(self, x: __m256i) -> __m256i {
        let seven = self.0.avx._mm256_set1_epi32(7);
        self.0.avx2._mm256_permutevar8x32_epi32(x, seven)
    }

    /// The ids of the group at `src[p]` summed onto `carry` (every lane
    /// the id before the group), which moves on to the group's last id.
    #[inline(always)]
    fn step_up(
        self,
        src: &[u8],
        p: usize,
        w: usize,
        c: &[__m256i; 3],
        carry: &mut __m256i,
    ) -> [u32; 8] {
        let a = self.0.avx2;
        let local = self.scan(self.group::<false>(src, p, w, c));
        let ids = a._mm256_add_epi32(local, *carry);
        *carry = a._mm256_add_epi32(*carry, self.last(local));
        cast(ids)
    }

    /// The ids of the group at `src[p]` below the pivot (`c` from
    /// [`Self::consts_rev`]): `top` less the gaps summed so far (`sum`,
    /// which moves on), in slot order (the group's highest id last). The
    /// gaps come in reversed lanes, so the sums run from the top lane
    /// down and no lane is moved afterwards.
    #[inline(always)]
    fn step_down(
        self,
        src: &[u8],
        p: usize,
        w: usize,
        c: &[__m256i; 3],
        top: __m256i,
        sum: &mut __m256i,
    ) -> [u32; 8] {
        let a = self.0.avx2;
        let x = self.group::<true>(src, p, w, c);
        // Sums from each lane to lane 7: within each half, then the upper
        // half's total (its lane 4) onto the lower half.
        let x = a._mm256_add_epi32(x, a._mm256_srli_si256::<4>(x));
        let x = a._mm256_add_epi32(x, a._mm256_srli_si256::<8>(x));
        let t = a._mm256_shuffle_epi32::<0x00>(x);
        let local = a._mm256_add_epi32(x, a._mm256_permute2x128_si256::<0x81>(t, t));
        let ids = a._mm256_sub_epi32(top, a._mm256_add_epi32(local, *sum));
        let zero = self.0.avx._mm256_setzero_si256();
        *sum = a._mm256_add_epi32(*sum, a._mm256_permutevar8x32_epi32(local, zero));
        cast(ids)
    }

    /// Slots `j .. j + 8` below a crossing: `top` less `sums[j..]`, in
    /// slot order (reversed).
    #[inline(always)]
    fn below(self, top: __m256i, sums: &[u32; RUN + 8], j: usize) -> [u32; 8] {
        let a = self.0.avx2;
        let reverse = self.0.avx._mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let v = a._mm256_sub_epi32(top, load8(sums, j));
        cast(a._mm256_permutevar8x32_epi32(v, reverse))
    }

    /// Whether a run of `m` gaps is the kernel's: a width it takes, and room for its last loads.
    #[inline(always)]
    fn takes(run: Run, m: usize) -> bool {
        let w = run.w;
        (1..=MAX_WIDTH).contains(&w)
            && run.at + (m.div_ceil(8) - 1) * w as usize + 32 <= run.src.len()
    }
}

/// A list decode handed to `vectorize`: its `call` must inline into the
/// function that enables the features (a closure's body is not
/// guaranteed to, and then every intrinsic becomes a call).
struct List<'a> {
    k: Avx2,
    src: &'a [u8],
    pivot: u32,
    n: usize,
    out: &'a mut [u32],
}

impl pulp::NullaryFnOnce for List<'_> {
    type Output = Option<usize>;

    #[inline(always)]
    fn call(self) -> Option<usize> {
        decode_list_with(self.k, self.src, self.pivot, self.n, self.out)
    }
}

/// A span decode handed to `vectorize` (see [`List`]).
struct Span<'a> {
    k: Avx2,
    block: &'a [u8],
    out: &'a mut Vec<u32>,
}

impl pulp::NullaryFnOnce for Span<'_> {
    type Output = Option<u64>;

    #[inline(always)]
    fn call(self) -> Option<u64> {
        decode_span_with(self.k, self.block, self.out)
    }
}

impl Kernel for Avx2 {
    #[inline(always)]
    fn up(self, run: Run, last: &mut u64, out: &mut [u32], from: usize, m: usize) -> Option<()> {
        let start = *last;
        if !Self::takes(run, m) || start > u32::MAX as u64 {
            return cold(|| Scalar.up(run, last, out, from, m));
        }
        let (src, wb) = (run.src, run.w as usize);
        let c = self.consts(run.w);
        let mut carry = self.0.avx._mm256_set1_epi32(start as u32 as i32);
        // Whole groups: the last one's extra lanes land in the padding or
        // in slots a later run fills.
        let end = if m == RUN {
            // A whole run (every run but a list's last): four groups in a
            // straight line, the last id read from the carry.
            let out = &mut out[from..from + RUN];
            for (g, slots) in out.chunks_exact_mut(8).enumerate() {
                slots.copy_from_slice(&self.step_up(src, run.at + g * wb, wb, &c, &mut carry));
            }
            self.0.avx2._mm256_cvtsi256_si32(carry) as u32
        } else {
            for g in 0..m.div_ceil(8) {
                let ids = self.step_up(src, run.at + g * wb, wb, &c, &mut carry);
                let s = from + 8 * g;
                out[s..s + 8].copy_from_slice(&ids);
            }
            out[from + m - 1]
        };
        // Under 2^30 summed: an id below the start is a sum past u32::MAX.
        if (end as u64) < start {
            return None;
        }
        *last = end as u64;
        Some(())
    }

    #[inline(always)]
    fn down(self, run: Run, last: &mut i64, out: &mut [u32], from: usize, m: usize) -> Option<()> {
        if !Self::takes(run, m) {
            return cold(|| Scalar.down(run, last, out, from, m));
        }
        // Ids only fall from here: below 0 already is a bad list.
        let base = u32::try_from(*last).ok()?;
        let (src, wb) = (run.src, run.w as usize);
        let c = self.consts_rev(run.w);
        let top = self.0.avx._mm256_set1_epi32(base as i32);
        let mut sum = self.0.avx._mm256_setzero_si256();
        // Whole groups from the top down: the last one's extra lanes land
        // in the padding or in slots a later run fills.
        let end = if m == RUN {
            // A whole run: four groups in a straight line, the lowest id
            // the base less the sum.
            let out = &mut out[from..from + RUN];
            for (g, slots) in out.rchunks_exact_mut(8).enumerate() {
                slots.copy_from_slice(&self.step_down(src, run.at + g * wb, wb, &c, top, &mut sum));
            }
            base.wrapping_sub(self.0.avx2._mm256_cvtsi256_si32(sum) as u32)
        } else {
            let high = from + m;
            for g in 0..m.div_ceil(8) {
                let ids = self.step_down(src, run.at + g * wb, wb, &c, top, &mut sum);
                let s = high - 8 * g - 8;
                out[s..s + 8].copy_from_slice(&ids);
            }
            out[from]
        };
        // Under 2^30 taken away: an id above the base went below 0.
        if end > base {
            return None;
        }
        *last = end as i64;
        Some(())
    }

    #[inline(always)]
    fn cross(
        self,
        run: Run,
        split: Split,
        down: &mut i64,
        up: &mut u64,
        out: &mut [u32],
    ) -> Option<()> {
        let Split { lo, nd, hi, nu } = split;
        let m = nd + nu;
        if !Self::takes(run, m) || *up > u32::MAX as u64 {
            return cold(|| Scalar.cross(run, split, down, up, out));
        }
        let base = u32::try_from(*down).ok()?;
        let (a, x, wb) = (self.0.avx2, self.0.avx, run.w as usize);
        let c = self.consts(run.w);
        // The run's gaps summed from its start; eight spare slots so that
        // loads from any start below `m` stay inside.
        let mut sums = [0u32; RUN + 8];
        let mut carry = x._mm256_setzero_si256();
        for g in 0..m.div_ceil(8) {
            let s = self.step_up(run.src, run.at + g * wb, wb, &c, &mut carry);
            sums[8 * g..8 * g + 8].copy_from_slice(&s);
        }
        // Below: slot `lo + nd - 1 - j` is the base less the first `j + 1`
        // gaps; whole groups, the last one's extra lanes in the padding.
        let top = x._mm256_set1_epi32(base as i32);
        for g in 0..nd.div_ceil(8) {
            let s = lo + nd - 8 * g - 8;
            out[s..s + 8].copy_from_slice(&self.below(top, &sums, 8 * g));
        }
        let taken = sums[nd - 1];
        // Under 2^30 in a run: more than the base taken is below 0.
        if taken > base {
            return None;
        }
        *down = (base - taken) as i64;
        // Above: the pivot's side plus the gaps after the first `nd`.
        let from = x._mm256_set1_epi32((*up as u32).wrapping_sub(taken) as i32);
        for g in 0..nu.div_ceil(8) {
            let ids: [u32; 8] = cast(a._mm256_add_epi32(from, load8(&sums, nd + 8 * g)));
            let s = hi + 8 * g;
            out[s..s + 8].copy_from_slice(&ids);
        }
        *up += (sums[m - 1] - taken) as u64;
        Some(())
    }
}

/// Runs a fallback to the portable kernel out of line, so the hot
/// function stays small.
#[cold]
#[inline(never)]
fn cold<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Eight sums from `sums[j]`.
#[inline(always)]
fn load8(sums: &[u32; RUN + 8], j: usize) -> __m256i {
    let mut a = [0u32; 8];
    a.copy_from_slice(&sums[j..j + 8]);
    cast(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_stay_in_their_half() {
        for (w, r) in TABLE.iter().enumerate().skip(1) {
            assert!(r.shuf.iter().all(|&b| b < 16), "width {w}: {:?}", r.shuf);
            assert!(r.rshuf.iter().all(|&b| b < 16), "width {w}: {:?}", r.rshuf);
            assert!(r.shift.iter().all(|&s| s + w as u32 <= 32), "width {w}");
        }
    }
}

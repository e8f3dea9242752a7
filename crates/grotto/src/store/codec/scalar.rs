//! The portable decoding kernel: bit-unpacking with each width a
//! compile-time constant, on every CPU.

use super::{packed_len, Kernel, Run, Split, RUN};

/// The portable kernel (and the fallback of the AVX2 one for widths and
/// block ends it does not take).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar;

/// Eight bytes at `at` as a little-endian word, zeros past the end.
#[inline]
fn word(src: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = src.get(at..at + 8) {
        a.copy_from_slice(s);
    } else if let Some(s) = src.get(at..) {
        a[..s.len()].copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

/// Eight values of width `W` (0 to 32) from `src`, which must hold at
/// least `W + 8` bytes. Eight values take `W` whole bytes, so value `i`
/// of any group starts at the constant bit `i W`: every offset, shift and
/// mask is known at compile time, and the loads are in bounds of the
/// one slice check.
#[inline(always)]
fn unpack8<const W: u32>(src: &[u8]) -> [u32; 8] {
    let src = &src[..W as usize + 8];
    let mask = if W == 32 {
        u32::MAX as u64
    } else {
        (1u64 << W) - 1
    };
    std::array::from_fn(|i| {
        let bit = i * W as usize;
        let mut a = [0u8; 8];
        a.copy_from_slice(&src[bit >> 3..(bit >> 3) + 8]);
        ((u64::from_le_bytes(a) >> (bit & 7)) & mask) as u32
    })
}

/// One run of gaps of width `W` from `src` (at least `ceil(n / 8) W + 8`
/// bytes) summed onto `*last` into the ids `out` (`n` of them, in
/// order). Unpacking and summing in one pass keeps the gaps in registers.
#[inline(never)]
fn run_up<const W: u32>(src: &[u8], last: &mut u64, out: &mut [u32]) {
    let mut x = *last;
    let mut groups = out.chunks_exact_mut(8);
    let mut g = 0;
    for ids in &mut groups {
        let gaps = unpack8::<W>(&src[g..]);
        for (id, &d) in ids.iter_mut().zip(&gaps) {
            x += d as u64;
            *id = x as u32;
        }
        g += W as usize;
    }
    let ids = groups.into_remainder();
    if !ids.is_empty() {
        let gaps = unpack8::<W>(&src[g..]);
        for (id, &d) in ids.iter_mut().zip(&gaps) {
            x += d as u64;
            *id = x as u32;
        }
    }
    *last = x;
}

/// As [`run_up`], for gaps below the pivot: each id is the previous one
/// less its gap, and `out` is filled from its end.
#[inline(never)]
fn run_down<const W: u32>(src: &[u8], last: &mut i64, out: &mut [u32]) {
    let mut x = *last;
    let mut groups = out.rchunks_exact_mut(8);
    let mut g = 0;
    for ids in &mut groups {
        let gaps = unpack8::<W>(&src[g..]);
        for (id, &d) in ids.iter_mut().rev().zip(&gaps) {
            x -= d as i64;
            *id = x as u32;
        }
        g += W as usize;
    }
    let ids = groups.into_remainder();
    if !ids.is_empty() {
        let gaps = unpack8::<W>(&src[g..]);
        for (id, &d) in ids.iter_mut().rev().zip(&gaps) {
            x -= d as i64;
            *id = x as u32;
        }
    }
    *last = x;
}

/// `groups` groups of eight values of width `W` from `src` (at least
/// `groups W + 8` bytes) into `buf`.
#[inline(never)]
fn unpack_groups<const W: u32>(src: &[u8], groups: usize, buf: &mut [u32; RUN]) {
    for (g, out) in buf.chunks_exact_mut(8).enumerate().take(groups) {
        out.copy_from_slice(&unpack8::<W>(&src[g * W as usize..]));
    }
}

/// Calls `$f::<W>($args)` for the width `$w` (0 to 32) as a constant.
macro_rules! by_width {
    ($w:expr, $f:ident, $args:tt) => {
        by_width!(@ $w, $f, $args, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
            21 22 23 24 25 26 27 28 29 30 31)
    };
    (@ $w:expr, $f:ident, $args:tt, $($n:literal)*) => {
        match $w {
            $($n => $f::<$n> $args,)*
            _ => $f::<32> $args,
        }
    };
}

/// Unpacks one run of `m` (1 to [`RUN`]) values of width `w` that starts
/// at `src[at]` into `buf[..m]` (values past `m` are left undefined);
/// returns the position after the run, or `None` if it runs past `src`.
#[inline]
pub(super) fn unpack_run(
    src: &[u8],
    at: usize,
    w: u32,
    m: usize,
    buf: &mut [u32; RUN],
) -> Option<usize> {
    let end = at.checked_add(packed_len(m, w))?;
    if end > src.len() {
        return None;
    }
    if w == 0 {
        buf[..m].fill(0);
        return Some(end);
    }
    let groups = m.div_ceil(8);
    if at + groups * w as usize + 8 <= src.len() {
        by_width!(w, unpack_groups, (&src[at..], groups, buf));
        return Some(end);
    }
    // The last bytes of a block: one bounds-checked load per value.
    let mask = if w == 32 {
        u32::MAX as u64
    } else {
        (1u64 << w) - 1
    };
    for (i, o) in buf[..m].iter_mut().enumerate() {
        let bit = i * w as usize;
        *o = ((word(&src[..end], at + (bit >> 3)) >> (bit & 7)) & mask) as u32;
    }
    Some(end)
}

impl Kernel for Scalar {
    #[inline(always)]
    fn up(self, run: Run, last: &mut u64, out: &mut [u32], from: usize, m: usize) -> Option<()> {
        let Run { src, at, w } = run;
        let out = &mut out[from..from + m];
        if at + m.div_ceil(8) * w as usize + 8 <= src.len() {
            by_width!(w, run_up, (&src[at..], last, out));
        } else {
            let mut buf = [0u32; RUN];
            unpack_run(src, at, w, m, &mut buf)?;
            for (id, &g) in out.iter_mut().zip(&buf[..m]) {
                *last += g as u64;
                *id = *last as u32;
            }
        }
        Some(())
    }

    #[inline(always)]
    fn down(self, run: Run, last: &mut i64, out: &mut [u32], from: usize, m: usize) -> Option<()> {
        let Run { src, at, w } = run;
        let out = &mut out[from..from + m];
        if at + m.div_ceil(8) * w as usize + 8 <= src.len() {
            by_width!(w, run_down, (&src[at..], last, out));
        } else {
            let mut buf = [0u32; RUN];
            unpack_run(src, at, w, m, &mut buf)?;
            for (id, &g) in out.iter_mut().rev().zip(&buf[..m]) {
                *last -= g as i64;
                *id = *last as u32;
            }
        }
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
        let mut buf = [0u32; RUN];
        unpack_run(run.src, run.at, run.w, nd + nu, &mut buf)?;
        for (slot, &g) in out[lo..lo + nd].iter_mut().rev().zip(&buf[..nd]) {
            *down -= g as i64;
            *slot = *down as u32;
        }
        for (slot, &g) in out[hi..hi + nu].iter_mut().zip(&buf[nd..nd + nu]) {
            *up += g as u64;
            *slot = *up as u32;
        }
        Some(())
    }
}

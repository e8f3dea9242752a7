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

fn pack(vals: &[u32], w: u32, out: &mut Vec<u8>) {
    if w == 0 {
        return;
    }
    let (mut acc, mut n) = (0u64, 0u32);
    for &v in vals {
        acc |= (v as u64) << n;
        n += w;
        while n >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            n -= 8;
        }
    }
    if n > 0 {
        out.push(acc as u8);
    }
}

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
fn unpack_run(src: &[u8], at: usize, w: u32, m: usize, buf: &mut [u32; RUN]) -> Option<usize> {
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

/// Decodes the list of `out.len()` ids of vertex `pivot` that starts at
/// `src[0]`; returns the bytes it took, or `None` if the bytes are not a
/// list of that length.
///
/// One pass: each run is unpacked into a buffer on the stack and summed
/// straight into its slots (ids below the pivot from the top down).
/// Sums in 64 bits cannot wrap (at most 2^17 gaps of 2^32) and the ids
/// are monotone, so checking the last sum each way checks them all.
pub fn decode_list(src: &[u8], pivot: u32, out: &mut [u32]) -> Option<usize> {
    let n = out.len();
    let h = *src.first()?;
    if n <= 8 && h >> 5 != 7 {
        return decode_short(src, h, pivot, out);
    }
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
    let mut buf = [0u32; RUN];
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
        let fused = at + m.div_ceil(8) * w as usize + 8 <= src.len();
        if fused && t >= k {
            by_width!(w, run_up, (&src[at..], &mut up, &mut out[t..t + m]));
        } else if fused && t + m <= k {
            by_width!(
                w,
                run_down,
                (&src[at..], &mut down, &mut out[k - t - m..k - t])
            );
        } else {
            // The run that crosses the pivot, or the last bytes of a block.
            unpack_run(src, at, w, m, &mut buf)?;
            let kb = k.saturating_sub(t);
            let nd = kb.min(m);
            for (slot, &g) in out[kb - nd..kb].iter_mut().rev().zip(&buf[..nd]) {
                down -= g as i64;
                *slot = down as u32;
            }
            for (slot, &g) in out[t + nd..t + m].iter_mut().zip(&buf[nd..m]) {
                up += g as u64;
                *slot = up as u32;
            }
        }
        at = end;
        t += m;
    }
    ((k == 0 || down >= 0) && up <= u32::MAX as u64).then_some(at)
}

/// [`decode_list`] for a list of at most eight ids with `k` in the head
/// byte (most lists of sparse graphs): one group, its width a variable
/// rather than a dispatch, no buffer. Shorter lists cost tens of
/// nanoseconds of set-up on the general path, which is most of their
/// decode time.
#[inline]
fn decode_short(src: &[u8], h: u8, pivot: u32, out: &mut [u32]) -> Option<usize> {
    let (n, k, w) = (out.len(), (h >> 5) as usize, width_of(h & 31));
    let end = 1 + packed_len(n, w);
    if k > n || end > src.len() {
        return None;
    }
    let mut gaps = [0u32; 8];
    if 1 + w as usize + 8 <= src.len() {
        let src = &src[1..w as usize + 9];
        let mask = (1u64 << w) - 1;
        for (i, g) in gaps.iter_mut().enumerate() {
            let bit = i * w as usize;
            let mut a = [0u8; 8];
            a.copy_from_slice(&src[bit >> 3..(bit >> 3) + 8]);
            *g = ((u64::from_le_bytes(a) >> (bit & 7)) & mask) as u32;
        }
    } else {
        let mut buf = [0u32; RUN];
        unpack_run(src, 1, w, n, &mut buf)?;
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
pub fn decode_span(block: &[u8], out: &mut Vec<u32>) -> Option<u64> {
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
    out.resize(count, 0);
    out[0] = first;
    let mut x = first as u64;
    let mut at = SPAN_HEAD;
    let mut buf = [0u32; RUN];
    for ids in out[1..].chunks_mut(RUN) {
        let w = width_byte(block, at)?;
        let m = ids.len();
        let fused = at + 1 + m.div_ceil(8) * w as usize + 8 <= block.len();
        if fused {
            by_width!(w, run_up, (&block[at + 1..], &mut x, ids));
            at += 1 + packed_len(m, w);
        } else {
            at = unpack_run(block, at + 1, w, m, &mut buf)?;
            for (id, &g) in ids.iter_mut().zip(&buf[..m]) {
                x += g as u64;
                *id = x as u32;
            }
        }
    }
    (x <= u32::MAX as u64).then_some(position)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(ids: &[u32], pivot: u32) -> usize {
        let (mut gaps, mut out) = (Vec::new(), vec![0xAA]);
        encode_list(ids, pivot, &mut gaps, &mut out);
        let mut back = vec![0u32; ids.len()];
        // Trailing bytes after the list must not matter.
        out.extend_from_slice(&[0xFF; 3]);
        let used = decode_list(&out[1..], pivot, &mut back).expect("decodes");
        assert_eq!(back, ids, "pivot {pivot}");
        used
    }

    #[test]
    fn grid_lists_take_six_bytes() {
        let v = 500_500;
        assert_eq!(round_trip(&[v - 1000, v - 1, v + 1, v + 1000], v), 6);
    }

    #[test]
    fn edges_of_the_id_space() {
        round_trip(&[0, 0, 1, u32::MAX - 1, u32::MAX], 0);
        round_trip(&[0, 5, u32::MAX], u32::MAX);
        round_trip(&[0, u32::MAX], 7);
        round_trip(&[3, 3, 3], 3);
        let many: Vec<u32> = (0..1000).map(|i| i * 7).collect();
        round_trip(&many, 3500);
    }

    #[test]
    fn span_blocks_split_and_rejoin() {
        let ids: Vec<u32> = (0..50_000u32).map(|i| i * 8 + (i % 7)).collect();
        let (mut gaps, mut out) = (Vec::new(), Vec::new());
        let n = encode_span(&ids, &mut gaps, &mut out);
        assert_eq!(out.len(), n as usize * BLOCK);
        let mut all = Vec::new();
        let mut piece = Vec::new();
        for b in out.chunks(BLOCK) {
            let pos = decode_span(b, &mut piece).expect("decodes");
            assert_eq!(pos as usize, all.len());
            all.extend_from_slice(&piece);
        }
        assert_eq!(all, ids);
        assert!((2..=20).contains(&n), "{n} blocks");
    }

    #[test]
    fn hostile_bytes_are_refused_not_read_past() {
        let mut out = [0u32; 40];
        // Run 0 of width 31 (32 bits) needs 128 bytes; only 3 follow.
        assert_eq!(decode_list(&[0x1f, 1, 2, 3], 9, &mut out), None);
        // A below gap larger than the pivot.
        assert_eq!(decode_list(&[(1 << 5) | 8, 200], 9, &mut out[..1]), None);
        // k larger than the list.
        assert_eq!(decode_list(&[(3 << 5) | 1, 0], 9, &mut out[..2]), None);
        // A later run's width byte with high bits set.
        let mut b = vec![0u8; 1];
        b.push(0xE0);
        assert_eq!(decode_list(&b, 9, &mut out[..33]), None);
        // A span head with too many ids, or none.
        let mut blk = vec![0u8; BLOCK];
        blk[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decode_span(&blk, &mut Vec::new()), None);
        blk[..4].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(decode_span(&blk, &mut Vec::new()), None);
    }

    fn sorted_list() -> impl Strategy<Value = (Vec<u32>, u32)> {
        let class = prop_oneof![
            Just(3usize),
            Just(31),
            Just(33),
            Just(64),
            Just(200),
            Just(2000)
        ];
        (class, any::<u32>(), 0u32..33, any::<u64>()).prop_map(
            |(max_len, pivot, span_bits, seed)| {
                let mut x = seed | 1;
                let len = (seed as usize % max_len) + 1;
                let mask = if span_bits == 32 {
                    u32::MAX
                } else {
                    (1u32 << span_bits) - 1
                };
                let mut ids: Vec<u32> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        let r = (x as u32) & mask;
                        if x % 5 == 0 {
                            pivot.wrapping_add(r % 3)
                        } else {
                            pivot.wrapping_add(r)
                        }
                    })
                    .collect();
                ids.sort_unstable();
                (ids, pivot)
            },
        )
    }

    proptest! {
        #[test]
        fn lists_round_trip((ids, pivot) in sorted_list()) {
            round_trip(&ids, pivot);
        }

        #[test]
        fn spans_round_trip((ids, _pivot) in sorted_list()) {
            let (mut gaps, mut out) = (Vec::new(), Vec::new());
            encode_span(&ids, &mut gaps, &mut out);
            let (mut all, mut piece) = (Vec::new(), Vec::new());
            for b in out.chunks(BLOCK) {
                let pos = decode_span(b, &mut piece).expect("decodes");
                prop_assert_eq!(pos as usize, all.len());
                all.extend_from_slice(&piece);
            }
            prop_assert_eq!(all, ids);
        }

        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300),
                                    n in 1usize..100, pivot in any::<u32>()) {
            let mut out = vec![0u32; n];
            if let Some(used) = decode_list(&bytes, pivot, &mut out) {
                prop_assert!(used <= bytes.len());
                prop_assert!(out.windows(2).all(|w| w[0] <= w[1]));
            }
            let mut blk = bytes.clone();
            blk.resize(BLOCK, 0);
            let mut piece = Vec::new();
            if decode_span(&blk, &mut piece).is_some() {
                prop_assert!(piece.windows(2).all(|w| w[0] <= w[1]));
            }
        }
    }
}

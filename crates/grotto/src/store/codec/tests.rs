//! Round trips, hostile bytes, and the two kernels against each other.

use super::*;
use proptest::prelude::*;

/// The list of `out.len()` ids at `src[0]` into `out` exactly (what the
/// padded decoder gives, without the padding).
fn decode_list(src: &[u8], pivot: u32, out: &mut [u32]) -> Option<usize> {
    let n = out.len();
    let mut padded = vec![0u32; n + 2 * PAD];
    let used = decode_list_padded(src, pivot, n, &mut padded)?;
    out.copy_from_slice(&padded[PAD..PAD + n]);
    Some(used)
}

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
    (class, any::<u32>(), 0u32..33, any::<u64>()).prop_map(|(max_len, pivot, span_bits, seed)| {
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
    })
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

/// Both kernels on the same bytes: the same answer, and the same ids when
/// the bytes are a list. Without AVX2 on this CPU, only the portable one.
fn both_kernels(src: &[u8], pivot: u32, n: usize) -> Option<(usize, Vec<u32>)> {
    // The padding holds garbage before a decode: it must not matter.
    let mut a = vec![0xDEAD_BEEFu32; n + 2 * PAD];
    let ra = decode_list_with(Scalar, src, pivot, n, &mut a);
    let via_dispatch = {
        let mut c = vec![0u32; n];
        decode_list(src, pivot, &mut c).map(|u| (u, c))
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = avx2::Avx2::get() {
        let mut b = vec![0x5555_5555u32; n + 2 * PAD];
        let rb = k.list(src, pivot, n, &mut b);
        assert_eq!(ra, rb, "kernels disagree on {n} ids at pivot {pivot}");
        if ra.is_some() {
            assert_eq!(
                a[PAD..PAD + n],
                b[PAD..PAD + n],
                "kernels decode different ids at pivot {pivot}"
            );
        }
    }
    let r = ra.map(|u| (u, a[PAD..PAD + n].to_vec()));
    assert_eq!(r, via_dispatch);
    r
}

fn span_both(block: &[u8]) -> Option<(u64, Vec<u32>)> {
    let mut a = Vec::new();
    let ra = decode_span_with(Scalar, block, &mut a);
    #[cfg(target_arch = "x86_64")]
    if let Some(k) = avx2::Avx2::get() {
        let mut b = Vec::new();
        let rb = k.span(block, &mut b);
        assert_eq!(ra, rb);
        if ra.is_some() {
            assert_eq!(a, b);
        }
    }
    ra.map(|p| (p, a))
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_avx2_kernel_is_used_where_the_cpu_has_it() {
    // AVX2 and the rest of x86-64-v3 (FMA, BMI1/2, ...), as pulp checks.
    let has = pulp::x86::V3::is_available();
    let off = std::env::var_os("GROTTO_SIMD").is_some_and(|v| v == "off");
    assert_eq!(kernel(), if has && !off { "avx2" } else { "scalar" });
}

/// Every width from 0 to 32, each side of the pivot, every length up to
/// three runs, with the list at the end of its block (the kernels' last
/// loads fall back) and followed by bytes.
#[test]
fn kernels_agree_on_every_width_and_length() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for bits in 0..=32u32 {
        for len in [1usize, 7, 8, 9, 31, 32, 33, 40, 64, 65, 96, 100] {
            for below in [0usize, 1, 7, 8, 9, 23, 25, len / 2, len - 1, len] {
                let below = below.min(len);
                let pivot = 1u32 << 31;
                let mask = if bits == 32 {
                    u32::MAX
                } else {
                    (1u32 << bits) - 1
                };
                let mut gap = || {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Keep the widest gap of the width, once in a while.
                    if x.is_multiple_of(7) {
                        mask
                    } else {
                        (x as u32) & mask
                    }
                };
                let mut ids = Vec::with_capacity(len);
                let mut lo = pivot as u64 - 1;
                for _ in 0..below {
                    lo = lo.saturating_sub(gap() as u64 / 2);
                    ids.push(lo as u32);
                }
                let mut hi = pivot as u64;
                for _ in below..len {
                    hi = (hi + gap() as u64 / 2).min(u32::MAX as u64);
                    ids.push(hi as u32);
                }
                ids.sort_unstable();
                let (mut gaps, mut enc) = (Vec::new(), Vec::new());
                encode_list(&ids, pivot, &mut gaps, &mut enc);
                let used = enc.len();
                let at_end = both_kernels(&enc, pivot, len).expect("decodes");
                assert_eq!(at_end, (used, ids.clone()), "bits {bits} len {len}");
                enc.extend_from_slice(&[0xFF; 64]);
                let padded = both_kernels(&enc, pivot, len).expect("decodes");
                assert_eq!(padded, (used, ids), "bits {bits} len {len}");
            }
        }
    }
}

/// Sums that pass u32::MAX or fall below 0 inside a run the AVX2 kernel
/// takes are refused as the portable kernel refuses them.
#[test]
fn kernels_refuse_sums_out_of_range() {
    // Forty gaps of 2^24 - 1 upward from near the top of the id space.
    let gaps = [(1u32 << 24) - 1; 40];
    for pivot in [u32::MAX - 100, 1 << 26, 5] {
        let mut enc = vec![code_of(24)];
        pack(&gaps[..32], 24, &mut enc);
        enc.push(code_of(24));
        pack(&gaps[32..], 24, &mut enc);
        enc.extend_from_slice(&[0; 64]);
        let fits = pivot as u64 + 40 * ((1 << 24) - 1) <= u32::MAX as u64;
        assert_eq!(
            both_kernels(&enc, pivot, 40).is_some(),
            fits,
            "up from {pivot}"
        );
        // The same gaps below the pivot: k = 40 (7 + varint 33).
        let mut enc = vec![(7 << 5) | code_of(24), 33];
        pack(&gaps[..32], 24, &mut enc);
        enc.push(code_of(24));
        pack(&gaps[32..], 24, &mut enc);
        enc.extend_from_slice(&[0; 64]);
        let fits = pivot as u64 > 40 * ((1 << 24) - 1);
        assert_eq!(
            both_kernels(&enc, pivot, 40).is_some(),
            fits,
            "down from {pivot}"
        );
    }
}

proptest! {
    #[test]
    fn kernels_agree_on_lists((ids, pivot) in sorted_list(), pad in 0usize..40) {
        let (mut gaps, mut enc) = (Vec::new(), Vec::new());
        encode_list(&ids, pivot, &mut gaps, &mut enc);
        enc.resize(enc.len() + pad, 0x5A);
        let got = both_kernels(&enc, pivot, ids.len());
        prop_assert_eq!(got.map(|(_, v)| v), Some(ids));
    }

    #[test]
    fn kernels_agree_on_spans((ids, _pivot) in sorted_list()) {
        let (mut gaps, mut out) = (Vec::new(), Vec::new());
        encode_span(&ids, &mut gaps, &mut out);
        let mut all = Vec::new();
        for b in out.chunks(BLOCK) {
            let (pos, piece) = span_both(b).expect("decodes");
            prop_assert_eq!(pos as usize, all.len());
            all.extend_from_slice(&piece);
        }
        prop_assert_eq!(all, ids);
    }

    #[test]
    fn kernels_agree_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400),
                                     n in 1usize..120, pivot in any::<u32>()) {
        both_kernels(&bytes, pivot, n);
        let mut blk = bytes.clone();
        blk.resize(BLOCK, 0);
        span_both(&blk);
    }
}

/// [`pack`] written a bit at a time: the reference for the word-wise one.
fn pack_bits(vals: &[u32], w: u32) -> Vec<u8> {
    let mut out = vec![0u8; packed_len(vals.len(), w)];
    for (i, &v) in vals.iter().enumerate() {
        for b in 0..w as usize {
            if (v >> b) & 1 == 1 {
                let at = i * w as usize + b;
                out[at / 8] |= 1 << (at % 8);
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn pack_matches_a_bit_by_bit_packing(
        w in 0u32..=32,
        raw in proptest::collection::vec(any::<u32>(), 0..=RUN),
        prefix in proptest::collection::vec(any::<u8>(), 0..3),
    ) {
        let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
        let vals: Vec<u32> = raw.iter().map(|&v| v & mask).collect();
        let mut out = prefix.clone();
        pack(&vals, w, &mut out);
        prop_assert_eq!(&out[..prefix.len()], &prefix[..]);
        prop_assert_eq!(&out[prefix.len()..], &pack_bits(&vals, w)[..]);
    }
}

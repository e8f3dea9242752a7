//! Sorting one adjacency list of u32 targets. Short lists go to the
//! standard library's unstable sort; long ones (most of a skewed graph's
//! entries) to a least-significant-digit radix sort whose digits split the
//! bits the list's largest target needs (at most 11 bits a digit, so the
//! counters fit in the first-level cache), a pass a digit, with working
//! room ([`Room`]) the caller keeps between lists.

/// Lists at least this long are radix sorted: below it the counters'
/// set-up outweighs the comparisons saved (measured on rmat22 lists).
pub const RADIX_MIN: usize = 512;

/// Largest digit, in bits.
const MAX_DIGIT_BITS: u32 = 11;

/// Working room of [`sort_u32`], kept between lists so that no list
/// allocates or clears more than it uses.
#[derive(Default)]
pub struct Room {
    /// The list's values between two passes.
    spare: Vec<u32>,
    /// Every digit's counters.
    counts: Vec<u32>,
}

/// Sorts `list` ascending, using `room`.
pub fn sort_u32(list: &mut [u32], room: &mut Room) {
    if list.len() < RADIX_MIN {
        list.sort_unstable();
        return;
    }
    let max = list.iter().copied().max().unwrap_or(0);
    let bits = 32 - max.leading_zeros();
    if bits == 0 {
        return;
    }
    // A digit's counters cost about as much as moving as many values: no
    // more counters than the list is long.
    let widest = MAX_DIGIT_BITS.min(usize::BITS - 1 - list.len().leading_zeros());
    let digits = bits.div_ceil(widest);
    let width = bits.div_ceil(digits);
    let buckets = 1usize << width;
    let mask = (buckets - 1) as u32;
    // All digits' counts in one read of the list.
    let Room {
        spare: scratch,
        counts,
    } = room;
    counts.clear();
    counts.resize(buckets * digits as usize, 0);
    for &x in list.iter() {
        for d in 0..digits {
            counts[d as usize * buckets + ((x >> (d * width)) & mask) as usize] += 1;
        }
    }
    // Every slot is written before it is read: grown, never cleared.
    if scratch.len() < list.len() {
        scratch.resize(list.len(), 0);
    }
    let scratch = &mut scratch[..list.len()];
    let mut in_list = true;
    for d in 0..digits {
        let count = &mut counts[d as usize * buckets..(d as usize + 1) * buckets];
        // A digit every value shares moves nothing.
        if count.iter().any(|&c| c as usize == list.len()) {
            continue;
        }
        let mut sum = 0u32;
        for c in count.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        let (from, to): (&[u32], &mut [u32]) = if in_list {
            (list, &mut *scratch)
        } else {
            (&*scratch, list)
        };
        let shift = d * width;
        for &x in from {
            let b = ((x >> shift) & mask) as usize;
            to[count[b] as usize] = x;
            count[b] += 1;
        }
        in_list = !in_list;
    }
    if !in_list {
        list.copy_from_slice(scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sorts_like_the_standard_sort(
            v in prop::collection::vec(any::<u32>(), 0..2000),
            shift in 0u32..32,
        ) {
            let mut mine: Vec<u32> = v.iter().map(|x| x >> shift).collect();
            let mut want = mine.clone();
            want.sort_unstable();
            let mut room = Room { spare: vec![7; 3], counts: vec![9; 5] };
            sort_u32(&mut mine, &mut room);
            prop_assert_eq!(mine, want);
        }
    }

    #[test]
    fn long_lists_of_every_width_sort() {
        let mut room = Room::default();
        for bits in [1u32, 5, 11, 12, 22, 23, 32] {
            let mut x = 0x9E37_79B9u32;
            let mut v: Vec<u32> = (0..5000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    if bits == 32 {
                        x
                    } else {
                        x & ((1 << bits) - 1)
                    }
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_u32(&mut v, &mut room);
            assert_eq!(v, want, "{bits} bits");
        }
        // All equal: nothing moves.
        let mut same = vec![42u32; 1000];
        sort_u32(&mut same, &mut room);
        assert!(same.iter().all(|&x| x == 42));
    }
}

//! A seeded bijection of `0..n` for any `n`, computed one id at a time in
//! O(1) memory: a four-round Feistel network on the smallest even number of
//! bits that holds `n - 1`, walked along its cycle until the image falls
//! below `n` (at most four steps expected, since the domain is under 4n).
//! Generators use it to hand out ids in an order unrelated to the graph's
//! structure, as many real files come.

/// A seeded permutation of `0..n`.
#[derive(Clone, Debug)]
pub struct Shuffle {
    n: u64,
    half: u32,
    keys: [u64; 4],
}

impl Shuffle {
    /// The permutation of `0..n` drawn from `seed`.
    pub fn new(n: u64, seed: u64) -> Shuffle {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let mut x = seed ^ 0x51F1_5EED_0DD5_A1E5;
        let mut key = || crate::rng::splitmix64(&mut x);
        Shuffle {
            n,
            half: bits.div_ceil(2).max(1),
            keys: [key(), key(), key(), key()],
        }
    }

    /// The image of `x` (`x < n`).
    #[inline]
    pub fn apply(&self, x: u64) -> u64 {
        debug_assert!(x < self.n);
        let mut y = self.feistel(x);
        while y >= self.n {
            y = self.feistel(y);
        }
        y
    }

    /// One pass of the network over `0..2^(2 * half)`.
    #[inline]
    fn feistel(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half) - 1;
        let (mut l, mut r) = (x >> self.half, x & mask);
        for &k in &self.keys {
            let mut s = r ^ k;
            let f = crate::rng::splitmix64(&mut s) & mask;
            (l, r) = (r, l ^ f);
        }
        (l << self.half) | r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bijection_for_every_small_n_and_seed() {
        for n in 1..300u64 {
            for seed in 0..3 {
                let s = Shuffle::new(n, seed);
                let mut seen = vec![false; n as usize];
                for x in 0..n {
                    let y = s.apply(x);
                    assert!(
                        y < n && !seen[y as usize],
                        "n {n} seed {seed}: not a bijection"
                    );
                    seen[y as usize] = true;
                }
            }
        }
    }

    #[test]
    fn moves_most_ids_and_depends_on_the_seed() {
        let n = 1_000_000;
        let (a, b) = (Shuffle::new(n, 1), Shuffle::new(n, 2));
        let fixed = (0..n).filter(|&x| a.apply(x) == x).count();
        let same = (0..n).filter(|&x| a.apply(x) == b.apply(x)).count();
        // A random permutation fixes one point on average.
        assert!(fixed < 20, "{fixed} fixed points");
        assert!(same < 20, "{same} ids map alike under two seeds");
        // Neighbours land far apart: the mean gap is about n / 3.
        let gap: f64 = (0..10_000)
            .map(|x| a.apply(x).abs_diff(a.apply(x + 1)) as f64)
            .sum::<f64>()
            / 10_000.0;
        assert!(gap > n as f64 / 4.0, "mean gap {gap}");
    }
}

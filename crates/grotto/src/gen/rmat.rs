//! Graph500 Kronecker generator (R-MAT with A=0.57, B=0.19, C=0.19,
//! D=0.05), vertex ids scrambled, as in the Graph500 specification
//! (without its per-level noise).

use super::Generator;
use crate::rng::Rng;

/// R-MAT parameters.
#[derive(Clone, Debug)]
pub struct RmatConfig {
    /// log2 of the vertex count.
    pub scale: u32,
    /// Edges per vertex (edges = edge_factor * 2^scale).
    pub edge_factor: u64,
    /// Random seed.
    pub seed: u64,
    /// Quadrant probabilities A, B, C (D = 1 - A - B - C).
    pub abc: [f64; 3],
}

impl Default for RmatConfig {
    fn default() -> Self {
        RmatConfig {
            scale: 16,
            edge_factor: 16,
            seed: 1,
            abc: [0.57, 0.19, 0.19],
        }
    }
}

/// A ready R-MAT generator.
///
/// Each edge descends `scale` levels of the adjacency matrix, choosing a
/// quadrant at each with probabilities A, B, C, D. The levels are taken
/// [`GROUP`] at a time: the 4^GROUP outcomes of a group, with their exact
/// product probabilities, form one alias table (Walker's method), so a
/// group costs one 64-bit random draw and one lookup in a table that fits
/// in the L2 cache. Vertex ids are then scrambled by a seeded bijection of
/// `0..2^scale` (rounds of an odd multiply and an xor-shift), which spreads
/// the hubs over the id space as Graph500's random permutation does, with
/// no table to build or look up.
pub struct Rmat {
    cfg: RmatConfig,
    /// Alias table of a full group of levels.
    full: Vec<u64>,
    /// Alias table of the first, partial group (`scale % GROUP` levels).
    head: Vec<u64>,
    /// Levels in the first group (0 when `scale` is a multiple of GROUP).
    head_levels: u32,
    /// Multipliers (odd) and addends of the id scramble.
    keys: [(u64, u64); 3],
}

/// Levels drawn together: 4^7 outcomes, a 128 KiB table.
pub const GROUP: u32 = 7;

/// Edges per chunk: 1 MiB of edges in flight per thread.
const CHUNK_EDGES: u64 = 1 << 16;

/// Walker's alias table over the 4^k outcomes of `k` levels. Outcome `i`
/// holds the k source bits above the k target bits; its probability is
/// the product of the quadrant probabilities `p` (index `2 * bu + bv`).
/// An entry is `(threshold << 16) | alias`, the threshold in `0..=2^32`:
/// a draw `(i, t)` gives `i` when `t < threshold`, else the alias.
fn alias_table(k: u32, p: [f64; 4]) -> Vec<u64> {
    let n = 1usize << (2 * k);
    let mut scaled: Vec<f64> = (0..n)
        .map(|i| {
            let (u, v) = (i >> k, i & ((1 << k) - 1));
            (0..k)
                .map(|l| p[(((u >> l) & 1) << 1) | ((v >> l) & 1)])
                .product::<f64>()
                * n as f64
        })
        .collect();
    let mut table = vec![0u64; n];
    let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| scaled[i] < 1.0);
    let threshold = |x: f64| (x.clamp(0.0, 1.0) * 4294967296.0).round() as u64;
    while let (Some(&s), Some(&l)) = (small.last(), large.last()) {
        small.pop();
        table[s] = (threshold(scaled[s]) << 16) | l as u64;
        scaled[l] -= 1.0 - scaled[s];
        if scaled[l] < 1.0 {
            large.pop();
            small.push(l);
        }
    }
    // What is left has probability 1 up to rounding: always itself.
    for i in small.into_iter().chain(large) {
        table[i] = (1u64 << 48) | i as u64;
    }
    table
}

impl Rmat {
    /// Prepares the generator; `scale` must be at most 31.
    pub fn new(cfg: RmatConfig) -> crate::Result<Rmat> {
        if cfg.scale == 0 || cfg.scale > 31 {
            return Err(crate::Error::Invalid(format!(
                "--scale must be between 1 and 31, got {}",
                cfg.scale
            )));
        }
        let [a, b, c] = cfg.abc;
        if a < 0.0 || b < 0.0 || c < 0.0 || a + b + c > 1.0 {
            return Err(crate::Error::Invalid(
                "R-MAT probabilities must be non-negative and sum to at most 1".into(),
            ));
        }
        let n = 1u64 << cfg.scale;
        if cfg.edge_factor == 0 || cfg.edge_factor.checked_mul(n).is_none_or(|m| m > 1 << 48) {
            return Err(crate::Error::Invalid(format!(
                "--edge-factor {} at scale {}: the edge count must be between 1 and 2^48",
                cfg.edge_factor, cfg.scale
            )));
        }
        let p = [a, b, c, (1.0 - a - b - c).max(0.0)];
        let head_levels = cfg.scale % GROUP;
        let mut x = cfg.seed ^ 0x5EED_0F1D_5C4A_3B1E;
        let mut key = || {
            let m = crate::rng::splitmix64(&mut x) | 1;
            (m, crate::rng::splitmix64(&mut x))
        };
        Ok(Rmat {
            full: alias_table(GROUP.min(cfg.scale), p),
            head: alias_table(head_levels, p),
            head_levels,
            keys: [key(), key(), key()],
            cfg,
        })
    }

    /// The seeded bijection of `0..2^scale` applied to every id.
    #[inline]
    fn scramble(&self, mut x: u64) -> u64 {
        let mask = (1u64 << self.cfg.scale) - 1;
        let shift = self.cfg.scale.div_ceil(2);
        for &(mul, add) in &self.keys {
            x = x.wrapping_mul(mul).wrapping_add(add) & mask;
            x ^= x >> shift;
        }
        x
    }

    /// One group of `k` levels drawn from `table`, appended to `(u, v)`.
    #[inline(always)]
    fn descend(table: &[u64], k: u32, r: u64, u: &mut u64, v: &mut u64) {
        let i = r as usize & (table.len() - 1);
        let e = table[i];
        let o = if r >> 32 < e >> 16 {
            i as u64
        } else {
            e & 0xFFFF
        };
        *u = (*u << k) | (o >> k);
        *v = (*v << k) | (o & ((1 << k) - 1));
    }
}

impl Generator for Rmat {
    fn chunks(&self) -> usize {
        self.edges().div_ceil(CHUNK_EDGES) as usize
    }
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>) {
        let mut rng = Rng::new(self.cfg.seed, chunk as u64);
        let lo = chunk as u64 * CHUNK_EDGES;
        let hi = (lo + CHUNK_EDGES).min(self.edges());
        let groups = self.cfg.scale / GROUP;
        let k = GROUP.min(self.cfg.scale);
        out.reserve((hi - lo) as usize);
        for _ in lo..hi {
            let (mut u, mut v) = (0u64, 0u64);
            if self.head_levels > 0 {
                Self::descend(&self.head, self.head_levels, rng.next_u64(), &mut u, &mut v);
            }
            for _ in 0..groups {
                Self::descend(&self.full, k, rng.next_u64(), &mut u, &mut v);
            }
            out.push((self.scramble(u), self.scramble(v)));
        }
    }
    fn edges(&self) -> u64 {
        self.cfg.edge_factor << self.cfg.scale
    }
    fn vertices(&self) -> u64 {
        1 << self.cfg.scale
    }
    fn describe(&self) -> String {
        format!(
            "rmat scale {} edge-factor {} seed {} (A={} B={} C={})",
            self.cfg.scale,
            self.cfg.edge_factor,
            self.cfg.seed,
            self.cfg.abc[0],
            self.cfg.abc[1],
            self.cfg.abc[2]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn reproducible_and_skewed() {
        let g = Rmat::new(RmatConfig {
            scale: 10,
            edge_factor: 8,
            ..Default::default()
        })
        .unwrap();
        let mut a = Vec::new();
        let mut b = Vec::new();
        g.chunk_edges(0, &mut a);
        g.chunk_edges(0, &mut b);
        assert_eq!(a, b);
        assert_eq!(a.len(), 8 << 10);
        let mut deg = vec![0u32; 1024];
        for &(u, _) in &a {
            deg[u as usize] += 1;
        }
        let max = *deg.iter().max().unwrap();
        assert!(max > 8 * 8, "R-MAT should be skewed, max degree {max}");
    }

    /// The probability of each outcome, read back from an alias table.
    fn probabilities(t: &[u64]) -> Vec<f64> {
        let n = t.len();
        let mut got = vec![0f64; n];
        for (i, &e) in t.iter().enumerate() {
            let keep = (e >> 16) as f64 / 4294967296.0;
            got[i] += keep / n as f64;
            got[(e & 0xFFFF) as usize] += (1.0 - keep) / n as f64;
        }
        got
    }

    #[test]
    fn alias_tables_give_the_product_probabilities() {
        let p = [0.57, 0.19, 0.19, 0.05];
        for k in [1, 2, 3, GROUP] {
            let got = probabilities(&alias_table(k, p));
            for (i, g) in got.iter().enumerate() {
                let (u, v) = (i >> k, i & ((1 << k) - 1));
                let want: f64 = (0..k)
                    .map(|l| p[(((u >> l) & 1) << 1) | ((v >> l) & 1)])
                    .product();
                // Thresholds have 32 bits: each column is off by at most 2^-33.
                assert!(
                    (g - want).abs() < 2.5e-10,
                    "k {k} outcome {i}: {g} vs {want}"
                );
            }
        }
        // A zero probability is never drawn: D = 0 leaves outcome 3 (u = v = 1).
        let got = probabilities(&alias_table(1, [0.5, 0.25, 0.25, 0.0]));
        assert_eq!(got[3], 0.0);
    }

    #[test]
    fn quadrants_and_scramble() {
        for scale in [1, 5, 7, 8, 14] {
            let g = Rmat::new(RmatConfig {
                scale,
                edge_factor: 1,
                ..Default::default()
            })
            .unwrap();
            let n = 1u64 << scale;
            let mut seen = vec![false; n as usize];
            for x in 0..n {
                let y = g.scramble(x);
                assert!(y < n && !seen[y as usize], "scale {scale}: not a bijection");
                seen[y as usize] = true;
            }
        }
        // Before the scramble, the top level's quadrant follows A, B, C, D.
        let g = Rmat::new(RmatConfig {
            scale: 9,
            ..Default::default()
        })
        .unwrap();
        let mut rng = Rng::new(3, 0);
        let mut q = [0u32; 4];
        let trials = 200_000;
        for _ in 0..trials {
            let (mut u, mut v) = (0, 0);
            Rmat::descend(&g.head, g.head_levels, rng.next_u64(), &mut u, &mut v);
            Rmat::descend(&g.full, GROUP, rng.next_u64(), &mut u, &mut v);
            q[((u >> 8) * 2 + (v >> 8)) as usize] += 1;
        }
        for (got, want) in q.iter().zip([0.57, 0.19, 0.19, 0.05]) {
            let f = *got as f64 / trials as f64;
            assert!((f - want).abs() < 0.005, "{q:?}");
        }
    }
}

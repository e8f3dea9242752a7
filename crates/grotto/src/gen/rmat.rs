//! Graph500 Kronecker generator (R-MAT with A=0.57, B=0.19, C=0.19,
//! D=0.05), vertex ids randomly permuted, as in the Graph500 specification
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

/// A ready R-MAT generator. The vertex permutation is drawn on first use,
/// so that making one is cheap and a destination or a size can be refused
/// before seconds of shuffling (2^31 entries take minutes).
pub struct Rmat {
    cfg: RmatConfig,
    perm: std::sync::OnceLock<Vec<u32>>,
    thresholds: [u64; 3],
}

const CHUNK_EDGES: u64 = 1 << 18;

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
        crate::metrics::check_memory(
            n * 4,
            &format!("the vertex permutation of --scale {}", cfg.scale),
        )?;
        let t = |p: f64| (p * 65536.0).round() as u64;
        Ok(Rmat {
            thresholds: [t(a), t(a + b), t(a + b + c)],
            cfg,
            perm: std::sync::OnceLock::new(),
        })
    }

    /// The seeded permutation of vertex ids (drawn once, on first use).
    fn perm(&self) -> &[u32] {
        self.perm.get_or_init(|| {
            let n = 1u64 << self.cfg.scale;
            let mut perm: Vec<u32> = (0..n as u32).collect();
            let mut rng = Rng::new(self.cfg.seed, u64::MAX);
            for i in (1..n as usize).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                perm.swap(i, j);
            }
            perm
        })
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
        let [ta, tab, tabc] = self.thresholds;
        let perm = self.perm();
        out.reserve((hi - lo) as usize);
        for _ in lo..hi {
            let (mut u, mut v) = (0u64, 0u64);
            let mut bits = 0u64;
            for level in 0..self.cfg.scale {
                if level % 4 == 0 {
                    bits = rng.next_u64();
                }
                let x = bits & 0xFFFF;
                bits >>= 16;
                let (bu, bv) = if x < ta {
                    (0, 0)
                } else if x < tab {
                    (0, 1)
                } else if x < tabc {
                    (1, 0)
                } else {
                    (1, 1)
                };
                u = (u << 1) | bu;
                v = (v << 1) | bv;
            }
            out.push((perm[u as usize] as u64, perm[v as usize] as u64));
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
}

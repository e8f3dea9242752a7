//! Barabási–Albert preferential attachment: each new vertex links to `m`
//! distinct earlier vertices chosen with probability proportional to
//! their degree. Vertex `m` starts by linking to `0..m`.

use super::Generator;
use crate::rng::Rng;

/// A generated Barabási–Albert graph (edges are produced up front: the
/// process is sequential).
pub struct Ba {
    n: u64,
    m: u64,
    seed: u64,
    edges: Vec<(u64, u64)>,
}

const CHUNK: usize = 1 << 18;

impl Ba {
    /// Generates `n` vertices with `m` links each; needs `1 <= m < n`.
    pub fn new(n: u64, m: u64, seed: u64) -> crate::Result<Ba> {
        if m == 0 || m >= n {
            return Err(crate::Error::Invalid(format!(
                "Barabasi-Albert needs 1 <= m < n, got m={m} n={n}"
            )));
        }
        if n > u32::MAX as u64 {
            return Err(crate::Error::Invalid(
                "Barabasi-Albert: at most 2^32 - 1 vertices".into(),
            ));
        }
        let bytes = n
            .checked_mul(m)
            .and_then(|nm| nm.checked_mul(8 + 16))
            .ok_or_else(|| crate::Error::Limit {
                what: format!("Barabasi-Albert --n {n} --m {m}: the edge count overflows"),
            })?;
        crate::metrics::check_memory(
            bytes,
            &format!("Barabasi-Albert --n {n} --m {m} (its edges are held in memory)"),
        )?;
        let mut rng = Rng::new(seed, 0);
        let mut repeated: Vec<u32> = Vec::with_capacity((2 * n * m) as usize);
        let mut edges = Vec::with_capacity(((n - m) * m) as usize);
        let mut picked: Vec<u32> = Vec::with_capacity(m as usize);
        for t in 0..m {
            edges.push((m, t));
            repeated.push(t as u32);
            repeated.push(m as u32);
        }
        for v in m + 1..n {
            picked.clear();
            while (picked.len() as u64) < m {
                let x = repeated[rng.below(repeated.len() as u64) as usize];
                if !picked.contains(&x) {
                    picked.push(x);
                }
            }
            for &x in &picked {
                edges.push((v, x as u64));
                repeated.push(x);
                repeated.push(v as u32);
            }
        }
        Ok(Ba { n, m, seed, edges })
    }
}

impl Generator for Ba {
    fn chunks(&self) -> usize {
        self.edges.len().div_ceil(CHUNK)
    }
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>) {
        let lo = chunk * CHUNK;
        out.extend_from_slice(&self.edges[lo..(lo + CHUNK).min(self.edges.len())]);
    }
    fn edges(&self) -> u64 {
        self.edges.len() as u64
    }
    fn vertices(&self) -> u64 {
        self.n
    }
    fn describe(&self) -> String {
        format!("ba n {} m {} seed {}", self.n, self.m, self.seed)
    }
}

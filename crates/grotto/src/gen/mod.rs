//! Seeded, reproducible graph generators: Graph500 Kronecker (R-MAT),
//! 2D grids (road-like, high diameter) and Barabási–Albert graphs.
//! Output is the same for a seed whatever the thread count: every chunk
//! of edges has its own random stream.

pub mod ba;
pub mod grid;
pub mod rmat;
pub mod shuffle;

use crate::error::{Error, Result};
use crate::ingest::parse::EdgeSink;
use crate::ingest::EdgeGenerator;
use crate::io::output::Output;
use rayon::prelude::*;
use std::io::Write;

/// A graph generator that produces its edges in independent chunks.
pub trait Generator: Sync {
    /// Number of chunks.
    fn chunks(&self) -> usize;
    /// Appends the edges of `chunk` to `out`.
    fn chunk_edges(&self, chunk: usize, out: &mut Vec<(u64, u64)>);
    /// Total edges.
    fn edges(&self) -> u64;
    /// Vertices (ids `0..n`).
    fn vertices(&self) -> u64;
    /// Description, with parameters and seed.
    fn describe(&self) -> String;
}

/// Edges handed to a sink in one call.
const BATCH: usize = 4096;

/// Adapts a [`Generator`] to the ingest pipeline.
pub struct AsSource<'a>(pub &'a dyn Generator);

impl EdgeGenerator for AsSource<'_> {
    fn chunks(&self) -> usize {
        self.0.chunks()
    }
    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> crate::Result<bool> {
        let mut buf = Vec::new();
        self.0.chunk_edges(chunk, &mut buf);
        // One dynamic call per batch of edges, not per edge.
        let (mut us, mut vs) = (Vec::with_capacity(BATCH), Vec::with_capacity(BATCH));
        for part in buf.chunks(BATCH) {
            us.clear();
            vs.clear();
            us.extend(part.iter().map(|e| e.0));
            vs.extend(part.iter().map(|e| e.1));
            if !sink.edges(&us, &vs, None) {
                return Ok(false);
            }
        }
        Ok(true)
    }
    fn edges(&self) -> u64 {
        self.0.edges()
    }
    fn vertex_count(&self) -> Option<u64> {
        Some(self.0.vertices())
    }
    fn describe(&self) -> String {
        self.0.describe()
    }
    fn replayable(&self) -> bool {
        true
    }
}

/// Adapts a [`Generator`] to the ingest pipeline with edge weights: each
/// edge gets a weight in (0, 1] drawn from a hash of `seed` and its two
/// endpoints, so a duplicate edge, and both directions of an undirected
/// one, get the same weight (Graph500's SSSP draws uniform weights too).
pub struct WeightedSource<'a> {
    /// The generator.
    pub g: &'a dyn Generator,
    /// Seed of the weights.
    pub seed: u64,
}

/// The weight [`WeightedSource`] gives edge `u`-`v`.
pub fn edge_weight(seed: u64, u: u64, v: u64) -> f32 {
    let (a, b) = if u <= v { (u, v) } else { (v, u) };
    let mut x = seed ^ a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b.rotate_left(32);
    let h = crate::rng::splitmix64(&mut x);
    // 24 random bits: (0, 1] in steps of 2^-24, exact in f32.
    ((h >> 40) + 1) as f32 / (1u64 << 24) as f32
}

impl EdgeGenerator for WeightedSource<'_> {
    fn chunks(&self) -> usize {
        self.g.chunks()
    }
    fn emit(&self, chunk: usize, sink: &mut dyn EdgeSink) -> crate::Result<bool> {
        let mut buf = Vec::new();
        self.g.chunk_edges(chunk, &mut buf);
        for (u, v) in buf {
            if !sink.edge(u, v, edge_weight(self.seed, u, v)) {
                return Ok(false);
            }
        }
        Ok(true)
    }
    fn edges(&self) -> u64 {
        self.g.edges()
    }
    fn vertex_count(&self) -> Option<u64> {
        Some(self.g.vertices())
    }
    fn weighted(&self) -> bool {
        true
    }
    fn replayable(&self) -> bool {
        true
    }
    fn describe(&self) -> String {
        format!("{}, weights in (0, 1]", self.g.describe())
    }
}

/// Writes the generator's edges as a text edge list (`u v` lines, with a
/// `#` comment header naming the vertex count) to `out`, an output opened
/// before the work, and commits it; calls `progress(chunks_done)`. With
/// `weights` (a seed), each line gets the [`edge_weight`] as a third column.
pub fn write_edge_list(
    g: &dyn Generator,
    weights: Option<u64>,
    out_file: Output,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<u64> {
    let path = out_file.path().to_path_buf();
    let path = path.as_path();
    let mut bytes = 0u64;
    {
        let mut out = std::io::BufWriter::with_capacity(8 << 20, out_file.file());
        let head = format!(
            "# {}\n# vertices {} edges {}\n",
            g.describe(),
            g.vertices(),
            g.edges()
        );
        out.write_all(head.as_bytes())
            .map_err(|e| Error::io(path, "write", e))?;
        let batch = rayon::current_num_threads() * 2;
        let mut c = 0;
        while c < g.chunks() {
            let hi = (c + batch).min(g.chunks());
            let texts: Vec<Vec<u8>> = (c..hi)
                .into_par_iter()
                .map(|i| {
                    let mut e = Vec::new();
                    g.chunk_edges(i, &mut e);
                    let mut t = Vec::with_capacity(e.len() * 16);
                    let mut b = itoa::Buffer::new();
                    for (u, v) in e {
                        t.extend_from_slice(b.format(u).as_bytes());
                        t.push(b' ');
                        t.extend_from_slice(b.format(v).as_bytes());
                        if let Some(seed) = weights {
                            t.push(b' ');
                            t.extend_from_slice(format!("{}", edge_weight(seed, u, v)).as_bytes());
                        }
                        t.push(b'\n');
                    }
                    t
                })
                .collect();
            for t in texts {
                bytes += t.len() as u64;
                out.write_all(&t).map_err(|e| Error::io(path, "write", e))?;
            }
            c = hi;
            progress(c as u64);
        }
        out.flush().map_err(|e| Error::io(path, "write", e))?;
    }
    out_file.commit()?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::edge_weight;

    #[test]
    fn edge_weights_are_symmetric_and_in_unit_interval() {
        for (u, v) in [(0u64, 1u64), (7, 3), (1 << 40, 5), (9, 9)] {
            let w = edge_weight(42, u, v);
            assert_eq!(w, edge_weight(42, v, u));
            assert!(w > 0.0 && w <= 1.0);
        }
        assert_ne!(edge_weight(1, 0, 1), edge_weight(2, 0, 1));
    }
}

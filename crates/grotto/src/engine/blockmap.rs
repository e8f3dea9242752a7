//! Which vertices have neighbours in which edge block: the inverse of the
//! vertex index, built once per run for block mode.
//!
//! Block mode reads each block a level needs once and processes every
//! frontier vertex whose list lies in it; this map answers "whose lists
//! are in block b" in time proportional to the answer. A vertex whose list
//! spans several blocks is listed in each of them. Memory: 4 bytes per
//! vertex with an on-disk list plus 8 bytes per block (both O(vertices)
//! for any graph grotto stores).

use crate::store::format::SLOTS_PER_BLOCK;
use crate::store::Adjacency;
use crate::VertexId;

/// Vertices per edge block, in increasing order.
#[derive(Debug)]
pub struct BlockMap {
    starts: Vec<u64>,
    vertices: Vec<VertexId>,
}

/// The first and last block (inclusive) of a list at `slot` of `degree`.
#[inline]
pub fn block_span(slot: u64, degree: u64) -> (u64, u64) {
    let per = SLOTS_PER_BLOCK as u64;
    (slot / per, (slot + degree - 1) / per)
}

impl BlockMap {
    /// Builds the map for an adjacency of `n` vertices.
    pub fn build(adj: &Adjacency, n: u64) -> BlockMap {
        let blocks = adj.block_count() as usize;
        let mut starts = vec![0u64; blocks + 1];
        for v in 0..n as VertexId {
            if let Some((slot, degree)) = adj.disk_span(v) {
                let (a, b) = block_span(slot, degree);
                for k in a..=b.min(blocks as u64 - 1) {
                    starts[k as usize + 1] += 1;
                }
            }
        }
        for k in 0..blocks {
            starts[k + 1] += starts[k];
        }
        let mut fill: Vec<u64> = starts[..blocks].to_vec();
        let mut vertices = vec![0 as VertexId; starts[blocks] as usize];
        for v in 0..n as VertexId {
            if let Some((slot, degree)) = adj.disk_span(v) {
                let (a, b) = block_span(slot, degree);
                for k in a..=b.min(blocks as u64 - 1) {
                    vertices[fill[k as usize] as usize] = v;
                    fill[k as usize] += 1;
                }
            }
        }
        BlockMap { starts, vertices }
    }

    /// The vertices with neighbours in block `b`.
    #[inline]
    pub fn vertices(&self, b: u64) -> &[VertexId] {
        let b = b as usize;
        if b + 1 >= self.starts.len() {
            return &[];
        }
        &self.vertices[self.starts[b] as usize..self.starts[b + 1] as usize]
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.starts.len() * 8 + self.vertices.len() * 4) as u64
    }
}

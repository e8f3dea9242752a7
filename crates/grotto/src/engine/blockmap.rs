//! Which vertices have neighbours in which edge block: the inverse of the
//! vertex index, built once per run for block mode.
//!
//! Block mode reads each block a level needs once and processes every
//! frontier vertex whose list lies in it; this map answers "whose lists
//! are in block b" in time proportional to the answer. A vertex whose list
//! spans several blocks is listed in each of them. Memory: 4 bytes per
//! vertex with an on-disk list plus 8 bytes per block (both O(vertices)
//! for any graph grotto stores).

use super::par::for_each_vertex;
use crate::store::format::SLOTS_PER_BLOCK;
use crate::store::Adjacency;
use crate::VertexId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

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
    /// Builds the map for an adjacency of `n` vertices with `threads`
    /// threads (it sits on the first level's critical path).
    pub fn build(adj: &Adjacency, n: u64, threads: usize) -> BlockMap {
        let blocks = adj.block_count() as usize;
        let last = (blocks as u64).saturating_sub(1);
        let counts: Vec<AtomicU64> = (0..=blocks).map(|_| AtomicU64::new(0)).collect();
        for_each_vertex(n, threads, |v| {
            if let Some((slot, degree)) = adj.disk_span(v) {
                let (a, b) = block_span(slot, degree);
                for k in a..=b.min(last) {
                    counts[k as usize + 1].fetch_add(1, Relaxed);
                }
            }
        });
        let mut starts: Vec<u64> = counts.into_iter().map(AtomicU64::into_inner).collect();
        for k in 0..blocks {
            starts[k + 1] += starts[k];
        }
        let fill: Vec<AtomicU64> = starts[..blocks]
            .iter()
            .map(|&s| AtomicU64::new(s))
            .collect();
        let slots: Vec<AtomicU32> = (0..starts[blocks]).map(|_| AtomicU32::new(0)).collect();
        for_each_vertex(n, threads, |v| {
            if let Some((slot, degree)) = adj.disk_span(v) {
                let (a, b) = block_span(slot, degree);
                for k in a..=b.min(last) {
                    slots[fill[k as usize].fetch_add(1, Relaxed) as usize].store(v, Relaxed);
                }
            }
        });
        let mut vertices: Vec<VertexId> = slots.into_iter().map(AtomicU32::into_inner).collect();
        // Threads filled blocks in any order: sort each block's run.
        let mut runs = Vec::with_capacity(blocks);
        let mut rest = &mut vertices[..];
        for k in 0..blocks {
            let (run, tail) = rest.split_at_mut((starts[k + 1] - starts[k]) as usize);
            runs.push(run);
            rest = tail;
        }
        runs.par_iter_mut().for_each(|r| r.sort_unstable());
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

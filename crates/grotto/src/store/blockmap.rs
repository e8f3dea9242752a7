//! Which vertices have neighbours in which edge block: the inverse of the
//! vertex index, stored in the file (`out-block-map`, `in-block-map`) so
//! that block-mode runs do not rebuild it, and built when a file written
//! before it existed is opened.
//!
//! Block mode reads each block a level needs once and processes every
//! active vertex whose list lies in it; this map answers "whose lists are
//! in block b" in time proportional to the answer. A vertex whose list
//! spans several blocks is listed in each of them, and each block's
//! vertices are in increasing order. Memory: 4 bytes per vertex with an
//! on-disk list plus 8 bytes per block (both O(vertices) for any graph
//! grotto stores).
//!
//! On disk: `blocks + 1` u64 run starts, then the u32 vertex ids.

use super::format::SLOTS_PER_BLOCK;
use crate::VertexId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

/// Vertices per edge block, in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// Vertices a worker takes at a time while building.
const CHUNK: usize = 4096;

impl BlockMap {
    /// Builds the map of `blocks` edge blocks from `range(v)`, the first
    /// and last block of each of the `n` vertices' on-disk lists (`None`
    /// for lists in the index and empty ones), on all cores.
    pub fn build(
        n: u64,
        blocks: u64,
        range: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
    ) -> BlockMap {
        let nb = blocks as usize;
        let last = blocks.saturating_sub(1);
        // Calls `f(k)` for each block `k` of each vertex's list.
        let each = |f: &(dyn Fn(u64, VertexId) + Sync)| {
            (0..n as usize)
                .into_par_iter()
                .with_min_len(CHUNK)
                .for_each(|v| {
                    if let Some((a, b)) = range(v as VertexId) {
                        for k in a..=b.min(last) {
                            f(k, v as VertexId);
                        }
                    }
                })
        };
        let counts: Vec<AtomicU64> = (0..=nb).map(|_| AtomicU64::new(0)).collect();
        each(&|k, _| {
            counts[k as usize + 1].fetch_add(1, Relaxed);
        });
        let mut starts: Vec<u64> = counts.into_iter().map(AtomicU64::into_inner).collect();
        for k in 0..nb {
            starts[k + 1] += starts[k];
        }
        let fill: Vec<AtomicU64> = starts[..nb].iter().map(|&s| AtomicU64::new(s)).collect();
        let slots: Vec<AtomicU32> = (0..starts[nb]).map(|_| AtomicU32::new(0)).collect();
        each(&|k, v| {
            slots[fill[k as usize].fetch_add(1, Relaxed) as usize].store(v, Relaxed);
        });
        let mut vertices: Vec<VertexId> = slots.into_iter().map(AtomicU32::into_inner).collect();
        // Workers filled blocks in any order: sort each block's run.
        let mut runs = Vec::with_capacity(nb);
        let mut rest = &mut vertices[..];
        for k in 0..nb {
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

    /// Number of blocks mapped.
    pub fn block_count(&self) -> u64 {
        self.starts.len().saturating_sub(1) as u64
    }

    /// Number of (block, vertex) pairs listed.
    pub fn len(&self) -> u64 {
        self.vertices.len() as u64
    }

    /// Whether no vertex is listed.
    pub fn is_empty(&self) -> bool {
        self.vertices.is_empty()
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.starts.len() * 8 + self.vertices.len() * 4) as u64
    }

    /// The on-disk form: the run starts, then the vertex ids.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes() as usize);
        out.extend_from_slice(bytemuck::cast_slice(&self.starts));
        out.extend_from_slice(bytemuck::cast_slice(&self.vertices));
        out
    }

    /// Reads the on-disk form of a map of `blocks` blocks over `n`
    /// vertices, checking its shape: starts from 0, never decreasing,
    /// ending at the number of ids that follow; ids below `n` and
    /// increasing within each block. Whether the pairs are the right ones
    /// is [`BlockMap::agrees`]'s business. Errors say what is wrong.
    pub fn from_bytes(bytes: &[u8], blocks: u64, n: u64) -> Result<BlockMap, String> {
        let head = (blocks as usize + 1) * 8;
        if bytes.len() < head || !(bytes.len() - head).is_multiple_of(4) {
            return Err(format!(
                "is {} bytes, not {head} bytes of run starts and a whole number of ids",
                bytes.len()
            ));
        }
        let starts: Vec<u64> = bytemuck::pod_collect_to_vec(&bytes[..head]);
        let vertices: Vec<VertexId> = bytemuck::pod_collect_to_vec(&bytes[head..]);
        if starts[0] != 0 || starts.windows(2).any(|w| w[0] > w[1]) {
            return Err("has run starts out of order".into());
        }
        if starts[blocks as usize] != vertices.len() as u64 {
            return Err(format!(
                "lists {} ids after run starts that end at {}",
                vertices.len(),
                starts[blocks as usize]
            ));
        }
        let map = BlockMap { starts, vertices };
        let bad = (0..blocks).into_par_iter().find_any(|&b| {
            let run = map.vertices(b);
            run.iter().any(|&v| v as u64 >= n) || run.windows(2).any(|w| w[0] >= w[1])
        });
        if let Some(b) = bad {
            return Err(format!(
                "lists an impossible or repeated vertex under block {b}"
            ));
        }
        Ok(map)
    }

    /// Whether every pair is right for `range` (see [`BlockMap::build`])
    /// given that the map should hold `pairs` pairs in all: with ids
    /// increasing in each block (checked on reading), right pairs of the
    /// right number are exactly the map `build` makes. Returns the first
    /// wrong block.
    pub fn agrees(
        &self,
        pairs: u64,
        range: impl Fn(VertexId) -> Option<(u64, u64)> + Sync,
    ) -> Result<(), u64> {
        if self.len() != pairs {
            return Err(self.block_count());
        }
        let bad = (0..self.block_count()).into_par_iter().find_any(|&b| {
            self.vertices(b)
                .iter()
                .any(|&v| range(v).is_none_or(|(first, last)| b < first || b > last))
        });
        match bad {
            Some(b) => Err(b),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::format::{padded, SectionKind};
    use crate::store::{Direction, Graph};
    use crate::testkit;

    /// Each adjacency's map (stored, or built when the file has none) is
    /// the one built from its index.
    fn maps_match(g: &Graph) {
        let mut dirs = vec![Direction::Out];
        if g.header().has_reverse() {
            dirs.push(Direction::In);
        }
        for d in dirs {
            let adj = g.adjacency(d).unwrap();
            let want = BlockMap::build(g.vertex_count(), adj.block_count(), |v| adj.block_range(v));
            assert_eq!(adj.block_map(), &want, "{d:?}");
        }
    }

    #[test]
    fn files_carry_their_map_and_older_files_get_it_built() {
        // Raw blocks: packed ones came in version 4, after the maps.
        for t in [
            testkit::rmat_raw(10, 8, 3, false),
            testkit::rmat_raw(11, 6, 2, true),
        ] {
            let h = t.graph.header();
            assert!(h.section(SectionKind::OutBlockMap).is_some());
            assert_eq!(
                h.has_reverse(),
                h.section(SectionKind::InBlockMap).is_some()
            );
            maps_match(&t.graph);
            // The same file without its maps (as written before they were
            // stored) opens and builds them.
            let mut bytes = std::fs::read(t.graph.path()).unwrap();
            let mut old = h.clone();
            old.version = 1;
            old.flags &= !crate::store::format::FLAG_DELTA;
            old.sections.retain(|s| {
                !matches!(
                    s.kind,
                    SectionKind::OutBlockMap | SectionKind::InBlockMap | SectionKind::Manifest
                )
            });
            bytes[..4096].copy_from_slice(&old.encode());
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("old.grotto");
            std::fs::write(&path, &bytes).unwrap();
            let g = Graph::open(&path).unwrap();
            assert!(g.header().section(SectionKind::OutBlockMap).is_none());
            assert_eq!(g.header().version, 1);
            maps_match(&g);
        }
    }

    #[test]
    fn a_map_that_disagrees_with_the_index_is_named() {
        let t = testkit::rmat(10, 8, 3, true);
        let h = t.graph.header().clone();
        let s = *h.section(SectionKind::OutBlockMap).unwrap();
        let mut bytes = std::fs::read(t.graph.path()).unwrap();
        // Move the first id of block 0's run to a vertex whose list is not
        // there (keeping the run increasing), and fix the section's CRC so
        // only the cross-check can see it.
        let adj = t.graph.adjacency(Direction::Out).unwrap();
        let map = adj.block_map();
        let run = map.vertices(0);
        let stranger = (0..run[1])
            .find(|&v| adj.block_range(v).is_none_or(|(first, _)| first > 0))
            .unwrap();
        let at = (s.offset + (map.block_count() + 1) * 8) as usize;
        bytes[at..at + 4].copy_from_slice(&stranger.to_le_bytes());
        let end = (s.offset + padded(s.length)) as usize;
        let mut bad = h.clone();
        for sec in &mut bad.sections {
            if sec.kind == SectionKind::OutBlockMap {
                sec.crc = crc32c::crc32c(&bytes[s.offset as usize..end]);
            }
        }
        bytes[..4096].copy_from_slice(&bad.encode());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.grotto");
        std::fs::write(&path, &bytes).unwrap();
        let e = Graph::open(&path).unwrap_err().to_string();
        assert!(
            e.contains("out-block-map") && e.contains("disagrees"),
            "{e}"
        );
        assert!(e.contains("bad.grotto"), "{e}");
    }

    /// Block ranges of lists given by (first slot, degree).
    fn spans() -> Vec<Option<(u64, u64)>> {
        let per = SLOTS_PER_BLOCK as u64;
        [
            Some((0, 10)),
            None,
            Some((10, 5)),
            Some((2 * per, 3 * per)),
            Some((per, 7)),
            Some((5 * per, 1)),
            None,
        ]
        .into_iter()
        .map(|s| s.map(|(slot, d)| block_span(slot, d)))
        .collect()
    }

    #[test]
    fn build_lists_each_vertex_under_every_block_of_its_list() {
        let s = spans();
        let m = BlockMap::build(s.len() as u64, 6, |v| s[v as usize]);
        assert_eq!(m.vertices(0), &[0, 2]);
        assert_eq!(m.vertices(1), &[4]);
        assert_eq!(m.vertices(2), &[3]);
        assert_eq!(m.vertices(3), &[3]);
        assert_eq!(m.vertices(4), &[3]);
        assert_eq!(m.vertices(5), &[5]);
        assert_eq!(m.vertices(6), &[] as &[VertexId]);
        assert_eq!(m.len(), 7);
        assert_eq!(m.agrees(7, |v| s[v as usize]), Ok(()));
    }

    #[test]
    fn bytes_round_trip_and_bad_maps_are_named() {
        let s = spans();
        let n = s.len() as u64;
        let m = BlockMap::build(n, 6, |v| s[v as usize]);
        let b = m.to_bytes();
        assert_eq!(BlockMap::from_bytes(&b, 6, n), Ok(m.clone()));
        // Wrong size, starts out of order, a vertex out of range, a repeat.
        assert!(BlockMap::from_bytes(&b[..b.len() - 2], 6, n).is_err());
        assert!(BlockMap::from_bytes(&b, 7, n).is_err());
        let mut c = b.clone();
        c[8] = 9;
        assert!(BlockMap::from_bytes(&c, 6, n).is_err());
        assert!(BlockMap::from_bytes(&b, 6, 4).is_err());
        let mut d = b.clone();
        let at = b.len() - 7 * 4;
        d[at..at + 4].copy_from_slice(&2u32.to_le_bytes());
        assert!(BlockMap::from_bytes(&d, 6, n).is_err());
        // Well formed but wrong: vertex 2 listed under block 1 instead of 0.
        let mut e = BlockMap::build(n, 6, |v| s[v as usize]);
        e.vertices[1] = 1;
        assert!(e.agrees(7, |v| s[v as usize]).is_err());
        assert!(m.agrees(8, |v| s[v as usize]).is_err());
    }
}

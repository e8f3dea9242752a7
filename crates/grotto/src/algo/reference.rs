//! The graph held in memory as compressed sparse rows, read with the
//! store's simple sequential reader. Verifiers and serial references use
//! it: they share no code with the engines they check. It needs 4 bytes
//! per stored edge plus 8 per vertex, so `--verify` is meant for graphs
//! that fit in memory.

use crate::error::Result;
use crate::store::{BlockReader, Direction, Graph};
use crate::VertexId;

/// One adjacency of a graph, in memory.
#[derive(Debug, Clone)]
pub struct Csr {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Vec<f32>,
}

impl Csr {
    /// Loads the `dir` adjacency of `g`.
    pub fn load(g: &Graph, dir: Direction) -> Result<Csr> {
        let n = g.vertex_count();
        let mut r = BlockReader::new(g, dir)?;
        let mut offsets = Vec::with_capacity(n as usize + 1);
        offsets.push(0u64);
        let mut targets = Vec::with_capacity(g.adjacency(dir)?.entries() as usize);
        let mut buf = Vec::new();
        let mut wbuf = Vec::new();
        let mut weights = Vec::new();
        for v in 0..n as VertexId {
            if g.weighted() {
                r.neighbors(v, &mut buf, Some(&mut wbuf))?;
                weights.extend_from_slice(&wbuf);
            } else {
                r.neighbors(v, &mut buf, None)?;
            }
            targets.extend_from_slice(&buf);
            offsets.push(targets.len() as u64);
        }
        Ok(Csr {
            offsets,
            targets,
            weights,
        })
    }

    /// Builds a graph from explicit lists (tests).
    pub fn from_lists(lists: &[Vec<VertexId>]) -> Csr {
        let mut offsets = vec![0u64];
        let mut targets = Vec::new();
        for l in lists {
            targets.extend_from_slice(l);
            offsets.push(targets.len() as u64);
        }
        Csr {
            offsets,
            targets,
            weights: Vec::new(),
        }
    }

    /// The same edges reversed (no weights): a directed graph's in-lists
    /// from its out-lists, each sorted.
    pub fn reversed(&self) -> Csr {
        let n = self.vertex_count() as usize;
        let mut lists = vec![Vec::new(); n];
        for v in 0..n {
            for &u in self.neighbors(v as VertexId) {
                lists[u as usize].push(v as VertexId);
            }
        }
        Csr::from_lists(&lists)
    }

    /// The weights of `v`'s edges, in the order of [`Csr::neighbors`]
    /// (empty for an unweighted graph).
    pub fn weights(&self, v: VertexId) -> &[f32] {
        if self.weights.is_empty() {
            return &[];
        }
        &self.weights[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }

    /// Number of stored edges.
    pub fn edge_count(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The neighbours of `v`.
    pub fn neighbors(&self, v: VertexId) -> &[VertexId] {
        &self.targets[self.offsets[v as usize] as usize..self.offsets[v as usize + 1] as usize]
    }

    /// Whether the edge `u -> v` exists (lists are sorted).
    pub fn has_edge(&self, u: VertexId, v: VertexId) -> bool {
        self.neighbors(u).binary_search(&v).is_ok()
    }

    /// Depth of every vertex from `s` by a serial BFS (`u32::MAX`:
    /// unreached).
    pub fn bfs_depths(&self, s: VertexId) -> Vec<u32> {
        let n = self.vertex_count() as usize;
        let mut depth = vec![u32::MAX; n];
        let mut queue = std::collections::VecDeque::new();
        depth[s as usize] = 0;
        queue.push_back(s);
        while let Some(v) = queue.pop_front() {
            for &u in self.neighbors(v) {
                if depth[u as usize] == u32::MAX {
                    depth[u as usize] = depth[v as usize] + 1;
                    queue.push_back(u);
                }
            }
        }
        depth
    }
}

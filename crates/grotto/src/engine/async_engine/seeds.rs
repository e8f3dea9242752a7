//! Index-resident seeds of a pass, in priority order, compact while they
//! share one priority.

use crate::VertexId;

/// Index-resident seeds, in priority order: 4 bytes each while they
/// share one priority (as most passes' seeds do), 8 once they differ.
#[derive(Default)]
pub(super) struct SeedList {
    vs: Vec<VertexId>,
    /// Each seed's priority, when they differ.
    ps: Option<Vec<u32>>,
    /// The priority of every seed, while they share one.
    p: u32,
}

impl SeedList {
    pub(super) fn len(&self) -> usize {
        self.vs.len()
    }

    pub(super) fn get(&self, i: usize) -> (u32, VertexId) {
        (self.ps.as_ref().map_or(self.p, |ps| ps[i]), self.vs[i])
    }

    pub(super) fn push(&mut self, p: u32, v: VertexId) {
        if self.vs.is_empty() && self.ps.is_none() {
            self.p = p;
        }
        match &mut self.ps {
            Some(ps) => ps.push(p),
            None if p == self.p => {}
            None => {
                let mut ps = vec![self.p; self.vs.len()];
                ps.push(p);
                self.ps = Some(ps);
            }
        }
        self.vs.push(v);
    }

    /// The chunks' seeds, in order of priority, then vertex.
    pub(super) fn merge(chunks: Vec<SeedList>) -> SeedList {
        let total = chunks.iter().map(SeedList::len).sum();
        let shared = chunks.iter().find(|c| c.len() > 0).map_or(0, |c| c.p);
        if chunks
            .iter()
            .all(|c| c.len() == 0 || (c.ps.is_none() && c.p == shared))
        {
            let mut vs = Vec::with_capacity(total);
            for c in chunks {
                vs.extend_from_slice(&c.vs);
            }
            if !vs.is_sorted() {
                vs.sort_unstable();
            }
            return SeedList {
                vs,
                ps: None,
                p: shared,
            };
        }
        let mut pairs = Vec::with_capacity(total);
        for c in chunks {
            pairs.extend((0..c.len()).map(|i| c.get(i)));
        }
        pairs.sort_unstable();
        SeedList {
            vs: pairs.iter().map(|&(_, v)| v).collect(),
            ps: Some(pairs.iter().map(|&(p, _)| p).collect()),
            p: 0,
        }
    }
}

//! Multilevel algorithms: a graph at any level of coarsening behind one
//! interface, and the pass that makes the next, smaller level.
//!
//! A multilevel algorithm (Louvain, Leiden, and any coarsening that
//! groups vertices and works on the graph of the groups) sees a level as
//! [`Lists`]: its vertex count and whole weighted neighbour lists for any
//! [`Frontier`]. The first level is the graph file, read through a
//! synchronous [`Run`] (lists longer than a block arrive in pieces and are
//! gathered here, so the algorithm gets each list whole); later levels are
//! [`Coarse`] graphs held in memory. [`contract`] is the seam between two
//! levels: given a group for every vertex of a level, one pass over its
//! lists gives the graph of the groups: an edge between two groups weighs
//! the sum of the edges between their members, and a group's self loop
//! the sum of the edges inside it (each once; a member's own loop
//! included). Weights are summed and kept in `f64`; sums are taken in an
//! order fixed by the records themselves, so the coarse graph does not
//! depend on the thread count.
//!
//! Lists follow the file's conventions: an undirected edge is in both
//! lists, and a self loop is one entry of its vertex's list.

use super::frontier::{Frontier, GRAB_UNITS};
use super::par::fan_out;
use super::{Run, RunBase};
use crate::error::{Error, Result};
use crate::store::Direction;
use crate::VertexId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::Mutex;

/// The weights of a list handed to a visitor, one per neighbour.
#[derive(Clone, Copy, Debug)]
pub enum Weights<'a> {
    /// Every weight is 1 (an unweighted graph file).
    Ones,
    /// A weighted graph file's weights.
    F32(&'a [f32]),
    /// A coarse level's weights (sums kept exact in `f64`).
    F64(&'a [f64]),
}

impl Weights<'_> {
    /// The weight of entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> f64 {
        match self {
            Weights::Ones => 1.0,
            Weights::F32(w) => w[i] as f64,
            Weights::F64(w) => w[i],
        }
    }
}

/// What a visitor of whole lists is handed: the vertex, its neighbours,
/// and their weights.
pub type Visit<'f> = dyn Fn(VertexId, &[VertexId], Weights<'_>) + Sync + 'f;

/// A graph of one level, as a multilevel algorithm reads it.
pub trait Lists {
    /// Vertices of this level.
    fn vertex_count(&self) -> u64;
    /// Threads CPU loops over this level may use.
    fn threads(&self) -> usize;
    /// Entries of `v`'s list (a self loop is one).
    fn degree(&self, v: VertexId) -> u64;
    /// Calls `visit` once for every vertex of `vertices` that has a
    /// neighbour, with its whole list, on several threads at once and in
    /// no fixed order.
    fn visit_whole(&mut self, vertices: &Frontier, visit: &Visit<'_>) -> Result<()>;
    /// Holds the whole lists of `vertices` (sorted, distinct) in memory
    /// and calls `f` with them, so that an algorithm can take them in an
    /// order of its own (a level in memory holds them already; the file's
    /// are read in one step and copied, each list at its place).
    fn hold(&mut self, vertices: Vec<VertexId>, f: &mut HoldFn<'_>) -> Result<()>;
}

/// What [`Lists::hold`] calls with the lists it holds.
pub type HoldFn<'f> = dyn FnMut(&dyn Held) -> Result<()> + 'f;

/// Whole lists held in memory, by vertex.
pub trait Held: Sync {
    /// The list of `v`, one of the vertices held (an empty list for any
    /// other).
    fn list(&self, v: VertexId) -> (&[VertexId], Weights<'_>);
}

/// The lists of some of the file's vertices, read and held for
/// [`Lists::hold`].
struct Gathered {
    vertices: Vec<VertexId>,
    offsets: Vec<u64>,
    ids: Vec<VertexId>,
    weights: Vec<f32>,
}

impl Held for Gathered {
    fn list(&self, v: VertexId) -> (&[VertexId], Weights<'_>) {
        let Ok(i) = self.vertices.binary_search(&v) else {
            return (&[], Weights::Ones);
        };
        let (a, b) = (self.offsets[i] as usize, self.offsets[i + 1] as usize);
        let w = if self.weights.is_empty() {
            Weights::Ones
        } else {
            Weights::F32(&self.weights[a..b])
        };
        (&self.ids[a..b], w)
    }
}

/// A list longer than one block, gathered piece by piece until whole.
struct Pieces {
    ids: Vec<VertexId>,
    weights: Vec<f32>,
    got: u64,
}

/// The graph file as a level, read through a synchronous run: its
/// out-lists (an undirected graph's only lists), with their weights
/// unless the level counts every edge as 1.
pub struct FileLevel<'a, 'r> {
    run: &'a mut Run<'r>,
    weights: bool,
}

impl<'a, 'r> FileLevel<'a, 'r> {
    /// The run's graph as a level; `weights`: hand a weighted graph's
    /// weights to visitors (else every weight is 1).
    pub fn new(run: &'a mut Run<'r>, weights: bool) -> FileLevel<'a, 'r> {
        let weights = weights && run.graph().weighted();
        FileLevel { run, weights }
    }

    /// The run.
    pub fn run(&mut self) -> &mut Run<'r> {
        self.run
    }

    /// Whether visitors get the graph's weights.
    pub fn weighted(&self) -> bool {
        self.weights
    }
}

impl Lists for FileLevel<'_, '_> {
    fn vertex_count(&self) -> u64 {
        RunBase::vertex_count(self.run)
    }
    fn threads(&self) -> usize {
        RunBase::threads(self.run).max(1)
    }
    fn degree(&self, v: VertexId) -> u64 {
        self.run.graph().out().degree(v)
    }

    /// One weighted step over `vertices`' out-lists (an undirected graph's
    /// only lists). A list that arrives in pieces is copied into a buffer
    /// of its length, each piece at its place, and visited after its last
    /// piece; only lists longer than a block take this path.
    fn visit_whole(&mut self, vertices: &Frontier, visit: &Visit<'_>) -> Result<()> {
        let pieces: Mutex<HashMap<VertexId, Pieces>> = Mutex::new(HashMap::new());
        let weighted = self.weights;
        let visit_piece = |v: VertexId, e: super::Edges<'_>, _: &mut super::Next<'_>| {
            if e.is_whole() {
                let w = match e.weights {
                    Some(w) if weighted => Weights::F32(w),
                    _ => Weights::Ones,
                };
                return visit(v, e.ids, w);
            }
            let mut m = pieces.lock().unwrap_or_else(|p| p.into_inner());
            let g = m.entry(v).or_insert_with(|| Pieces {
                ids: vec![0; e.degree as usize],
                weights: if weighted {
                    vec![0.0; e.degree as usize]
                } else {
                    Vec::new()
                },
                got: 0,
            });
            let at = e.first as usize;
            g.ids[at..at + e.ids.len()].copy_from_slice(e.ids);
            if let Some(w) = e.weights.filter(|_| weighted) {
                g.weights[at..at + w.len()].copy_from_slice(w);
            }
            g.got += e.ids.len() as u64;
            if g.got < e.degree {
                return;
            }
            let Some(g) = m.remove(&v) else { return };
            drop(m);
            let w = if weighted {
                Weights::F32(&g.weights)
            } else {
                Weights::Ones
            };
            visit(v, &g.ids, w);
        };
        if weighted {
            self.run
                .step_weighted(vertices, Direction::Out, visit_piece)?;
        } else {
            self.run.step(vertices, Direction::Out, visit_piece)?;
        }
        let left = pieces.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(v) = left.keys().next() {
            return Err(Error::Invalid(format!(
                "internal vertex {v}: its list did not arrive whole ({} pieces missing)",
                left.len()
            )));
        }
        Ok(())
    }

    /// Every list is copied into one buffer at an offset from the degrees
    /// in the index, by the visitor that gets it whole.
    fn hold(&mut self, vertices: Vec<VertexId>, f: &mut HoldFn<'_>) -> Result<()> {
        let weighted = self.weights;
        let adj = self.run.graph().out();
        let mut offsets = Vec::with_capacity(vertices.len() + 1);
        let mut total = 0u64;
        offsets.push(0);
        for &v in &vertices {
            total += adj.degree(v);
            offsets.push(total);
        }
        let ids: Vec<AtomicU32> = bytemuck::allocation::zeroed_vec(total as usize);
        let ws: Vec<AtomicU32> = if weighted {
            bytemuck::allocation::zeroed_vec(total as usize)
        } else {
            Vec::new()
        };
        let bad = AtomicBool::new(false);
        let n = RunBase::vertex_count(self.run);
        let frontier = Frontier::from_sorted(vertices, n);
        let vertices = frontier.to_vec();
        Lists::visit_whole(self, &frontier, &|v, list, w| {
            let Ok(i) = vertices.binary_search(&v) else {
                return bad.store(true, Ordering::Relaxed);
            };
            let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
            if b - a != list.len() {
                return bad.store(true, Ordering::Relaxed);
            }
            for (slot, &u) in ids[a..b].iter().zip(list) {
                slot.store(u, Ordering::Relaxed);
            }
            if weighted {
                for (j, slot) in ws[a..b].iter().enumerate() {
                    slot.store((w.get(j) as f32).to_bits(), Ordering::Relaxed);
                }
            }
        })?;
        if bad.load(Ordering::Relaxed) {
            return Err(Error::Invalid(
                "a list read for a held set did not have its index's length".into(),
            ));
        }
        let held = Gathered {
            vertices,
            offsets,
            ids: ids.into_iter().map(AtomicU32::into_inner).collect(),
            weights: ws
                .into_iter()
                .map(|x| f32::from_bits(x.into_inner()))
                .collect(),
        };
        f(&held)
    }
}

/// A level held in memory: weighted lists in compressed sparse rows,
/// weights in `f64` (sums of many edges stay exact where a graph file's
/// `f32` would round them).
#[derive(Clone, Debug, Default)]
pub struct Coarse {
    offsets: Vec<u64>,
    targets: Vec<VertexId>,
    weights: Vec<f64>,
    threads: usize,
}

/// Vertices a thread takes at a time from a level held in memory, and
/// the fewest a visit over several threads is worth starting them for.
const MEMORY_GRAB: usize = 1024;

impl Coarse {
    /// A level from lists: `offsets` (one more than the vertices, from 0,
    /// never decreasing) into `targets` and `weights` (as many).
    pub fn new(
        offsets: Vec<u64>,
        targets: Vec<VertexId>,
        weights: Vec<f64>,
        threads: usize,
    ) -> Result<Coarse> {
        let n = offsets.len().saturating_sub(1);
        let ok = offsets.first() == Some(&0)
            && offsets.windows(2).all(|w| w[0] <= w[1])
            && offsets.last().copied() == Some(targets.len() as u64)
            && weights.len() == targets.len()
            && targets.iter().all(|&u| (u as usize) < n);
        if !ok {
            return Err(Error::Invalid(
                "a coarse graph's offsets, targets and weights disagree".into(),
            ));
        }
        Ok(Coarse {
            offsets,
            targets,
            weights,
            threads: threads.max(1),
        })
    }

    /// Stored entries (an edge between two vertices twice, a loop once).
    pub fn entries(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The neighbours of `v` and their weights.
    pub fn list(&self, v: VertexId) -> (&[VertexId], &[f64]) {
        let (a, b) = (
            self.offsets[v as usize] as usize,
            self.offsets[v as usize + 1] as usize,
        );
        (&self.targets[a..b], &self.weights[a..b])
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.offsets.len() * 8 + self.targets.len() * 12) as u64
    }
}

impl Held for Coarse {
    fn list(&self, v: VertexId) -> (&[VertexId], Weights<'_>) {
        let (ids, ws) = Coarse::list(self, v);
        (ids, Weights::F64(ws))
    }
}

impl Lists for Coarse {
    fn hold(&mut self, _vertices: Vec<VertexId>, f: &mut HoldFn<'_>) -> Result<()> {
        f(self)
    }

    fn vertex_count(&self) -> u64 {
        self.offsets.len() as u64 - 1
    }
    fn threads(&self) -> usize {
        self.threads
    }
    fn degree(&self, v: VertexId) -> u64 {
        self.offsets[v as usize + 1] - self.offsets[v as usize]
    }

    fn visit_whole(&mut self, vertices: &Frontier, visit: &Visit<'_>) -> Result<()> {
        crate::interrupt::check()?;
        let units = vertices.units();
        let per_unit = if matches!(vertices, Frontier::Dense(..)) {
            64
        } else {
            1
        };
        let run = |lo: usize, hi: usize, buf: &mut Vec<VertexId>| {
            buf.clear();
            vertices.vertices(lo, hi, buf);
            for &v in buf.iter() {
                let (ids, ws) = self.list(v);
                if !ids.is_empty() {
                    visit(v, ids, Weights::F64(ws));
                }
            }
        };
        let threads = if (units * per_unit) < 4 * MEMORY_GRAB {
            1
        } else {
            self.threads
        };
        if threads == 1 {
            let mut buf = Vec::new();
            for lo in (0..units).step_by(GRAB_UNITS) {
                run(lo, (lo + GRAB_UNITS).min(units), &mut buf);
            }
            return Ok(());
        }
        let grab = (MEMORY_GRAB / per_unit).max(1);
        let cursor = AtomicUsize::new(0);
        let stop = AtomicBool::new(false);
        fan_out((0..threads).collect(), |_| {
            let mut buf = Vec::new();
            loop {
                if stop.load(Ordering::Relaxed) || crate::interrupt::requested() {
                    stop.store(true, Ordering::Relaxed);
                    return;
                }
                let lo = cursor.fetch_add(grab, Ordering::Relaxed);
                if lo >= units {
                    return;
                }
                run(lo, (lo + grab).min(units), &mut buf);
            }
        });
        crate::interrupt::check()
    }
}

mod contract;
mod sums;
#[cfg(test)]
mod tests;

pub use contract::{
    contract, contract_within, ContractOptions, Contracted, NextGraph, ScratchGraph,
};
pub(crate) use sums::GroupSums;

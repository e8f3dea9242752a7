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
use rayon::prelude::*;
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

/// The next level: the graph of the groups, and the weight inside each.
#[derive(Debug)]
pub struct Contracted {
    /// The groups' graph: vertex `g` is group `g`; its list holds an entry
    /// for every other group it has edges to, and one for itself when
    /// edges lie inside it (the weight inside, [`Contracted::inside`]).
    pub graph: Coarse,
    /// Per group, the weight of the edges inside it, each once (a member's
    /// self loop included), summed in `f64`.
    pub inside: Vec<f64>,
    /// Per group, the weight of the edges between it and other groups, as
    /// its members' lists hold them (each edge once from each side).
    pub outside: Vec<f64>,
    /// Records the pass gathered before they were summed: one per member
    /// and distinct neighbouring group (the pass's memory is 16 bytes each).
    pub records: u64,
}

/// One record of a contraction: two groups and a weight between them.
#[derive(Clone, Copy)]
struct Record {
    lo: u32,
    hi: u32,
    w: f64,
}

/// The graph of `groups` groups of `level`'s vertices, vertex `v` in group
/// `group[v]`, from one pass over every list: each vertex's neighbours are
/// summed by group first (one record a member and neighbouring group),
/// the records sorted by their groups and weight, and equal pairs summed.
/// An undirected level's edge between members of two groups is in both
/// members' lists; it is counted once, from the side of the smaller group
/// (inside a group, halved), as a loop is.
pub fn contract(level: &mut dyn Lists, group: &[u32], groups: u32) -> Result<Contracted> {
    let n = level.vertex_count();
    if group.len() as u64 != n || group.iter().any(|&g| g >= groups) {
        return Err(Error::Invalid(format!(
            "a contraction needs a group below {groups} for each of the {n} vertices"
        )));
    }
    let threads = level.threads();
    let shards: Vec<Mutex<Vec<Record>>> =
        (0..threads * 4).map(|_| Mutex::new(Vec::new())).collect();
    let next = AtomicUsize::new(0);
    thread_local! {
        static SUMS: std::cell::RefCell<GroupSums> = std::cell::RefCell::new(GroupSums::default());
        static SHARD: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
    }
    level.visit_whole(&Frontier::all(n), &|v, ids, ws| {
        let g = group[v as usize];
        SUMS.with_borrow_mut(|t| {
            let mut own = 0.0;
            for (i, &u) in ids.iter().enumerate() {
                if u == v {
                    own += ws.get(i);
                }
            }
            t.add_list(ids, ws, |u| group[u as usize], v);
            // Inside the group each edge is in two members' lists; a pair
            // with a smaller group comes from that group's side.
            own += t.get(g) / 2.0;
            let s = SHARD.get();
            let s = if s == usize::MAX {
                let s = next.fetch_add(1, Ordering::Relaxed) % shards.len();
                SHARD.set(s);
                s
            } else {
                s
            };
            let mut shard = shards[s].lock().unwrap_or_else(|p| p.into_inner());
            shard.extend(
                t.iter()
                    .filter(|&(h, _)| h > g)
                    .map(|(h, w)| Record { lo: g, hi: h, w }),
            );
            if own != 0.0 {
                shard.push(Record {
                    lo: g,
                    hi: g,
                    w: own,
                });
            }
            drop(shard);
            t.clear();
        });
    })?;
    let mut records: Vec<Record> = Vec::new();
    for s in shards {
        records.append(&mut s.into_inner().unwrap_or_else(|p| p.into_inner()));
    }
    let gathered = records.len() as u64;
    // Sorted by pair, then weight: each pair's sum is taken in one order
    // whatever the threads did.
    records.par_sort_unstable_by(|a, b| (a.lo, a.hi).cmp(&(b.lo, b.hi)).then(a.w.total_cmp(&b.w)));
    let mut inside = vec![0.0f64; groups as usize];
    let mut outside = vec![0.0f64; groups as usize];
    let mut pairs: Vec<(u32, u32, f64)> = Vec::new();
    let mut i = 0;
    while i < records.len() {
        let (lo, hi) = (records[i].lo, records[i].hi);
        let mut w = 0.0;
        while i < records.len() && records[i].lo == lo && records[i].hi == hi {
            w += records[i].w;
            i += 1;
        }
        if lo == hi {
            inside[lo as usize] = w;
        } else {
            outside[lo as usize] += w;
            outside[hi as usize] += w;
            pairs.push((lo, hi, w));
        }
    }
    drop(records);
    // Lists: each pair in both, a group's weight inside as its loop; in
    // order of the other group, as the sorted pairs give them.
    let mut count = vec![0u64; groups as usize + 1];
    for &(lo, hi, _) in &pairs {
        count[lo as usize + 1] += 1;
        count[hi as usize + 1] += 1;
    }
    for (g, &w) in inside.iter().enumerate() {
        if w != 0.0 {
            count[g + 1] += 1;
        }
    }
    for g in 0..groups as usize {
        count[g + 1] += count[g];
    }
    let total = count[groups as usize] as usize;
    let mut targets = vec![0 as VertexId; total];
    let mut weights = vec![0f64; total];
    let mut at: Vec<u64> = count[..groups as usize].to_vec();
    let mut put = |g: u32, h: u32, w: f64| {
        let p = at[g as usize] as usize;
        targets[p] = h;
        weights[p] = w;
        at[g as usize] += 1;
    };
    // Pairs sorted by (lo, hi): a group's entries towards smaller groups
    // come from pairs where it is `hi`, in increasing `lo`; then its loop;
    // then the larger groups. Two passes keep each list sorted.
    for &(lo, hi, w) in &pairs {
        put(hi, lo, w);
    }
    for (g, &w) in inside.iter().enumerate() {
        if w != 0.0 {
            put(g as u32, g as u32, w);
        }
    }
    for &(lo, hi, w) in &pairs {
        put(lo, hi, w);
    }
    Ok(Contracted {
        graph: Coarse::new(count, targets, weights, threads)?,
        inside,
        outside,
        records: gathered,
    })
}

/// Weights summed by group for one vertex: an open-addressing table kept
/// per thread and reused, at most half full. An empty table is sized for
/// the list about to be summed ([`GroupSums::prepare`]): its slots are the
/// first `size` of the memory kept, so a short list after a hub's probes
/// a few cache lines, not the hub's table.
#[derive(Default)]
pub(crate) struct GroupSums {
    keys: Vec<u32>,
    sums: Vec<f64>,
    used: Vec<u32>,
    /// Slots in use: a power of two, at most the memory kept.
    size: usize,
    /// `64 - log2(size)`: a key's slot is the top bits of its product.
    shift: u32,
}

/// A free slot of a [`GroupSums`] table (no group reaches it: groups are
/// below the vertex count, which is below `u32::MAX`).
const FREE: u32 = u32::MAX;

/// The fewest slots a table uses.
const MIN_SLOTS: usize = 32;

impl GroupSums {
    /// Makes room for `more` groups beyond those added so far without
    /// growing on the way (a list's length bounds its groups).
    #[inline]
    pub(crate) fn prepare(&mut self, more: usize) {
        let need = 2 * (self.used.len() + more);
        if self.used.is_empty() {
            let size = need.next_power_of_two().max(MIN_SLOTS);
            if size > self.keys.len() {
                self.keys = vec![FREE; size];
                self.sums = vec![0.0; size];
            }
            self.size = size;
            self.shift = 64 - size.trailing_zeros();
        } else if need > self.size {
            self.grow(need);
        }
    }

    #[inline]
    fn slot(&self, g: u32) -> usize {
        ((g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// Adds `w` to group `g`'s sum; room must have been made
    /// ([`GroupSums::prepare`]).
    #[inline(always)]
    pub(crate) fn add_prepared(&mut self, g: u32, w: f64) {
        let mask = self.size - 1;
        let mut i = self.slot(g);
        loop {
            let k = self.keys[i];
            if k == g {
                self.sums[i] += w;
                return;
            }
            if k == FREE {
                self.keys[i] = g;
                self.sums[i] = w;
                self.used.push(i as u32);
                return;
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `w` to group `g`'s sum.
    #[inline]
    pub(crate) fn add(&mut self, g: u32, w: f64) {
        self.prepare(1);
        self.add_prepared(g, w);
    }

    /// Adds every `(group[i], weights[i])`: the groups are read a run at a
    /// time first, so that their cache misses overlap, and a run of one
    /// group is summed in a register before it touches the table.
    #[inline]
    pub(crate) fn add_list(
        &mut self,
        ids: &[VertexId],
        weights: Weights<'_>,
        mut group: impl FnMut(VertexId) -> u32,
        skip: VertexId,
    ) {
        self.prepare(ids.len());
        let mut run = [0u32; 32];
        let (mut last, mut acc) = (FREE, 0.0);
        for (c, part) in ids.chunks(32).enumerate() {
            for (x, &u) in run.iter_mut().zip(part) {
                *x = if u == skip { FREE } else { group(u) };
            }
            for (j, &g) in run[..part.len()].iter().enumerate() {
                if g == FREE {
                    continue;
                }
                let w = weights.get(c * 32 + j);
                if g == last {
                    acc += w;
                    continue;
                }
                if last != FREE {
                    self.add_prepared(last, acc);
                }
                (last, acc) = (g, w);
            }
        }
        if last != FREE {
            self.add_prepared(last, acc);
        }
    }

    /// The sum of group `g` (0 when none was added).
    #[inline]
    pub(crate) fn get(&self, g: u32) -> f64 {
        if self.size == 0 {
            return 0.0;
        }
        let mask = self.size - 1;
        let mut i = self.slot(g);
        loop {
            let k = self.keys[i];
            if k == g {
                return self.sums[i];
            }
            if k == FREE {
                return 0.0;
            }
            i = (i + 1) & mask;
        }
    }

    /// The groups and sums, in the order they were first added.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.used
            .iter()
            .map(|&i| (self.keys[i as usize], self.sums[i as usize]))
    }

    /// Empties the table (a slot at a time, as many as were used).
    pub(crate) fn clear(&mut self) {
        for &i in &self.used {
            self.keys[i as usize] = FREE;
        }
        self.used.clear();
    }

    fn grow(&mut self, need: usize) {
        let size = need.next_power_of_two().max(MIN_SLOTS);
        let old: Vec<(u32, f64)> = self.iter().collect();
        self.clear();
        if size > self.keys.len() {
            self.keys = vec![FREE; size];
            self.sums = vec![0.0; size];
        }
        self.size = size;
        self.shift = 64 - size.trailing_zeros();
        for (g, w) in old {
            self.add_prepared(g, w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A weighted undirected graph as both-way lists (a loop once).
    fn coarse(n: usize, edges: &[(u32, u32, f64)]) -> Coarse {
        let mut lists: Vec<Vec<(u32, f64)>> = vec![Vec::new(); n];
        for &(a, b, w) in edges {
            lists[a as usize].push((b, w));
            if a != b {
                lists[b as usize].push((a, w));
            }
        }
        let mut offsets = vec![0u64];
        let (mut t, mut ws) = (Vec::new(), Vec::new());
        for l in &mut lists {
            l.sort_by_key(|x| x.0);
            for &(u, w) in l.iter() {
                t.push(u);
                ws.push(w);
            }
            offsets.push(t.len() as u64);
        }
        Coarse::new(offsets, t, ws, 2).unwrap()
    }

    #[test]
    fn contraction_sums_edges_between_and_inside_groups() {
        // Groups {0,1,2} and {3,4}; a loop on 4 of weight 5.
        let mut g = coarse(
            5,
            &[
                (0, 1, 1.0),
                (1, 2, 2.0),
                (0, 2, 3.0),
                (2, 3, 4.0),
                (1, 4, 0.5),
                (3, 4, 1.0),
                (4, 4, 5.0),
            ],
        );
        let c = contract(&mut g, &[0, 0, 0, 1, 1], 2).unwrap();
        assert_eq!(c.inside, vec![6.0, 6.0]);
        assert_eq!(c.outside, vec![4.5, 4.5]);
        let (ids, ws) = c.graph.list(0);
        assert_eq!((ids, ws), (&[0, 1][..], &[6.0, 4.5][..]));
        let (ids, ws) = c.graph.list(1);
        assert_eq!((ids, ws), (&[0, 1][..], &[4.5, 6.0][..]));
        // Every weighted degree is kept: 2 x inside + outside.
        let k: f64 = [1.0 + 3.0, 1.0 + 2.0 + 0.5, 2.0 + 3.0 + 4.0].iter().sum();
        assert_eq!(2.0 * c.inside[0] + c.outside[0], k);
    }

    #[test]
    fn group_sums_grow_and_clear() {
        let mut t = GroupSums::default();
        for g in 0..1000u32 {
            t.add(g % 300, 1.0);
        }
        assert_eq!(t.iter().count(), 300);
        assert_eq!(t.get(7), 4.0);
        assert_eq!(t.get(299), 3.0);
        assert_eq!(t.get(5000), 0.0);
        let d: Vec<(u32, f64)> = t.iter().collect();
        assert_eq!(d.len(), 300);
        assert_eq!(d[0], (0, 4.0));
        t.clear();
        assert_eq!(t.iter().count(), 0);
        t.add_list(
            &[1, 2, 2, 5, 9, 2],
            Weights::F64(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
            |u| u % 3,
            5,
        );
        let mut got: Vec<(u32, f64)> = t.iter().collect();
        got.sort_by_key(|x| x.0);
        assert_eq!(got, vec![(0, 5.0), (1, 1.0), (2, 11.0)]);
        assert_eq!(t.get(7), 0.0);
    }

    #[test]
    fn a_bad_grouping_is_refused() {
        let mut g = coarse(2, &[(0, 1, 1.0)]);
        assert!(contract(&mut g, &[0, 2], 2).is_err());
        assert!(contract(&mut g, &[0], 2).is_err());
    }
}

#[cfg(test)]
mod file_tests {
    use super::*;
    use crate::algo::reference::Csr;
    use crate::engine::SyncEngine;
    use crate::testkit;
    use std::sync::Arc;

    /// Every vertex's whole list (and weights) as the run hands them, in
    /// every engine configuration, against the lists in memory: lists
    /// longer than a block (a star's hub) arrive whole, and a weighted
    /// graph's weights come with them.
    #[test]
    fn the_file_level_hands_whole_weighted_lists() {
        for tg in [
            testkit::star(9000),
            testkit::weighted_rmat(10, 8, 2, true),
            testkit::weighted_rmat(8, 40, 4, true),
        ] {
            let g = &tg.graph;
            let csr = Csr::load(g, Direction::Out).unwrap();
            let n = g.vertex_count();
            for e in testkit::configs() {
                let engine = SyncEngine::open(Arc::clone(g), e.clone()).unwrap();
                let (got, _) = engine
                    .run(|r| {
                        let seen: Vec<Mutex<(Vec<u32>, Vec<f64>)>> =
                            (0..n).map(|_| Mutex::new(Default::default())).collect();
                        let mut level = FileLevel::new(r, true);
                        level.visit_whole(&Frontier::all(n), &|v, ids, ws| {
                            let mut s = seen[v as usize].lock().unwrap();
                            s.0.extend_from_slice(ids);
                            s.1.extend((0..ids.len()).map(|i| ws.get(i)));
                        })?;
                        // A held set: every third vertex.
                        let some: Vec<VertexId> = (0..n as VertexId).step_by(3).collect();
                        let mut held_ok = true;
                        level.hold(some.clone(), &mut |h: &dyn Held| {
                            for &v in &some {
                                let (ids, ws) = h.list(v);
                                let ws: Vec<f64> = (0..ids.len()).map(|i| ws.get(i)).collect();
                                let want: Vec<f64> = if g.weighted() {
                                    csr.weights(v).iter().map(|&w| w as f64).collect()
                                } else {
                                    vec![1.0; ids.len()]
                                };
                                held_ok &= ids == csr.neighbors(v) && ws == want;
                            }
                            Ok(())
                        })?;
                        assert!(held_ok, "{e:?}");
                        Ok(seen
                            .into_iter()
                            .map(|m| m.into_inner().unwrap())
                            .collect::<Vec<_>>())
                    })
                    .unwrap();
                for v in 0..n as VertexId {
                    let (ids, ws) = &got[v as usize];
                    assert_eq!(ids.as_slice(), csr.neighbors(v), "vertex {v} {e:?}");
                    if g.weighted() {
                        let want: Vec<f64> = csr.weights(v).iter().map(|&w| w as f64).collect();
                        assert_eq!(ws, &want, "vertex {v} {e:?}");
                    } else {
                        assert!(ws.iter().all(|&w| w == 1.0));
                    }
                }
            }
        }
    }

    /// The pass over the file gives the same groups' graph as the same
    /// lists held in memory.
    #[test]
    fn contracting_the_file_equals_contracting_its_lists_in_memory() {
        let tg = testkit::weighted_rmat(10, 8, 6, true);
        let g = &tg.graph;
        let n = g.vertex_count();
        let csr = Csr::load(g, Direction::Out).unwrap();
        let group: Vec<u32> = (0..n as u32).map(|v| (v * 7919) % 97).collect();
        let mut offsets = vec![0u64];
        let (mut t, mut w) = (Vec::new(), Vec::new());
        for v in 0..n as VertexId {
            t.extend_from_slice(csr.neighbors(v));
            w.extend(csr.weights(v).iter().map(|&x| x as f64));
            offsets.push(t.len() as u64);
        }
        let mut mem = Coarse::new(offsets, t, w, 2).unwrap();
        let want = contract(&mut mem, &group, 97).unwrap();
        for e in testkit::configs() {
            let engine = SyncEngine::open(Arc::clone(g), e.clone()).unwrap();
            let (got, _) = engine
                .run(|r| contract(&mut FileLevel::new(r, true), &group, 97))
                .unwrap();
            assert_eq!(got.inside, want.inside, "{e:?}");
            assert_eq!(got.outside, want.outside);
            for h in 0..97 {
                assert_eq!(got.graph.list(h), want.graph.list(h));
            }
        }
    }
}

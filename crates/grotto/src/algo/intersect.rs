//! The neighbour-list intersection core that triangle counting
//! ([`super::tc`]) and the local clustering coefficient ([`super::lcc`])
//! share.
//!
//! **Orientation.** Vertices are ordered by degree, then id; each
//! undirected edge `{v, u}` is kept once, in the list of its earlier end
//! (`N+(v)`, the *oriented* list). A triangle `v < u < w` is then found
//! exactly once, from `v`: `w` is in both `N+(v)` and `N+(u)`. A hub's
//! oriented list holds only the few vertices of higher degree, so no
//! intersection is longer than about `sqrt(2m)`. The neighbours of a
//! directed graph are its out- and in-neighbours together (the file's
//! reverse edges), each entry tagged with the directions it has (out,
//! in, or both), so LCC can count the arcs between two neighbours.
//! Self loops and repeated edges are dropped as the lists are loaded.
//!
//! **Intersection.** For each `v`, `N+(v)` is set in a bitmap over all
//! vertices that the worker holds; for each `u` in it, `N+(u)` is
//! scanned against the bitmap: `|N+(u)|` probes of one load each, none of
//! them a merge through a hub's list.
//!
//! **Out of core.** The oriented lists are loaded into memory a range of
//! vertices at a time, within `memory` bytes. When all of them fit (the
//! default budget is half the available memory), one sweep over the
//! edges loads them and the count runs in memory. Otherwise a first
//! sweep counts each vertex's oriented entries; the vertices are cut into
//! *held* ranges (three quarters of the budget) and *pivot* ranges (a
//! quarter); for each held range, one sweep over the pivot ranges counts
//! every triangle whose middle vertex `u` is held. Each block is read
//! once per held range, and never for a vertex whose list the run does
//! not need.
//!
//! Memory: the lists (4 bytes an entry, 5 on a directed graph, at most
//! the budget), 4 bytes a vertex for the order's degrees, 4 more when the
//! lists do not fit, 12 (a count and a neighbour count) when the caller
//! asks for per-vertex results, and a bitmap of an eighth of a byte a
//! vertex per worker (two when arcs are weighed).

use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

/// Settings of one count.
#[derive(Clone, Debug)]
pub struct CountConfig {
    /// Bytes the oriented lists held in memory may take (at least one
    /// vertex's list is always held).
    pub memory: u64,
    /// Keep per-vertex counts and distinct-neighbour counts.
    pub per_vertex: bool,
    /// Weigh each triangle's contribution to a vertex by the arcs
    /// between its two other corners (1 or 2), as LCC of a directed graph
    /// counts them; otherwise every triangle counts 1.
    pub arcs: bool,
}

/// What one count found.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Triangles of the (underlying undirected, simple) graph.
    pub triangles: u64,
    /// Per vertex (when asked): triangles it is a corner of, or with
    /// `arcs`, the arcs between its neighbours that close a triangle.
    pub per_vertex: Vec<u64>,
    /// Per vertex (when asked): distinct neighbours other than itself
    /// (in and out together on a directed graph).
    pub neighbours: Vec<u32>,
    /// Held ranges the vertices were cut into (1: the lists fit).
    pub held_ranges: usize,
    /// Pivot-range loads over all held ranges (0 when the lists fit).
    pub pivot_loads: usize,
    /// Oriented entries, after self loops and repeats are dropped.
    pub oriented_edges: u64,
    /// Largest memory the loaded lists took at once, in bytes.
    pub peak_list_bytes: u64,
}

/// The error for a directed graph without its reverse edges.
pub(crate) fn needs_reverse(g: &Graph, what: &str) -> Result<()> {
    if g.directed() && g.inn().is_none() {
        return Err(Error::Invalid(format!(
            "{what} reads the in- and out-neighbours of a directed graph, and this file has no \
             reverse edges: convert it again with --reverse (or --undirected)"
        )));
    }
    Ok(())
}

/// The directions a vertex's neighbours come from, with their tags.
fn directions(g: &Graph) -> &'static [(Direction, u8)] {
    if g.directed() {
        &[(Direction::Out, OUT), (Direction::In, IN)]
    } else {
        &[(Direction::Out, OUT)]
    }
}

/// Tag of an entry reached by an out-edge.
const OUT: u8 = 1;
/// Tag of an entry reached by an in-edge.
const IN: u8 = 2;

/// The total order of the orientation: by degree (in and out together),
/// then id.
struct Order {
    deg: Vec<u32>,
}

impl Order {
    #[inline]
    fn before(&self, a: VertexId, b: VertexId) -> bool {
        (self.deg[a as usize], a) < (self.deg[b as usize], b)
    }
}

/// Oriented lists of the vertices `lo..hi`, sorted, without repeats.
struct Lists {
    lo: VertexId,
    hi: VertexId,
    /// Start of each vertex's list in `ids` (`hi - lo + 1` offsets).
    off: Vec<usize>,
    ids: Vec<u32>,
    /// Direction tags at the same places (directed graphs only).
    tags: Vec<u8>,
}

impl Lists {
    #[inline]
    fn list(&self, v: VertexId) -> (&[u32], &[u8]) {
        let i = (v - self.lo) as usize;
        let (a, b) = (self.off[i], self.off[i + 1]);
        let tags = if self.tags.is_empty() {
            &[][..]
        } else {
            &self.tags[a..b]
        };
        (&self.ids[a..b], tags)
    }

    fn bytes(&self) -> u64 {
        (self.ids.capacity() * 4 + self.tags.capacity() + self.off.capacity() * 8) as u64
    }
}

/// Bytes a vertex of a loaded range takes besides its entries (its
/// offset and its fill cursor).
const PER_VERTEX: u64 = 12;

/// Counts the triangles of `r`'s graph as `cfg` says.
pub fn count(r: &mut Run<'_>, cfg: &CountConfig) -> Result<Counts> {
    let g = r.graph();
    needs_reverse(g, "counting triangles")?;
    let n = r.vertex_count();
    let directed = g.directed();
    let entry = if directed { 5 } else { 4 };
    let inn = g.inn();
    let deg_of = |v: VertexId| {
        g.out().degree(v)
            + if directed {
                inn.map_or(0, |a| a.degree(v))
            } else {
                0
            }
    };
    let order = Order {
        deg: r.collect(|v| deg_of(v).min(u32::MAX as u64) as u32),
    };
    let per_vertex: Vec<AtomicU64> = if cfg.per_vertex {
        r.collect(|_| AtomicU64::new(0))
    } else {
        Vec::new()
    };
    let neighbours: Vec<AtomicU32> = if cfg.per_vertex {
        r.collect(|_| AtomicU32::new(0))
    } else {
        Vec::new()
    };
    let dirs = directions(g);
    let bound: u64 = (0..n as VertexId)
        .map(|v| deg_of(v) * entry + PER_VERTEX)
        .sum();
    let mut out = Counts::default();
    let marks = Marks::new(n);
    let tally = Tally {
        per_vertex: &per_vertex,
        neighbours: &neighbours,
        arcs: cfg.arcs && directed,
    };
    if bound <= cfg.memory.max(1) {
        // Every list fits at its degree: one sweep loads them all.
        r.expect_steps(dirs.len() as u64);
        let all = load(r, &order, 0, n as VertexId, &|v| deg_of(v), dirs)?;
        out.peak_list_bytes = all.bytes();
        tally.neighbours_of(&all);
        out.triangles = tally.pairs(&all, 0, n as VertexId, &all, &marks);
        out.held_ranges = 1;
        out.oriented_edges = all.ids.len() as u64;
    } else {
        // Count each vertex's oriented entries, then plan the ranges.
        let kept: Vec<AtomicU32> = r.collect(|_| AtomicU32::new(0));
        let everyone = Frontier::from_sorted(
            (0..n as VertexId)
                .filter(|&v| order.deg[v as usize] > 0)
                .collect(),
            n,
        );
        for &(dir, _) in dirs {
            r.step(&everyone, dir, |v, e, _| {
                let k = e
                    .ids
                    .iter()
                    .filter(|&&u| u != v && order.before(v, u))
                    .count();
                kept[v as usize].fetch_add(k as u32, Relaxed);
            })?;
        }
        let cost = |v: VertexId| kept[v as usize].load(Relaxed) as u64 * entry + PER_VERTEX;
        let held = plan(n, cfg.memory / 4 * 3, &cost);
        let pivots = plan(n, cfg.memory / 4, &cost);
        r.expect_steps(dirs.len() as u64 * (1 + held.len() as u64 * (1 + pivots.len() as u64)));
        let cap = |v: VertexId| kept[v as usize].load(Relaxed) as u64;
        for &(hlo, hhi) in &held {
            let h = load(r, &order, hlo, hhi, &cap, dirs)?;
            tally.neighbours_of(&h);
            out.oriented_edges += h.ids.len() as u64;
            for &(plo, phi) in &pivots {
                if plo >= hlo && phi <= hhi {
                    out.peak_list_bytes = out.peak_list_bytes.max(h.bytes());
                    out.triangles += tally.pairs(&h, plo, phi, &h, &marks);
                    continue;
                }
                let p = load(r, &order, plo, phi, &cap, dirs)?;
                out.pivot_loads += 1;
                out.peak_list_bytes = out.peak_list_bytes.max(h.bytes() + p.bytes());
                out.triangles += tally.pairs(&p, plo, phi, &h, &marks);
            }
        }
        out.held_ranges = held.len();
    }
    out.per_vertex = per_vertex.into_iter().map(AtomicU64::into_inner).collect();
    out.neighbours = neighbours.into_iter().map(AtomicU32::into_inner).collect();
    Ok(out)
}

/// Consecutive ranges of `0..n` whose `cost` sums to at most `budget`
/// (a range of one vertex may exceed it).
fn plan(n: u64, budget: u64, cost: &dyn Fn(VertexId) -> u64) -> Vec<(VertexId, VertexId)> {
    let (mut ranges, mut lo, mut used) = (Vec::new(), 0u64, 0u64);
    for v in 0..n {
        let c = cost(v as VertexId);
        if v > lo && used + c > budget {
            ranges.push((lo as VertexId, v as VertexId));
            (lo, used) = (v, 0);
        }
        used += c;
    }
    if n > lo {
        ranges.push((lo as VertexId, n as VertexId));
    }
    ranges
}

/// Loads the oriented lists of `lo..hi`, `cap(v)` entries at most for
/// `v` (its degree, or its counted entries), in one step per direction.
fn load(
    r: &mut Run<'_>,
    order: &Order,
    lo: VertexId,
    hi: VertexId,
    cap: &(dyn Fn(VertexId) -> u64 + Sync),
    dirs: &[(Direction, u8)],
) -> Result<Lists> {
    let n = r.vertex_count();
    let m = (hi - lo) as usize;
    let mut off = Vec::with_capacity(m + 1);
    let mut sum = 0usize;
    for v in lo..hi {
        off.push(sum);
        sum += cap(v) as usize;
    }
    off.push(sum);
    let ids: Vec<AtomicU32> = vec![0u32; sum].into_iter().map(AtomicU32::new).collect();
    let tags: Vec<AtomicU8> = if dirs.len() > 1 {
        vec![0u8; sum].into_iter().map(AtomicU8::new).collect()
    } else {
        Vec::new()
    };
    let fill: Vec<AtomicU32> = vec![0u32; m].into_iter().map(AtomicU32::new).collect();
    let overflow = AtomicBool::new(false);
    let frontier = Frontier::from_sorted((lo..hi).filter(|&v| cap(v) > 0).collect(), n);
    for &(dir, tag) in dirs {
        r.step(&frontier, dir, |v, e, _| {
            let i = (v - lo) as usize;
            let keep = |u: &&VertexId| **u != v && order.before(v, **u);
            let k = e.ids.iter().filter(keep).count();
            if k == 0 {
                return;
            }
            let at = fill[i].fetch_add(k as u32, Relaxed) as usize;
            let start = off[i] + at;
            if start + k > off[i + 1] {
                // The lists hold more than the index said: the file is
                // not what it claims (reported below).
                overflow.store(true, Relaxed);
                return;
            }
            for (j, &u) in e.ids.iter().filter(keep).enumerate() {
                ids[start + j].store(u, Relaxed);
                if !tags.is_empty() {
                    tags[start + j].store(tag, Relaxed);
                }
            }
        })?;
    }
    if overflow.load(Relaxed) {
        return Err(r.graph().corrupt_here(
            "a vertex's lists hold more entries than its degree in the index".into(),
        ));
    }
    let mut ids: Vec<u32> = ids.into_iter().map(AtomicU32::into_inner).collect();
    let mut tags: Vec<u8> = tags.into_iter().map(AtomicU8::into_inner).collect();
    let fill: Vec<u32> = fill.into_iter().map(AtomicU32::into_inner).collect();
    // Sort and deduplicate each list in place, in parallel over chunks
    // of vertices; `len` is what is left of each.
    let mut len = vec![0u32; m];
    {
        const CHUNK: usize = 2048;
        let mut work = Vec::new();
        let (mut rest_ids, mut rest_tags, mut rest_len) =
            (&mut ids[..], &mut tags[..], &mut len[..]);
        for c in (0..m).step_by(CHUNK) {
            let e = (c + CHUNK).min(m);
            let span = off[e] - off[c];
            let (a, b) = rest_ids.split_at_mut(span);
            rest_ids = b;
            let (ta, tb) = if rest_tags.is_empty() {
                (&mut [][..], rest_tags)
            } else {
                rest_tags.split_at_mut(span)
            };
            rest_tags = tb;
            let (la, lb) = rest_len.split_at_mut(e - c);
            rest_len = lb;
            work.push((c, a, ta, la));
        }
        work.into_par_iter().for_each(|(c, ids, tags, len)| {
            let base = off[c];
            for (j, l) in len.iter_mut().enumerate() {
                let (a, b) = (off[c + j] - base, off[c + j] - base + fill[c + j] as usize);
                let t = if tags.is_empty() {
                    None
                } else {
                    Some(&mut tags[a..b])
                };
                *l = tidy(&mut ids[a..b], t) as u32;
            }
        });
    }
    // Close the gaps the capacities left.
    let mut w = 0usize;
    for i in 0..m {
        let (a, l) = (off[i], len[i] as usize);
        ids.copy_within(a..a + l, w);
        if !tags.is_empty() {
            tags.copy_within(a..a + l, w);
        }
        off[i] = w;
        w += l;
    }
    off[m] = w;
    ids.truncate(w);
    ids.shrink_to_fit();
    tags.truncate(if tags.is_empty() { 0 } else { w });
    tags.shrink_to_fit();
    Ok(Lists {
        lo,
        hi,
        off,
        ids,
        tags,
    })
}

/// Sorts one list (with its tags) and merges repeats (their tags
/// joined); returns the length left.
fn tidy(ids: &mut [u32], tags: Option<&mut [u8]>) -> usize {
    match tags {
        None => {
            if !ids.is_sorted() {
                ids.sort_unstable();
            }
            let mut w = 0;
            for i in 0..ids.len() {
                if w == 0 || ids[i] != ids[w - 1] {
                    ids[w] = ids[i];
                    w += 1;
                }
            }
            w
        }
        Some(tags) => {
            let mut pairs: Vec<(u32, u8)> = ids.iter().copied().zip(tags.iter().copied()).collect();
            pairs.sort_unstable();
            let mut w = 0;
            for &(u, t) in &pairs {
                if w > 0 && ids[w - 1] == u {
                    tags[w - 1] |= t;
                } else {
                    ids[w] = u;
                    tags[w] = t;
                    w += 1;
                }
            }
            w
        }
    }
}

/// Where per-vertex results go while pairs are counted.
struct Tally<'a> {
    per_vertex: &'a [AtomicU64],
    neighbours: &'a [AtomicU32],
    arcs: bool,
}

impl Tally<'_> {
    /// A triangle's weight at a vertex, from the tag of the edge between
    /// the two other corners.
    #[inline]
    fn weight(&self, tag: u8) -> u64 {
        if self.arcs {
            tag.count_ones() as u64
        } else {
            1
        }
    }

    /// Adds the distinct neighbours `lists` show: each vertex its own
    /// oriented list, each entry one for the vertex it names. Every
    /// vertex is in exactly one held range, so each edge counts once at
    /// both ends.
    fn neighbours_of(&self, lists: &Lists) {
        if self.neighbours.is_empty() {
            return;
        }
        (lists.lo..lists.hi)
            .into_par_iter()
            .with_min_len(1024)
            .for_each(|v| {
                let (ids, _) = lists.list(v);
                self.neighbours[v as usize].fetch_add(ids.len() as u32, Relaxed);
                for &w in ids {
                    self.neighbours[w as usize].fetch_add(1, Relaxed);
                }
            });
    }

    /// Triangles `v < u < w` with `v` in `lo..hi` (lists in `p`) and `u`
    /// in `h`'s range.
    fn pairs(&self, p: &Lists, lo: VertexId, hi: VertexId, h: &Lists, marks: &Marks) -> u64 {
        let per_vertex = !self.per_vertex.is_empty();
        let arcs = self.arcs;
        (lo..hi)
            .into_par_iter()
            .with_min_len(256)
            .map_init(
                || marks.take(),
                |mark, v| {
                    let (nv, tv) = p.list(v);
                    let a = nv.partition_point(|&u| u < h.lo);
                    let b = nv.partition_point(|&u| u < h.hi);
                    if a == b || nv.len() < 2 {
                        return 0;
                    }
                    mark.set(nv, tv, arcs);
                    let (mut found, mut at_v) = (0u64, 0u64);
                    for (i, &u) in nv.iter().enumerate().take(b).skip(a) {
                        let (nu, tu) = h.list(u);
                        if !per_vertex {
                            found += nu.iter().filter(|&&w| mark.has(w)).count() as u64;
                            continue;
                        }
                        let w_vu = self.weight(tv.get(i).copied().unwrap_or(OUT));
                        let mut at_u = 0u64;
                        for (j, &w) in nu.iter().enumerate() {
                            if mark.has(w) {
                                found += 1;
                                at_v += self.weight(tu.get(j).copied().unwrap_or(OUT));
                                at_u += 1 + u64::from(arcs && mark.both(w));
                                self.per_vertex[w as usize].fetch_add(w_vu, Relaxed);
                            }
                        }
                        if at_u > 0 {
                            self.per_vertex[u as usize].fetch_add(at_u, Relaxed);
                        }
                    }
                    if at_v > 0 {
                        self.per_vertex[v as usize].fetch_add(at_v, Relaxed);
                    }
                    mark.unset(nv, arcs);
                    found
                },
            )
            .sum()
    }
}

/// Bitmaps over all vertices, one per worker at a time: a pivot's list is
/// set in one, and each probe is one load. (An eighth of a byte a vertex
/// per worker, a quarter when arcs are weighed: cheaper per probe than any
/// hash, and the pool keeps them for the whole count.)
struct Marks {
    n: usize,
    free: std::sync::Mutex<Vec<Mark>>,
}

impl Marks {
    fn new(n: u64) -> Marks {
        Marks {
            n: n as usize,
            free: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// A cleared bitmap, back in the pool when dropped.
    fn take(&self) -> Lent<'_> {
        let m = self
            .free
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop()
            .unwrap_or_else(|| Mark {
                member: vec![0; self.n.div_ceil(64)],
                both: Vec::new(),
            });
        Lent {
            pool: self,
            mark: Some(m),
        }
    }
}

/// One worker's bitmaps: members, and members linked both ways.
struct Mark {
    member: Vec<u64>,
    both: Vec<u64>,
}

/// A bitmap lent from [`Marks`].
struct Lent<'a> {
    pool: &'a Marks,
    mark: Option<Mark>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(m) = self.mark.take() {
            self.pool
                .free
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(m);
        }
    }
}

impl std::ops::Deref for Lent<'_> {
    type Target = Mark;
    fn deref(&self) -> &Mark {
        self.mark.as_ref().expect("lent until dropped")
    }
}

impl std::ops::DerefMut for Lent<'_> {
    fn deref_mut(&mut self) -> &mut Mark {
        self.mark.as_mut().expect("lent until dropped")
    }
}

impl Mark {
    /// Sets the members `ids` (with `tags` when `arcs`).
    fn set(&mut self, ids: &[u32], tags: &[u8], arcs: bool) {
        for &k in ids {
            self.member[k as usize >> 6] |= 1 << (k & 63);
        }
        if arcs {
            if self.both.is_empty() {
                self.both = vec![0; self.member.len()];
            }
            for (&k, &t) in ids.iter().zip(tags) {
                if t == OUT | IN {
                    self.both[k as usize >> 6] |= 1 << (k & 63);
                }
            }
        }
    }

    #[inline]
    fn has(&self, k: u32) -> bool {
        self.member[k as usize >> 6] & (1 << (k & 63)) != 0
    }

    #[inline]
    fn both(&self, k: u32) -> bool {
        self.both[k as usize >> 6] & (1 << (k & 63)) != 0
    }

    /// Clears the members `ids` set before.
    fn unset(&mut self, ids: &[u32], arcs: bool) {
        for &k in ids {
            self.member[k as usize >> 6] = 0;
            if arcs {
                self.both[k as usize >> 6] = 0;
            }
        }
    }
}

/// Serial reference counts on lists in memory, for the verifiers: per
/// vertex, the arcs (`arcs`) or undirected edges between its distinct
/// neighbours, its distinct neighbours, and the graph's triangles.
pub fn serial(
    out: &super::reference::Csr,
    inn: Option<&super::reference::Csr>,
    arcs: bool,
) -> (Vec<u64>, Vec<u32>, u64) {
    use std::collections::{BTreeMap, BTreeSet};
    let n = out.vertex_count() as usize;
    // Distinct neighbours, self excluded; the tag says which directions.
    let nbrs: Vec<BTreeMap<VertexId, u8>> = (0..n as VertexId)
        .map(|v| {
            let mut m = BTreeMap::new();
            for &u in out.neighbors(v) {
                if u != v {
                    *m.entry(u).or_insert(0) |= OUT;
                }
            }
            if let Some(inn) = inn {
                for &u in inn.neighbors(v) {
                    if u != v {
                        *m.entry(u).or_insert(0) |= IN;
                    }
                }
            }
            m
        })
        .collect();
    let mut count = vec![0u64; n];
    let mut corners = 0u64;
    for v in 0..n {
        let mine: BTreeSet<VertexId> = nbrs[v].keys().copied().collect();
        // Ordered pairs (u, w) of neighbours joined by an edge, and the
        // arcs u -> w among them.
        let (mut pairs, mut arcs_in) = (0u64, 0u64);
        for &u in &mine {
            for (&w, &t) in &nbrs[u as usize] {
                if w != u && mine.contains(&w) {
                    pairs += 1;
                    arcs_in += u64::from(t & OUT != 0);
                }
            }
        }
        count[v] = if arcs { arcs_in } else { pairs / 2 };
        corners += pairs / 2;
    }
    let neighbours = nbrs.iter().map(|m| m.len() as u32).collect();
    (count, neighbours, corners / 3)
}

#[cfg(test)]
mod tests;

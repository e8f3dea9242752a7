//! Community detection by label propagation (CDLP), with the semantics
//! of LDBC Graphalytics' CDLP kernel.
//!
//! Every vertex starts with its own id as its label. In each of
//! `iterations` synchronous rounds every vertex takes the label that is
//! most frequent among its neighbours' labels of the previous round, the
//! smallest such label on a tie; a vertex without neighbours keeps its
//! own. The neighbours of a vertex of an undirected graph are its list;
//! those of a directed graph are its out- and in-neighbours together, so
//! a neighbour linked both ways counts twice (this needs the reverse
//! edges, `convert --reverse`). Each list entry counts once: a graph
//! converted with `--keep-duplicates` counts parallel edges, with
//! `--keep-self-loops` a vertex's own label. A round in which no label
//! changes is a fixed point, so the run stops there with the result of
//! all `iterations`.
//!
//! Labels are kept as ranks (places in the user's order), whose order is
//! that of the user's ids (of names, byte by byte), so ties go to the
//! smallest id and results are written in the user's ids.
//!
//! An undirected round is one sweep over the blocks: a vertex's labels
//! are gathered from its list and counted in a small table kept per
//! thread and reused ([`Tally`]; lists of up to 24 labels are sorted on
//! the stack instead), so a round allocates nothing per vertex. Three
//! shortcuts keep the result exact: the first round of a graph without
//! parallel edges takes the smallest neighbour label (all labels are
//! distinct, each counted once); a vertex none of whose neighbours
//! changed label in the round before keeps its own without counting;
//! and once at most one vertex in 16 changes per round, a vertex whose
//! label changes marks its neighbours, and the next round reads only the
//! blocks of those (on rmat22 labels settle after five rounds: 10 rounds
//! read 1.2 GB instead of 2.0 GB). A directed round cuts the vertices into ranges whose
//! out-neighbour labels fit a buffer (`label_buffer`, by default one
//! label per vertex); per range one step over the out-edges gathers them
//! and one over the in-edges completes each vertex, so every block is
//! still read once per round. Memory: two labels a vertex, plus the
//! directed buffer (4 bytes a label, 8 a range vertex for its offset).
//!
//! The verifier runs the rounds serially on the lists in memory, in the
//! user's ids, counting with a map, and compares every label.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, Verdict};
use crate::engine::{AtomicBitmap, Edges, Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

/// Settings of CDLP.
#[derive(Clone, Debug)]
pub struct CdlpConfig {
    /// Rounds (default 10; Graphalytics' `max-iterations`).
    pub iterations: u32,
    /// Directed graphs: 4-byte slots of the buffer that holds a range's
    /// out-neighbour labels until its in-edges are read; each vertex of a
    /// range also takes two for its offset (default 0: one slot per
    /// vertex). A vertex whose own out-list is longer gets a range of its
    /// own and a buffer that fits it.
    pub label_buffer: u64,
}

impl Default for CdlpConfig {
    fn default() -> CdlpConfig {
        CdlpConfig {
            iterations: 10,
            label_buffer: 0,
        }
    }
}

/// Labels, in internal ids.
#[derive(Clone, Debug)]
pub struct CdlpResult {
    /// Per vertex: the rank of its label's vertex in the user's order
    /// ([`Graph::original_id_of_rank`] gives the id).
    pub label: Vec<u32>,
    /// Rounds run (fewer than asked only when labels stopped changing).
    pub iterations: u32,
    /// Vertices whose label changed in the last round run.
    pub changed: u64,
    /// Ranges a directed round is cut into (1 for an undirected graph).
    pub ranges: usize,
}

/// Label counts of one vertex: an open-addressing table of `(label,
/// count)` slots at most half full, kept per thread and reused, so that
/// finding a vertex's most frequent label allocates nothing.
#[derive(Default)]
struct Tally {
    slots: Vec<(u32, u32)>,
    /// Slots in use, to find the winner and clear them.
    used: Vec<u32>,
}

/// A free slot of a [`Tally`] (no rank reaches it: ranks are below the
/// vertex count, which is below `u32::MAX`).
const FREE: u32 = u32::MAX;

/// Lists of at most this many labels are sorted on the stack instead of
/// counted in the table (no hashing, probing or clearing).
const SMALL: usize = 24;

/// An undirected round marks the neighbours of the vertices whose label
/// changes, so that the next round visits only those, when at most one
/// vertex in this many changed in the round before (rounds that change
/// many would mark nearly every vertex, at an atomic a neighbour).
const TRACK_DIVISOR: u64 = 16;

impl Tally {
    /// The most frequent of the `len` labels of `labels`, the smallest
    /// among equals; `None` when there are none.
    fn mode(&mut self, mut labels: impl Iterator<Item = u32>, len: usize) -> Option<u32> {
        if len <= 2 {
            // One label, or two that tie or agree: the smallest.
            let a = labels.next()?;
            let b = labels.next().map_or(a, |b| a.min(b));
            assert!(
                labels.next().is_none(),
                "more than the {len} labels announced"
            );
            return Some(b);
        }
        if len <= SMALL {
            // A short list: sorted on the stack, the longest run wins (the
            // first, so the smallest label, among equals).
            let mut buf = [0u32; SMALL];
            let mut k = 0;
            for (x, l) in buf.iter_mut().zip(&mut labels) {
                *x = l;
                k += 1;
            }
            assert!(
                labels.next().is_none(),
                "more than the {len} labels announced"
            );
            let s = &mut buf[..k];
            s.sort_unstable();
            let (mut best, mut best_n, mut i) = (None, 0, 0);
            while i < s.len() {
                let mut j = i + 1;
                while j < s.len() && s[j] == s[i] {
                    j += 1;
                }
                if j - i > best_n {
                    (best, best_n) = (Some(s[i]), j - i);
                }
                i = j;
            }
            return best;
        }
        let bits = (2 * len).max(16).next_power_of_two().trailing_zeros();
        let size = 1usize << bits;
        if self.slots.len() < size {
            self.slots.resize(size, (FREE, 0));
        }
        let mask = size - 1;
        // Labels are read a run at a time before any is counted, so their
        // cache misses overlap (a count's branches would hold each load
        // up until the one before had arrived).
        let mut run = [0u32; 64];
        let mut seen = 0;
        // The label before, its slot and its repeats not yet added:
        // neighbours in one community often follow each other, and a
        // repeat is counted in a register, without the hash and the probe.
        let (mut last, mut at, mut repeats) = (FREE, 0, 0);
        loop {
            let mut k = 0;
            for (x, l) in run.iter_mut().zip(&mut labels) {
                *x = l;
                k += 1;
            }
            // At most half full, so every probe below finds a free slot.
            seen += k;
            assert!(seen <= len, "more than the {len} labels announced");
            for &l in &run[..k] {
                if l == last {
                    repeats += 1;
                    continue;
                }
                self.slots[at].1 += repeats;
                // Fibonacci hashing: the top bits of the product.
                let mut i =
                    ((l as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize;
                loop {
                    let s = &mut self.slots[i];
                    if s.0 == l {
                        s.1 += 1;
                        break;
                    }
                    if s.0 == FREE {
                        *s = (l, 1);
                        self.used.push(i as u32);
                        break;
                    }
                    i = (i + 1) & mask;
                }
                (last, at, repeats) = (l, i, 0);
            }
            if k < run.len() {
                break;
            }
        }
        self.slots[at].1 += repeats;
        let mut best: Option<(u32, u32)> = None;
        for &i in &self.used {
            let (l, c) = std::mem::replace(&mut self.slots[i as usize], (FREE, 0));
            if best.is_none_or(|(bl, bc)| c > bc || (c == bc && l < bl)) {
                best = Some((l, c));
            }
        }
        self.used.clear();
        best.map(|b| b.0)
    }
}

thread_local! {
    static TALLY: RefCell<Tally> = RefCell::new(Tally::default());
}

/// One round's state and how a vertex's new label is found.
struct Round<'a> {
    old: &'a [AtomicU32],
    new: &'a [AtomicU32],
    /// Labels gathered so far of vertices whose lists arrive in pieces
    /// (longer than a block), until the last piece, and whether any of
    /// them changed in the round before.
    pieces: Mutex<HashMap<VertexId, (Vec<u32>, bool)>>,
    /// The vertices whose label changed in the round before, when known
    /// (an undirected round after the first): a vertex none of whose
    /// neighbours is among them keeps its label (`new` holds it already)
    /// without counting.
    changed: Option<&'a AtomicBitmap>,
    /// Where a vertex whose label changes marks its neighbours, the only
    /// vertices the next round needs to visit (when tracked).
    dirty: Option<&'a AtomicBitmap>,
    /// A vertex whose list came in pieces changed: its neighbours are not
    /// at hand to mark, so the next round visits every vertex.
    hub_changed: AtomicBool,
}

impl Round<'_> {
    /// Sets `v`'s new label from the labels of `edges`' neighbours and
    /// the labels `held` (its out-neighbours', gathered by an earlier
    /// step), once every piece of its list has arrived.
    fn settle(&self, v: VertexId, edges: Edges<'_>, held: &[AtomicU32]) {
        let old = self.old;
        let gathered = edges.ids.iter().map(|&u| old[u as usize].load(Relaxed));
        let held_labels = held.iter().map(|l| l.load(Relaxed));
        // Whether a neighbour in `edges` changed last round (true when
        // that is not known).
        let stirred = || {
            self.changed
                .is_none_or(|c| edges.ids.iter().any(|&u| c.contains(u as u64)))
        };
        let label = if edges.is_whole() {
            if !stirred() {
                return;
            }
            let len = edges.ids.len() + held.len();
            TALLY.with_borrow_mut(|t| t.mode(gathered.chain(held_labels), len))
        } else {
            let mut m = self.pieces.lock().unwrap_or_else(|p| p.into_inner());
            let total = edges.degree as usize + held.len();
            let (got, any) = m.entry(v).or_insert_with(|| {
                let mut g = Vec::with_capacity(total);
                g.extend(held_labels);
                (g, false)
            });
            got.extend(gathered);
            *any = *any || stirred();
            if got.len() < total {
                return;
            }
            let (all, any) = m.remove(&v).unwrap_or_default();
            drop(m);
            if !any {
                return;
            }
            let l = TALLY.with_borrow_mut(|t| t.mode(all.iter().copied(), all.len()));
            if l.is_some_and(|l| l != old[v as usize].load(Relaxed)) {
                self.hub_changed.store(true, Relaxed);
            }
            l
        };
        let Some(l) = label else { return };
        self.new[v as usize].store(l, Relaxed);
        if let Some(d) = self.dirty.filter(|_| l != old[v as usize].load(Relaxed)) {
            for &u in edges.ids {
                if !d.contains(u as u64) {
                    d.insert(u as u64);
                }
            }
        }
    }
}

/// Consecutive vertex ranges `lo..hi` of a directed graph whose held
/// out-labels and offsets fit `budget` slots (a range of one vertex may
/// exceed it), and the buffer size the largest needs.
fn plan_ranges(g: &Graph, budget: u64) -> Result<(Vec<(VertexId, VertexId)>, u64)> {
    let (out, inn) = (g.out(), adjacency_in(g)?);
    let n = g.vertex_count();
    let (mut ranges, mut lo, mut used, mut held_max, mut held) = (Vec::new(), 0, 0u64, 0, 0);
    for v in 0..n {
        let h = if inn.degree(v as VertexId) > 0 {
            out.degree(v as VertexId)
        } else {
            0
        };
        if v > lo && used + h + 2 > budget {
            ranges.push((lo as VertexId, v as VertexId));
            (lo, used, held) = (v, 0, 0);
        }
        used += h + 2;
        held += h;
        held_max = held_max.max(held);
    }
    if n > lo {
        ranges.push((lo as VertexId, n as VertexId));
    }
    Ok((ranges, held_max))
}

/// The in-edges of a directed graph, or an error naming the fix.
fn adjacency_in(g: &Graph) -> Result<&crate::store::Adjacency> {
    g.inn().ok_or_else(|| {
        Error::Invalid(
            "cdlp counts the in- and out-neighbours of a directed graph, and this file has no \
             reverse edges: convert it again with --reverse (or --undirected)"
                .into(),
        )
    })
}

/// Runs CDLP on the synchronous engine.
pub fn run(r: &mut Run<'_>, cfg: &CdlpConfig) -> Result<CdlpResult> {
    let g = r.graph();
    let n = r.vertex_count();
    let directed = g.directed();
    let budget = match cfg.label_buffer {
        0 => n.max(1),
        b => b,
    };
    let (ranges, held_max) = if directed {
        plan_ranges(g, budget)?
    } else {
        (vec![(0, n as VertexId)], 0)
    };
    // Labels start as the vertices' own ranks, read a range at a time.
    let mut rank: Vec<u32> = r.zeroed()?;
    r.for_ranges(&mut rank, |lo, part| g.ranks_of(lo as VertexId, part))
        .into_iter()
        .collect::<Result<Vec<()>>>()?;
    let mut old: Vec<AtomicU32> = rank.into_iter().map(AtomicU32::new).collect();
    let mut new: Vec<AtomicU32> = r.collect(|v| AtomicU32::new(old[v as usize].load(Relaxed)));
    let held: Vec<AtomicU32> = (0..held_max).map(|_| AtomicU32::new(0)).collect();
    let multi = g.header().flags & crate::store::format::FLAG_MULTI != 0;
    let (mut iterations, mut changed) = (0, n);
    // Undirected rounds after the first: the labels that changed in the
    // round before, and the vertices whose neighbours did (when few
    // changed, so that marking them costs little).
    let mut last: Option<AtomicBitmap> = None;
    let mut visit: Option<AtomicBitmap> = None;
    while iterations < cfg.iterations {
        iterations += 1;
        let track = !directed && changed <= n / TRACK_DIVISOR;
        let dirty = track.then(|| AtomicBitmap::new(n));
        let round = Round {
            old: &old,
            new: &new,
            pieces: Mutex::new(HashMap::new()),
            changed: last.as_ref().filter(|_| !directed),
            dirty: dirty.as_ref(),
            hub_changed: AtomicBool::new(false),
        };
        if directed {
            for &(lo, hi) in &ranges {
                directed_range(r, &round, lo, hi, &held)?;
            }
        } else if iterations == 1 && !multi {
            // The first round of an undirected graph without parallel
            // edges: every neighbour brings its own label, each once, so
            // the most frequent is the smallest (no counting). Vertices
            // with neighbours start from none; a list in pieces takes
            // the smallest of each.
            r.for_each_vertex(|v| {
                if g.out().degree(v) > 0 {
                    new[v as usize].store(FREE, Relaxed);
                }
            });
            r.step(&Frontier::all(n), Direction::Out, |v, e, _| {
                let m = e.ids.iter().map(|&u| old[u as usize].load(Relaxed)).min();
                if let Some(m) = m {
                    new[v as usize].fetch_min(m, Relaxed);
                }
            })?;
        } else {
            // A vertex not visited, or whose neighbours kept their
            // labels, keeps its own.
            r.for_each_vertex(|v| new[v as usize].store(old[v as usize].load(Relaxed), Relaxed));
            let frontier = match visit.take() {
                Some(b) => {
                    let k = b.count();
                    Frontier::Dense(b, k)
                }
                None => Frontier::all(n),
            };
            r.step(&frontier, Direction::Out, |v, e, _| round.settle(v, e, &[]))?;
        }
        let hub_changed = round.hub_changed.load(Relaxed);
        drop(round);
        visit = dirty.filter(|_| !hub_changed);
        // Vertices without neighbours were not visited: both arrays hold
        // their own label from the start.
        let now = AtomicBitmap::new(n);
        changed = r.sum_f64(|v| {
            let c = old[v as usize].load(Relaxed) != new[v as usize].load(Relaxed);
            if c {
                now.insert(v as u64);
            }
            f64::from(u8::from(c))
        }) as u64;
        last = Some(now);
        std::mem::swap(&mut old, &mut new);
        if changed == 0 {
            break;
        }
    }
    drop(new);
    Ok(CdlpResult {
        label: old.into_iter().map(AtomicU32::into_inner).collect(),
        iterations,
        changed,
        ranges: ranges.len(),
    })
}

/// One directed round over the vertices `lo..hi`: the out-edges of
/// those with in-edges put their out-neighbours' labels in `held` (at
/// offsets in range order); those without in-edges are settled from
/// their out-edges alone; then each vertex with in-edges is settled from
/// its in-edges and its held labels.
fn directed_range(
    r: &mut Run<'_>,
    round: &Round<'_>,
    lo: VertexId,
    hi: VertexId,
    held: &[AtomicU32],
) -> Result<()> {
    let g = r.graph();
    let (n, out, inn) = (r.vertex_count(), g.out(), adjacency_in(g)?);
    let mut at = Vec::with_capacity((hi - lo) as usize + 1);
    let mut sum = 0u64;
    for v in lo..hi {
        at.push(sum as usize);
        if inn.degree(v) > 0 {
            sum += out.degree(v);
        }
    }
    at.push(sum as usize);
    let held_of = |v: VertexId| {
        let i = (v - lo) as usize;
        &held[at[i]..at[i + 1]]
    };
    // The vertices of the range with a list in one direction.
    let with_list = |deg: &dyn Fn(VertexId) -> u64| {
        Frontier::from_sorted((lo..hi).filter(|&v| deg(v) > 0).collect(), n)
    };
    let old = round.old;
    r.step(&with_list(&|v| out.degree(v)), Direction::Out, |v, e, _| {
        let slots = held_of(v);
        if slots.is_empty() {
            return round.settle(v, e, &[]);
        }
        for (s, &u) in slots[e.first as usize..].iter().zip(e.ids) {
            s.store(old[u as usize].load(Relaxed), Relaxed);
        }
    })?;
    r.step(&with_list(&|v| inn.degree(v)), Direction::In, |v, e, _| {
        round.settle(v, e, held_of(v))
    })?;
    Ok(())
}

/// The labels after `iterations` serial rounds on the out-lists `csr` of
/// `g` (and, directed, the same edges reversed), in the user's ids: the
/// reference.
pub fn serial(g: &Graph, csr: &Csr, iterations: u32) -> Vec<u64> {
    let n = csr.vertex_count() as usize;
    let reversed = g.directed().then(|| {
        let mut lists = vec![Vec::new(); n];
        for v in 0..n {
            for &u in csr.neighbors(v as VertexId) {
                lists[u as usize].push(v as VertexId);
            }
        }
        Csr::from_lists(&lists)
    });
    let mut label: Vec<u64> = (0..n as VertexId).map(|v| g.original_id(v)).collect();
    for _ in 0..iterations {
        let next = (0..n as VertexId)
            .map(|v| {
                let mut count: BTreeMap<u64, u64> = BTreeMap::new();
                let ins = reversed.as_ref().map_or(&[][..], |t| t.neighbors(v));
                for &u in csr.neighbors(v).iter().chain(ins) {
                    *count.entry(label[u as usize]).or_default() += 1;
                }
                // Ascending labels: the first of the largest count wins.
                let mut best = (label[v as usize], 0);
                for (l, c) in count {
                    if c > best.1 {
                        best = (l, c);
                    }
                }
                best.0
            })
            .collect();
        label = next;
    }
    label
}

/// Checks `res` against [`serial`], label by label, in the user's ids.
pub fn verify(g: &Graph, csr: &Csr, cfg: &CdlpConfig, res: &CdlpResult) -> Verdict {
    if res.iterations > cfg.iterations || (res.iterations < cfg.iterations && res.changed > 0) {
        fail!(
            "{} rounds ran of {} asked, the last changing {} labels",
            res.iterations,
            cfg.iterations,
            res.changed
        );
    }
    let want = serial(g, csr, cfg.iterations);
    for (v, (&got, &want)) in res.label.iter().zip(&want).enumerate() {
        let got = g.original_id_of_rank(got);
        if got != want {
            fail!(
                "vertex {} has label {got}, the serial rounds give {want}",
                g.original_id(v as VertexId)
            );
        }
    }
    if res.label.len() != want.len() {
        fail!("{} labels for {} vertices", res.label.len(), want.len());
    }
    Ok(())
}

/// A label (a rank) as the user's id or name, for summaries.
fn label_json(g: &Graph, rank: u32) -> serde_json::Value {
    match g.names() {
        Some(t) => t.get(rank).into(),
        None => g.original_id_of_rank(rank).into(),
    }
}

/// CDLP as a registered algorithm (`grotto run cdlp`).
pub struct Cdlp;

impl Algorithm for Cdlp {
    const NAME: &'static str = "cdlp";
    const ABOUT: &'static str = "Community detection by label propagation (LDBC Graphalytics): \
         each round every vertex takes its neighbours' most frequent label, the smallest on a tie.";
    const PARAMS: &'static [Param] = &[
        Param::with_default("iterations", Kind::Int, "10", "Rounds of propagation."),
        Param::with_default(
            "label-buffer",
            Kind::Int,
            "0",
            "Directed graphs: 4-byte slots holding out-neighbour labels between a range's \
             out- and in-edge steps (0: one per vertex); smaller cuts a round into more ranges.",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = CdlpConfig;
    type Output = CdlpResult;

    /// Rounds are whole-graph sweeps (the synchronous engine's block mode).
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<CdlpConfig> {
        if g.directed() {
            adjacency_in(g)?;
        }
        Ok(CdlpConfig {
            iterations: p.u32("iterations")?,
            label_buffer: p.u64("label-buffer")?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &CdlpConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"iterations": c.iterations, "label_buffer": c.label_buffer}))
    }
    fn run_sync(r: &mut Run<'_>, c: &CdlpConfig) -> Result<CdlpResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &CdlpConfig, out: &CdlpResult) -> Verdict {
        // Every vertex's id is looked up: the order in memory.
        g.load_order().map_err(|e| super::Mismatch(e.to_string()))?;
        verify(g, csr, c, out)
    }
    fn table(g: &Arc<Graph>, out: CdlpResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push(
            "label",
            match g.names() {
                Some(names) => Values::Name(names.clone(), out.label),
                None => Values::Rank(out.label),
            },
        );
        t
    }

    /// Rounds run, labels changed in the last, communities and the
    /// largest five with their labels.
    fn summary(g: &Graph, out: &CdlpResult) -> serde_json::Value {
        let mut size = vec![0u32; out.label.len()];
        for &l in &out.label {
            size[l as usize] += 1;
        }
        let communities = size.iter().filter(|&&s| s > 0).count();
        let largest: Vec<serde_json::Value> = super::top_k(size.len(), 5, |l| size[l] as f64)
            .into_iter()
            .filter(|&l| size[l] > 0)
            .map(|l| serde_json::json!([label_json(g, l as u32), size[l]]))
            .collect();
        serde_json::json!({
            "iterations": out.iterations,
            "changed_last": out.changed,
            "communities": communities,
            "largest": largest,
            "ranges": out.ranges,
        })
    }
}

#[cfg(test)]
mod tests;

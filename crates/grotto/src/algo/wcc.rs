//! Weakly connected components: every vertex gets the smallest original
//! id in its component as its label.
//!
//! One sweep over the edges with a concurrent union-find instead of CAVE's
//! one BFS per component (which pays a barrier per level per component and
//! a search per isolated vertex). Every edge `v -> u` unites the two
//! trees; a union always hangs the larger root under the smaller one with
//! one compare-and-swap, and `find` halves paths as it goes, so parents
//! only ever decrease and each tree's root is its smallest internal id.
//! One pass over the out-edges is exact for weak connectivity, so a
//! directed graph needs no reverse edges; the graph is read exactly once.
//! An undirected graph stores each edge twice; only the copy towards the
//! smaller id is united, which halves the CPU work.
//!
//! The verifier checks that no edge crosses two labels, that each label's
//! vertices form one component of a serial union-find, and that the label
//! is the smallest original id among them.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, OnSync, Param, Params, Setting};
use super::{fail, into_values, Verdict};
use crate::engine::{AsyncRun, AtomicBitmap, Flow, Frontier, Priority, Run, Seeds};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU16, AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// Largest component sizes reported in the summary.
pub const TOP_SIZES: usize = 5;

/// Components, in internal ids.
#[derive(Clone, Debug)]
pub struct WccResult {
    /// Per vertex: the rank (place in the user's order) of its
    /// component's first vertex, whose user id is the component's label
    /// ([`Graph::original_id_of_rank`]): 4 bytes a vertex, where the
    /// user ids themselves would take 8.
    pub label: Vec<u32>,
    /// Number of components.
    pub components: u64,
    /// Sizes of the largest components, largest first.
    pub largest: Vec<u64>,
    /// Components of one vertex.
    pub singletons: u64,
}

fn find(p: &[AtomicU32], mut x: VertexId) -> VertexId {
    loop {
        let px = p[x as usize].load(Relaxed);
        if px == x {
            return x;
        }
        let gp = p[px as usize].load(Relaxed);
        if gp != px {
            // Path halving; losing the race is harmless (someone else
            // shortened it or linked a root, both keep p[x] <= x).
            let _ = p[x as usize].compare_exchange(px, gp, Relaxed, Relaxed);
        }
        x = gp;
    }
}

fn union(p: &[AtomicU32], a: VertexId, b: VertexId) {
    let (mut a, mut b) = (a, b);
    loop {
        a = find(p, a);
        b = find(p, b);
        if a == b {
            return;
        }
        let (hi, lo) = if a > b { (a, b) } else { (b, a) };
        if p[hi as usize]
            .compare_exchange(hi, lo, Relaxed, Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Runs WCC on the engine.
pub fn run(r: &mut Run<'_>) -> Result<WccResult> {
    let n = r.vertex_count();
    let parent: Vec<AtomicU32> = r.collect(AtomicU32::new);
    // An undirected graph holds every edge both ways: uniting over one of
    // the two copies (towards the smaller id) is enough and halves the work.
    let both_ways = !r.graph().directed();
    r.step(&Frontier::all(n), Direction::Out, |v, edges, _| {
        // Probe a run of neighbours without branching on the answers (the
        // loads overlap): an edge needs a union unless it is the second
        // copy of an undirected one or its end already hangs from v's
        // root (sets only merge, so both stay joined). Once paths are
        // short that is most edges.
        let mut root = find(&parent, v);
        let mut open = [0 as VertexId; 64];
        for run in edges.ids.chunks(64) {
            let mut k = 0;
            for &u in run {
                open[k] = u;
                k += usize::from(!(both_ways && u > v) && parent[u as usize].load(Relaxed) != root);
            }
            for &u in &open[..k] {
                union(&parent, root, u);
                root = find(&parent, root);
            }
        }
    })?;
    let p = &parent;
    r.for_each_vertex(|v| {
        let root = find(p, v);
        p[v as usize].store(root, Relaxed);
    });
    finish(r.graph(), r.threads(), parent)
}

/// Runs WCC on the asynchronous engine by label propagation: every vertex
/// starts with its own id as label and priority, a vertex sends its label
/// to its neighbours, a neighbour takes a smaller label and runs again
/// with it as priority, so the smallest labels spread first and most
/// vertices run once. Needs every edge in both directions: an undirected
/// graph (the union-find sweep of [`run`] handles directed ones).
pub fn run_async(r: &mut AsyncRun<'_>) -> Result<WccResult> {
    if r.graph().directed() {
        return Err(Error::Invalid(
            "label propagation needs an undirected graph; use --engine sync (its union-find \
             sweep handles directed graphs) or convert with --undirected"
                .into(),
        ));
    }
    let label: Vec<AtomicU32> = r.collect(AtomicU32::new);
    r.flow_runs(
        &Flow::default(),
        Seeds::AllWith(&|v| Priority(v)),
        |v| Some(label[v as usize].load(Relaxed)),
        |l, nb, act| {
            // Read a run of labels without branching on them (the loads
            // overlap), then lower only those above l: a plain load
            // where a locked read-modify-write per edge would take the
            // cache line from the other core.
            let mut above = [0 as VertexId; 64];
            for run in nb.ids.chunks(64) {
                let mut k = 0;
                for &u in run {
                    above[k] = u;
                    k += usize::from(l < label[u as usize].load(Relaxed));
                }
                for &u in &above[..k] {
                    if l < label[u as usize].fetch_min(l, Relaxed) {
                        act.activate(u, Priority(l));
                    }
                }
            }
        },
    )?;
    finish(r.graph(), r.threads(), label)
}

/// Calls `f(v, rank of v)` for every vertex, a chunk per call of
/// `start` on some thread, the ranks read a chunk at a time (so the
/// vertex order is not loaded); the first read error is returned.
fn with_ranks<L>(
    g: &Graph,
    n: u64,
    threads: usize,
    start: impl Fn() -> L + Sync,
    f: impl Fn(&mut L, VertexId, u32) + Sync,
    end: impl Fn(L) + Sync,
) -> Result<()> {
    let failed = std::sync::Mutex::new(None);
    crate::engine::par::for_each_chunk(n, threads, |lo, hi| {
        let mut ranks = vec![0u32; (hi - lo) as usize];
        if let Err(e) = g.ranks_of(lo as VertexId, &mut ranks) {
            *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            return;
        }
        let mut local = start();
        for (v, &r) in (lo as VertexId..hi as VertexId).zip(&ranks) {
            f(&mut local, v, r);
        }
        end(local);
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Turns per-vertex roots into labels (the smallest rank of the
/// component: the user's smallest id or first name) and component
/// statistics, in place. Both engines leave each vertex with the smallest
/// internal id of its component, which is its own root, so:
/// - a root's entry becomes the smallest rank of its component while the
///   others still name their root, and then each of those takes its
///   root's;
/// - sizes are counted per root in 2 bytes, saturating, and the few
///   components past 65,534 vertices are counted again exactly.
///
/// That is 2 bytes and a bit a vertex besides the roots.
fn finish(g: &Graph, threads: usize, root: Vec<AtomicU32>) -> Result<WccResult> {
    let n = root.len() as u64;
    let is_root = AtomicBitmap::new(n);
    with_ranks(
        g,
        n,
        threads,
        || (),
        |_, v, r| {
            if root[v as usize].load(Relaxed) == v {
                is_root.insert(v as u64);
                root[v as usize].store(r, Relaxed);
            }
        },
        |_| {},
    )?;
    let root_of = |v: VertexId| {
        if is_root.contains(v as u64) {
            v
        } else {
            root[v as usize].load(Relaxed)
        }
    };
    let small: Vec<AtomicU16> = (0..n).map(|_| AtomicU16::new(0)).collect();
    // Minima and counts per root kept in a small direct-mapped table and
    // folded into the shared ones when evicted: a giant component's root
    // would otherwise take one contended update per vertex.
    let flush = |(rt, min, size): (VertexId, u32, u32)| {
        if size > 0 {
            root[rt as usize].fetch_min(min, Relaxed);
            let _ = small[rt as usize].fetch_update(Relaxed, Relaxed, |s| {
                Some((s as u32 + size).min(u16::MAX as u32) as u16)
            });
        }
    };
    with_ranks(
        g,
        n,
        threads,
        || [(0 as VertexId, u32::MAX, 0u32); 64],
        |local, v, r| {
            let rt = root_of(v);
            let e = &mut local[rt as usize % 64];
            if e.0 != rt {
                flush(std::mem::replace(e, (rt, u32::MAX, 0)));
            }
            e.1 = e.1.min(r);
            e.2 += 1;
        },
        |local| local.into_iter().for_each(flush),
    )?;
    // Exact sizes of the components the 2-byte counts could not hold.
    let mut big: std::collections::HashMap<VertexId, u64> = (0..n as VertexId)
        .filter(|&v| is_root.contains(v as u64) && small[v as usize].load(Relaxed) == u16::MAX)
        .map(|v| (v, 0))
        .collect();
    if !big.is_empty() {
        for v in 0..n as VertexId {
            if let Some(c) = big.get_mut(&root_of(v)) {
                *c += 1;
            }
        }
    }
    // Components, and the largest few kept in a small sorted list.
    let (mut components, mut singletons) = (0u64, 0u64);
    let mut largest: Vec<u64> = Vec::with_capacity(TOP_SIZES + 1);
    for v in (0..n as VertexId).filter(|&v| is_root.contains(v as u64)) {
        let s = match small[v as usize].load(Relaxed) {
            u16::MAX => big.get(&v).copied().unwrap_or(u16::MAX as u64),
            s => s as u64,
        };
        components += 1;
        singletons += u64::from(s == 1);
        if largest.len() < TOP_SIZES || largest.last().is_some_and(|&l| s > l) {
            let at = largest.partition_point(|&l| l >= s);
            largest.insert(at, s);
            largest.truncate(TOP_SIZES);
        }
    }
    drop(small);
    // Roots' entries are final: every other vertex takes its root's.
    crate::engine::par::for_each_chunk(n, threads, |lo, hi| {
        for v in lo as usize..hi as usize {
            if !is_root.contains(v as u64) {
                let rt = root[v].load(Relaxed) as usize;
                root[v].store(root[rt].load(Relaxed), Relaxed);
            }
        }
    });
    Ok(WccResult {
        label: into_values(root),
        components,
        largest,
        singletons,
    })
}

/// Checks `res` on `g` (the out-edges) with original ids `orig` (of a
/// vertex) and `of_rank` (of a rank).
pub fn verify(
    g: &Csr,
    orig: &dyn Fn(VertexId) -> u64,
    of_rank: &dyn Fn(u32) -> u64,
    res: &WccResult,
) -> Verdict {
    let n = g.vertex_count() as usize;
    let mut uf: Vec<usize> = (0..n).collect();
    fn root(uf: &mut [usize], mut x: usize) -> usize {
        while uf[x] != x {
            uf[x] = uf[uf[x]];
            x = uf[x];
        }
        x
    }
    for v in 0..n {
        for &u in g.neighbors(v as VertexId) {
            if res.label[v] != res.label[u as usize] {
                fail!(
                    "edge {v} -> {u} joins labels {} and {}",
                    res.label[v],
                    res.label[u as usize]
                );
            }
            let (a, b) = (root(&mut uf, v), root(&mut uf, u as usize));
            uf[a.max(b)] = a.min(b);
        }
    }
    // One serial component per label, and the label is its smallest id.
    let mut comp_of_label = std::collections::HashMap::new();
    let mut min_of_comp = std::collections::HashMap::new();
    for v in 0..n {
        let c = root(&mut uf, v);
        if let Some(&c0) = comp_of_label.get(&res.label[v]) {
            if c0 != c {
                fail!(
                    "label {} covers vertices of two components (vertex {v})",
                    res.label[v]
                );
            }
        } else {
            comp_of_label.insert(res.label[v], c);
        }
        let m = min_of_comp.entry(c).or_insert(u64::MAX);
        *m = (*m).min(orig(v as VertexId));
    }
    for v in 0..n {
        let want = min_of_comp[&root(&mut uf, v)];
        if of_rank(res.label[v]) != want {
            fail!(
                "vertex {v} has label {}, its component's smallest id is {want}",
                of_rank(res.label[v])
            );
        }
    }
    if comp_of_label.len() as u64 != res.components {
        fail!(
            "{} components reported, {} labels found",
            res.components,
            comp_of_label.len()
        );
    }
    // Sizes from the labels: the largest few and the singletons.
    let mut sizes: std::collections::HashMap<u32, u64> = std::collections::HashMap::new();
    for &l in &res.label {
        *sizes.entry(l).or_default() += 1;
    }
    let mut all: Vec<u64> = sizes.into_values().collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    let singletons = all.iter().filter(|&&s| s == 1).count() as u64;
    all.truncate(TOP_SIZES);
    if all != res.largest || singletons != res.singletons {
        fail!(
            "largest sizes {:?} and {} singletons reported, the labels give {all:?} and {singletons}",
            res.largest,
            res.singletons
        );
    }
    Ok(())
}

impl WccResult {
    /// Per-vertex `vertex,component` in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push(
            "component",
            match g.names() {
                // With names, a label is the rank of the smallest name.
                Some(names) => Values::Name(names.clone(), self.label),
                None => Values::Rank(self.label),
            },
        );
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "components": self.components,
            "largest": self.largest,
            "singletons": self.singletons,
        })
    }
}

/// WCC as a registered algorithm (`grotto run wcc`).
pub struct Wcc;

impl Algorithm for Wcc {
    const NAME: &'static str = "wcc";
    const ABOUT: &'static str =
        "Weakly connected components: label = smallest vertex id in the component.";
    const PARAMS: &'static [Param] = &[];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = ();
    type Output = WccResult;

    /// The synchronous engine's block mode reads each block once per
    /// level and label propagation converges in few levels (see
    /// docs/engine.md).
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(_: &Graph, _: &Params, _: &Setting) -> Result<()> {
        Ok(())
    }
    fn config_json(_: &Graph, _: &Params, _: &()) -> Result<serde_json::Value> {
        Ok(serde_json::json!({}))
    }
    fn run_sync(r: &mut Run<'_>, _: &()) -> Result<WccResult> {
        run(r)
    }
    fn run_async(r: &mut AsyncRun<'_>, _: &()) -> Result<WccResult> {
        run_async(r)
    }
    fn verify(g: &Graph, csr: &Csr, _: &(), out: &WccResult) -> Verdict {
        // Every vertex's id is looked up: the order in memory (the whole
        // graph is already, as `csr`).
        g.load_order().map_err(|e| super::Mismatch(e.to_string()))?;
        verify(
            csr,
            &|v| g.original_id(v),
            &|r| g.original_id_of_rank(r),
            out,
        )
    }
    fn table(g: &Arc<Graph>, out: WccResult) -> Table {
        out.into_table(g)
    }
    fn summary(_: &Graph, out: &WccResult) -> serde_json::Value {
        out.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn matches_serial_union_find_in_every_configuration() {
        for tg in [
            testkit::rmat(11, 4, 5, true),
            testkit::rmat(10, 2, 6, false),
            testkit::grid(20, 30),
            testkit::star(3000),
            // One component past the 2-byte counts (counted again exactly).
            testkit::grid(2, 40_000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let g = tg.graph.clone();
            for cfg in testkit::configs() {
                let e = crate::engine::SyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                let (res, _) = e.run(run).unwrap();
                check(&csr, &g, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            }
        }
    }

    /// [`verify`] with `g`'s own ids.
    fn check(csr: &Csr, g: &Graph, res: &WccResult) -> Verdict {
        verify(
            csr,
            &|v| g.original_id(v),
            &|r| g.original_id_of_rank(r),
            res,
        )
    }

    #[test]
    fn async_label_propagation_matches_serial_union_find() {
        for tg in [
            testkit::rmat(11, 4, 5, true),
            testkit::grid(20, 30),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let g = tg.graph.clone();
            for cfg in testkit::configs() {
                let e = crate::engine::AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                let (res, _) = e.run(run_async).unwrap();
                check(&csr, &g, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            }
        }
        let d = testkit::rmat(8, 4, 1, false);
        let e = crate::engine::AsyncEngine::open(d.graph.clone(), Default::default()).unwrap();
        assert!(e.run(run_async).is_err());
    }

    #[test]
    fn labels_are_smallest_original_ids() {
        // Two components {5, 900, 7} and {1000, 3000}, plus a tail.
        let tg = testkit::from_edges(
            &[(900, 5), (7, 900), (3000, 1000), (3000, 3001)],
            true,
            false,
        );
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (res, _) = e.run(run).unwrap();
        let g = &tg.graph;
        let label_of =
            |id: u64| g.original_id_of_rank(res.label[g.vertex_of(id).unwrap() as usize]);
        assert_eq!(label_of(900), 5);
        assert_eq!(label_of(7), 5);
        assert_eq!(label_of(3001), 1000);
        let csr = Csr::load(g, Direction::Out).unwrap();
        let mut bad = res.clone();
        let v = g.vertex_of(7).unwrap() as usize;
        bad.label[v] = g.rank(v as VertexId);
        assert!(check(&csr, g, &bad).is_err());
        // Sizes that disagree with the labels.
        assert_eq!(res.largest, [3, 3]);
        for change in [
            |r: &mut WccResult| r.largest[1] = 2,
            |r: &mut WccResult| r.singletons = 1,
        ] {
            let mut bad = res.clone();
            change(&mut bad);
            assert!(check(&csr, g, &bad).is_err());
        }
    }
}

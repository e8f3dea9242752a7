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
use super::{atomics_u32, fail, into_values, Verdict};
use crate::engine::{AsyncRun, Flow, Frontier, Priority, Run, Seeds};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
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
    let parent: Vec<AtomicU32> = (0..n).map(|v| AtomicU32::new(v as u32)).collect();
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
    finish(r.graph(), r.threads(), into_values(parent))
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
    let n = r.vertex_count();
    let label: Vec<AtomicU32> = (0..n).map(|v| AtomicU32::new(v as u32)).collect();
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
    finish(r.graph(), r.threads(), into_values(label))
}

/// Turns per-vertex roots (any one vertex of the component, the same
/// for all of it) into labels (the smallest rank of the component: the
/// user's smallest id or first name) and component statistics, in place:
/// 8 bytes a vertex besides the roots.
fn finish(g: &Graph, threads: usize, mut root: Vec<VertexId>) -> Result<WccResult> {
    let n = root.len() as u64;
    let min_rank = atomics_u32(n, u32::MAX);
    let sizes = atomics_u32(n, 0);
    let flush = |(rt, min, size): (usize, u32, u32)| {
        if size > 0 {
            min_rank[rt].fetch_min(min, Relaxed);
            sizes[rt].fetch_add(size, Relaxed);
        }
    };
    crate::engine::par::for_each_chunk(n, threads, |lo, hi| {
        // Sums per root kept in a small direct-mapped table and added to
        // the shared ones when evicted: a giant component's root would
        // otherwise take one contended update per vertex.
        let mut local = [(0usize, u32::MAX, 0u32); 64];
        for v in lo as VertexId..hi as VertexId {
            let rt = root[v as usize] as usize;
            let e = &mut local[rt % 64];
            if e.0 != rt {
                flush(std::mem::replace(e, (rt, u32::MAX, 0)));
            }
            e.1 = e.1.min(g.rank(v));
            e.2 += 1;
        }
        local.into_iter().for_each(flush);
    });
    for rt in root.iter_mut() {
        *rt = min_rank[*rt as usize].load(Relaxed);
    }
    drop(min_rank);
    // Component counts, and the largest few kept in a small sorted list.
    let (mut components, mut singletons) = (0u64, 0u64);
    let mut largest: Vec<u64> = Vec::with_capacity(TOP_SIZES + 1);
    for s in sizes
        .iter()
        .map(|s| s.load(Relaxed) as u64)
        .filter(|&s| s > 0)
    {
        components += 1;
        singletons += u64::from(s == 1);
        if largest.len() < TOP_SIZES || largest.last().is_some_and(|&l| s > l) {
            let at = largest.partition_point(|&l| l >= s);
            largest.insert(at, s);
            largest.truncate(TOP_SIZES);
        }
    }
    Ok(WccResult {
        label: root,
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
        assert!(verify(
            &csr,
            &|v| g.original_id(v),
            &|r| g.original_id_of_rank(r),
            &bad
        )
        .is_err());
    }
}

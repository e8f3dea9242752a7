//! Graph algorithms, one file each, written against an engine's
//! interface: the synchronous engine's [`crate::engine::Run`] (BFS, DFS,
//! WCC, PageRank, random walks, CDLP, LCC, triangle counting, betweenness,
//! SCC), the asynchronous engine's
//! [`crate::engine::AsyncRun`] (BFS, WCC, k-core and core numbers, PPR,
//! PageRank, MIS, SSSP), or both; each with a serial verifier that uses
//! nothing but an in-memory copy of the graph ([`reference::Csr`]).
//!
//! Every algorithm returns a result struct in internal vertex ids with a
//! `table` method that turns it into per-vertex columns in the user's
//! original ids ([`output::Table`]) and a `summary` for reports.
//!
//! Each algorithm is also a type implementing [`registry::Algorithm`]
//! (name, parameters, engines, run, verify, table, summary), and
//! [`ALGORITHMS`] lists them: `grotto run` builds its subcommands from
//! that list and runs them all through one generic path.

pub mod bc;
pub mod bfs;
pub mod cdlp;
pub mod community;
pub mod dfs;
pub mod eccentricity;
pub mod ego;
pub mod eigenvector;
pub mod intersect;
pub mod kcore;
pub mod lcc;
pub mod leiden;
pub mod linkpred;
pub mod louvain;
pub mod mis;
pub mod output;
pub mod pagerank;
pub mod path;
pub mod ppr;
pub mod randomwalk;
pub mod reference;
pub mod registry;
pub mod scc;
pub mod sssp;
pub mod tc;
pub mod wcc;

#[cfg(test)]
mod layouts_tests;
#[cfg(test)]
mod multigraph_tests;
#[cfg(test)]
mod updates_tests;

/// Runs `algo` on `g` as `plan` says, verified, through a cache of eight
/// blocks (so lists come off the disk): what the tests that compare two
/// files of the same graph run on each. An engine that fails to open
/// fails the test; the algorithm's own refusal is returned.
#[cfg(test)]
fn run_on_tiny_cache(
    algo: &dyn Registered,
    plan: &registry::Plan,
    g: &std::sync::Arc<Graph>,
) -> Result<registry::Outcome> {
    let cfg = crate::engine::EngineConfig {
        cache: crate::cache::CacheSize::Bytes(8 * 4096),
        ..crate::engine::EngineConfig::default()
    };
    let engine = crate::engine::Engine::open(plan.engine, g.clone(), cfg).expect("engine opens");
    let mut params = registry::Params::new(algo.params());
    if algo.name() == "bc" {
        // Exact betweenness is a search from every vertex, each level a
        // step through eight blocks: a few sampled sources check the same
        // code.
        params.set("sources", "4")?;
    }
    algo.execute(&engine, plan, &params, true)
}

use crate::error::{Error, Result};
use crate::rng::Rng;
use crate::store::{Direction, Graph};
use crate::VertexId;
use registry::{Entry, Registered};
use std::sync::atomic::{AtomicU64, Ordering};

/// Every algorithm the command line (and any front end) offers, in the
/// order `grotto run --help` lists them. A new algorithm is its file, its
/// `pub mod` line above and one line here.
pub static ALGORITHMS: &[&dyn Registered] = &[
    &Entry::<bfs::Bfs>::NEW,
    &Entry::<dfs::Dfs>::NEW,
    &Entry::<wcc::Wcc>::NEW,
    &Entry::<pagerank::PageRank>::NEW,
    &Entry::<kcore::Kcore>::NEW,
    &Entry::<kcore::Coreness>::NEW,
    &Entry::<eigenvector::Eigenvector>::NEW,
    &Entry::<eigenvector::Katz>::NEW,
    &Entry::<ppr::Ppr>::NEW,
    &Entry::<mis::Mis>::NEW,
    &Entry::<sssp::Sssp>::NEW,
    &Entry::<path::ShortestPath>::NEW,
    &Entry::<ego::Ego>::NEW,
    &Entry::<linkpred::LinkPrediction>::NEW,
    &Entry::<randomwalk::RandomWalk>::NEW,
    &Entry::<eccentricity::Eccentricity>::NEW,
    &Entry::<cdlp::Cdlp>::NEW,
    &Entry::<louvain::Louvain>::NEW,
    &Entry::<leiden::Leiden>::NEW,
    &Entry::<lcc::Lcc>::NEW,
    &Entry::<tc::Tc>::NEW,
    &Entry::<bc::Bc>::NEW,
    &Entry::<scc::Scc>::NEW,
];

/// "No vertex" in parent and position arrays.
pub const NONE: VertexId = VertexId::MAX;

/// A verifier's finding: what is wrong, in words a user can check.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch(pub String);

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// What a verifier returns: `Ok` or the first problem found.
pub type Verdict = std::result::Result<(), Mismatch>;

/// Fails a verification with a formatted message.
macro_rules! fail {
    ($($t:tt)*) => { return Err($crate::algo::Mismatch(format!($($t)*))) };
}
pub(crate) use fail;

/// The default source vertex, picked as GAP does: a seeded random vertex
/// with at least one out-edge (`seed` is echoed by the CLI). Vertices are
/// drawn by their place in the user's order, so a seed picks the same
/// source whatever the file's vertex order.
pub fn pick_source(g: &Graph, seed: u64) -> Result<VertexId> {
    let n = g.vertex_count();
    let out = g.out();
    let mut rng = Rng::new(seed, 0x5eed);
    for draw in 0..1000 {
        if n == 0 {
            break;
        }
        let r = rng.below(n) as u32;
        // The first draws find their vertex by a pass over the order, so
        // a run that needs no rank-to-vertex table (4 bytes a vertex)
        // does not build one; most graphs stop at the first draw.
        let v = if draw < 4 && !g.rank_lookup_is_cheap() {
            let mut one = [0];
            g.vertices_at_ranks(r, &mut one)?;
            one[0]
        } else {
            g.vertex_at_rank(r)
        };
        if out.degree(v) > 0 {
            return Ok(v);
        }
    }
    (0..n as u32)
        .map(|r| g.vertex_at_rank(r))
        .find(|&v| out.degree(v) > 0)
        .ok_or_else(|| {
            Error::Invalid("the graph has no edges, so there is no source to start from".into())
        })
}

/// Turns a user's vertex id into an internal one, with an error naming
/// the flag when it does not exist.
pub fn user_vertex(g: &Graph, id: &str, flag: &str) -> Result<VertexId> {
    g.vertex_named(id).map_err(|_| {
        Error::Invalid(match g.names() {
            Some(_) => format!(
                "{flag} {id:?}: the graph has no vertex with that name ({} vertices)",
                g.vertex_count()
            ),
            None if id.trim().parse::<u64>().is_err() => format!(
                "{flag} {id:?}: expected a vertex id (a non-negative integer); this graph has no vertex names"
            ),
            None => format!(
                "{flag} {id}: the graph has no vertex with that id ({} vertices)",
                g.vertex_count()
            ),
        })
    })
}

/// The adjacency that gives a vertex's in-neighbours: the reverse edges of
/// a directed graph, the only adjacency of an undirected one; `None` for a
/// directed graph converted without `--reverse`.
pub fn in_direction(g: &Graph) -> Option<Direction> {
    if !g.directed() {
        Some(Direction::Out)
    } else if g.inn().is_some() {
        Some(Direction::In)
    } else {
        None
    }
}

/// Factor by which push thresholds (PageRank, personalized PageRank)
/// fall from one phase to the next.
pub(crate) const PHASE_STEP: f64 = 8.0;

/// A vertex's residual and the residual at which it runs, side by side so
/// that pushing along an edge touches one cache line (push PageRank and
/// personalized PageRank). All zero bits is a valid cell (no residual,
/// threshold not set yet), so a table of them can be allocated zeroed.
#[derive(bytemuck::Zeroable)]
#[repr(C, align(16))]
pub(crate) struct Residual {
    /// Mass received and not yet pushed on.
    pub(crate) res: AtomicF64,
    /// The vertex's threshold (0 where an algorithm sets it lazily and
    /// has not yet).
    pub(crate) at: AtomicF64,
}

/// Adds `m` to the residual of each vertex of `ids` and calls
/// `then(u, cell, old)` with the value before the add. A run of
/// residuals is read first, so their cache misses overlap, and each add
/// is then one compare-and-swap with the read value as its guess.
#[inline]
pub(crate) fn push_run(
    cells: &[Residual],
    ids: &[VertexId],
    m: f64,
    mut then: impl FnMut(VertexId, &Residual, f64),
) {
    let mut guess = [0f64; 64];
    for run in ids.chunks(64) {
        for (g, &u) in guess.iter_mut().zip(run) {
            *g = cells[u as usize].res.load();
        }
        for (&g, &u) in guess.iter().zip(run) {
            let c = &cells[u as usize];
            then(u, c, c.res.add_from(g, m));
        }
    }
}

/// [`push_run`] with each vertex of `ids` sent `m` times its edge's
/// weight (`weights`, one per id).
#[inline]
pub(crate) fn push_run_weighted(
    cells: &[Residual],
    ids: &[VertexId],
    weights: &[f32],
    m: f64,
    mut then: impl FnMut(VertexId, &Residual, f64, f64),
) {
    let mut guess = [0f64; 64];
    for (run, ws) in ids.chunks(64).zip(weights.chunks(64)) {
        for (g, &u) in guess.iter_mut().zip(run) {
            *g = cells[u as usize].res.load();
        }
        for ((&g, &u), &w) in guess.iter().zip(run).zip(ws) {
            let c = &cells[u as usize];
            let x = m * w as f64;
            then(u, c, c.res.add_from(g, x), x);
        }
    }
}

/// An `f64` updated atomically (stored as its bits; all zero bits is
/// 0.0, so tables of them can be allocated zeroed).
#[derive(Debug, Default, bytemuck::Zeroable)]
#[repr(transparent)]
pub struct AtomicF64(AtomicU64);

impl AtomicF64 {
    /// A new value.
    pub fn new(x: f64) -> AtomicF64 {
        AtomicF64(AtomicU64::new(x.to_bits()))
    }
    /// The value, consuming the cell (so a `Vec<AtomicF64>` turns into
    /// a `Vec<f64>` in place, without a second array).
    #[inline]
    pub fn into_inner(self) -> f64 {
        f64::from_bits(self.0.into_inner())
    }
    /// Reads the value.
    #[inline]
    pub fn load(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    /// Replaces the value.
    #[inline]
    pub fn store(&self, x: f64) {
        self.0.store(x.to_bits(), Ordering::Relaxed)
    }
    /// Adds `x` (a compare-and-swap loop); returns the value before.
    #[inline]
    pub fn add(&self, x: f64) -> f64 {
        self.add_from(self.load(), x)
    }
    /// [`AtomicF64::add`] starting from `guess`, a value read earlier:
    /// when it is still current the add is one compare-and-swap and no
    /// load (a caller loads a run of cells first so their misses overlap).
    #[inline]
    pub fn add_from(&self, guess: f64, x: f64) -> f64 {
        let mut cur = guess.to_bits();
        loop {
            let new = (f64::from_bits(cur) + x).to_bits();
            match self
                .0
                .compare_exchange_weak(cur, new, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return f64::from_bits(cur),
                Err(c) => cur = c,
            }
        }
    }
    /// Replaces the value; returns the value before.
    #[inline]
    pub fn swap(&self, x: f64) -> f64 {
        f64::from_bits(self.0.swap(x.to_bits(), Ordering::Relaxed))
    }
}

/// The `k` indices of `0..n` with the largest `score`, largest first,
/// ties to the smaller index (NaN orders as `f64::total_cmp` says): one
/// pass keeping a sorted buffer of `k`, where sorting all `n` for a
/// summary's top five took a tenth of a second or more on 4M vertices.
pub(crate) fn top_k(n: usize, k: usize, score: impl Fn(usize) -> f64) -> Vec<usize> {
    // Whether `a` ranks before `b`.
    let before = |a: (f64, usize), b: (f64, usize)| {
        a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)) == std::cmp::Ordering::Greater
    };
    if k == 0 {
        return Vec::new();
    }
    let mut top: Vec<(f64, usize)> = Vec::with_capacity(k + 1);
    for i in 0..n {
        let x = (score(i), i);
        if top.len() == k && !before(x, top[k - 1]) {
            continue;
        }
        let at = top.partition_point(|&t| before(t, x));
        top.insert(at, x);
        top.truncate(k);
    }
    top.into_iter().map(|t| t.1).collect()
}

/// Edges per vertex, counting both directions of an undirected edge.
pub fn average_degree(g: &Graph) -> f64 {
    g.edge_count() as f64 * if g.directed() { 1.0 } else { 2.0 } / g.vertex_count().max(1) as f64
}

/// An error unless `g` is undirected (`what` names the algorithm).
pub(crate) fn need_undirected(g: &Graph, what: &str) -> Result<()> {
    if g.directed() {
        return Err(Error::Invalid(format!(
            "{what} is defined on undirected graphs; convert the edge list with --undirected"
        )));
    }
    Ok(())
}

/// `n` atomics holding `x`.
pub(crate) fn atomics_u32(n: u64, x: u32) -> Vec<std::sync::atomic::AtomicU32> {
    (0..n)
        .map(|_| std::sync::atomic::AtomicU32::new(x))
        .collect()
}

/// The values of a vector of atomics.
pub(crate) fn into_values(v: Vec<std::sync::atomic::AtomicU32>) -> Vec<u32> {
    v.into_iter().map(|a| a.into_inner()).collect()
}

#[cfg(test)]
mod tests {
    use super::top_k;
    use proptest::prelude::*;

    proptest! {
        /// `top_k` picks what a full stable sort (largest first, ties in
        /// index order) puts first; scores drawn from a few values so ties
        /// are common, sometimes with a NaN.
        #[test]
        fn top_k_agrees_with_a_full_sort(
            xs in proptest::collection::vec(0u8..6, 0..200),
            k in 0usize..8,
            nan in proptest::option::of(0usize..200),
        ) {
            let mut f: Vec<f64> = xs.iter().map(|&x| x as f64 - 2.0).collect();
            if let Some(i) = nan.filter(|&i| i < f.len()) {
                f[i] = f64::NAN;
            }
            let mut want: Vec<usize> = (0..f.len()).collect();
            want.sort_by(|&a, &b| f[b].total_cmp(&f[a]));
            want.truncate(k);
            prop_assert_eq!(top_k(f.len(), k, |i| f[i]), want);
        }
    }
}

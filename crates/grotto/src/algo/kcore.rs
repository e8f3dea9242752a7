//! k-cores of an undirected graph: the K-core (the largest subgraph in
//! which every vertex has at least K neighbours) and the core number of
//! every vertex (the largest K whose K-core holds it).
//!
//! K-core (ACGraph's algorithm 3) on the asynchronous engine: every vertex
//! with fewer than K neighbours is seeded; a processed vertex is removed
//! and decrements its neighbours' remaining degrees; a neighbour whose
//! degree falls from K to K-1 is activated. A degree crosses that line at
//! most once, so each vertex runs at most once and its list is read once.
//!
//! Core numbers by peeling in levels: at level k every remaining vertex of
//! remaining degree at most k is seeded, removed with core number k, and
//! its removal activates neighbours whose degree falls to k; the level
//! ends when nothing is active, and the next level is the smallest
//! remaining degree. Every vertex is removed exactly once, so every list
//! is read once over all levels; a level costs a pass over the vertices
//! still remaining. This is exact peeling (Batagelj and Zaversnik's
//! order up to ties within a level), so core numbers are exact.
//!
//! Verifiers: every vertex of the K-core has at least K neighbours in it
//! and serial peeling gives the same set; core numbers equal a serial
//! bucket-queue decomposition (Batagelj and Zaversnik).

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{atomics_u32, fail, Verdict};
use crate::engine::{AsyncRun, AtomicBitmap, Flow, Priority, Seeds};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::Arc;

/// Settings of a K-core computation.
#[derive(Clone, Debug)]
pub struct KcoreConfig {
    /// The K of the K-core.
    pub k: u32,
    /// Run in the engine's rounds mode (the synchronous formulation:
    /// vertices whose degree fell below K in a round are removed in the
    /// next), for comparison.
    pub rounds: bool,
}

/// The K-core, in internal ids.
#[derive(Clone, Debug)]
pub struct KcoreResult {
    /// The K.
    pub k: u32,
    /// Per vertex: whether it belongs to the K-core.
    pub in_core: Vec<bool>,
    /// Vertices in the K-core.
    pub size: u64,
}

/// Core numbers, in internal ids.
#[derive(Clone, Debug)]
pub struct CorenessResult {
    /// Per vertex: its core number.
    pub core: Vec<u32>,
    /// The largest core number (the graph's degeneracy).
    pub max_core: u32,
    /// Peeling levels run.
    pub levels: u32,
}

fn degrees(r: &AsyncRun<'_>) -> Vec<AtomicU32> {
    let out = r.graph().out();
    let deg = atomics_u32(r.vertex_count(), 0);
    r.for_each_vertex(|v| {
        deg[v as usize].store(out.degree(v).min(u32::MAX as u64) as u32, Relaxed)
    });
    deg
}

/// Computes the K-core on the asynchronous engine.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &KcoreConfig) -> Result<KcoreResult> {
    if r.graph().directed() {
        // networkx's directed K-core: the vertices of core number K or
        // more, degrees in plus out (a peel to K alone would be the same
        // set; the core numbers give it with one code path).
        let flow = Flow {
            rounds: cfg.rounds,
            ..Flow::default()
        };
        let c = coreness_directed(r, &flow)?;
        let in_core: Vec<bool> = c.core.iter().map(|&x| x >= cfg.k).collect();
        let size = in_core.iter().filter(|&&x| x).count() as u64;
        return Ok(KcoreResult {
            k: cfg.k,
            in_core,
            size,
        });
    }
    let k = cfg.k;
    let n = r.vertex_count();
    let deg = degrees(r);
    // A vertex of degree below K is out from the start; those with edges
    // are the seeds, which take their edges off their neighbours. (Their
    // bits are set a word at a time, from the word's first vertex.)
    let removed = AtomicBitmap::new(n);
    r.for_each_vertex(|v| {
        if v % 64 == 0 {
            let mask = (0..64u32)
                .filter(|&j| {
                    let u = v as u64 + j as u64;
                    u < n && deg[u as usize].load(Relaxed) < k
                })
                .fold(0u64, |m, j| m | 1 << j);
            removed.insert_word(v as usize / 64, mask);
        }
    });
    // With no vertex of K neighbours or more, the K-core is empty by the
    // degrees alone: no list needs reading (a grid's 10-core).
    if removed.count() == n {
        return Ok(KcoreResult {
            k,
            in_core: vec![false; n as usize],
            size: 0,
        });
    }
    let below = |v: VertexId| {
        let d = deg[v as usize].load(Relaxed);
        (d > 0 && d < k).then_some(Priority::FIRST)
    };
    let flow = Flow {
        rounds: cfg.rounds,
        ..Flow::default()
    };
    r.flow(
        &flow,
        Seeds::Where(&below),
        |v| {
            removed.insert(v as u64);
            Some(())
        },
        |(), e| {
            if removed.contains(e.dst as u64) {
                return None;
            }
            (deg[e.dst as usize].fetch_sub(1, Relaxed) == k).then_some(Priority::FIRST)
        },
    )?;
    let in_core: Vec<bool> = (0..n).map(|v| !removed.contains(v)).collect();
    let size = in_core.iter().filter(|&&c| c).count() as u64;
    Ok(KcoreResult { k, in_core, size })
}

/// Computes every vertex's core number on the asynchronous engine (in
/// its rounds mode within each level when `rounds`).
pub fn coreness_async(r: &mut AsyncRun<'_>, rounds: bool) -> Result<CorenessResult> {
    let flow = Flow {
        rounds,
        ..Flow::default()
    };
    if r.graph().directed() {
        return coreness_directed(r, &flow);
    }
    let n = r.vertex_count();
    let deg = degrees(r);
    let core: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
    let mut remaining: Vec<VertexId> = (0..n as VertexId).collect();
    let (mut k, mut levels) = (0u32, 0u32);
    while let Some(found) = next_level(&mut remaining, &core, &deg, &mut k) {
        levels += 1;
        let seeds: Vec<(VertexId, Priority)> =
            found.into_iter().map(|v| (v, Priority::FIRST)).collect();
        let level = k;
        r.flow(
            &flow,
            Seeds::List(&seeds),
            |v| {
                core[v as usize].store(level, Relaxed);
                Some(())
            },
            |(), e| {
                if core[e.dst as usize].load(Relaxed) != u32::MAX {
                    return None;
                }
                (deg[e.dst as usize].fetch_sub(1, Relaxed) == level + 1).then_some(Priority::FIRST)
            },
        )?;
    }
    let core: Vec<u32> = core.into_iter().map(|c| c.into_inner()).collect();
    Ok(CorenessResult {
        max_core: core.iter().copied().max().unwrap_or(0),
        core,
        levels,
    })
}

/// The next level of a peeling: drops the vertices that have a core
/// number from `remaining`, raises `k` to the lowest degree left, and
/// gives the vertices of degree `k` or less (None when none is left).
fn next_level(
    remaining: &mut Vec<VertexId>,
    core: &[AtomicU32],
    deg: &[AtomicU32],
    k: &mut u32,
) -> Option<Vec<VertexId>> {
    remaining.retain(|&v| core[v as usize].load(Relaxed) == u32::MAX);
    let low = remaining
        .iter()
        .map(|&v| deg[v as usize].load(Relaxed))
        .min()?;
    *k = (*k).max(low);
    Some(
        remaining
            .iter()
            .copied()
            .filter(|&v| deg[v as usize].load(Relaxed) <= *k)
            .collect(),
    )
}

/// Core numbers of a directed graph as networkx defines them: a vertex's
/// degree is its in-degree plus its out-degree, and removing it lowers
/// each neighbour's once per edge between them (a pair linked both ways,
/// twice). Needs the reverse edges. The engine sends along one direction
/// a pass, so each level alternates: the vertices removed in a pass along
/// out-edges are then sent along in-edges, and those that removes sent
/// along out-edges again, until a pass removes none.
fn coreness_directed(r: &mut AsyncRun<'_>, flow: &Flow) -> Result<CorenessResult> {
    let g = r.graph();
    let Some(inn) = g.inn() else {
        return Err(Error::Invalid(format!(
            "core numbers of a directed graph count in- and out-edges (networkx's definition), \
             and {} has no reverse edges; convert it again with --reverse",
            g.path().display()
        )));
    };
    let out = g.out();
    let n = r.vertex_count();
    let deg = atomics_u32(n, 0);
    r.for_each_vertex(|v| {
        let d = out.degree(v) + inn.degree(v);
        deg[v as usize].store(d.min(u32::MAX as u64) as u32, Relaxed)
    });
    let core: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(u32::MAX)).collect();
    let mut remaining: Vec<VertexId> = (0..n as VertexId).collect();
    let (mut k, mut levels) = (0u32, 0u32);
    let removed = AtomicBitmap::new(n);
    while let Some(seeds) = next_level(&mut remaining, &core, &deg, &mut k) {
        levels += 1;
        let level = k;
        for &v in &seeds {
            core[v as usize].store(level, Relaxed);
        }
        // Per direction: the removed vertices not yet sent along it.
        let mut todo = [seeds.clone(), seeds];
        while todo.iter().any(|t| !t.is_empty()) {
            for (side, dir) in [(0, Direction::Out), (1, Direction::In)] {
                if todo[side].is_empty() {
                    continue;
                }
                let list: Vec<(VertexId, Priority)> =
                    todo[side].drain(..).map(|v| (v, Priority::FIRST)).collect();
                let f = Flow {
                    dir,
                    ..flow.clone()
                };
                r.flow(
                    &f,
                    Seeds::List(&list),
                    |v| {
                        // Removed by this pass: the other direction still
                        // owes its neighbours their decrements.
                        if core[v as usize].load(Relaxed) == u32::MAX {
                            core[v as usize].store(level, Relaxed);
                            removed.insert(v as u64);
                        }
                        Some(())
                    },
                    |(), e| {
                        if core[e.dst as usize].load(Relaxed) != u32::MAX {
                            return None;
                        }
                        (deg[e.dst as usize].fetch_sub(1, Relaxed) == level + 1)
                            .then_some(Priority::FIRST)
                    },
                )?;
                let mut found = Vec::new();
                removed.drain_words(0, removed.word_count(), &mut found);
                todo[1 - side].extend(found.into_iter().map(|v| v as VertexId));
            }
        }
    }
    let core: Vec<u32> = core.into_iter().map(|c| c.into_inner()).collect();
    Ok(CorenessResult {
        max_core: core.iter().copied().max().unwrap_or(0),
        core,
        levels,
    })
}

/// The lists networkx's directed core numbers peel: each vertex's
/// out-neighbours then its in-neighbours.
pub fn all_neighbours(out: &Csr) -> Csr {
    let inn = out.reversed();
    let lists: Vec<Vec<VertexId>> = (0..out.vertex_count() as VertexId)
        .map(|v| {
            let mut l = out.neighbors(v).to_vec();
            l.extend_from_slice(inn.neighbors(v));
            l
        })
        .collect();
    Csr::from_lists(&lists)
}

/// Serial core numbers by bucket-queue peeling (Batagelj and Zaversnik).
pub fn serial_coreness(g: &Csr) -> Vec<u32> {
    let n = g.vertex_count() as usize;
    let mut deg: Vec<usize> = (0..n).map(|v| g.neighbors(v as VertexId).len()).collect();
    let maxd = deg.iter().copied().max().unwrap_or(0);
    let mut bin = vec![0usize; maxd + 2];
    for &d in &deg {
        bin[d] += 1;
    }
    let mut start = 0;
    for b in bin.iter_mut() {
        let c = *b;
        *b = start;
        start += c;
    }
    let mut pos = vec![0usize; n];
    let mut vert = vec![0usize; n];
    for v in 0..n {
        pos[v] = bin[deg[v]];
        vert[pos[v]] = v;
        bin[deg[v]] += 1;
    }
    for d in (1..=maxd + 1).rev() {
        bin[d] = bin[d - 1];
    }
    bin[0] = 0;
    for i in 0..n {
        let v = vert[i];
        for &u in g.neighbors(v as VertexId) {
            let u = u as usize;
            if deg[u] > deg[v] {
                let du = deg[u];
                let pu = pos[u];
                let pw = bin[du];
                let w = vert[pw];
                if u != w {
                    pos[u] = pw;
                    vert[pu] = w;
                    pos[w] = pu;
                    vert[pw] = u;
                }
                bin[du] += 1;
                deg[u] -= 1;
            }
        }
    }
    deg.into_iter().map(|d| d as u32).collect()
}

/// Checks a K-core against its definition and serial peeling.
pub fn verify(g: &Csr, res: &KcoreResult) -> Verdict {
    let n = g.vertex_count() as usize;
    for v in 0..n {
        if !res.in_core[v] {
            continue;
        }
        let inside = g
            .neighbors(v as VertexId)
            .iter()
            .filter(|&&u| res.in_core[u as usize])
            .count();
        if inside < res.k as usize {
            fail!(
                "vertex {v} is in the {}-core with only {inside} neighbours inside it",
                res.k
            );
        }
    }
    let core = serial_coreness(g);
    for (v, &c) in core.iter().enumerate() {
        let want = c >= res.k;
        if want != res.in_core[v] {
            fail!(
                "vertex {v}: serial peeling says in the {}-core: {want}, result says {}",
                res.k,
                res.in_core[v]
            );
        }
    }
    Ok(())
}

/// Checks core numbers against the serial decomposition.
pub fn verify_coreness(g: &Csr, res: &CorenessResult) -> Verdict {
    let want = serial_coreness(g);
    for (v, (&a, &b)) in res.core.iter().zip(&want).enumerate() {
        if a != b {
            fail!("vertex {v} has core number {a}, serial peeling says {b}");
        }
    }
    Ok(())
}

impl KcoreResult {
    /// Per-vertex `vertex,in_core` (1 or 0) in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("in_core", Values::Bool(self.in_core));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "k": self.k, "core_size": self.size })
    }
}

impl CorenessResult {
    /// Per-vertex `vertex,core` in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("core", Values::U32(self.core));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({ "max_core": self.max_core, "levels": self.levels })
    }
}

/// Settings of a core-number computation.
#[derive(Clone, Debug, Default)]
pub struct CorenessConfig {
    /// Run in the engine's rounds mode within each level.
    pub rounds: bool,
}

/// K-core as a registered algorithm (`grotto run kcore`).
pub struct Kcore;

impl Algorithm for Kcore {
    const NAME: &'static str = "kcore";
    const ABOUT: &'static str = "K-core: the vertices of the largest subgraph where every vertex has at least K neighbours (directed graphs: in- plus out-edges, as networkx; needs --reverse).";
    const PARAMS: &'static [Param] = &[Param::required("k", Kind::Int, "The K.")];
    const SYNC: OnSync = OnSync::AsyncRounds;
    const ASYNC: bool = true;
    type Config = KcoreConfig;
    type Output = KcoreResult;

    /// Peeling without a barrier removes a vertex as soon as its degree
    /// falls below K (docs/async.md).
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Async
    }
    fn config(_: &Graph, p: &Params, s: &Setting) -> Result<KcoreConfig> {
        Ok(KcoreConfig {
            k: p.u32("k")?,
            rounds: s.rounds,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &KcoreConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"k": c.k}))
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &KcoreConfig) -> Result<KcoreResult> {
        run_async(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, _: &KcoreConfig, out: &KcoreResult) -> Verdict {
        if g.directed() {
            verify(&all_neighbours(csr), out)
        } else {
            verify(csr, out)
        }
    }
    fn table(g: &Arc<Graph>, out: KcoreResult) -> Table {
        out.into_table(g)
    }
    fn summary(_: &Graph, out: &KcoreResult) -> serde_json::Value {
        out.summary()
    }
}

/// Core numbers as a registered algorithm (`grotto run coreness`).
pub struct Coreness;

impl Algorithm for Coreness {
    const NAME: &'static str = "coreness";
    const ABOUT: &'static str = "Core number of every vertex (directed graphs: in- plus out-degree, networkx's definition; needs --reverse).";
    const PARAMS: &'static [Param] = &[];
    const SYNC: OnSync = OnSync::AsyncRounds;
    const ASYNC: bool = true;
    type Config = CorenessConfig;
    type Output = CorenessResult;

    /// As for [`Kcore`].
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Async
    }
    fn config(_: &Graph, _: &Params, s: &Setting) -> Result<CorenessConfig> {
        Ok(CorenessConfig { rounds: s.rounds })
    }
    fn config_json(_: &Graph, _: &Params, _: &CorenessConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({}))
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &CorenessConfig) -> Result<CorenessResult> {
        coreness_async(r, c.rounds)
    }
    fn verify(g: &Graph, csr: &Csr, _: &CorenessConfig, out: &CorenessResult) -> Verdict {
        if g.directed() {
            verify_coreness(&all_neighbours(csr), out)
        } else {
            verify_coreness(csr, out)
        }
    }
    fn table(g: &Arc<Graph>, out: CorenessResult) -> Table {
        out.into_table(g)
    }
    fn summary(_: &Graph, out: &CorenessResult) -> serde_json::Value {
        out.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AsyncEngine;
    use crate::store::Direction;
    use crate::testkit;

    #[test]
    fn kcore_and_coreness_match_serial_peeling_in_every_configuration() {
        for tg in [
            testkit::rmat(11, 8, 3, true),
            testkit::grid(20, 30),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            for cfg in testkit::configs() {
                let e = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                for rounds in [false, true] {
                    for k in [2, 3, 8] {
                        let c = KcoreConfig { k, rounds };
                        let (res, _) = e.run(|r| run_async(r, &c)).unwrap();
                        verify(&csr, &res).unwrap_or_else(|e| panic!("{cfg:?} k={k}: {e}"));
                    }
                    let (res, _) = e.run(|r| coreness_async(r, rounds)).unwrap();
                    verify_coreness(&csr, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                }
            }
        }
    }

    /// Directed core numbers (in- plus out-degree) match serial peeling
    /// over each vertex's out- and in-lists, networkx's definition, in
    /// every configuration; reciprocal pairs count twice.
    #[test]
    fn directed_core_numbers_count_in_and_out_edges() {
        let tg = testkit::rmat(10, 6, 9, false);
        let both = all_neighbours(&Csr::load(&tg.graph, Direction::Out).unwrap());
        for cfg in testkit::configs() {
            let e = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
            for rounds in [false, true] {
                let (res, _) = e.run(|r| coreness_async(r, rounds)).unwrap();
                verify_coreness(&both, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                let c = KcoreConfig { k: 4, rounds };
                let (res, _) = e.run(|r| run_async(r, &c)).unwrap();
                verify(&both, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
            }
        }
        // 0 <-> 1, 1 -> 2, 2 -> 0: degrees 3, 3, 2; 2's removal leaves
        // 0 and 1 linked both ways, degree 2 each.
        let tg = testkit::from_edges(&[(0, 1), (1, 0), (1, 2), (2, 0)], false, true);
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (res, _) = e.run(|r| coreness_async(r, false)).unwrap();
        assert_eq!(res.core, [2, 2, 2]);
        let tg = testkit::from_edges(&[(0, 1)], false, false);
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let err = e.run(|r| coreness_async(r, false)).unwrap_err().to_string();
        assert!(err.contains("--reverse"), "{err}");
    }

    /// The lists a k-core peels first sit in the short region: it reads a
    /// fraction of what the same run reads without one, same answer.
    #[test]
    fn the_short_region_saves_kcore_most_of_its_reads() {
        let mut read = Vec::new();
        for short_max in [0, 16] {
            let tg = testkit::rmat_short(14, 16, 5, short_max);
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
            let c = KcoreConfig {
                k: 10,
                rounds: false,
            };
            let (res, m) = e.run(|r| run_async(r, &c)).unwrap();
            verify(&csr, &res).unwrap();
            read.push((m.bytes_read, res.size));
        }
        assert_eq!(read[0].1, read[1].1);
        assert!(
            read[1].0 * 3 < read[0].0,
            "bytes read without and with: {read:?}"
        );
    }

    #[test]
    fn a_k_above_every_degree_reads_nothing() {
        // A grid's degrees are 2 to 4: its 5-core is empty by degrees
        // alone, its 3-core is empty too but only peeling finds that out
        // (from the corners in), and its 2-core is the whole grid with
        // nothing to peel.
        let tg = testkit::grid(30, 40);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        for (k, size, reads) in [(5, 0, false), (3, 0, true), (2, 1200, false)] {
            let c = KcoreConfig { k, rounds: false };
            let (res, m) = e.run(|r| run_async(r, &c)).unwrap();
            verify(&csr, &res).unwrap();
            assert_eq!(res.size, size, "k {k}");
            assert_eq!(m.bytes_read > 0, reads, "k {k}: {m:?}");
        }
    }

    #[test]
    fn serial_coreness_of_a_known_graph() {
        // A triangle 0-1-2 with a tail 2-3: cores 2,2,2,1; vertex 4 alone.
        let lists = vec![vec![1, 2], vec![0, 2], vec![0, 1, 3], vec![2], vec![]];
        assert_eq!(
            serial_coreness(&Csr::from_lists(&lists)),
            vec![2, 2, 2, 1, 0]
        );
    }

    #[test]
    fn verifiers_catch_wrong_answers() {
        let tg = testkit::rmat(9, 8, 2, true);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let c = KcoreConfig {
            k: 4,
            rounds: false,
        };
        let (mut res, _) = e.run(|r| run_async(r, &c)).unwrap();
        let v = res.in_core.iter().position(|&c| !c).unwrap();
        res.in_core[v] = true;
        assert!(verify(&csr, &res).is_err());
        let (mut c, _) = e.run(|r| coreness_async(r, false)).unwrap();
        c.core[0] += 1;
        assert!(verify_coreness(&csr, &c).is_err());
    }
}

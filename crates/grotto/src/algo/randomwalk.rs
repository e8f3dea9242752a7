//! Random walks (CAVE 4.6): K independent walkers take up to L steps each
//! along out-edges, all walkers advancing one step per level; the result
//! is how many times each vertex was visited (starts included).
//!
//! Walker `w` starts at a vertex with out-edges chosen by its own seeded
//! stream, and at step `t` at vertex `v` of out-degree `deg` moves to
//! neighbour number `hash(seed, w, t) mod deg`. The choice depends on
//! nothing but the seed, the walker and the step, so results are the same
//! for any thread count, mode or cache. A walker at a vertex without
//! out-edges stops there (its visit counts; it takes no further steps).
//!
//! The verifier replays every walk serially on the in-memory graph and
//! requires the same visit counts; each replayed step reads the neighbour
//! from the vertex's own list, so every step follows an edge.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{atomics_u32, fail, into_values, Verdict, NONE};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::rng::{splitmix64, Rng};
use crate::store::{Direction, Graph};
use crate::VertexId;
use rayon::prelude::*;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// Settings of a random-walk run.
#[derive(Clone, Debug)]
pub struct WalkConfig {
    /// Number of walkers K (default 10,000).
    pub walkers: u64,
    /// Steps per walker L (default 10).
    pub steps: u32,
    /// Seed of all random choices (default 1).
    pub seed: u64,
}

impl Default for WalkConfig {
    fn default() -> WalkConfig {
        WalkConfig {
            walkers: 10_000,
            steps: 10,
            seed: 1,
        }
    }
}

/// Visit counts, in internal ids.
#[derive(Clone, Debug)]
pub struct WalkResult {
    /// Visits per vertex.
    pub visits: Vec<u64>,
    /// Steps taken by all walkers together.
    pub steps_taken: u64,
    /// Walkers that stopped early at a vertex without out-edges.
    pub stopped: u64,
}

/// The neighbour index walker `w` takes at step `t` from a vertex of
/// out-degree `deg`.
pub fn choice(seed: u64, w: u64, t: u32, deg: u64) -> u64 {
    let mut s = seed ^ w.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ ((t as u64) << 40);
    let x = splitmix64(&mut s);
    ((x as u128 * deg as u128) >> 64) as u64
}

/// The start vertex of walker `w`.
pub fn start(g: &Graph, seed: u64, w: u64) -> Result<VertexId> {
    let n = g.vertex_count();
    let out = g.out();
    let mut rng = Rng::new(seed, w);
    // Drawn by place in the user's order, as `pick_source` draws.
    for _ in 0..64 {
        if n == 0 {
            break;
        }
        let v = g.vertex_at_rank(rng.below(n) as u32);
        if out.degree(v) > 0 {
            return Ok(v);
        }
    }
    // Sparse in edges: fall back to the walker's place among vertices with edges.
    let with: Vec<VertexId> = (0..n as u32)
        .map(|r| g.vertex_at_rank(r))
        .filter(|&v| out.degree(v) > 0)
        .collect();
    if with.is_empty() {
        return Err(Error::Invalid("the graph has no edges to walk".into()));
    }
    Ok(with[(rng.next_u64() % with.len() as u64) as usize])
}

/// Runs the walks on the engine.
pub fn run(r: &mut Run<'_>, cfg: &WalkConfig) -> Result<WalkResult> {
    let n = r.vertex_count();
    let k = cfg.walkers;
    if k == 0 || k > u32::MAX as u64 {
        return Err(Error::Invalid(format!(
            "{k} walkers (--walkers): between 1 and {} are supported",
            u32::MAX
        )));
    }
    // Positions, the sorted (vertex, walker) pairs, and their sort.
    crate::metrics::check_memory(k * 20, &format!("{k} walkers (--walkers)"))?;
    // Many walkers times many steps is legitimately long: the front end
    // shows the steps done of all, and a stop request ends the run at
    // the next step.
    r.expect_steps(cfg.steps as u64);
    let g = r.graph();
    let mut pos: Vec<VertexId> = (0..k)
        .into_par_iter()
        .map(|w| start(g, cfg.seed, w))
        .collect::<Result<_>>()?;
    let visits: Vec<std::sync::atomic::AtomicU64> = (0..n).map(|_| Default::default()).collect();
    let (mut steps_taken, mut stopped) = (0u64, 0u64);
    // (vertex, walker) sorted: the walkers at each vertex are a range.
    let mut at: Vec<(VertexId, u32)> = Vec::with_capacity(k as usize);
    for t in 0..=cfg.steps {
        at.clear();
        at.extend(
            pos.iter()
                .enumerate()
                .filter(|p| *p.1 != NONE)
                .map(|(w, &v)| (v, w as u32)),
        );
        // Sorted and counted on all threads: a hundred million walkers
        // took seconds a step on one.
        at.par_sort_unstable();
        at.par_iter().for_each(|&(v, _)| {
            visits[v as usize].fetch_add(1, Relaxed);
        });
        if t == cfg.steps || at.is_empty() {
            break;
        }
        crate::interrupt::check()?;
        let mut active: Vec<VertexId> = at.iter().map(|p| p.0).collect();
        active.dedup();
        let next = atomics_u32(k, NONE);
        let out = r.graph().out();
        stopped += at.iter().filter(|p| out.degree(p.0) == 0).count() as u64;
        let at_ref = &at;
        r.step(&Frontier::Sparse(active), Direction::Out, |v, edges, _| {
            let lo = at_ref.partition_point(|p| p.0 < v);
            for &(_, w) in at_ref[lo..].iter().take_while(|p| p.0 == v) {
                let j = choice(cfg.seed, w as u64, t, edges.degree);
                if j >= edges.first && j < edges.first + edges.ids.len() as u64 {
                    next[w as usize].store(edges.ids[(j - edges.first) as usize], Relaxed);
                }
            }
        })?;
        pos = into_values(next);
        steps_taken += pos.iter().filter(|&&v| v != NONE).count() as u64;
    }
    Ok(WalkResult {
        visits: visits.into_iter().map(|a| a.into_inner()).collect(),
        steps_taken,
        stopped,
    })
}

/// Replays every walk serially on `g` (out-edges) and compares counts.
pub fn verify(graph: &Graph, g: &Csr, cfg: &WalkConfig, res: &WalkResult) -> Verdict {
    let mut visits = vec![0u64; g.vertex_count() as usize];
    let mut steps = 0u64;
    for w in 0..cfg.walkers {
        let Ok(mut v) = start(graph, cfg.seed, w) else {
            fail!("walker {w} has no start vertex");
        };
        visits[v as usize] += 1;
        for t in 0..cfg.steps {
            let nb = g.neighbors(v);
            if nb.is_empty() {
                break;
            }
            v = nb[choice(cfg.seed, w, t, nb.len() as u64) as usize];
            visits[v as usize] += 1;
            steps += 1;
        }
    }
    if steps != res.steps_taken {
        fail!(
            "{} steps reported, the serial replay takes {steps}",
            res.steps_taken
        );
    }
    if let Some(v) = (0..visits.len()).find(|&v| visits[v] != res.visits[v]) {
        fail!(
            "vertex {v} visited {} times, the serial replay visits it {} times",
            res.visits[v],
            visits[v]
        );
    }
    Ok(())
}

impl WalkResult {
    /// Per-vertex `vertex,visits` in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("visits", Values::U64(self.visits));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "steps_taken": self.steps_taken,
            "stopped_early": self.stopped,
            "distinct_vertices_visited": self.visits.iter().filter(|&&c| c > 0).count(),
        })
    }
}

/// Random walks as a registered algorithm (`grotto run randomwalk`).
pub struct RandomWalk;

impl Algorithm for RandomWalk {
    const NAME: &'static str = "randomwalk";
    const ABOUT: &'static str =
        "Random walks: per-vertex visit counts of K walkers taking L steps.";
    const PARAMS: &'static [Param] = &[
        Param::with_default("walkers", Kind::Int, "10000", "Walkers."),
        Param::with_default("steps", Kind::Int, "10", "Steps per walker."),
        Param::with_default("seed", Kind::Int, "1", "Seed of every random choice."),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = WalkConfig;
    type Output = WalkResult;

    /// Only the synchronous engine runs it.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(_: &Graph, p: &Params, _: &Setting) -> Result<WalkConfig> {
        Ok(WalkConfig {
            walkers: p.u64("walkers")?,
            steps: p.u32("steps")?,
            seed: p.u64("seed")?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &WalkConfig) -> Result<serde_json::Value> {
        Ok(serde_json::json!({"walkers": c.walkers, "steps": c.steps, "seed": c.seed}))
    }
    fn run_sync(r: &mut Run<'_>, c: &WalkConfig) -> Result<WalkResult> {
        run(r, c)
    }
    fn verify(g: &Graph, csr: &Csr, c: &WalkConfig, out: &WalkResult) -> Verdict {
        verify(g, csr, c, out)
    }
    fn table(g: &Arc<Graph>, out: WalkResult) -> Table {
        out.into_table(g)
    }
    fn summary(_: &Graph, out: &WalkResult) -> serde_json::Value {
        out.summary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn replays_exactly_in_every_configuration() {
        for tg in [
            testkit::rmat(10, 4, 9, false),
            testkit::rmat(10, 8, 10, true),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let cfg = WalkConfig {
                walkers: 3000,
                steps: 12,
                seed: 7,
            };
            let mut first: Option<Vec<u64>> = None;
            for ecfg in testkit::configs() {
                let e = crate::engine::SyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
                verify(&tg.graph, &csr, &cfg, &res).unwrap_or_else(|e| panic!("{ecfg:?}: {e}"));
                match &first {
                    None => first = Some(res.visits.clone()),
                    Some(f) => assert_eq!(f, &res.visits, "{ecfg:?}"),
                }
            }
        }
    }

    #[test]
    fn walker_stops_at_a_vertex_without_out_edges() {
        // 0 -> 1 -> 2, and 2 has no out-edges.
        let tg = testkit::from_edges(&[(0, 1), (1, 2)], false, false);
        let cfg = WalkConfig {
            walkers: 50,
            steps: 5,
            seed: 3,
        };
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
        assert!(res.stopped > 0);
        assert_eq!(res.visits.iter().sum::<u64>(), 50 + res.steps_taken);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        verify(&tg.graph, &csr, &cfg, &res).unwrap();
    }
}

//! PageRank by power iteration, one whole-graph sweep per iteration.
//!
//! Standard semantics (the default, as `networkx.pagerank`): scores start
//! at 1/N; each iteration gives every vertex `(1 - d)/N`, plus `d` times
//! the sum of `score(u)/outdeg(u)` over its in-neighbours `u`, plus `d/N`
//! times the total score of vertices without out-edges (dangling mass is
//! spread uniformly), so scores always sum to 1. Iteration stops when the
//! L1 change of an iteration is below `tolerance` (stricter than networkx,
//! which stops at `N * tolerance`); the distance to the exact fixed point
//! is then at most `tolerance * d / (1 - d)`.
//!
//! GAP semantics (`--semantics gap`): the same without dangling
//! redistribution, as in the GAP Benchmark Suite's `pr` kernel.
//!
//! Pull on the in-edges (reverse edges of a directed graph, the edges of
//! an undirected one): each vertex sums its in-neighbours' contributions,
//! with no write shared between threads except for lists longer than one
//! block. A directed graph without reverse edges is run push-style on the
//! out-edges with atomic additions.
//!
//! The verifier runs a serial power iteration to a tolerance 1000 times
//! tighter and bounds the L1 distance.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, in_direction, push_run, vertex_table, AtomicF64, Residual, Verdict, PHASE_STEP};
use crate::engine::{AsyncRun, Flow, Frontier, Priority, Run, Seeds};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;

/// Which PageRank definition to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Semantics {
    /// networkx's: dangling mass redistributed, scores sum to 1.
    Standard,
    /// GAP's: no dangling redistribution.
    Gap,
}

impl std::str::FromStr for Semantics {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Semantics, String> {
        match s {
            "standard" | "networkx" => Ok(Semantics::Standard),
            "gap" => Ok(Semantics::Gap),
            _ => Err(format!("semantics \"{s}\": expected standard or gap")),
        }
    }
}

/// Settings of PageRank.
#[derive(Clone, Debug)]
pub struct PageRankConfig {
    /// Damping factor d (default 0.85).
    pub damping: f64,
    /// Stop when an iteration changes scores by less than this in L1
    /// (default 1e-6).
    pub tolerance: f64,
    /// Iteration cap (default 100).
    pub max_iterations: u32,
    /// Definition (default standard).
    pub semantics: Semantics,
}

impl Default for PageRankConfig {
    fn default() -> PageRankConfig {
        PageRankConfig {
            damping: 0.85,
            tolerance: 1e-6,
            max_iterations: 100,
            semantics: Semantics::Standard,
        }
    }
}

/// Scores, in internal ids.
#[derive(Clone, Debug)]
pub struct PageRankResult {
    /// Score per vertex.
    pub score: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// L1 change of the last iteration.
    pub last_change: f64,
    /// Whether the change fell below the tolerance.
    pub converged: bool,
    /// "pull" or "push".
    pub style: &'static str,
}

fn check(cfg: &PageRankConfig) -> Result<()> {
    if !(cfg.damping > 0.0 && cfg.damping < 1.0) {
        return Err(Error::Invalid(format!(
            "--damping {} must lie strictly between 0 and 1",
            cfg.damping
        )));
    }
    if !(cfg.tolerance > 0.0 && cfg.tolerance.is_finite()) {
        return Err(Error::Invalid(format!(
            "--tolerance {} must be a positive number",
            cfg.tolerance
        )));
    }
    Ok(())
}

/// Runs PageRank on the engine.
pub fn run(r: &mut Run<'_>, cfg: &PageRankConfig) -> Result<PageRankResult> {
    check(cfg)?;
    let n = r.vertex_count();
    let out = r.graph().out();
    let nf = n as f64;
    let d = cfg.damping;
    let x: Vec<AtomicF64> = (0..n).map(|_| AtomicF64::new(1.0 / nf)).collect();
    let contrib: Vec<AtomicF64> = (0..n).map(|_| AtomicF64::new(0.0)).collect();
    let acc: Vec<AtomicF64> = (0..n).map(|_| AtomicF64::new(0.0)).collect();
    let pull = in_direction(r.graph());
    let (mut iterations, mut change) = (0, f64::INFINITY);
    while iterations < cfg.max_iterations && change >= cfg.tolerance {
        iterations += 1;
        let dangling = r.sum_f64(|v| {
            if out.degree(v) == 0 {
                x[v as usize].load()
            } else {
                0.0
            }
        });
        r.for_each_vertex(|v| {
            let deg = out.degree(v);
            let c = if deg == 0 {
                0.0
            } else {
                x[v as usize].load() / deg as f64
            };
            contrib[v as usize].store(c);
            acc[v as usize].store(0.0);
        });
        match pull {
            Some(dir) => r.step(&Frontier::all(n), dir, |v, edges, _| {
                let s: f64 = edges.ids.iter().map(|&u| contrib[u as usize].load()).sum();
                if edges.is_whole() {
                    acc[v as usize].store(s);
                } else {
                    acc[v as usize].add(s);
                }
            })?,
            None => r.step(&Frontier::all(n), Direction::Out, |u, edges, _| {
                let c = contrib[u as usize].load();
                for &v in edges.ids {
                    acc[v as usize].add(c);
                }
            })?,
        };
        let base = match cfg.semantics {
            Semantics::Standard => (1.0 - d) / nf + d * dangling / nf,
            Semantics::Gap => (1.0 - d) / nf,
        };
        change = r.sum_f64(|v| {
            let new = base + d * acc[v as usize].load();
            let old = x[v as usize].load();
            x[v as usize].store(new);
            (new - old).abs()
        });
    }
    Ok(PageRankResult {
        score: x.iter().map(|a| a.load()).collect(),
        iterations,
        last_change: change,
        converged: change < cfg.tolerance,
        style: if pull.is_some() { "pull" } else { "push" },
    })
}

/// Runs PageRank by push on the asynchronous engine (ACGraph's derivation
/// from personalized PageRank with a uniform start).
///
/// Every vertex starts with residual `(1 - d)/N`. Processing `v` moves its
/// residual into its score and sends `d` times it, split evenly, to its
/// out-neighbours. A vertex runs again once its residual reaches its
/// degree's share of the allowance, `tolerance * (1 - d) * max(deg, 1) /
/// S` with `S` the sum of `max(deg, 1)` over all vertices (the forward
/// push threshold: a hub runs when it has gathered enough to be worth its
/// list, not each time a little arrives), largest residual per unit of
/// threshold first (by powers of two, so adjacent blocks merge into one
/// read); a vertex with an eighth of that share runs whenever its block
/// is read for another ([`Priority::DEFER`]). Residual reaching a vertex without out-edges is
/// pooled and, with standard semantics, spread evenly over all vertices
/// after the pass, which then continues from the vertices it pushed over
/// their thresholds. What is left at the end is under `tolerance * (1 -
/// d)` in total, and its eventual effect on the scores is at most
/// `tolerance` in L1; each vertex's leftover is added as `r(v) / (1 -
/// d)`, so the scores sum to 1 (standard semantics) and lie within `2 *
/// tolerance` of the exact fixed point.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &PageRankConfig) -> Result<PageRankResult> {
    check(cfg)?;
    let n = r.vertex_count();
    let nf = n as f64;
    let d = cfg.damping;
    let out = r.graph().out();
    let weight = |v: VertexId| out.degree(v).max(1) as f64;
    let sum_weight = r.sum_f64(weight);
    let eps = cfg.tolerance * (1.0 - d) / sum_weight;
    // `v`'s threshold at `scale` times the final allowance.
    let threshold = |v: VertexId, scale: f64| scale * eps * weight(v);
    // Thresholds start high and fall by PHASE_STEP per phase down to eps:
    // each push then carries a good share of its vertex's threshold,
    // instead of a hub running again each time a little arrives. The
    // start residual (1 - d)/N over the mean final threshold is
    // 1/tolerance.
    let mut scale_at = 1.0;
    while scale_at * PHASE_STEP < 1.0 / cfg.tolerance {
        scale_at *= PHASE_STEP;
    }
    let score: Vec<AtomicF64> = (0..n).map(|_| AtomicF64::new(0.0)).collect();
    let mut cell: Vec<Residual> = (0..n as VertexId)
        .map(|v| Residual {
            res: AtomicF64::new((1.0 - d) / nf),
            at: threshold(v, scale_at),
        })
        .collect();
    // Whether adding `x` to a residual that was `old` carried it to `at`.
    let crossed = |c: &Residual, old: f64, x: f64| old < c.at && old + x >= c.at;
    let dangling = AtomicF64::new(0.0);
    let mut seeds: Option<Vec<(VertexId, Priority)>> = None;
    let mut passes = 0;
    loop {
        passes += 1;
        let from = match &seeds {
            None => Seeds::All(Priority::FIRST),
            Some(list) => Seeds::List(list),
        };
        // A vertex with an eighth of its final threshold runs whenever
        // its block is read anyway (see personalized PageRank).
        let lazy = 1.0 / (scale_at * PHASE_STEP);
        r.flow_runs(
            &Flow::default(),
            from,
            |v| {
                let x = cell[v as usize].res.swap(0.0);
                if x <= 0.0 {
                    return None;
                }
                score[v as usize].add(x);
                let deg = out.degree(v);
                if deg == 0 {
                    dangling.add(d * x);
                    return None;
                }
                Some(d * x / deg as f64)
            },
            |m, nb, act| {
                push_run(&cell, nb.ids, m, |u, c, old| {
                    if crossed(c, old, m) {
                        act.activate(u, Priority::descending_log2(((old + m) / c.at) as f32));
                    } else if old < lazy * c.at && old + m >= lazy * c.at {
                        act.activate(u, Priority::DEFER);
                    }
                })
            },
        )?;
        if passes >= cfg.max_iterations {
            break;
        }
        let pooled = dangling.swap(0.0);
        let share = match cfg.semantics {
            Semantics::Standard => pooled / nf,
            Semantics::Gap => 0.0,
        };
        if share > 0.0 {
            for c in &cell {
                c.res.add(share);
            }
        }
        // Every residual is under its threshold now, unless the spread
        // share lifted it; lower the thresholds a phase at a time until
        // some vertex has work (or they are final).
        let list = loop {
            let list: Vec<(VertexId, Priority)> = (0..n as VertexId)
                .filter(|&v| {
                    let c = &cell[v as usize];
                    c.res.load() >= c.at
                })
                .map(|v| (v, Priority::FIRST))
                .collect();
            if !list.is_empty() || scale_at <= 1.0 {
                break list;
            }
            scale_at = (scale_at / PHASE_STEP).max(1.0);
            for (v, c) in cell.iter_mut().enumerate() {
                c.at = threshold(v as VertexId, scale_at);
            }
        };
        if list.is_empty() {
            break;
        }
        seeds = Some(list);
    }
    let left = r.sum_f64(|v| cell[v as usize].res.load());
    let scale = match cfg.semantics {
        Semantics::Standard => 1.0 / (1.0 - d),
        Semantics::Gap => 1.0,
    };
    Ok(PageRankResult {
        score: (0..n as usize)
            .map(|v| score[v].load() + cell[v].res.load() * scale)
            .collect(),
        iterations: passes,
        last_change: left / (1.0 - d),
        converged: left < cfg.tolerance * (1.0 - d) + 1e-15,
        style: "push",
    })
}

/// Serial power iteration on the out-edges `g` (the reference).
// Verifiers index several per-vertex arrays by the same vertex.
#[allow(clippy::needless_range_loop)]
pub fn serial(g: &Csr, cfg: &PageRankConfig) -> Vec<f64> {
    let n = g.vertex_count() as usize;
    let nf = n as f64;
    let d = cfg.damping;
    let mut x = vec![1.0 / nf; n];
    for _ in 0..cfg.max_iterations.max(1000) {
        let mut acc = vec![0.0; n];
        let mut dangling = 0.0;
        for u in 0..n {
            let nb = g.neighbors(u as VertexId);
            if nb.is_empty() {
                dangling += x[u];
            }
            for &v in nb {
                acc[v as usize] += x[u] / nb.len() as f64;
            }
        }
        let base = match cfg.semantics {
            Semantics::Standard => (1.0 - d) / nf + d * dangling / nf,
            Semantics::Gap => (1.0 - d) / nf,
        };
        let mut change = 0.0;
        for v in 0..n {
            let new = base + d * acc[v];
            change += (new - x[v]).abs();
            x[v] = new;
        }
        if change < cfg.tolerance * 1e-3 {
            break;
        }
    }
    x
}

/// Checks `res` against [`serial`]: L1 distance within what the stopping
/// rule allows, and (standard semantics) scores summing to 1.
pub fn verify(g: &Csr, cfg: &PageRankConfig, res: &PageRankResult) -> Verdict {
    let want = serial(g, cfg);
    let l1: f64 = want
        .iter()
        .zip(&res.score)
        .map(|(a, b)| (a - b).abs())
        .sum();
    if res.converged {
        let bound = cfg.tolerance * (2.0 + cfg.damping / (1.0 - cfg.damping)) + 1e-9;
        if l1 > bound {
            fail!("L1 distance to the serial reference is {l1:.3e}, more than {bound:.3e}");
        }
    }
    if cfg.semantics == Semantics::Standard {
        let sum: f64 = res.score.iter().sum();
        if (sum - 1.0).abs() > 1e-9 {
            fail!("scores sum to {sum}, not 1");
        }
    }
    Ok(())
}

impl PageRankResult {
    /// Per-vertex `vertex,score` in the user's ids.
    pub fn table(&self, g: &Graph) -> Table {
        let mut t = vertex_table(g, self.score.len());
        t.push("score", Values::F64(self.score.clone()));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let top: Vec<VertexId> = super::top_k(self.score.len(), 5, |v| self.score[v])
            .into_iter()
            .map(|v| v as VertexId)
            .collect();
        serde_json::json!({
            "iterations": self.iterations,
            "last_change": self.last_change,
            "converged": self.converged,
            "style": self.style,
            "sum": self.score.iter().sum::<f64>(),
            "top": top.iter().map(|&v| serde_json::json!([g.label(v), self.score[v as usize]])).collect::<Vec<_>>(),
        })
    }
}

/// PageRank as a registered algorithm (`grotto run pagerank`).
pub struct PageRank;

impl Algorithm for PageRank {
    const NAME: &'static str = "pagerank";
    const ABOUT: &'static str =
        "PageRank by power iteration (dangling mass spread uniformly; scores sum to 1).";
    const PARAMS: &'static [Param] = &[
        Param::with_default("damping", Kind::Float, "0.85", "Damping factor."),
        Param::with_default(
            "tolerance",
            Kind::Float,
            "1e-6",
            "Stop when an iteration changes the scores by less than this (L1).",
        ),
        Param::with_default("max-iterations", Kind::Int, "100", "Iteration cap."),
        Param::with_default(
            "semantics",
            Kind::Choice(&["standard", "gap"]),
            "standard",
            "standard (networkx) or gap (no dangling redistribution).",
        ),
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = true;
    type Config = PageRankConfig;
    type Output = PageRankResult;

    /// Power iteration reads every block once per iteration; the
    /// synchronous engine's block mode does that with the least overhead
    /// (see docs/engine.md).
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(_: &Graph, p: &Params, _: &Setting) -> Result<PageRankConfig> {
        let semantics = p.text("semantics")?.unwrap_or("standard");
        Ok(PageRankConfig {
            damping: p.f64("damping")?,
            tolerance: p.f64("tolerance")?,
            max_iterations: p.u32("max-iterations")?,
            semantics: semantics.parse().map_err(Error::Invalid)?,
        })
    }
    fn config_json(_: &Graph, _: &Params, c: &PageRankConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"damping": c.damping, "tolerance": c.tolerance,
            "max_iterations": c.max_iterations,
            "semantics": format!("{:?}", c.semantics).to_lowercase()}),
        )
    }
    fn run_sync(r: &mut Run<'_>, c: &PageRankConfig) -> Result<PageRankResult> {
        run(r, c)
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &PageRankConfig) -> Result<PageRankResult> {
        run_async(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PageRankConfig, out: &PageRankResult) -> Verdict {
        verify(csr, c, out)
    }
    fn table(g: &Graph, out: &PageRankResult) -> Table {
        out.table(g)
    }
    fn summary(g: &Graph, out: &PageRankResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;

    #[test]
    fn matches_serial_power_iteration() {
        for tg in [
            testkit::rmat(10, 8, 7, true),
            testkit::rmat(9, 6, 8, false),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            for sem in [Semantics::Standard, Semantics::Gap] {
                let cfg = PageRankConfig {
                    semantics: sem,
                    tolerance: 1e-9,
                    max_iterations: 300,
                    ..Default::default()
                };
                for ecfg in testkit::configs() {
                    let e =
                        crate::engine::SyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                    let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
                    assert!(res.converged);
                    verify(&csr, &cfg, &res).unwrap_or_else(|e| panic!("{ecfg:?} {sem:?}: {e}"));
                }
            }
        }
    }

    #[test]
    fn async_push_matches_serial_power_iteration() {
        for tg in [
            testkit::rmat(10, 8, 7, true),
            testkit::rmat(9, 6, 8, false),
            testkit::star(3000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            for sem in [Semantics::Standard, Semantics::Gap] {
                let cfg = PageRankConfig {
                    semantics: sem,
                    tolerance: 1e-9,
                    max_iterations: 300,
                    ..Default::default()
                };
                for ecfg in testkit::configs() {
                    let e =
                        crate::engine::AsyncEngine::open(tg.graph.clone(), ecfg.clone()).unwrap();
                    let (res, _) = e.run(|r| run_async(r, &cfg)).unwrap();
                    assert!(res.converged);
                    verify(&csr, &cfg, &res).unwrap_or_else(|e| panic!("{ecfg:?} {sem:?}: {e}"));
                    if sem == Semantics::Standard {
                        let sum: f64 = res.score.iter().sum();
                        assert!((sum - 1.0).abs() < 1e-9, "sum {sum}");
                    }
                }
            }
        }
    }

    #[test]
    fn push_style_without_reverse_edges() {
        let tg = testkit::from_edges(&[(0, 1), (1, 2), (2, 0), (2, 3), (4, 2)], false, false);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let cfg = PageRankConfig {
            tolerance: 1e-10,
            ..Default::default()
        };
        let e = crate::engine::SyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let (res, _) = e.run(|r| run(r, &cfg)).unwrap();
        assert_eq!(res.style, "push");
        verify(&csr, &cfg, &res).unwrap();
    }
}

//! Eigenvector and Katz centrality by power iteration, as networkx's
//! `eigenvector_centrality` and `katz_centrality` compute them.
//!
//! Each iteration is one sweep over the out-lists: every edge `u -> v`
//! (weight `w`, 1 unless `--weighted`) adds `w x(u)` to `v`'s sum
//! (atomic additions, 8 bytes a vertex besides the 8 of the scores), so a
//! vertex gathers from its in-neighbours (networkx's left eigenvector on
//! directed graphs) without reverse edges; an undirected graph's lists
//! hold every edge both ways, a self loop once, as networkx's adjacency
//! does.
//!
//! - Eigenvector: from `1/n` everywhere, `x ← x + A x` (networkx iterates
//!   with `A + I`, which has the same eigenvectors and converges on
//!   bipartite graphs too), scaled to unit Euclidean norm.
//! - Katz: from 0, `x ← α A x + β`; with `normalized` the answer is scaled
//!   to unit Euclidean norm once it has converged. It converges when `α`
//!   is below the inverse of the largest eigenvalue.
//!
//! Both stop, as networkx does, at the first iteration whose L1 change is
//! below `n` times the tolerance, and report an iteration cap reached
//! without that as not converged (networkx raises
//! `PowerIterationFailedConvergence`). Additions arrive in the order the
//! threads take the blocks, so scores can differ between runs in their
//! last bits. The verifier runs the same iteration serially and bounds
//! the L1 distance by what one iteration more or less could move it.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting};
use super::{fail, AtomicF64, Verdict};
use crate::engine::{Frontier, Run};
use crate::error::{Error, Result};
use crate::store::{Direction, Graph};
use crate::VertexId;
use std::sync::Arc;

/// Which centrality the iteration computes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    /// networkx's `eigenvector_centrality`.
    Eigenvector,
    /// networkx's `katz_centrality` with attenuation `alpha` and the same
    /// `beta` for every vertex; `normalized` scales the answer to unit
    /// Euclidean norm.
    Katz {
        /// Attenuation factor (networkx's default 0.1).
        alpha: f64,
        /// Weight every vertex gets each iteration (default 1).
        beta: f64,
        /// Scale the answer to unit norm (default true).
        normalized: bool,
    },
}

/// Settings of a power iteration.
#[derive(Clone, Debug)]
pub struct PowerConfig {
    /// What is computed.
    pub measure: Measure,
    /// Iteration cap (networkx: 100 for eigenvector, 1000 for Katz).
    pub max_iterations: u32,
    /// Stop when an iteration's L1 change is below `n` times this
    /// (networkx's `tol`, default 1e-6).
    pub tolerance: f64,
    /// Weigh each edge by its weight (networkx's `weight="weight"`); off:
    /// every edge counts 1 (networkx's default `weight=None`).
    pub weighted: bool,
}

/// Scores and how the iteration ended.
#[derive(Clone, Debug)]
pub struct PowerResult {
    /// Per vertex.
    pub score: Vec<f64>,
    /// Iterations run.
    pub iterations: u32,
    /// The last iteration's L1 change.
    pub last_change: f64,
    /// Whether the change fell below `n` times the tolerance.
    pub converged: bool,
}

fn check(cfg: &PowerConfig) -> Result<()> {
    if !(cfg.tolerance.is_finite() && cfg.tolerance > 0.0) {
        return Err(Error::Invalid(format!(
            "--tolerance {}: expected a positive number",
            cfg.tolerance
        )));
    }
    if let Measure::Katz { alpha, beta, .. } = cfg.measure {
        if !alpha.is_finite() || !beta.is_finite() {
            return Err(Error::Invalid(format!(
                "--alpha {alpha} --beta {beta}: expected finite numbers"
            )));
        }
    }
    Ok(())
}

/// One application of the iteration to `x` given `acc`, the sums over
/// in-neighbours; returns the new value before any scaling.
fn next_value(measure: Measure, x: f64, acc: f64) -> f64 {
    match measure {
        Measure::Eigenvector => x + acc,
        Measure::Katz { alpha, beta, .. } => alpha * acc + beta,
    }
}

/// The starting scores: `1/n` (eigenvector), 0 (Katz).
fn start(measure: Measure, n: u64) -> f64 {
    match measure {
        Measure::Eigenvector => 1.0 / n as f64,
        Measure::Katz { .. } => 0.0,
    }
}

/// Runs the power iteration (see the module comment).
pub fn run(r: &mut Run<'_>, cfg: &PowerConfig) -> Result<PowerResult> {
    check(cfg)?;
    if cfg.weighted && !r.graph().weighted() {
        return Err(unweighted());
    }
    let n = r.vertex_count();
    let nf = n as f64;
    let x: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(start(cfg.measure, n)));
    let acc: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(0.0));
    let (mut iterations, mut change) = (0u32, f64::INFINITY);
    let mut converged = n == 0;
    while !converged && iterations < cfg.max_iterations {
        iterations += 1;
        r.for_each_vertex(|v| acc[v as usize].store(0.0));
        let visit =
            |u: VertexId, edges: crate::engine::Edges<'_>, _: &mut crate::engine::Next<'_>| {
                let c = x[u as usize].load();
                if c == 0.0 {
                    return;
                }
                match edges.weights.filter(|_| cfg.weighted) {
                    Some(w) => {
                        for (&v, &w) in edges.ids.iter().zip(w) {
                            acc[v as usize].add(c * w as f64);
                        }
                    }
                    None => {
                        for &v in edges.ids {
                            acc[v as usize].add(c);
                        }
                    }
                }
            };
        if cfg.weighted {
            r.step_weighted(&Frontier::all(n), Direction::Out, visit)?;
        } else {
            r.step(&Frontier::all(n), Direction::Out, visit)?;
        }
        let scale = match cfg.measure {
            Measure::Eigenvector => {
                let sq = r.sum_f64(|v| {
                    let y = next_value(cfg.measure, x[v as usize].load(), acc[v as usize].load());
                    y * y
                });
                match sq.sqrt() {
                    s if s > 0.0 => 1.0 / s,
                    _ => 1.0,
                }
            }
            Measure::Katz { .. } => 1.0,
        };
        change = r.sum_f64(|v| {
            let old = x[v as usize].load();
            let new = next_value(cfg.measure, old, acc[v as usize].load()) * scale;
            x[v as usize].store(new);
            (new - old).abs()
        });
        converged = change < nf * cfg.tolerance;
    }
    let mut score: Vec<f64> = x.into_iter().map(AtomicF64::into_inner).collect();
    if let Measure::Katz {
        normalized: true, ..
    } = cfg.measure
    {
        if converged {
            normalize(&mut score);
        }
    }
    Ok(PowerResult {
        score,
        iterations,
        last_change: change,
        converged,
    })
}

/// Scales `x` to unit Euclidean norm (left as it is when all zero).
fn normalize(x: &mut [f64]) {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    if norm > 0.0 {
        x.iter_mut().for_each(|v| *v /= norm);
    }
}

fn unweighted() -> Error {
    Error::Invalid(
        "--weighted needs edge weights and this graph has none: convert a `u v w` edge list \
         with --weighted (or leave out --weighted to count every edge as 1)"
            .into(),
    )
}

/// The same iteration serially on the out-lists in memory, stopping by
/// the same rule: the reference.
// Verifiers index several per-vertex arrays by the same vertex.
#[allow(clippy::needless_range_loop)]
pub fn serial(g: &Csr, cfg: &PowerConfig) -> (Vec<f64>, u32, bool) {
    let n = g.vertex_count() as usize;
    let mut x = vec![start(cfg.measure, n as u64); n];
    let mut iterations = 0;
    let mut converged = n == 0;
    while !converged && iterations < cfg.max_iterations {
        iterations += 1;
        let mut acc = vec![0.0; n];
        for u in 0..n {
            let w = g.weights(u as VertexId);
            for (i, &v) in g.neighbors(u as VertexId).iter().enumerate() {
                let wi = if cfg.weighted { w[i] as f64 } else { 1.0 };
                acc[v as usize] += x[u] * wi;
            }
        }
        let mut new: Vec<f64> = (0..n)
            .map(|v| next_value(cfg.measure, x[v], acc[v]))
            .collect();
        if cfg.measure == Measure::Eigenvector {
            normalize(&mut new);
        }
        let change: f64 = (0..n).map(|v| (new[v] - x[v]).abs()).sum();
        x = new;
        converged = change < n as f64 * cfg.tolerance;
    }
    if let Measure::Katz {
        normalized: true, ..
    } = cfg.measure
    {
        if converged {
            normalize(&mut x);
        }
    }
    (x, iterations, converged)
}

/// Checks `res` against [`serial`]: the same convergence, and an L1
/// distance within twice the stopping bound (the runs may stop one
/// iteration apart when a change lies at the bound) plus rounding.
pub fn verify(g: &Csr, cfg: &PowerConfig, res: &PowerResult) -> Verdict {
    let (want, iterations, converged) = serial(g, cfg);
    if converged != res.converged {
        fail!(
            "converged: {} after {} iterations, a serial iteration says {converged} after \
             {iterations}",
            res.converged,
            res.iterations
        );
    }
    if !converged {
        return Ok(());
    }
    let n = want.len() as f64;
    let l1: f64 = want
        .iter()
        .zip(&res.score)
        .map(|(a, b)| (a - b).abs())
        .sum();
    let scale = want.iter().map(|v| v.abs()).sum::<f64>().max(1.0);
    let bound = 2.0 * n * cfg.tolerance + 1e-9 * scale;
    if l1 > bound || res.iterations.abs_diff(iterations) > 1 {
        fail!(
            "L1 distance to the serial iteration is {l1:.3e} (bound {bound:.3e}), after {} \
             iterations against {iterations}",
            res.iterations
        );
    }
    Ok(())
}

impl PowerResult {
    /// Figures for the run summary: iterations, convergence, the top five.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let top = super::top_k(self.score.len(), 5, |v| self.score[v]);
        serde_json::json!({
            "iterations": self.iterations,
            "last_change": self.last_change,
            "converged": self.converged,
            "top": top.iter().map(|&v| serde_json::json!([g.label(v as VertexId), self.score[v]])).collect::<Vec<_>>(),
        })
    }
}

const TOLERANCE: Param = Param::with_default(
    "tolerance",
    Kind::Float,
    "1e-6",
    "Stop at the first iteration whose L1 change is below the vertex count times this \
     (networkx's tol).",
);
const WEIGHTED: Param = Param::optional(
    "weighted",
    Kind::Flag,
    "Weigh each edge by its weight (networkx's weight=\"weight\"); without it every edge \
     counts 1 (networkx's default weight=None).",
);

fn config_with(p: &Params, g: &Graph, measure: Measure) -> Result<PowerConfig> {
    let weighted = p.flag("weighted")?;
    if weighted && !g.weighted() {
        return Err(unweighted());
    }
    let cfg = PowerConfig {
        measure,
        max_iterations: p.u32("max-iterations")?,
        tolerance: p.f64("tolerance")?,
        weighted,
    };
    check(&cfg)?;
    Ok(cfg)
}

fn config_json(c: &PowerConfig) -> serde_json::Value {
    let mut j = serde_json::json!({"max_iterations": c.max_iterations,
        "tolerance": c.tolerance, "weighted": c.weighted});
    if let Measure::Katz {
        alpha,
        beta,
        normalized,
    } = c.measure
    {
        j["alpha"] = alpha.into();
        j["beta"] = beta.into();
        j["normalized"] = normalized.into();
    }
    j
}

/// Eigenvector centrality as a registered algorithm (`grotto run eigenvector`).
pub struct Eigenvector;

impl Algorithm for Eigenvector {
    const NAME: &'static str = "eigenvector";
    const ABOUT: &'static str =
        "Eigenvector centrality by power iteration with A + I, scaled to unit Euclidean norm \
         (networkx's eigenvector_centrality; in-neighbours count on directed graphs).";
    const PARAMS: &'static [Param] = &[
        Param::with_default("max-iterations", Kind::Int, "100", "Iteration cap."),
        TOLERANCE,
        WEIGHTED,
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = PowerConfig;
    type Output = PowerResult;

    /// Every iteration reads every block once.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<PowerConfig> {
        config_with(p, g, Measure::Eigenvector)
    }
    fn config_json(_: &Graph, _: &Params, c: &PowerConfig) -> Result<serde_json::Value> {
        Ok(config_json(c))
    }
    fn run_sync(r: &mut Run<'_>, c: &PowerConfig) -> Result<PowerResult> {
        run(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PowerConfig, out: &PowerResult) -> Verdict {
        verify(csr, c, out)
    }
    /// `vertex,score`.
    fn table(g: &Arc<Graph>, out: PowerResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("score", Values::F64(out.score));
        t
    }
    fn summary(g: &Graph, out: &PowerResult) -> serde_json::Value {
        out.summary(g)
    }
}

/// Katz centrality as a registered algorithm (`grotto run katz`).
pub struct Katz;

impl Algorithm for Katz {
    const NAME: &'static str = "katz";
    const ABOUT: &'static str =
        "Katz centrality by power iteration, x = alpha A x + beta (networkx's katz_centrality; \
         in-neighbours count on directed graphs); converges for alpha below the inverse of the \
         largest eigenvalue.";
    const PARAMS: &'static [Param] = &[
        Param::with_default("alpha", Kind::Float, "0.1", "Attenuation factor."),
        Param::with_default("beta", Kind::Float, "1", "Weight every vertex gets."),
        Param::with_default("max-iterations", Kind::Int, "1000", "Iteration cap."),
        TOLERANCE,
        Param::optional(
            "unnormalized",
            Kind::Flag,
            "Leave the scores unscaled (networkx's normalized=False); by default they are \
             scaled to unit Euclidean norm.",
        ),
        WEIGHTED,
    ];
    const SYNC: OnSync = OnSync::Native;
    const ASYNC: bool = false;
    type Config = PowerConfig;
    type Output = PowerResult;

    /// Every iteration reads every block once.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Sync
    }
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<PowerConfig> {
        let measure = Measure::Katz {
            alpha: p.f64("alpha")?,
            beta: p.f64("beta")?,
            normalized: !p.flag("unnormalized")?,
        };
        config_with(p, g, measure)
    }
    fn config_json(_: &Graph, _: &Params, c: &PowerConfig) -> Result<serde_json::Value> {
        Ok(config_json(c))
    }
    fn run_sync(r: &mut Run<'_>, c: &PowerConfig) -> Result<PowerResult> {
        run(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PowerConfig, out: &PowerResult) -> Verdict {
        verify(csr, c, out)
    }
    /// `vertex,score`.
    fn table(g: &Arc<Graph>, out: PowerResult) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("score", Values::F64(out.score));
        t
    }
    fn summary(g: &Graph, out: &PowerResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SyncEngine;
    use crate::testkit;

    fn run_all(tg: &testkit::TestGraph, cfg: &PowerConfig) -> PowerResult {
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let mut last = None;
        for ec in testkit::configs() {
            let e = SyncEngine::open(tg.graph.clone(), ec).unwrap();
            let (res, _) = e.run(|r| run(r, cfg)).unwrap();
            verify(&csr, cfg, &res).unwrap();
            last = Some(res);
        }
        last.unwrap()
    }

    fn eigen() -> PowerConfig {
        PowerConfig {
            measure: Measure::Eigenvector,
            max_iterations: 100,
            tolerance: 1e-6,
            weighted: false,
        }
    }

    /// A star's centre against its leaves: the principal eigenvector of
    /// K(1, m) has the centre at sqrt(m) times a leaf, and unit norm.
    #[test]
    fn a_star_has_the_known_eigenvector() {
        let edges: Vec<(u64, u64)> = (1..=16).map(|l| (0, l)).collect();
        let tg = testkit::from_edges(&edges, true, false);
        let cfg = PowerConfig {
            tolerance: 1e-12,
            max_iterations: 1000,
            ..eigen()
        };
        let res = run_all(&tg, &cfg);
        assert!(res.converged);
        let hub = tg.graph.vertex_of(0).unwrap() as usize;
        let leaf = tg.graph.vertex_of(1).unwrap() as usize;
        assert!(
            (res.score[hub] / res.score[leaf] - 4.0).abs() < 1e-9,
            "{:?}",
            res.score
        );
        let norm: f64 = res.score.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-12);
    }

    /// Katz on a directed path 0 -> 1 -> 2: x2 = beta (1 + alpha + alpha^2)
    /// and so on, exactly, before scaling.
    #[test]
    fn katz_on_a_path_sums_the_attenuated_walks() {
        let tg = testkit::from_edges(&[(0, 1), (1, 2)], false, false);
        let cfg = PowerConfig {
            measure: Measure::Katz {
                alpha: 0.5,
                beta: 1.0,
                normalized: false,
            },
            max_iterations: 1000,
            tolerance: 1e-9,
            weighted: false,
        };
        let res = run_all(&tg, &cfg);
        let at = |x: u64| res.score[tg.graph.vertex_of(x).unwrap() as usize];
        assert_eq!((at(0), at(1), at(2)), (1.0, 1.5, 1.75));
    }

    /// An alpha past the inverse of the largest eigenvalue diverges: not
    /// converged, and the verifier agrees.
    #[test]
    fn katz_past_the_spectral_radius_does_not_converge() {
        let tg = testkit::from_edges(&testkit::grid_edges(4, 4), true, false);
        let cfg = PowerConfig {
            measure: Measure::Katz {
                alpha: 0.9,
                beta: 1.0,
                normalized: true,
            },
            max_iterations: 200,
            tolerance: 1e-6,
            weighted: false,
        };
        assert!(!run_all(&tg, &cfg).converged);
    }

    #[test]
    fn rmat_and_weighted_graphs_match_the_serial_iteration() {
        run_all(&testkit::rmat(10, 8, 2, true), &eigen());
        run_all(&testkit::rmat(10, 8, 2, false), &eigen());
        let w = testkit::weighted_rmat(9, 6, 4, true);
        run_all(
            &w,
            &PowerConfig {
                weighted: true,
                ..eigen()
            },
        );
        run_all(
            &w,
            &PowerConfig {
                measure: Measure::Katz {
                    alpha: 0.01,
                    beta: 1.0,
                    normalized: true,
                },
                max_iterations: 1000,
                weighted: true,
                ..eigen()
            },
        );
    }

    /// The verifier catches a wrong score.
    #[test]
    fn the_verifier_catches_a_wrong_score() {
        let tg = testkit::star(8);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let mut res = run_all(&tg, &eigen());
        res.score[0] += 0.01;
        assert!(verify(&csr, &eigen(), &res).is_err());
    }
}

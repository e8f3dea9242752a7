//! Single-source personalized PageRank by forward push (Andersen, Chung
//! and Lang), on the asynchronous engine.
//!
//! Definition: the stationary distribution of a walk that, at each step,
//! stops at its vertex with probability `alpha` (restarting from the
//! source) and otherwise moves to a uniformly chosen out-neighbour; a
//! vertex without out-edges sends the walk back to the source. This is
//! `networkx.pagerank(G, alpha=1-alpha, personalization={s: 1},
//! dangling={s: 1})`.
//!
//! Push keeps an estimate `p` and a residual `r` (initially all mass at
//! the source). Processing `v` moves `alpha * r(v)` into `p(v)` and
//! spreads the rest over its out-neighbours; a vertex must run while its
//! residual is at least its threshold `epsilon * max(outdeg, 1)`, larger
//! residuals per edge first. Out of core the order of runs decides how
//! often each block is read, so the thresholds that schedule a read start
//! high and fall by 8x per phase down to the final ones, and a vertex
//! with at least an eighth of its threshold runs whenever its block is
//! read for another one ([`Priority::DEFER`]): at the default epsilon on
//! rmat22 with a 3% cache this reads each block ~17 times instead of
//! ~175. Mass is conserved, so the exact answer is `p` plus the
//! PPR of what is left in `r`: the L1 error is exactly the residual left,
//! at most `epsilon * sum(max(outdeg, 1))`. The verifier checks every
//! residual is below its threshold and the L1 distance to a serial power
//! iteration is within the residual left.

use super::output::{Table, Values};
use super::reference::Csr;
use super::registry::{Algorithm, EngineKind, Kind, OnSync, Param, Params, Setting, SEED, SOURCE};
use super::{fail, push_run, AtomicF64, Residual, Verdict, PHASE_STEP};
use crate::engine::{AsyncRun, AtomicBitmap, Flow, Priority, Seeds};
use crate::error::{Error, Result};
use crate::store::Graph;
use crate::VertexId;
use std::sync::Arc;

/// Settings of personalized PageRank.
#[derive(Clone, Debug)]
pub struct PprConfig {
    /// The source (internal id).
    pub source: VertexId,
    /// Stop (restart) probability (default 0.15).
    pub alpha: f64,
    /// Residual threshold per out-edge (default 1e-9).
    pub epsilon: f64,
}

/// Scores, in internal ids.
#[derive(Clone, Debug)]
pub struct PprResult {
    /// The source.
    pub source: VertexId,
    /// Estimate per vertex.
    pub score: Vec<f64>,
    /// Residual left per vertex.
    pub residual: Vec<f64>,
    /// Total residual left: the exact L1 error of `score`.
    pub residual_sum: f64,
    /// The epsilon used.
    pub epsilon: f64,
}

/// Fraction of its threshold from which a vertex runs if its block is
/// read anyway (see `run_async`): one phase step below the threshold.
const LAZY: f64 = 1.0 / PHASE_STEP;

fn threshold(eps: f64, deg: u64) -> f64 {
    eps * deg.max(1) as f64
}

/// The smallest epsilon a run on `g` takes: `f64::EPSILON / (entries +
/// n)`. Below it the error bound, `epsilon * sum(max(outdeg, 1))`, is
/// under one rounding step of the total score 1.0, so no push could
/// make the result measurably better, and the residuals left are
/// rounding noise that a push keeps moving without end (at 5e-324 a run
/// never finishes). The mean score is 1/n, so this also keeps epsilon
/// within f64's resolution of the scores.
pub fn min_epsilon(g: &Graph) -> f64 {
    let mass = g.header().out_entries.saturating_add(g.vertex_count());
    f64::EPSILON / mass.max(1) as f64
}

/// Refuses an `alpha` or `epsilon` the push cannot finish with on `g`.
fn check_config(g: &Graph, alpha: f64, eps: f64) -> Result<()> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(Error::Invalid(format!(
            "--alpha {alpha} must lie strictly between 0 and 1"
        )));
    }
    if !(eps > 0.0 && eps < 1.0) {
        return Err(Error::Invalid(format!(
            "--epsilon {eps} must lie strictly between 0 and 1"
        )));
    }
    let least = min_epsilon(g);
    if eps < least {
        // Two digits, rounded up: the value shown is accepted.
        let exp = least.log10().floor();
        let mantissa = (least / 10f64.powf(exp) * 10.0).ceil() / 10.0;
        return Err(Error::Invalid(format!(
            "--epsilon {eps:e} is finer than f64 can resolve on this graph ({} vertices, {} \
             out-entries): the error bound epsilon x (entries + vertices) would be below the \
             rounding step of the total score 1.0 ({:.1e}), and the push would chase rounding \
             noise without end; give at least {mantissa}e{exp} (default 1e-9)",
            g.vertex_count(),
            g.header().out_entries,
            f64::EPSILON
        )));
    }
    Ok(())
}

/// Runs forward push on the asynchronous engine.
pub fn run_async(r: &mut AsyncRun<'_>, cfg: &PprConfig) -> Result<PprResult> {
    let (alpha, eps, s) = (cfg.alpha, cfg.epsilon, cfg.source);
    check_config(r.graph(), alpha, eps)?;
    let out = r.graph().out();
    // Scores, and residuals beside their thresholds so that a push along
    // an edge touches one cache line: 24 bytes a vertex, allocated
    // zeroed, so a local run pays only for the pages of the vertices it
    // reaches. A vertex's threshold is set when it first receives mass
    // (which marks it in `reached`); every vertex with a score or a
    // residual is in `reached`. (A threshold read from the degree at
    // each push instead costs a second cache miss per edge behind each
    // compare-and-swap: 1.5x the CPU time at the default epsilon.)
    let p: Vec<AtomicF64> = r.zeroed()?;
    let cell: Vec<Residual> = r.zeroed()?;
    let reached = AtomicBitmap::new(r.vertex_count());
    let at = |u: VertexId, c: &Residual| {
        let t = c.at.load();
        if t > 0.0 {
            return t;
        }
        // Two threads may both get here: they store the same value.
        let t = threshold(eps, out.degree(u));
        c.at.store(t);
        reached.insert(u as u64);
        t
    };
    at(s, &cell[s as usize]);
    let dangling = AtomicF64::new(0.0);
    cell[s as usize].res.store(1.0);
    // Phases: a vertex schedules its block when its residual reaches
    // `scale` times its threshold. `scale` starts where the source's mass
    // is within one step of it and falls by PHASE_STEP each time no vertex
    // is over it, down to 1. Below that, from LAZY times its threshold
    // up, a vertex is deferred: it runs when its block is read for
    // another vertex. A block read then serves every vertex in it with a
    // fair share of work, instead of being read again for each in turn.
    let mut scale = 1.0;
    while scale * PHASE_STEP * cell[s as usize].at.load() < 1.0 {
        scale *= PHASE_STEP;
    }
    let mut seeds = vec![(s, Priority::FIRST)];
    loop {
        r.flow_runs(
            &Flow::default(),
            Seeds::List(&seeds),
            |v| {
                let x = cell[v as usize].res.swap(0.0);
                if x <= 0.0 {
                    return None;
                }
                p[v as usize].add(alpha * x);
                let d = out.degree(v);
                if d == 0 {
                    dangling.add((1.0 - alpha) * x);
                    return None;
                }
                Some((1.0 - alpha) * x / d as f64)
            },
            |m, nb, act| {
                push_run(&cell, nb.ids, m, |u, c, old| {
                    let t = at(u, c);
                    let (now, hi, lo) = (old + m, scale * t, LAZY * t);
                    if old < hi && now >= hi {
                        act.activate(u, Priority::descending_log2((now / t) as f32));
                    } else if old < lo && now >= lo {
                        act.activate(u, Priority::DEFER);
                    }
                })
            },
        )?;
        // Mass that reached vertices without out-edges restarts at the
        // source.
        cell[s as usize].res.add(dangling.swap(0.0));
        // Every vertex over LAZY times its threshold is the source or is
        // still active (deferred): the next seeds are those over the
        // phase's threshold, lowering it until some are (or it is final).
        let mut left = r.active_vertices();
        left.push(s);
        seeds = loop {
            let over: Vec<(VertexId, Priority)> = left
                .iter()
                .filter_map(|&v| {
                    let c = &cell[v as usize];
                    let (x, t) = (c.res.load(), c.at.load());
                    (x >= scale * t).then(|| (v, Priority::descending_log2((x / t) as f32)))
                })
                .collect();
            if !over.is_empty() || scale <= 1.0 {
                break over;
            }
            scale = (scale / PHASE_STEP).max(1.0);
        };
        if seeds.is_empty() {
            break;
        }
        seeds.sort_unstable();
        seeds.dedup_by_key(|e| e.0);
    }
    // The result: zeroed vectors filled at the reached vertices only,
    // range by range in parallel; each table is dropped once read, so a
    // run that reaches every vertex peaks at 32 bytes a vertex.
    let fill = |from: &(dyn Fn(usize) -> f64 + Sync), out: &mut Vec<f64>| {
        r.for_ranges(out, |lo, part| {
            let mut members = Vec::new();
            let words = (lo / 64) as usize;
            reached.members_in_words(words, words + part.len().div_ceil(64), &mut members);
            members
                .into_iter()
                .map(|v| {
                    let x = from(v as usize);
                    part[(v - lo) as usize] = x;
                    x
                })
                .sum::<f64>()
        })
    };
    let mut score: Vec<f64> = r.zeroed()?;
    fill(&|v| p[v].load(), &mut score);
    drop(p);
    let mut residual: Vec<f64> = r.zeroed()?;
    let residual_sum = fill(&|v| cell[v].res.load(), &mut residual)
        .into_iter()
        .sum();
    drop(cell);
    Ok(PprResult {
        source: s,
        score,
        residual_sum,
        residual,
        epsilon: eps,
    })
}

/// Serial power iteration of the same definition (the reference).
pub fn serial(g: &Csr, s: VertexId, alpha: f64) -> Vec<f64> {
    let n = g.vertex_count() as usize;
    let mut x = vec![0.0; n];
    x[s as usize] = 1.0;
    for _ in 0..10_000 {
        let mut next = vec![0.0; n];
        let mut back = alpha;
        for (u, &xu) in x.iter().enumerate() {
            let nb = g.neighbors(u as VertexId);
            if nb.is_empty() {
                back += (1.0 - alpha) * xu;
                continue;
            }
            let share = (1.0 - alpha) * xu / nb.len() as f64;
            for &v in nb {
                next[v as usize] += share;
            }
        }
        next[s as usize] += back;
        let change: f64 = next.iter().zip(&x).map(|(a, b)| (a - b).abs()).sum();
        x = next;
        if change < 1e-15 {
            break;
        }
    }
    x
}

/// Checks the push invariants and the L1 error against power iteration.
pub fn verify(g: &Csr, alpha: f64, res: &PprResult) -> Verdict {
    for (v, &x) in res.residual.iter().enumerate() {
        let t = threshold(res.epsilon, g.neighbors(v as VertexId).len() as u64);
        if x >= t || x < 0.0 {
            fail!("vertex {v} is left with residual {x:.3e}, its threshold is {t:.3e}");
        }
    }
    let want = serial(g, res.source, alpha);
    let l1: f64 = want
        .iter()
        .zip(&res.score)
        .map(|(a, b)| (a - b).abs())
        .sum();
    let bound = res.residual_sum + 1e-9;
    if l1 > bound {
        fail!(
            "L1 distance to power iteration is {l1:.3e}, more than the residual left {bound:.3e}"
        );
    }
    Ok(())
}

impl PprResult {
    /// Per-vertex `vertex,score` in the user's ids.
    pub fn into_table(self, g: &Arc<Graph>) -> Table {
        let mut t = Table::for_graph(g.clone());
        t.push("score", Values::F64(self.score));
        t
    }

    /// Figures for the run summary.
    pub fn summary(&self, g: &Graph) -> serde_json::Value {
        let top: Vec<(usize, f64)> = super::top_k(self.score.len(), 5, |v| self.score[v])
            .into_iter()
            .map(|v| (v, self.score[v]))
            .collect();
        serde_json::json!({
            "source": g.label(self.source),
            "residual_left": self.residual_sum,
            "top": top.iter().map(|&(v, x)| serde_json::json!([g.label(v as VertexId), x])).collect::<Vec<_>>(),
        })
    }
}

/// Personalized PageRank as a registered algorithm (`grotto run ppr`).
pub struct Ppr;

impl Algorithm for Ppr {
    const NAME: &'static str = "ppr";
    const ABOUT: &'static str =
        "Personalized PageRank from one source by forward push (async engine).";
    const PARAMS: &'static [Param] = &[
        SOURCE,
        SEED,
        Param::with_default("alpha", Kind::Float, "0.15", "Restart probability."),
        Param::with_default(
            "epsilon",
            Kind::Float,
            "1e-9",
            "Residual threshold per out-edge; the L1 error is the residual left, at most epsilon x sum of degrees.",
        ),
    ];
    const SYNC: OnSync = OnSync::Unsupported;
    const ASYNC: bool = true;
    type Config = PprConfig;
    type Output = PprResult;

    /// Only the asynchronous engine runs it.
    fn preferred(_: &Graph) -> EngineKind {
        EngineKind::Async
    }
    /// Refuses, before the run, settings it could not finish with.
    fn config(g: &Graph, p: &Params, _: &Setting) -> Result<PprConfig> {
        let (alpha, epsilon) = (p.f64("alpha")?, p.f64("epsilon")?);
        check_config(g, alpha, epsilon)?;
        Ok(PprConfig {
            source: p.source(g)?,
            alpha,
            epsilon,
        })
    }
    fn config_json(g: &Graph, p: &Params, c: &PprConfig) -> Result<serde_json::Value> {
        Ok(
            serde_json::json!({"source": g.label(c.source), "seed": p.u64("seed")?,
            "alpha": c.alpha, "epsilon": c.epsilon}),
        )
    }
    fn run_async(r: &mut AsyncRun<'_>, c: &PprConfig) -> Result<PprResult> {
        run_async(r, c)
    }
    fn verify(_: &Graph, csr: &Csr, c: &PprConfig, out: &PprResult) -> Verdict {
        verify(csr, c.alpha, out)
    }
    fn table(g: &Arc<Graph>, out: PprResult) -> Table {
        out.into_table(g)
    }
    fn summary(g: &Graph, out: &PprResult) -> serde_json::Value {
        out.summary(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::AsyncEngine;
    use crate::store::Direction;
    use crate::testkit;

    #[test]
    fn push_is_within_its_guarantee_in_every_configuration() {
        for tg in [
            testkit::rmat(10, 8, 3, true),
            testkit::rmat(9, 4, 4, false),
            testkit::star(2000),
        ] {
            let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
            let s = super::super::pick_source(&tg.graph, 1).unwrap();
            for cfg in testkit::configs() {
                let e = AsyncEngine::open(tg.graph.clone(), cfg.clone()).unwrap();
                let c = PprConfig {
                    source: s,
                    alpha: 0.15,
                    epsilon: 1e-7,
                };
                let (res, _) = e.run(|r| run_async(r, &c)).unwrap();
                verify(&csr, 0.15, &res).unwrap_or_else(|e| panic!("{cfg:?}: {e}"));
                let total: f64 = res.score.iter().sum::<f64>() + res.residual_sum;
                assert!((total - 1.0).abs() < 1e-9, "mass {total}");
            }
        }
    }

    #[test]
    fn verifier_catches_a_wrong_score() {
        let tg = testkit::rmat(8, 8, 3, true);
        let csr = Csr::load(&tg.graph, Direction::Out).unwrap();
        let e = AsyncEngine::open(tg.graph.clone(), Default::default()).unwrap();
        let c = PprConfig {
            source: 1,
            alpha: 0.15,
            epsilon: 1e-8,
        };
        let (mut res, _) = e.run(|r| run_async(r, &c)).unwrap();
        verify(&csr, 0.15, &res).unwrap();
        res.score[2] += 0.01;
        assert!(verify(&csr, 0.15, &res).is_err());
    }
}

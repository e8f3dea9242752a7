//! PageRank by forward push on the asynchronous engine, unweighted and
//! weighted (the sync engine's power iteration is in the parent module).

use super::{check, unweighted, PageRankConfig, PageRankResult, Precision, Semantics};
use crate::algo::{push_run, push_run_weighted, AtomicF64, Residual, PHASE_STEP};
use crate::engine::{AsyncRun, Flow, Priority, Seeds};
use crate::error::{Error, Result};
use crate::VertexId;
use std::sync::Mutex;

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
    // What a vertex's score is split by: its out-weight or out-degree.
    let out_weight = match cfg.weighted {
        true => Some(out_weights(r)?),
        false => None,
    };
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
    let score: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(0.0));
    let mut cell: Vec<Residual> = r.collect(|v| Residual {
        res: AtomicF64::new((1.0 - d) / nf),
        at: AtomicF64::new(threshold(v, scale_at)),
    });
    // Whether adding `x` to a residual that was `old` carried it to `at`.
    let crossed = |c: &Residual, old: f64, x: f64| {
        let at = c.at.load();
        old < at && old + x >= at
    };
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
            &Flow {
                weights: cfg.weighted,
                ..Flow::default()
            },
            from,
            |v| {
                let x = cell[v as usize].res.swap(0.0);
                if x <= 0.0 {
                    return None;
                }
                score[v as usize].add(x);
                let split = match &out_weight {
                    Some(w) => w[v as usize],
                    None => out.degree(v) as f64,
                };
                if split == 0.0 {
                    dangling.add(d * x);
                    return None;
                }
                Some(d * x / split)
            },
            |m, nb, act| {
                let mut then = |u: VertexId, c: &Residual, old: f64, m: f64| {
                    if crossed(c, old, m) {
                        act.activate(
                            u,
                            Priority::descending_log2(((old + m) / c.at.load()) as f32),
                        );
                    } else if old < lazy * c.at.load() && old + m >= lazy * c.at.load() {
                        act.activate(u, Priority::DEFER);
                    }
                };
                match nb.weights {
                    Some(w) if cfg.weighted => push_run_weighted(&cell, nb.ids, w, m, then),
                    _ => push_run(&cell, nb.ids, m, |u, c, old| then(u, c, old, m)),
                }
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
                    c.res.load() >= c.at.load()
                })
                .map(|v| (v, Priority::FIRST))
                .collect();
            if !list.is_empty() || scale_at <= 1.0 {
                break list;
            }
            scale_at = (scale_at / PHASE_STEP).max(1.0);
            for (v, c) in cell.iter_mut().enumerate() {
                c.at.store(threshold(v as VertexId, scale_at));
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
        // In place: no second array of scores.
        score: score
            .into_iter()
            .zip(&cell)
            .map(|(x, c)| x.into_inner() + c.res.load() * scale)
            .collect(),
        iterations: passes,
        last_change: left / (1.0 - d),
        converged: left < cfg.tolerance * (1.0 - d) + 1e-15,
        style: "push",
        contributions: Precision::F64,
        gauss_seidel: 0,
    })
}

/// Each vertex's out-weight (the sum of its out-edges' weights), in one
/// pass over the out-edges and their weights; an error naming an edge
/// whose weight is negative, NaN or infinite.
fn out_weights(r: &mut AsyncRun<'_>) -> Result<Vec<f64>> {
    if !r.graph().weighted() {
        return Err(unweighted());
    }
    let sums: Vec<AtomicF64> = r.collect(|_| AtomicF64::new(0.0));
    let bad: Mutex<Option<(VertexId, VertexId, f32)>> = Mutex::new(None);
    r.flow_runs(
        &Flow {
            weights: true,
            ..Flow::default()
        },
        Seeds::All(Priority::FIRST),
        Some,
        |v: VertexId, nb, _| {
            let w = nb.weights.unwrap_or(&[]);
            if let Some(k) = w.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                let mut b = bad.lock().unwrap_or_else(|p| p.into_inner());
                b.get_or_insert((v, nb.ids[k], w[k]));
            }
            sums[v as usize].add(w.iter().map(|&x| x as f64).sum());
        },
    )?;
    if let Some((u, v, w)) = bad.into_inner().unwrap_or_else(|p| p.into_inner()) {
        let g = r.graph();
        return Err(Error::Invalid(format!(
            "edge {} -> {} has weight {w}: weighted PageRank needs finite, non-negative weights",
            g.label_text(u),
            g.label_text(v)
        )));
    }
    Ok(sums.into_iter().map(AtomicF64::into_inner).collect())
}
